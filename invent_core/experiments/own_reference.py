"""An evaluation made into a reference set: the shipped ones and one's own (``invent reference build``).

:func:`build_reference` turns an ``evaluate`` folder (``config.json``,
``scores.csv``, ``runs/``) into a :class:`~invent_core.evaluation.reference.ReferenceSet`
of one measure, in the format of the shipped references
(``invent.reference/1``): each question's value, its label, its text, its
dataset and its embedding by the run's embedder, and the settings a run must
share with it (:data:`~invent_core.evaluation.reference.MATCH_KEYS`).

A reviewer's relabels are a layer beside the evaluation, ``relabels.jsonl``:
one JSON object per line, the question's ``id`` (or ``question_id``) and its
new label under ``correct`` (or ``label``: true/false, 1/0, "right"/"wrong").
A later line for the same id overrides an earlier one (the file is appended
to). The judge's ``scores.csv`` is never changed; the set carries the labels as
relabelled and says how many were changed by hand (``settings["relabelled"]``).
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..config import RunConfig
from ..embedders import get_embedder
from ..evaluation.reference import MATCH_KEYS, ReferenceSet, reference_settings
from ..evaluation.reference.reference_set import kept_row
from ..provenance import BEFORE_PROVENANCE, provenance
from .relabel import RELABELS, folder_relabels

__all__ = [
    "build_reference",
    "llm_identity_of",
    "read_json_object",
    "read_meta",
    "read_relabels",
    "reference_file_name",
]


def read_relabels(folder: str | Path) -> dict[str, int]:
    """Question id → the reviewer's label (1 right, 0 wrong) from the folder's layer ({} without one).

    The layer is the Evaluation page's and ``evaluate --labels``'s
    (:mod:`.relabel`: ``id`` and ``label`` per line); the latest line for a
    question wins. A bad line is refused naming the file, the line and the field.
    """
    return {r.id: int(r.label) for r in folder_relabels(folder)}


def llm_identity_of(folder: Path) -> str | None:
    """The LLM identity recorded by the folder's saved runs (the first that has one)."""
    for path in sorted((folder / "runs").glob("*.json")):
        try:
            identities = json.loads(path.read_text(encoding="utf-8")).get("identities") or {}
        except (OSError, ValueError):
            continue
        if identities.get("llm"):
            return str(identities["llm"])
    return None


def read_json_object(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``; ValueError naming the file when it is not valid JSON or no object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))  # a BOM is read, as everywhere
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not UTF-8 text") from None
    except json.JSONDecodeError as err:
        raise ValueError(
            f"{path}: not valid JSON ({err.msg}: line {err.lineno}, column {err.colno})"
        ) from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object, got {type(data).__name__}")
    return data


def read_meta(folder: str | Path) -> dict[str, Any]:
    """``config.json`` of an evaluate folder; a clear error naming what is missing or damaged."""
    folder = Path(folder)
    for name in ("config.json", "scores.csv"):
        if not (folder / name).is_file():
            raise FileNotFoundError(f"{folder / name}: not found (not an evaluate folder)")
    return read_json_object(folder / "config.json")


def _scored_ids(folder: Path, measure: str) -> list[str]:
    """The ids of ``scores.csv``'s rows the set keeps, in its order (finite ``measure``)."""
    with open(folder / "scores.csv", newline="", encoding="utf-8") as fh:
        return [r.get("id") or "" for r in csv.DictReader(fh) if kept_row(r, measure)]


def _relabelled(ref: ReferenceSet, ids: list[str], relabels: Mapping[str, int], where: Path):
    """The set with the reviewer's labels; ValueError naming an id the evaluation lacks."""
    unknown = sorted(set(relabels) - set(ids))
    if unknown:
        raise ValueError(
            f"{where / RELABELS}: {len(unknown)} relabelled question(s) not among the "
            f"scored questions of {where / 'scores.csv'}: {', '.join(unknown[:5])}"
        )
    if ref.correct is None:
        raise ValueError(f"{where / 'scores.csv'}: unjudged rows; relabels need every label")
    correct = [relabels.get(qid, int(c)) for qid, c in zip(ids, ref.correct, strict=True)]
    changed = sum(int(a != int(b)) for a, b in zip(correct, ref.correct, strict=True))
    settings = {**ref.settings, "relabelled": changed}
    return dataclasses.replace(ref, correct=correct, settings=settings)


def build_reference(
    folder: str | Path, *, measure: str = "inv_entropy", relabels: bool = True, embedder: Any = None
) -> ReferenceSet:
    """The reference set of one evaluate folder and one measure, relabelled where reviewed.

    Parameters
    ----------
    folder : an ``evaluate`` output folder.
    measure : the method whose values the set holds (a column of ``scores.csv``).
    relabels : apply ``folder/relabels.jsonl`` when there is one.
    embedder : embeds the question texts (default: the evaluation's own embedder).

    Raises
    ------
    FileNotFoundError, ValueError
        Naming the file (and line) that is missing or damaged.
    """
    folder = Path(folder)
    meta = read_meta(folder)
    cfg = meta.get("config")
    if not isinstance(cfg, dict):
        raise ValueError(f"{folder / 'config.json'}: no 'config' object (not written by evaluate)")
    config = RunConfig.from_dict(cfg["run"]) if "run" in cfg else RunConfig.from_settings(cfg)
    settings = reference_settings(config, llm_identity_of(folder), measure)
    settings |= {
        "dataset": cfg.get("dataset") or Path(str(cfg.get("data"))).stem,
        "seed": config.seed,
        "sample": meta.get("sample", ""),
        "source": folder.name,
    }
    ref = ReferenceSet.from_scores_csv(folder / "scores.csv", measure=measure, settings=settings)
    ref = dataclasses.replace(ref, provenance=reference_provenance(meta))
    layer = read_relabels(folder) if relabels else {}
    if layer:
        ref = _relabelled(ref, _scored_ids(folder, measure), layer, folder)
    if ref.questions is None:
        return ref  # an old scores.csv without questions: a pooled-only reference
    return ref.with_embeddings(embedder or get_embedder(config.score.embedder))


def reference_provenance(meta: dict) -> dict:
    """The code that built the set, and that of the evaluation it was built from."""
    return {**provenance(), "scores": meta.get("provenance") or {"source": BEFORE_PROVENANCE}}


def reference_file_name(ref: ReferenceSet) -> str:
    """``<source>__<measure>__<8 hex of the matched settings>.json``.

    ``<source>`` is the evaluate folder's name without ``evaluate-``
    (``arithmetic``, ``arithmetic-heldout``): two samples of one dataset with
    the same settings are two files, both pooled by ``for_settings``.
    """
    key = json.dumps({k: ref.settings.get(k) for k in MATCH_KEYS}, sort_keys=True)
    digest = hashlib.sha1(key.encode()).hexdigest()[:8]
    source = str(ref.settings.get("source") or ref.settings["dataset"]).removeprefix("evaluate-")
    return f"{source}__{ref.settings['measure']}__{digest}.json"
