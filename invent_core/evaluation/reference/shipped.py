"""The shipped references in ``assets/reference/*.json``: how they are found and matched.

:func:`for_settings` pools every reference file whose settings equal a run's on
:data:`MATCH_KEYS` (:func:`reference_settings`) into one :class:`ReferenceSet`
and, given the question, narrows it to the reference questions like it
(:func:`~invent_core.evaluation.reference.place`); :func:`for_run` does so for
a saved run artefact. A damaged file is left out with a warning naming it; a
copy of a file (the same values, labels and questions) is pooled once.

Which references: the shipped folder (:func:`reference_dir`) unless the caller
names another folder or one file of its own (``directory``). Nothing here reads
the environment: an entry point (the command line, the dashboard) reads
``$INVENT_REFERENCE_DIR`` once (:func:`invent_core.env.reference_override`) and
passes what it names down.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ...config import flat_values
from ...config.score import BEFORE_OPTIONS
from ...embedders import get_embedder
from ...env import assets_dir
from ...errors import InventWarning
from ...llm.names import describe_llm, local_model
from .neighbours import place, reference_sources
from .reference_set import ReferenceSet

#: Run options a reference must share with a run to be compared with it: the
#: ones that change the measure's scale or its spread (flat option names of
#: :func:`invent_core.config.flat_values`), plus the measure and the packaged
#: LLM. The dataset is not one of them: references of several datasets pool.
MATCH_KEYS: tuple[str, ...] = (
    "measure",
    "llm",
    "perturber",
    "n_perturbations",
    "n_replications",
    "temperature",
    "embedder",
    "affinity",
    "kernel_tau",
    "answer_similarity",
    "padding",
)

#: What a reference made before an option existed was made with: answers compared by
#: the embedder's cosine, copies of a question scored as states (the paper's ways).
LEGACY_SETTINGS: dict[str, Any] = dict(BEFORE_OPTIONS)


def reference_dir() -> Path:
    """Return the folder of shipped references, ``<repo>/assets/reference``."""
    return assets_dir() / "reference"


def reference_settings(config: Any, llm_identity: str | None, measure: str) -> dict[str, Any]:
    """Return the :data:`MATCH_KEYS` values of a run: what a reference for it must share.

    Parameters
    ----------
    config : the run's :class:`~invent_core.config.RunConfig`.
    llm_identity : the LLM's identity or spec; a packaged model is named
        (``"qwen0.5b"``), any other LLM by its readable name.
    measure : the method name (``"inv_entropy"``).
    """
    flat = flat_values(config)
    llm = local_model(llm_identity or "") or describe_llm(llm_identity or "")
    out = {"measure": measure, "llm": llm}
    out.update({k: flat[k] for k in MATCH_KEYS if k in flat})
    if out.get("affinity") != "exp_cosine":
        out.pop("kernel_tau", None)  # τ only shapes the exp_cosine kernel
    return out


#: Loaded reference files by (path, mtime, size): every run now places its question
#: (the pipeline does, whoever saves the run), so each file is parsed once per change.
#: Each with the digest of what it holds (values, labels, questions), so a copy counts once.
_LOADED: dict[tuple[str, int, int], tuple[ReferenceSet, str]] = {}
#: Versions of files found damaged: each is warned about once.
_DAMAGED: set[tuple[str, int, int]] = set()


def _digest(ref: ReferenceSet) -> str:
    h = hashlib.sha256(json.dumps(ref.settings, sort_keys=True, default=str).encode())
    h.update(np.ascontiguousarray(ref.values, dtype=np.float64).tobytes())
    if ref.correct is not None:
        h.update(np.ascontiguousarray(ref.correct, dtype=np.int64).tobytes())
    h.update("\0".join(ref.questions or ()).encode())
    return h.hexdigest()


def _load(path: Path) -> tuple[ReferenceSet, str] | None:
    """:meth:`ReferenceSet.load` and its digest, once per version of the file (read-only use).

    A file that cannot be read (truncated, not JSON, not a reference) is None,
    with one :class:`~invent_core.errors.InventWarning` naming it: its questions
    are missing from every placement, which a user must know.
    """
    st = path.stat()
    key = (str(path), st.st_mtime_ns, st.st_size)
    if key in _LOADED:
        return _LOADED[key]
    try:
        ref = ReferenceSet.load(path)
    except (OSError, ValueError, TypeError, KeyError) as err:
        if key not in _DAMAGED:
            _DAMAGED.add(key)
            warnings.warn(
                f"reference file {path} is damaged and left out ({str(err)[:120]}); questions "
                "are placed among the other reference files only",
                InventWarning,
                stacklevel=3,
            )
        return None
    _LOADED[key] = (ref, _digest(ref))
    return _LOADED[key]


def _reference_files(where: Path) -> list[Path]:
    """The reference files of a folder, or the one file named (``--reference FILE``)."""
    if where.is_file():
        return [where]
    return sorted(where.glob("*.json")) if where.is_dir() else []


def _matches(settings: Mapping[str, Any], wanted: Mapping[str, Any]) -> bool:
    return all(settings.get(k, LEGACY_SETTINGS.get(k)) == v for k, v in wanted.items())


def for_settings(
    config: Any,
    *,
    llm_identity: str | None = "local",
    measure: str = "inv_entropy",
    directory: str | Path | None = None,
    question: str | None = None,
    embedder: Any = None,
    task: str | None = None,
) -> ReferenceSet | None:
    """Return the shipped reference for a run's settings, or None when none matches.

    Every reference file whose settings equal the run's on :data:`MATCH_KEYS`
    (see :func:`reference_settings`) is pooled into one set; its ``settings``
    are the matched values plus ``datasets`` (where the questions came from)
    and ``files``. Labels are kept only when every pooled file has them.
    With ``question``, the pooled set is narrowed by :func:`place` to the
    reference questions like it (``embedder``: the run's, by default the
    config's packaged one; ``task``: the run's answer format).

    Examples
    --------
    >>> from invent_core.config import RunConfig
    >>> ref = for_settings(RunConfig(n_perturbations=2))  # doctest: +SKIP
    >>> ref is None or ref.settings["n_perturbations"] == 2  # doctest: +SKIP
    True
    """
    wanted = reference_settings(config, llm_identity, measure)
    folder = Path(directory) if directory is not None else reference_dir()
    found, seen = [], set()
    for path in _reference_files(folder):
        loaded = _load(path)  # a damaged file is no reference (warned); the others still count
        if loaded is None or loaded[1] in seen:
            continue  # a copy of a file already pooled counts once
        if _matches(loaded[0].settings, wanted):
            found.append((path, loaded[0]))
            seen.add(loaded[1])
    if not found:
        return None
    pooled = _pool(found, wanted)
    if question is None:
        return pooled
    if embedder is None:
        embedder = get_embedder(config.score.embedder)
    return place(pooled, question, embedder, task=task)


def for_run(
    run: Any,
    *,
    measure: str = "inv_entropy",
    embedder: Any = None,
    directory: str | Path | None = None,
) -> ReferenceSet | None:
    """The reference questions like a :class:`~invent_core.engine.artifact.RunArtifact`'s question.

    Same settings (its config and LLM) and answer format (its task), narrowed to
    the question's nearest by :func:`place`; ``directory`` as in :func:`for_settings`.
    """
    return for_settings(
        run.config,
        llm_identity=run.identities.get("llm"),
        measure=measure,
        directory=directory,
        question=run.question,
        embedder=embedder,
        task=run.task,
    )


def _pool(found: Sequence[tuple[Path, ReferenceSet]], wanted: Mapping[str, Any]) -> ReferenceSet:
    """One set of every matched file; per-question texts and embeddings only when all have them."""
    refs = [ref for _, ref in found]
    values = np.concatenate([ref.values for ref in refs])
    labelled = all(ref.has_labels for ref in refs)
    correct = np.concatenate([ref.correct for ref in refs]) if labelled else None
    datasets = sorted({str(ref.settings.get("dataset", "?")) for ref in refs})
    settings = {**wanted, "datasets": datasets, "files": [p.name for p, _ in found]}
    embedded = all(r.embeddings is not None and r.questions is not None for r in refs)
    identities = {r.settings.get("question_embedder") for r in refs}
    if not embedded or len(identities) != 1:
        return ReferenceSet(values, correct, settings)
    settings["question_embedder"] = identities.pop()
    return ReferenceSet(
        values,
        correct,
        settings,
        questions=[q for r in refs for q in r.questions],
        sources=[s for r in refs for s in reference_sources(r)],
        embeddings=np.concatenate([r.embeddings for r in refs]),
    )
