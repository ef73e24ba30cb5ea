"""An evaluation made into a reference set: the shipped ones and one's own (``invent reference build``).

:func:`build_reference` turns an ``evaluate`` folder (``config.json``,
``scores.csv``, ``runs/``) into a :class:`~invent_core.evaluation.reference.ReferenceSet`
of one measure, in the format of the shipped references
(``invent.reference/1``): each question's value, its label, its text, its
dataset and its embedding by the run's embedder, and the settings a run must
share with it (:data:`~invent_core.evaluation.reference.MATCH_KEYS`).

A reviewer's relabels are a layer beside the evaluation, ``relabels.jsonl``,
applied by the one reader of an evaluation folder (:mod:`.folder`) with the
same rule as ``evaluate``, ``compare`` and ``report``: the last line of an id
wins, and a relabel made for another answer than the row now holds is not
applied. The judge's ``scores.csv`` is never changed; the set carries the labels as
relabelled and says how many were changed by hand (``settings["relabelled"]``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any

from ..config import RunConfig
from ..embedders import get_embedder
from ..evaluation.reference import MATCH_KEYS, ReferenceSet, reference_settings
from ..evaluation.reference.reference_set import kept_row
from ..provenance import BEFORE_PROVENANCE, provenance
from .folder import EvaluationFolder, read_evaluation
from .relabel import RELABELS

__all__ = [
    "build_reference",
    "llm_identity_of",
    "reference_file_name",
]


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


def _unknown_relabels(ev: EvaluationFolder, kept: set[str]) -> None:
    """Refuse relabels of questions the set does not hold (a typo in an id, another folder's)."""
    stale = ev.layer.stale if ev.layer is not None else ()
    unknown = sorted({line.split(":", 1)[0] for line in stale if line.endswith("no such question")})
    relabelled = set(ev.layer.reviewed) if ev.layer is not None else set()
    unknown += sorted(relabelled - kept)
    if unknown:
        raise ValueError(
            f"{ev.path / RELABELS}: {len(unknown)} relabelled question(s) not among the "
            f"scored questions of {ev.path / 'scores.csv'}: {', '.join(unknown[:5])}"
        )


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
    ev = read_evaluation(folder, relabels=relabels)  # the one reader: BOM, escapes, relabels
    folder, meta, cfg = ev.path, ev.meta, ev.meta.get("config")
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
    rows = [r for r in ev.rows if not r.get("error")]
    ref = ReferenceSet.from_rows(
        rows, measure=measure, settings=settings, where=str(folder / "scores.csv")
    )
    ref = dataclasses.replace(ref, provenance=reference_provenance(meta))
    if ev.layer is not None:
        _unknown_relabels(ev, {str(r["id"]) for r in rows if kept_row(r, measure)})
        if ref.correct is None:
            raise ValueError(f"{folder / 'scores.csv'}: unjudged rows; relabels need every label")
        changed = len(set(ev.layer.changed))
        ref = dataclasses.replace(ref, settings={**ref.settings, "relabelled": changed})
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
