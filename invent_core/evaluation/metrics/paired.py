"""Paired differences between two methods: on the sample, and over the same resamples.

Every method of an :class:`~.summary.Evaluation` is scored on the *same*
bootstrap resamples, so the difference of two methods' values resample by
resample is the paired bootstrap of their difference. :func:`paired_difference`
gives its value on the sample, its std and 95 % percentile interval, a
:attr:`PairedDifference.verdict` ("ahead", "behind", "not distinguishable")
that follows from the interval alone, and how many questions a difference of
the observed size would need to be told apart with 80 % power.

Comparing one method with k others is k tests: :func:`holm_adjusted` makes the
verdicts of one such family hold together at the 5 % level (Holm's step-down:
the differences ordered by their bootstrap p-value, the i-th judged on its
percentile interval at level 1 − 0.05/(k − i), and none after the first that
holds 0). A difference with a Holm interval takes its verdict from it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .bootstrap import CI_LEVEL, percentile_interval

__all__ = [
    "AHEAD",
    "BEHIND",
    "NOT_DISTINGUISHABLE",
    "HolmStep",
    "PairedDifference",
    "bootstrap_p_value",
    "holm_adjusted",
    "paired_difference",
]

AHEAD, BEHIND, NOT_DISTINGUISHABLE = "ahead", "behind", "not distinguishable at this size"
#: z of a two-sided 95 % interval.
_Z = 1.959963984540054
#: z of 80 % power: a difference of the observed size is found 4 times in 5 at that size.
_Z_POWER = 0.8416212335729143
#: The family-wise error rate Holm's correction holds.
FAMILY_ALPHA = 0.05


@dataclass(frozen=True)
class HolmStep:
    """One difference's place in Holm's step-down over a family of comparisons.

    ``ci``: its percentile interval at ``level`` = 1 − α/(family − rank);
    ``significant``: that interval excludes 0 and so did every step before it.
    """

    ci: tuple[float, float]
    level: float
    rank: int  # 0 = the smallest p-value
    family: int
    p_value: float
    significant: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"ci": list(self.ci), "level": self.level, "rank": self.rank,
                "family": self.family, "p_value": self.p_value, "significant": self.significant}  # fmt: skip

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> HolmStep:
        """Inverse of :meth:`to_dict`."""
        lo, hi = d["ci"]
        return cls((float(lo), float(hi)), float(d["level"]), int(d["rank"]), int(d["family"]),
                   float(d["p_value"]), bool(d["significant"]))  # fmt: skip


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
    holm: HolmStep | None = None
    resampled: np.ndarray | None = field(default=None, repr=False, compare=False)  # not saved

    @property
    def verdict(self) -> str:
        """:data:`AHEAD` / :data:`BEHIND` when the interval excludes 0, else not distinguishable.

        With a Holm step, the Holm interval and the step-down decide (see the module).
        """
        lo, hi = self.holm.ci if self.holm is not None else self.ci95
        if not (math.isfinite(lo) and math.isfinite(hi)) or lo <= 0 <= hi:
            return NOT_DISTINGUISHABLE
        if self.holm is not None and not self.holm.significant:
            return NOT_DISTINGUISHABLE
        better = lo > 0 if self.higher_is_better else hi < 0
        return AHEAD if better else BEHIND

    @property
    def questions_needed(self) -> int | None:
        """Questions for a difference this size to be told apart with 80 % power (5 % level).

        The std of a difference shrinks as 1/√n, so n·((1.96 + 0.84)·std/|difference|)²;
        None when the difference is 0 (no size of sample tells it apart). That normal
        approximation can fall at or below n while the interval (skewed resamples, or
        Holm's wider one) still holds 0; the verdict follows the interval, so the count is
        then n + 1: never "fewer questions than you have" beside "not distinguishable".
        """
        d = abs(self.difference)
        if not math.isfinite(d) or d == 0 or not math.isfinite(self.std):
            return None
        needed = max(1, math.ceil(self.n_questions * ((_Z + _Z_POWER) * self.std / d) ** 2))
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
            **({"holm": self.holm.to_dict()} if self.holm is not None else {}),
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
            HolmStep.from_dict(data["holm"]) if data.get("holm") else None,
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
        resampled=diff,
    )


def bootstrap_p_value(resampled: np.ndarray) -> float:
    """Two-sided bootstrap p-value of a zero difference: 2·min(share ≤ 0, share ≥ 0), at most 1.

    Counted with the +1 of Davison & Hinkley (1997, eq. 4.11), so it is never 0.
    """
    v = np.asarray(resampled, dtype=np.float64)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return 1.0
    low = (np.sum(v <= 0) + 1) / (v.size + 1)
    high = (np.sum(v >= 0) + 1) / (v.size + 1)
    return float(min(1.0, 2 * min(low, high)))


def holm_adjusted(
    row: dict[str, PairedDifference], alpha: float = FAMILY_ALPHA
) -> dict[str, PairedDifference]:
    """The differences of one family (one reference against k others) with Holm steps.

    Each difference needs its resample values (those made by :func:`paired_difference`);
    a row read back from JSON keeps the Holm steps it was saved with.
    """
    if any(d.resampled is None for d in row.values()):
        return dict(row)
    k = len(row)
    p = {o: bootstrap_p_value(d.resampled) for o, d in row.items()}
    order = sorted(row, key=lambda o: (p[o], o))
    out, still = {}, True
    for rank, other in enumerate(order):
        d = row[other]
        level = 1 - alpha / (k - rank)
        lo, hi = percentile_interval(d.resampled, level)
        excludes = math.isfinite(lo) and math.isfinite(hi) and not lo <= 0 <= hi
        still = still and excludes
        out[other] = replace(d, holm=HolmStep((lo, hi), level, rank, k, p[other], still))
    return {o: out[o] for o in row}
