"""Paired differences between two methods: on the sample, and over the same resamples.

Every method of an :class:`~.summary.Evaluation` is scored on the *same*
bootstrap resamples, so the difference of two methods' values resample by
resample is the paired bootstrap of their difference. :func:`paired_difference`
gives its value on the sample, its std and 95 % percentile interval, a
:attr:`PairedDifference.verdict` ("ahead", "behind", "not distinguishable")
that follows from the interval alone, and how many questions a difference of
the observed size would need for its interval to exclude 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .bootstrap import CI_LEVEL, percentile_interval

__all__ = ["AHEAD", "BEHIND", "NOT_DISTINGUISHABLE", "PairedDifference", "paired_difference"]

AHEAD, BEHIND, NOT_DISTINGUISHABLE = "ahead", "behind", "not distinguishable at this size"
#: z of a two-sided 95 % interval: the questions needed scale the std by it.
_Z = 1.959963984540054


@dataclass(frozen=True)
class PairedDifference:
    """``reference − other`` for one metric, paired over the same resamples.

    Attributes
    ----------
    reference, other, metric : what is compared.
    difference : reference − other on the whole sample.
    std : std of the difference over the resamples (ddof=0).
    ci95 : its 95 % percentile interval.
    n_questions : questions the sample holds.
    higher_is_better : the metric's direction (AUROC: True; Brier: False).
    """

    reference: str
    other: str
    metric: str
    difference: float
    std: float
    ci95: tuple[float, float]
    n_questions: int
    higher_is_better: bool = True

    @property
    def verdict(self) -> str:
        """:data:`AHEAD` / :data:`BEHIND` when the interval excludes 0, else not distinguishable."""
        lo, hi = self.ci95
        if not (math.isfinite(lo) and math.isfinite(hi)) or lo <= 0 <= hi:
            return NOT_DISTINGUISHABLE
        better = lo > 0 if self.higher_is_better else hi < 0
        return AHEAD if better else BEHIND

    @property
    def questions_needed(self) -> int | None:
        """Questions for a difference this size to have a 95 % interval that excludes 0.

        The std of a difference shrinks as 1/√n, so n·(1.96·std/|difference|)²; None
        when the difference is 0 (no size of sample tells it apart). That normal
        approximation can fall at or below n while the percentile interval (skewed
        resamples) still holds 0; the verdict follows the interval, so the count is then
        n + 1: never "fewer questions than you have" beside "not distinguishable".
        """
        d = abs(self.difference)
        if not math.isfinite(d) or d == 0 or not math.isfinite(self.std):
            return None
        needed = max(1, math.ceil(self.n_questions * (_Z * self.std / d) ** 2))
        if self.verdict == NOT_DISTINGUISHABLE:
            needed = max(needed, self.n_questions + 1)
        return needed

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict, with the verdict and the questions needed written out."""
        return {
            "reference": self.reference,
            "other": self.other,
            "metric": self.metric,
            "difference": self.difference,
            "std": self.std,
            "ci95": list(self.ci95),
            "n_questions": self.n_questions,
            "higher_is_better": self.higher_is_better,
            "verdict": self.verdict,
            "questions_needed": self.questions_needed,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PairedDifference:
        """Inverse of :meth:`to_dict` (the derived fields are recomputed)."""
        lo, hi = data["ci95"]
        return cls(
            data["reference"],
            data["other"],
            data["metric"],
            float(data["difference"]),
            float(data["std"]),
            (float(lo), float(hi)),
            int(data["n_questions"]),
            bool(data.get("higher_is_better", True)),
        )


def paired_difference(
    reference: str,
    other: str,
    metric: str,
    points: tuple[float, float],
    values: tuple[np.ndarray, np.ndarray],
    *,
    n_questions: int,
    higher_is_better: bool = True,
    level: float = CI_LEVEL,
) -> PairedDifference:
    """The paired difference ``reference − other`` from their sample values and resample values.

    Parameters
    ----------
    points : (reference, other) metric on the whole sample.
    values : (reference, other) metric per resample, shape (B,) each, drawn on the
        same resample indices (as :func:`~.summary.evaluate_scores` draws them).
    """
    a, b = (np.asarray(v, dtype=np.float64) for v in values)
    if a.shape != b.shape:
        raise ValueError(
            f"{reference!r} and {other!r} were resampled differently ({a.size} vs {b.size} "
            "resamples): a paired difference needs the same resamples"
        )
    diff = a - b
    return PairedDifference(
        reference,
        other,
        metric,
        float(points[0] - points[1]),
        float(diff.std()) if diff.size else float("nan"),
        percentile_interval(diff, level),
        n_questions,
        higher_is_better,
    )
