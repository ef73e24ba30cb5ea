"""The paired bootstrap: resample indices once, evaluate a metric on each resample.

:func:`bootstrap_indices` draws an int array of shape (n_bootstrap, n) (rows with
answers of one class only redrawn or dropped); :func:`paired_bootstrap` gives a
metric's mean and std (ddof=0) over those rows as a :class:`BootstrapResult`.
Paper, Appendix "Calculation of Mean and Variance" (:data:`N_BOOTSTRAP` = 40).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .inputs import OnSingleClass, Seed, _check_inputs, _require_both_classes
from .registry import Metric, _get_metric

#: Resamples of the paired bootstrap, written once: every function here, the experiment's
#: config and the CLI read it. Paper, Appendix "Calculation of Mean and Variance".
N_BOOTSTRAP: int = 40


def bootstrap_indices(
    correct: ArrayLike,
    *,
    n_bootstrap: int = N_BOOTSTRAP,
    seed: Seed = 0,
    require_both_classes: bool = True,
    on_single_class: OnSingleClass = "redraw",
    max_draws: int | None = None,
) -> np.ndarray:
    """Resample indices with replacement, shape (n_bootstrap, n).

    Parameters
    ----------
    correct : array of shape (n,), 0/1 or bool.
    n_bootstrap : int, default :data:`N_BOOTSTRAP` (40, paper, Appendix "Calculation of Mean and Variance")
    seed : int or numpy Generator, default 0
    require_both_classes : bool, default True
        Treat a resample whose answers are all correct (or all incorrect) as invalid:
        AUROC/PRR are undefined on it.
    on_single_class : {"redraw", "skip"}
        "redraw": draw again until ``n_bootstrap`` valid resamples exist (at most
        ``max_draws`` draws, default ``100 * n_bootstrap``, then ValueError). "skip": draw
        ``n_bootstrap`` resamples and drop the invalid ones (fewer rows come back).

    Returns
    -------
    int array of shape (n_valid, n); row b indexes resample b.
    """
    c = np.asarray(correct).astype(np.int64)
    if n_bootstrap < 1:
        raise ValueError(f"n_bootstrap must be at least 1; got {n_bootstrap}")
    if on_single_class not in ("redraw", "skip"):
        raise ValueError(f"on_single_class must be 'redraw' or 'skip'; got {on_single_class!r}")
    if require_both_classes:
        _require_both_classes(c, "the bootstrap")
    rng = np.random.default_rng(seed)
    n = c.size
    if not require_both_classes:
        return rng.integers(0, n, size=(n_bootstrap, n))
    max_draws = 100 * n_bootstrap if max_draws is None else max_draws
    rows: list[np.ndarray] = []
    draws = 0
    while len(rows) < n_bootstrap:
        if on_single_class == "skip" and draws == n_bootstrap:
            break
        if draws == max_draws:
            raise ValueError(
                f"only {len(rows)} of {n_bootstrap} bootstrap resamples had both correct and "
                f"incorrect answers after {max_draws} draws; too few answers of one class"
            )
        idx = rng.integers(0, n, size=n)
        draws += 1
        s = c[idx].sum()
        if 0 < s < n:
            rows.append(idx)
    if not rows:
        raise ValueError(f"none of {n_bootstrap} bootstrap resamples had both classes")
    return np.stack(rows)


@dataclass(frozen=True)
class BootstrapResult:
    """Mean and standard deviation (ddof=0, as ``np.std``) of a metric over resamples."""

    mean: float
    std: float
    values: np.ndarray  # (n_valid,) metric per resample


def paired_bootstrap(
    metric: str | Metric | Callable[[np.ndarray, np.ndarray], float],
    correct: ArrayLike,
    uncertainty: ArrayLike,
    *,
    n_bootstrap: int = N_BOOTSTRAP,
    seed: Seed = 0,
    on_single_class: OnSingleClass = "redraw",
    indices: np.ndarray | None = None,
) -> BootstrapResult:
    """Paired bootstrap of a metric: labels and scores resampled with the same indices.

    Parameters
    ----------
    metric : a name in :data:`METRICS`, a :class:`Metric`, or ``f(correct, uncertainty)``
        (a bare callable is assumed to need both classes).
    correct, uncertainty : arrays of shape (n,).
    n_bootstrap : int, default :data:`N_BOOTSTRAP` (40, paper, Appendix "Calculation of Mean and Variance")
    seed : int or numpy Generator, default 0
    on_single_class : {"redraw", "skip"}, see :func:`bootstrap_indices`.
    indices : optional (B, n) int array to reuse the same resamples across methods
        (overrides ``n_bootstrap``/``seed``).

    Returns
    -------
    BootstrapResult with the mean, the std over resamples (ddof=0) and the values.

    References
    ----------
    Paper Appendix "Calculation of Mean and Variance" (40 resamples with replacement;
    mean and standard deviation of the per-resample metric).
    """
    c, u = _check_inputs(correct, uncertainty)
    if callable(metric) and not isinstance(metric, Metric):
        func, both = metric, True
    else:
        m = _get_metric(metric)
        func, both = m.func, m.needs_both_classes
    if indices is None:
        indices = bootstrap_indices(
            c,
            n_bootstrap=n_bootstrap,
            seed=seed,
            require_both_classes=both,
            on_single_class=on_single_class,
        )
    values = np.array([func(c[idx], u[idx]) for idx in indices], dtype=np.float64)
    return BootstrapResult(float(values.mean()), float(values.std()), values)
