"""Two sides scored on the same questions: each metric's paired difference, and where they disagree.

A *side* is one method's uncertainties and the labels it is judged against, on
questions paired with the other side's (two evaluations of the same questions,
or two methods of one evaluation). :func:`compare_sides` resamples the paired
questions once — every resample holds a right and a wrong answer on *both*
sides — evaluates each metric on both sides of every resample, and gives
``a − b`` as a :class:`~.metrics.PairedDifference` (value on the sample, std,
95 % percentile interval, verdict), the same record the results' paired block
holds. :func:`disagreement` is how far apart two sides rank one question:
the difference of its uncertainty percentiles, 0 (same place) … 1 (opposite
ends). Pure numpy: no file, no pandas.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .metrics import N_BOOTSTRAP, bootstrap_indices, paired_bootstrap, paired_difference
from .metrics.paired import PairedDifference
from .metrics.registry import get_metric

__all__ = ["COMPARE_METRICS", "MetricComparison", "compare_sides", "disagreement", "paired_indices"]

#: Metrics compared by default: the ranking pair and the in-sample Brier. The cross-fitted
#: ones (Brier CV, ECE) refit an isotonic map per fold on every resample of both sides.
COMPARE_METRICS: tuple[str, ...] = ("auroc", "prr", "brier")


@dataclass(frozen=True)
class MetricComparison:
    """One metric on both sides of the paired questions: each side's value and ``a − b``."""

    metric: str
    value_a: float
    value_b: float
    difference: PairedDifference


def paired_indices(
    correct_a: ArrayLike, correct_b: ArrayLike, *, n_bootstrap: int = N_BOOTSTRAP, seed: int = 0
) -> np.ndarray:
    """Resample indices (B, n) over the paired questions; each holds both classes on both sides.

    Drawn with :func:`~.metrics.bootstrap_indices` on side a's labels (which redraws
    a one-class resample) from one generator; a resample where side b's labels are
    all one class is dropped and drawn again. With the same labels on both sides
    (two methods of one evaluation) these are exactly the indices
    :func:`~.metrics.evaluate_scores` draws from the same seed.
    """
    a = np.asarray(correct_a, dtype=np.int64)
    b = np.asarray(correct_b, dtype=np.int64)
    if a.shape != b.shape:
        raise ValueError(f"{a.size} labels on side a, {b.size} on side b: pair the questions first")
    if np.array_equal(a, b):
        return bootstrap_indices(a, n_bootstrap=n_bootstrap, seed=seed)
    if b.min() == b.max():
        raise ValueError("side b's answers are all judged the same: no metric ranks them")
    rng = np.random.default_rng(seed)
    kept: list[np.ndarray] = []
    for _ in range(100):  # each round keeps most rows unless b's classes are very unequal
        idx = bootstrap_indices(a, n_bootstrap=n_bootstrap, seed=rng)
        sums = b[idx].sum(axis=1)
        kept.extend(idx[(sums > 0) & (sums < b.size)])
        if len(kept) >= n_bootstrap:
            return np.stack(kept[:n_bootstrap])
    raise ValueError(
        f"only {len(kept)} of {n_bootstrap} resamples held right and wrong answers on both "
        "sides: too few answers of one class"
    )


def compare_sides(
    a: tuple[ArrayLike, ArrayLike],
    b: tuple[ArrayLike, ArrayLike],
    *,
    names: tuple[str, str] = ("a", "b"),
    metrics: Sequence[str] = COMPARE_METRICS,
    n_bootstrap: int = N_BOOTSTRAP,
    seed: int = 0,
    indices: np.ndarray | None = None,
) -> list[MetricComparison]:
    """Each metric's paired difference ``a − b`` over the same resamples of the paired questions.

    Parameters
    ----------
    a, b : (correct (n,), uncertainty (n,)) of each side, row i the same question on both;
        uncertainty is higher = more uncertain, as every metric reads it.
    names : what the two sides are called in the :class:`PairedDifference` records.
    metrics : names of :data:`~.metrics.METRICS`.
    indices : (B, n) resample indices; default :func:`paired_indices` from ``seed``.

    Returns
    -------
    One :class:`MetricComparison` per metric, in order.
    """
    (ca, ua), (cb, ub) = (tuple(np.asarray(x) for x in side) for side in (a, b))
    if indices is None:
        indices = paired_indices(ca, cb, n_bootstrap=n_bootstrap, seed=seed)
    out = []
    for name in metrics:
        spec = get_metric(name)
        points = (float(spec.func(ca, ua)), float(spec.func(cb, ub)))
        va = paired_bootstrap(spec, ca, ua, indices=indices).values
        vb = paired_bootstrap(spec, cb, ub, indices=indices).values
        diff = paired_difference(
            *names,
            name,
            points,
            (va, vb),
            n_questions=int(ca.size),
            higher_is_better=spec.higher_is_better,
        )
        out.append(MetricComparison(name, points[0], points[1], diff))
    return out


def disagreement(uncertainty_a: ArrayLike, uncertainty_b: ArrayLike) -> np.ndarray:
    """|percentile of a − percentile of b| per question, (n,) in [0, 1].

    Each side's uncertainties become their average rank scaled to [0, 1], so two
    methods on different scales (an entropy in nats, a similarity) are compared
    by where they put the question among the others, not by their units.
    """
    ua, ub = (np.asarray(u, dtype=np.float64) for u in (uncertainty_a, uncertainty_b))
    n = ua.size
    if n < 2:
        return np.zeros(n)
    from scipy.stats import rankdata  # lazy: scipy.stats costs ~1 s at every CLI start

    pa, pb = ((rankdata(u) - 1) / (n - 1) for u in (ua, ub))
    return np.abs(pa - pb)
