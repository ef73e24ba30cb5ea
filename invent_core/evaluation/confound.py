"""Does a headline beat a count? A method's AUROC beside a count-only baseline's, paired.

An uncertainty score can rank answers well for a reason that has nothing to do
with its mathematics: the number of distinct rewordings the gate let through
(the rewording step padded the questions the model got right less than the
others), or the number of distinct answers among the replies, which any
counter reads without an embedder or a random walk. Before a headline AUROC is
read as the method's merit, it is set beside the AUROC of such a count on the
same questions and the same resamples, with the paired difference and its
95 % interval (:func:`count_confound`). Higher count = more uncertain, fixed
before looking at any result; a count below 0.5 is reported as it comes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .metrics import N_BOOTSTRAP, evaluate_scores
from .metrics.bootstrap import percentile_interval
from .metrics.paired import PairedDifference, paired_difference
from .metrics.summary import MetricSummary

__all__ = ["COUNT_LABELS", "CountCheck", "count_confound", "stratified_auroc"]

#: The counts a confound check knows, with the words a table uses for them.
COUNT_LABELS: dict[str, str] = {
    "distinct_rewordings": "distinct rewordings",
    "distinct_answers": "distinct answers to the original",
}


@dataclass(frozen=True)
class CountCheck:
    """One method against one count-only baseline on the same questions.

    Attributes
    ----------
    method, count : what is compared (a method name, a key of :data:`COUNT_LABELS`).
    method_auroc, count_auroc : each AUROC's value on the sample, std and interval.
    difference : method − count, paired over the same resamples.
    """

    method: str
    count: str
    method_auroc: MetricSummary
    count_auroc: MetricSummary
    difference: PairedDifference

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the two AUROCs (value, std, ci95) and the paired difference."""

        def short(s: MetricSummary) -> dict[str, Any]:
            return {"value": s.point, "std": s.std, "ci95": list(s.ci95)}

        return {
            "method": self.method,
            "count": self.count,
            "method_auroc": short(self.method_auroc),
            "count_auroc": short(self.count_auroc),
            "difference": self.difference.to_dict(),
            "verdict": self.difference.verdict,
        }


def count_confound(
    correct: ArrayLike,
    uncertainty: ArrayLike,
    counts: Mapping[str, ArrayLike],
    *,
    method: str = "inv_entropy",
    n_bootstrap: int = N_BOOTSTRAP,
    seed: int = 0,
) -> dict[str, CountCheck]:
    """The method's AUROC against each count's, on the same resamples.

    Parameters
    ----------
    correct : 0/1 per question.
    uncertainty : the method's value per question (higher = less to be trusted).
    counts : count name -> one count per question (higher = less to be trusted).
        A count with a missing value (NaN) is refused, naming it.
    n_bootstrap, seed : as the evaluation's, so that the method's interval here is
        the one its table shows (the resamples are drawn alike).

    Returns
    -------
    count name -> :class:`CountCheck`.
    """
    if method in counts:
        raise ValueError(f"count {method!r} has the method's own name")
    table = {method: np.asarray(uncertainty, dtype=np.float64)}
    for name, values in counts.items():
        table[name] = np.asarray(values, dtype=np.float64)
        if np.isnan(table[name]).any():
            raise ValueError(f"count {name!r} has no value on some questions")
    ev = evaluate_scores(table, correct, n_bootstrap=n_bootstrap, seed=seed, metrics=("auroc",))
    if method not in ev.results:
        raise ValueError(f"{method!r}: {ev.skipped.get(method, 'no AUROC')}")
    mine = ev.results[method]["auroc"]
    out = {}
    for name in counts:
        theirs = ev.results[name]["auroc"]
        diff = paired_difference(
            method,
            name,
            "auroc",
            (mine.point, theirs.point),
            (mine.values, theirs.values),
            n_questions=ev.n_questions,
        )
        out[name] = CountCheck(method, name, mine, theirs, diff)
    return out


def _within_auroc(right: np.ndarray, u: np.ndarray, strata: np.ndarray) -> tuple[float, int]:
    """AUROC over the (right, wrong) pairs of one stratum each, and how many pairs."""
    same = strata[:, None] == strata[None, :]
    pair = same & right[:, None] & ~right[None, :]  # i right, j wrong, same stratum
    n = int(pair.sum())
    if n == 0:
        return float("nan"), 0
    wins = (u[:, None] < u[None, :]) + 0.5 * (u[:, None] == u[None, :])
    return float(wins[pair].mean()), n


def stratified_auroc(
    correct: ArrayLike,
    uncertainty: ArrayLike,
    strata: ArrayLike,
    *,
    n_bootstrap: int = N_BOOTSTRAP,
    seed: int = 0,
) -> dict[str, Any]:
    """AUROC counted only over pairs of a right and a wrong answer in the same stratum.

    With ``strata`` the count of distinct rewordings, a method that merely read the
    count would score 0.5 here: what is left is what the method adds among questions
    the rewording step treated alike. Resampled by question (``n_bootstrap``, ``seed``).

    Returns
    -------
    {"value", "ci95", "pairs" (right-wrong pairs compared), "strata" (strata holding
    both classes)}; value NaN when no stratum holds both.
    """
    right = np.asarray(correct, dtype=bool)
    u = np.asarray(uncertainty, dtype=np.float64)
    s = np.asarray(strata)
    value, pairs = _within_auroc(right, u, s)
    both = sum(1 for k in np.unique(s) if 0 < right[s == k].sum() < (s == k).sum())
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(n_bootstrap if pairs else 0):
        idx = rng.integers(0, len(u), len(u))
        v, _n = _within_auroc(right[idx], u[idx], s[idx])
        if v == v:
            draws.append(v)
    ci = list(percentile_interval(np.asarray(draws))) if draws else [float("nan")] * 2
    return {"value": value, "ci95": ci, "pairs": pairs, "strata": both}
