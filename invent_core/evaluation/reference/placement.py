"""Where a question was placed among the reference questions, and the numbers that decide it.

A :class:`Placement` records how :func:`~invent_core.evaluation.reference.place`
chose the reference questions like a question (its mode, the k nearest, the
similarity floor and local ratio, the neighbours as rows); the constants below
are those choices, made on ``scripts/reference_placement_study.py``
(docs/reference_placement.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: at most this many nearest reference questions place a question (see
#: docs/reference_placement.md for the leave-one-out figures that chose it)
K_NEAREST = 30
#: a reference question is "like" the question at this cosine similarity of their
#: question texts or more (MiniLM; docs/reference_placement.md)
SIMILARITY_FLOOR = 0.10
#: no percentile or P(correct) from fewer reference questions like the question than this
MIN_LIKE = 10
#: ... and a reference question is like the question only when their similarity is at least
#: this share of its similarity to its own MIN_LIKE-th nearest reference question: the
#: question must sit inside its neighbours' cluster, not merely near its edge (tight
#: clusters such as arithmetic otherwise take in any question with a number; see
#: docs/reference_placement.md)
LOCAL_RATIO = 0.7
#: how a dataset is named in "TriviaQA-like"
DATASET_NAMES = {
    "triviaqa": "TriviaQA",
    "sciq": "SciQ",
    "nq_open": "NQ-open",
    "gsm8k": "GSM8K",
    "mmlu": "MMLU",
    "arithmetic": "arithmetic",
}


@dataclass(frozen=True)
class Placement:
    """Where one question was placed among the reference questions.

    Attributes
    ----------
    mode : ``"nearest"`` (its k nearest at or above the floor), ``"none_like"``
        (fewer than :data:`MIN_LIKE` of them: no number) or ``"pooled"`` (the
        reference files carry no question embeddings: every question, as before).
    k, floor, ratio : the most neighbours taken, the similarity floor and the
        local ratio (:data:`LOCAL_RATIO`).
    n_candidates : reference questions it was compared with (same settings and
        answer format: with choices or free text).
    rows : the neighbours, most similar first (for ``none_like`` the five
        nearest): ``{"question", "dataset", "similarity", "value", "correct"}``.
    reason : why ``pooled`` or ``none_like``, in words.
    """

    mode: str
    k: int = K_NEAREST
    floor: float = SIMILARITY_FLOOR
    n_candidates: int = 0
    rows: tuple[dict[str, Any], ...] = ()
    reason: str = ""
    ratio: float = LOCAL_RATIO

    @property
    def similarity_min(self) -> float | None:
        """The least similar neighbour's similarity (None without neighbours)."""
        return min((r["similarity"] for r in self.rows), default=None)

    @property
    def counts(self) -> dict[str, int]:
        """Neighbours per dataset, most first."""
        out: dict[str, int] = {}
        for r in self.rows:
            out[r["dataset"]] = out.get(r["dataset"], 0) + 1
        return dict(sorted(out.items(), key=lambda kv: -kv[1]))

    @property
    def like(self) -> str:
        """How the neighbours are named: ``"TriviaQA-like reference questions"``.

        Named after one dataset when two thirds come from it, else
        ``"reference questions like this one (14 TriviaQA, 10 NQ-open)"``.
        """
        counts = self.counts
        if not counts:
            return "reference questions like this one"
        top, n_top = next(iter(counts.items()))
        if n_top * 3 >= 2 * len(self.rows):
            return f"{DATASET_NAMES.get(top, top)}-like reference questions"
        mix = ", ".join(f"{n} {DATASET_NAMES.get(d, d)}" for d, n in counts.items())
        return f"reference questions like this one ({mix})"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: mode, k, floor, n_like, similarity_min, like, counts, rows, reason."""
        n_like = len(self.rows) if self.mode == "nearest" else 0
        return {
            "mode": self.mode,
            "k": self.k,
            "floor": self.floor,
            "ratio": self.ratio,
            "n_candidates": self.n_candidates,
            "n_like": n_like,
            "similarity_min": self.similarity_min,
            "like": self.like if self.mode == "nearest" else None,
            "counts": self.counts if self.mode == "nearest" else {},
            "rows": [dict(r) for r in self.rows],
            "reason": self.reason,
        }
