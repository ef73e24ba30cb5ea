"""Placing a question among the reference questions like it: its nearest by question text.

:func:`place` embeds the question with the run's embedder, compares it with the
reference's (k, d) question embeddings (same answer format only:
:func:`answer_format`) and keeps those of its :data:`K_NEAREST` nearest that
pass the similarity floor and the local ratio (:func:`local_radii`); it returns
the neighbours as a :class:`ReferenceSet` of their own with its
:class:`Placement`, or the whole reference with a reason when it cannot.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ...progress import ordinal
from ...questions.datasets import DATASETS
from ...questions.mmlu import split_mmlu_stem
from .placement import K_NEAREST, LOCAL_RATIO, MIN_LIKE, SIMILARITY_FLOOR, Placement
from .reference_set import ReferenceSet


def reference_sources(ref: ReferenceSet) -> Sequence[str]:
    """The dataset each reference question came from (the set's one dataset when not recorded)."""
    return ref.sources or [str(ref.settings.get("dataset", "?"))] * ref.size


def answer_format(task_or_dataset: str | None) -> str | None:
    """``"choices"`` (MMLU-style, a letter) or ``"free"`` text; None when unknown.

    A question with options is answered with a letter, so it is placed among
    reference questions with options only, and a free-text one among free-text
    ones. Arithmetic typed as ``qa`` and GSM8K are both free text: their
    similarity keeps them apart (docs/reference_placement.md).
    """
    if task_or_dataset is None:
        return None
    task = DATASETS[task_or_dataset][1] if task_or_dataset in DATASETS else task_or_dataset
    return {"mmlu": "choices", "qa": "free", "gsm8k": "free"}.get(task)


def question_task(question: str) -> str:
    """The answer task of a question given without one: ``"mmlu"`` when it lists options, else ``"qa"``.

    >>> question_task("Which planet is red? A. Mars B. Venus")
    'mmlu'
    >>> question_task("Which golfer won the 1997 Masters at Augusta?")
    'qa'
    """
    return "mmlu" if split_mmlu_stem(question)[1] else "qa"


def place(
    ref: ReferenceSet,
    question: str,
    embedder: Any,
    *,
    task: str | None = None,
    k: int = K_NEAREST,
    floor: float = SIMILARITY_FLOOR,
    ratio: float = LOCAL_RATIO,
) -> ReferenceSet:
    """The reference questions like ``question``: those of its k nearest close enough.

    Similarity is the cosine of the question texts' embeddings by the run's
    embedder (the reference's were made by the same model: its identity is
    checked). Only reference questions of the same answer format
    (:func:`answer_format` of ``task``) are candidates. Of its k nearest, a
    reference question j is like it when their similarity is ≥ ``floor`` and ≥
    ``ratio`` (:data:`LOCAL_RATIO`) × ρ_j, ρ_j being j's similarity to its own
    :data:`MIN_LIKE`-th nearest reference question (:func:`local_radii`).

    Returns
    -------
    A :class:`ReferenceSet` with its :class:`Placement`: the neighbours (mode
    ``"nearest"``); the whole ``ref`` with mode ``"none_like"`` when fewer than
    :data:`MIN_LIKE` are close enough (:meth:`ReferenceSet.describe` then gives
    no number); the whole ``ref`` with mode ``"pooled"`` when it has no question
    embeddings, or ones made by another embedder.
    """
    why = _cannot_place(ref, embedder)
    if why:
        return replace(ref, placement=Placement("pooled", k, floor, ref.size, (), why, ratio))
    q = np.asarray(embedder.encode([question]), dtype=np.float32).reshape(-1)
    sims = ref.embeddings @ (q / max(float(np.linalg.norm(q)), 1e-12))
    fmt = answer_format(task)
    formats = {s: answer_format(s) for s in set(reference_sources(ref))}
    ok = [fmt is None or formats[s] in (None, fmt) for s in reference_sources(ref)]
    order = [int(i) for i in np.argsort(-sims, kind="stable") if ok[i]]
    bar = np.maximum(floor, ratio * local_radii(ref))
    near = [i for i in order[:k] if sims[i] >= bar[i]]
    if len(near) < MIN_LIKE:
        rows = tuple(_row(ref, i, sims[i]) for i in order[:5])
        why = (
            f"{len(near)} of {len(order)} reference questions are close enough: similarity "
            f"≥ {floor:.2f} and ≥ {ratio} × theirs to their own {ordinal(MIN_LIKE)} nearest; "
            f"{MIN_LIKE} needed"
            if order
            else f"none of the {ref.size} reference questions is answered with {_FORMATS[fmt]}"
        )
        placed = Placement("none_like", k, floor, len(order), rows, why, ratio)
        return replace(ref, placement=placed)
    rows = _rows(ref, near, sims)
    return _subset(ref, near, Placement("nearest", k, floor, len(order), rows, "", ratio))


_FORMATS = {"choices": "a letter among options", "free": "free text"}


def local_radii(ref: ReferenceSet, m: int = MIN_LIKE) -> np.ndarray:
    """(n,) each reference question's similarity to its m-th nearest other one of its answer format.

    How tight the reference is around each question: arithmetic questions are
    near-copies of one another (median ρ 0.62 with 100 a sample), TriviaQA
    questions share little (0.21; docs/reference_placement.md). −inf where fewer than m others share the format. Cached
    for the last reference (a batch places every row among the same one).
    """
    key = (hash(ref.embeddings.tobytes()), tuple(reference_sources(ref)), m)
    last = _RADII.get("last")
    if last is not None and last[0] == key:
        return last[1]
    formats = {s: answer_format(s) for s in set(reference_sources(ref))}
    fmt = np.array([str(formats[s]) for s in reference_sources(ref)])
    sims = ref.embeddings @ ref.embeddings.T
    same = fmt[:, None] == fmt[None, :]
    sims = np.where(same & ~np.eye(ref.size, dtype=bool), sims, -np.inf)
    radii = -np.sort(-sims, axis=1)[:, m - 1] if ref.size > m else np.full(ref.size, -np.inf)
    _RADII["last"] = (key, radii)  # one assignment: a concurrent row sees old or new
    return radii


_RADII: dict[str, Any] = {}


def _cannot_place(ref: ReferenceSet, embedder: Any) -> str:
    """Why ``ref`` cannot be searched by question ("" when it can)."""
    if ref.embeddings is None or ref.questions is None:
        return (
            "the reference files carry no question embeddings (rebuild them with "
            "scripts/make_reference.py), so every reference question counts"
        )
    if not hasattr(embedder, "encode"):
        return f"{getattr(embedder, 'name', 'this similarity')} gives no embeddings"
    made_by = ref.settings.get("question_embedder")
    if made_by and made_by != getattr(embedder, "identity", made_by):
        return f"the reference questions were embedded by {made_by}, not this run's embedder"
    return ""


def _row(ref: ReferenceSet, i: int, similarity: float) -> dict[str, Any]:
    return {
        "question": ref.questions[i],
        "dataset": reference_sources(ref)[i],
        "similarity": round(float(similarity), 4),
        "value": float(ref.values[i]),
        "correct": None if ref.correct is None else int(ref.correct[i]),
    }


def _rows(ref: ReferenceSet, idx: Sequence[int], sims: np.ndarray) -> tuple[dict[str, Any], ...]:
    return tuple(_row(ref, i, sims[i]) for i in idx)


def _subset(ref: ReferenceSet, idx: Sequence[int], placement: Placement) -> ReferenceSet:
    """The rows ``idx`` of ``ref`` as a set of their own, with ``placement``."""
    sel = np.asarray(idx, dtype=np.int64)
    sources = [reference_sources(ref)[i] for i in idx]
    return ReferenceSet(
        ref.values[sel],
        None if ref.correct is None else ref.correct[sel],
        {**ref.settings, "datasets": sorted(set(sources)), "bandwidth": 2 * ref.bandwidth},
        questions=[ref.questions[i] for i in idx],
        sources=sources,
        embeddings=ref.embeddings[sel],
        placement=placement,
    )
