"""Evaluation metrics for uncertainty scores.

Paper §3 "Evaluation metrics" and Appendix "Calculation of Mean and Variance".

Every metric takes ``(correct, uncertainty)``: ``correct`` is a 1-D array of 0/1 (or
bool) judgements of the answers, ``uncertainty`` a 1-D float array of the same length,
"higher = more uncertain". The turn into confidence happens in exactly one place,
:func:`confidence_from_uncertainty` (paper: "Confidence is taken as the negative of the
UQ measure"). Names follow scikit-learn: ``*_score`` is higher-is-better, ``*_loss``
lower-is-better. Nothing here formats numbers; see :mod:`invent_core.evaluation.report`.

Metrics
-------
- :func:`auroc_score` — AUROC of confidence for correctness.
- :func:`prr_score` — prediction-rejection ratio of Malinin et al. (2021), with the
  curve data in :func:`rejection_curve`.
- :func:`auprc_released_code_score` — what the paper's released code reports as "PRR":
  ``AP(correct, confidence) / AP(correct, correct)``, i.e. the AUPRC.
- :func:`brier_isotonic_loss` — Brier score after isotonic mapping of uncertainty to
  P(correct), in-sample (the paper) or cross-fitted.
- :func:`ece_loss` / :func:`reliability_diagram` — expected calibration error of the
  isotonic-calibrated probabilities.
- :func:`paired_bootstrap` / :func:`evaluate_scores` — mean ± std over 40 resamples.
- :func:`point_metrics` — full-sample values per method, with the reason when a
  metric is undefined (:func:`undefined_reason`); batch summaries use it.
- :func:`tsu_score`, :func:`tsu_pair`, :func:`tsu_chain`, :func:`tsu_table` —
  Temperature Sensitivity of Uncertainty, Eq. (tsudefinition).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "METRICS",
    "DEFAULT_METRICS",
    "Metric",
    "RejectionCurve",
    "ReliabilityDiagram",
    "BootstrapResult",
    "MetricSummary",
    "Evaluation",
    "confidence_from_uncertainty",
    "auroc_score",
    "rejection_curve",
    "prr_score",
    "auprc_released_code_score",
    "isotonic_probabilities",
    "brier_isotonic_loss",
    "reliability_diagram",
    "ece_loss",
    "bootstrap_indices",
    "paired_bootstrap",
    "evaluate_scores",
    "point_metrics",
    "undefined_reason",
    "tsu_score",
    "tsu_pair",
    "tsu_chain",
    "tsu_label",
    "tsu_table",
    "PAPER_TSU_PAIRS",
    "PAPER_TSU_CHAINS",
]

Seed = int | np.random.Generator
OnSingleClass = Literal["redraw", "skip"]


# ---------------------------------------------------------------------------
# Inputs and the one place where uncertainty becomes confidence
# ---------------------------------------------------------------------------


def confidence_from_uncertainty(uncertainty: ArrayLike) -> np.ndarray:
    """Confidence = −uncertainty (paper §3 "Evaluation metrics").

    The only place in invent where the sign flips; every metric calls it.

    Parameters
    ----------
    uncertainty : array of shape (n,); higher = more uncertain.

    Returns
    -------
    array of shape (n,), float64; higher = more confident.
    """
    return -np.asarray(uncertainty, dtype=np.float64)


def _check_inputs(correct: ArrayLike, uncertainty: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Validate and return ``(correct as int 0/1, uncertainty as float64)``, both (n,)."""
    c = np.asarray(correct)
    u = np.asarray(uncertainty, dtype=np.float64)
    if c.ndim != 1 or u.ndim != 1:
        raise ValueError(f"correct and uncertainty must be 1-D; got shapes {c.shape} and {u.shape}")
    if c.shape != u.shape:
        raise ValueError(
            f"correct and uncertainty must have the same length; got {c.size} and {u.size}"
        )
    if c.size == 0:
        raise ValueError("correct and uncertainty are empty")
    if c.dtype != bool:
        cf = c.astype(np.float64)
        if np.isnan(cf).any() or not np.isin(cf, (0.0, 1.0)).all():
            raise ValueError("correct must contain only 0/1 or True/False")
    c = c.astype(np.int64)
    bad = ~np.isfinite(u)
    if bad.any():
        raise ValueError(
            f"uncertainty has {int(bad.sum())} non-finite value(s) (NaN/inf), first at index "
            f"{int(np.flatnonzero(bad)[0])}; drop those questions or the method first"
        )
    return c, u


def _require_both_classes(c: np.ndarray, metric: str) -> None:
    n_pos = int(c.sum())
    if n_pos == 0 or n_pos == c.size:
        which = "correct" if n_pos else "incorrect"
        raise ValueError(
            f"{metric} is undefined when all {c.size} answers are {which}: "
            "it needs both correct and incorrect answers"
        )


# ---------------------------------------------------------------------------
# AUROC
# ---------------------------------------------------------------------------


def auroc_score(
    correct: ArrayLike, uncertainty: ArrayLike, *, sample_weight: ArrayLike | None = None
) -> float:
    """Area under the ROC curve of confidence (−uncertainty) for predicting correctness.

    Equals the probability that a random correct answer is more confident than a random
    incorrect one, ties counting 1/2. 0.5 = uninformative, 1 = perfect ranking.

    Parameters
    ----------
    correct : array of shape (n,), 0/1 or bool.
    uncertainty : array of shape (n,), higher = more uncertain.
    sample_weight : optional array of shape (n,).

    Returns
    -------
    float in [0, 1]; higher is better.

    Raises
    ------
    ValueError
        If all answers are correct or all incorrect.

    References
    ----------
    Paper §3 "Evaluation metrics" (AUROC).
    """
    from sklearn.metrics import roc_auc_score

    c, u = _check_inputs(correct, uncertainty)
    _require_both_classes(c, "AUROC")
    return float(roc_auc_score(c, confidence_from_uncertainty(u), sample_weight=sample_weight))


# ---------------------------------------------------------------------------
# Prediction-rejection ratio
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RejectionCurve:
    """Data of a prediction-rejection curve, one point per number of rejected answers.

    Answers are rejected most-uncertain first; within a run of tied uncertainties the
    values are the expectation over a random order of the tied answers (so a constant
    uncertainty gives exactly the random curve).

    Attributes
    ----------
    fraction_rejected : (n+1,) array, k/n for k = 0..n.
    accuracy_kept : (n+1,) array, accuracy of the n−k kept answers; NaN at k = n
        (nothing kept). This is the curve to plot.
    error : (n+1,) array, Malinin's curve: errors among the kept answers divided by n
        (rejected answers are handed to an oracle and count as correct).
    error_random : (n+1,) array, the same for random rejection: ``e (1 − k/n)``.
    error_oracle : (n+1,) array, the same when incorrect answers are rejected first.
    """

    fraction_rejected: np.ndarray
    accuracy_kept: np.ndarray
    error: np.ndarray
    error_random: np.ndarray
    error_oracle: np.ndarray

    @property
    def prr(self) -> float:
        """(A_random − A_model) / (A_random − A_oracle), areas under the error curves."""
        x = self.fraction_rejected
        a_model = np.trapezoid(self.error, x)
        a_random = np.trapezoid(self.error_random, x)
        a_oracle = np.trapezoid(self.error_oracle, x)
        return float((a_random - a_model) / (a_random - a_oracle))


def _expected_cumsum_with_ties(values: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Return the expected cumulative sum of ``values`` taken in descending ``keys`` order.

    Returns an (n+1,) array; entry k is the expected sum of the first k items when
    ties in ``keys`` are broken uniformly at random (linear inside each tied run).
    """
    order = np.argsort(-keys, kind="stable")
    v, k = values[order].astype(np.float64), keys[order]
    n = v.size
    # boundaries of runs of equal keys: run i spans [starts[i], ends[i])
    new_run = np.r_[True, k[1:] != k[:-1]]
    starts = np.flatnonzero(new_run)
    ends = np.r_[starts[1:], n]
    run_sums = np.add.reduceat(v, starts)
    cum_at_ends = np.cumsum(run_sums)
    # exact expected value at run boundaries, linear interpolation in between
    xp = np.r_[0, ends]
    fp = np.r_[0.0, cum_at_ends]
    return np.interp(np.arange(n + 1), xp, fp)


def rejection_curve(correct: ArrayLike, uncertainty: ArrayLike) -> RejectionCurve:
    """Prediction-rejection curve: reject the most uncertain answers first.

    Parameters
    ----------
    correct : array of shape (n,), 0/1 or bool.
    uncertainty : array of shape (n,), higher = more uncertain.

    Returns
    -------
    RejectionCurve with (n+1,) arrays for k = 0..n rejected answers.

    References
    ----------
    Malinin & Gales (2021), "Uncertainty Estimation in Autoregressive Structured
    Prediction", ICLR — prediction-rejection curves and PRR.
    """
    c, u = _check_inputs(correct, uncertainty)
    n = c.size
    k = np.arange(n + 1)
    errors = 1 - c
    n_err = int(errors.sum())
    # rejecting in descending uncertainty; expected errors removed after k rejections
    errors_removed = _expected_cumsum_with_ties(errors, u)  # (n+1,)
    errors_kept = n_err - errors_removed
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy_kept = np.where(k < n, 1.0 - errors_kept / np.maximum(n - k, 1), np.nan)
    return RejectionCurve(
        fraction_rejected=k / n,
        accuracy_kept=accuracy_kept,
        error=errors_kept / n,
        error_random=(n_err / n) * (1.0 - k / n),
        error_oracle=np.maximum(n_err - k, 0) / n,
    )


def prr_score(correct: ArrayLike, uncertainty: ArrayLike) -> float:
    """Prediction-rejection ratio (PRR) of Malinin et al. (2021).

    The error curve ``E(k) = (incorrect answers among the kept) / n`` is traced while the
    k most uncertain answers are rejected (handed to an oracle). With A the area under
    such a curve (trapezoid over k/n ∈ [0, 1]),

        PRR = (A_random − A_model) / (A_random − A_oracle),

    the area between the random-rejection and the model's curve, normalised by the same
    area for the oracle (which rejects incorrect answers first). 1 = oracle ranking,
    ≈ 0 = random (exactly 0 for a constant uncertainty), −1 = reversed oracle.

    Parameters
    ----------
    correct : array of shape (n,), 0/1 or bool.
    uncertainty : array of shape (n,), higher = more uncertain.

    Returns
    -------
    float in [−1, 1]; higher is better.

    Notes
    -----
    The paper cites Malinin et al. (2021) for PRR, but its released code computes
    ``AP(correct, confidence) / AP(correct, correct)``; that quantity is
    :func:`auprc_released_code_score`. lm-polygraph's PRR uses the accuracy of the kept
    answers instead of Malinin's oracle-replaced error; the two weight rejection
    fractions differently and differ in general.

    References
    ----------
    Malinin & Gales (2021), ICLR; paper §3 "Evaluation metrics" (PRR).
    """
    c, u = _check_inputs(correct, uncertainty)
    _require_both_classes(c, "PRR")
    return rejection_curve(c, u).prr


def auprc_released_code_score(correct: ArrayLike, uncertainty: ArrayLike) -> float:
    """Return what the released code reports as "PRR": ``AP(correct, conf) / AP(correct, correct)``.

    ``AP`` is scikit-learn's ``average_precision_score`` (area under the
    precision-recall curve of confidence for "correct"). The denominator is the AP of a
    perfect ranking, which is 1 whenever any answer is correct, so this is the AUPRC.
    It is *not* Malinin's PRR (:func:`prr_score`): its chance level is the accuracy, not 0.

    Parameters
    ----------
    correct : array of shape (n,), 0/1 or bool.
    uncertainty : array of shape (n,), higher = more uncertain.

    Returns
    -------
    float in [0, 1]; higher is better.
    """
    from sklearn.metrics import average_precision_score

    c, u = _check_inputs(correct, uncertainty)
    _require_both_classes(c, "AUPRC (released-code PRR)")
    ap = average_precision_score(c, confidence_from_uncertainty(u))
    ap_perfect = average_precision_score(c, c.astype(np.float64))
    return float(ap / ap_perfect)


# ---------------------------------------------------------------------------
# Isotonic calibration, Brier, ECE
# ---------------------------------------------------------------------------


def _fit_isotonic(conf_train: np.ndarray, y_train: np.ndarray, conf_eval: np.ndarray):
    from sklearn.isotonic import IsotonicRegression

    iso = IsotonicRegression(increasing=True, y_min=0.0, y_max=1.0, out_of_bounds="clip")
    return iso.fit(conf_train, y_train.astype(np.float64)).predict(conf_eval)


def isotonic_probabilities(
    correct: ArrayLike,
    uncertainty: ArrayLike,
    *,
    cross_fit: bool = False,
    n_folds: int = 5,
    seed: Seed = 0,
) -> np.ndarray:
    """Map uncertainty to P(correct) by isotonic regression (decreasing in uncertainty).

    Parameters
    ----------
    correct : array of shape (n,), 0/1 or bool.
    uncertainty : array of shape (n,), higher = more uncertain.
    cross_fit : bool, default False
        False: fit and predict on the same answers, as the paper does (optimistic:
        the fitted map has seen each label). True: k-fold cross-fitting — each answer's
        probability comes from a map fitted on the other folds.
    n_folds : int, default 5
        Folds for ``cross_fit=True``. Folds are a random partition from ``seed``.
    seed : int or numpy Generator, default 0

    Returns
    -------
    array of shape (n,) with values in [0, 1].

    References
    ----------
    Zadrozny & Elkan (2002); paper §3 "Evaluation metrics" (isotonic normalisation).
    """
    c, u = _check_inputs(correct, uncertainty)
    conf = confidence_from_uncertainty(u)
    if not cross_fit:
        return _fit_isotonic(conf, c, conf)
    if n_folds < 2:
        raise ValueError(f"n_folds must be at least 2 for cross-fitting; got {n_folds}")
    if c.size < n_folds:
        raise ValueError(
            f"cross-fitting with {n_folds} folds needs at least {n_folds} answers; got {c.size}"
        )
    rng = np.random.default_rng(seed)
    folds = np.array_split(rng.permutation(c.size), n_folds)
    prob = np.empty(c.size, dtype=np.float64)
    for test in folds:
        train = np.setdiff1d(np.arange(c.size), test, assume_unique=True)
        prob[test] = _fit_isotonic(conf[train], c[train], conf[test])
    return prob


def brier_isotonic_loss(
    correct: ArrayLike,
    uncertainty: ArrayLike,
    *,
    cross_fit: bool = False,
    n_folds: int = 5,
    seed: Seed = 0,
) -> float:
    """Brier score ``mean((p − correct)²)`` of isotonic-calibrated P(correct).

    Parameters
    ----------
    correct, uncertainty : arrays of shape (n,).
    cross_fit : bool, default False
        False reproduces the paper (isotonic map fitted in-sample); True cross-fits
        (see :func:`isotonic_probabilities`), an honest out-of-sample figure.
    n_folds, seed : see :func:`isotonic_probabilities`.

    Returns
    -------
    float in [0, 1]; lower is better. In-sample, a perfect ranking gives exactly 0.

    References
    ----------
    Brier (1950); paper §3 "Evaluation metrics" (Brier Score with isotonic normalisation).
    """
    c, u = _check_inputs(correct, uncertainty)
    p = isotonic_probabilities(c, u, cross_fit=cross_fit, n_folds=n_folds, seed=seed)
    return float(np.mean((p - c) ** 2))


@dataclass(frozen=True)
class ReliabilityDiagram:
    """Data of a reliability diagram over equal-width probability bins.

    Attributes
    ----------
    bin_edges : (n_bins+1,) array from 0 to 1.
    count : (n_bins,) int array, answers per bin.
    mean_confidence : (n_bins,) array, mean predicted P(correct) per bin (NaN if empty).
    accuracy : (n_bins,) array, fraction correct per bin (NaN if empty).
    ece : float, ``Σ_b count_b / n · |accuracy_b − mean_confidence_b|``.
    """

    bin_edges: np.ndarray
    count: np.ndarray
    mean_confidence: np.ndarray
    accuracy: np.ndarray
    ece: float


def reliability_diagram(
    correct: ArrayLike,
    uncertainty: ArrayLike,
    *,
    n_bins: int = 10,
    cross_fit: bool = True,
    n_folds: int = 5,
    seed: Seed = 0,
) -> ReliabilityDiagram:
    """Reliability diagram and ECE of isotonic-calibrated P(correct).

    Parameters
    ----------
    correct, uncertainty : arrays of shape (n,).
    n_bins : int, default 10
        Equal-width bins on [0, 1]; a probability of exactly 1 falls in the last bin.
    cross_fit : bool, default True
        In-sample isotonic probabilities are calibrated by construction — every isotonic
        level set has mean label equal to its value — so their ECE is always 0. Only
        cross-fitted probabilities give an informative ECE.
    n_folds, seed : see :func:`isotonic_probabilities`.

    Returns
    -------
    ReliabilityDiagram
    """
    if n_bins < 1:
        raise ValueError(f"n_bins must be at least 1; got {n_bins}")
    c, u = _check_inputs(correct, uncertainty)
    p = isotonic_probabilities(c, u, cross_fit=cross_fit, n_folds=n_folds, seed=seed)
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    b = np.minimum(
        (p * n_bins).astype(np.int64), n_bins - 1
    )  # (n,) bin: b/n_bins <= p < (b+1)/n_bins
    count = np.bincount(b, minlength=n_bins)
    sum_p = np.bincount(b, weights=p, minlength=n_bins)
    sum_c = np.bincount(b, weights=c.astype(np.float64), minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_conf = np.where(count > 0, sum_p / count, np.nan)
        acc = np.where(count > 0, sum_c / count, np.nan)
    ece = float(np.sum(np.abs(sum_c - sum_p)) / c.size)  # = Σ n_b/n |acc_b − conf_b|
    return ReliabilityDiagram(edges, count, mean_conf, acc, ece)


def ece_loss(
    correct: ArrayLike,
    uncertainty: ArrayLike,
    *,
    n_bins: int = 10,
    cross_fit: bool = True,
    n_folds: int = 5,
    seed: Seed = 0,
) -> float:
    """Return the expected calibration error of isotonic-calibrated P(correct); lower is better.

    See :func:`reliability_diagram` (why ``cross_fit`` defaults to True here).

    References
    ----------
    Naeini et al. (2015); paper Appendix "Related Work" (SPUQ reports ECE).
    """
    return reliability_diagram(
        correct, uncertainty, n_bins=n_bins, cross_fit=cross_fit, n_folds=n_folds, seed=seed
    ).ece


# ---------------------------------------------------------------------------
# Metric table
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Metric:
    """A metric of ``(correct, uncertainty) -> float`` with its direction.

    ``needs_both_classes``: undefined when every answer is correct or every one incorrect.
    """

    name: str
    label: str
    func: Callable[[np.ndarray, np.ndarray], float]
    higher_is_better: bool
    needs_both_classes: bool = True


def _brier_cv(correct: ArrayLike, uncertainty: ArrayLike) -> float:
    return brier_isotonic_loss(correct, uncertainty, cross_fit=True)


METRICS: dict[str, Metric] = {
    m.name: m
    for m in (
        Metric("auroc", "AUROC", auroc_score, True),
        Metric("prr", "PRR", prr_score, True),
        Metric("auprc", "AUPRC (released-code PRR)", auprc_released_code_score, True),
        Metric("brier", "Brier", brier_isotonic_loss, False, needs_both_classes=False),
        Metric("brier_cv", "Brier (cross-fit)", _brier_cv, False, needs_both_classes=False),
        Metric("ece", "ECE (cross-fit)", ece_loss, False, needs_both_classes=False),
    )
}
DEFAULT_METRICS: tuple[str, ...] = tuple(METRICS)


def _get_metric(metric: str | Metric) -> Metric:
    if isinstance(metric, Metric):
        return metric
    try:
        return METRICS[metric]
    except KeyError:
        raise ValueError(f"unknown metric {metric!r}; known: {', '.join(METRICS)}") from None


# ---------------------------------------------------------------------------
# Paired bootstrap
# ---------------------------------------------------------------------------

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


@dataclass(frozen=True)
class MetricSummary:
    """One method × metric cell: bootstrap mean/std, the resample values, full-sample value."""

    mean: float
    std: float
    point: float
    values: np.ndarray = field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        """Return the cell as a JSON-ready dict (the resample values as a list)."""
        return {
            "mean": self.mean,
            "std": self.std,
            "point": self.point,
            "values": [float(v) for v in self.values],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MetricSummary:
        """Inverse of :meth:`to_dict`."""
        values = np.asarray(data["values"], dtype=np.float64)
        return cls(float(data["mean"]), float(data["std"]), float(data["point"]), values)


@dataclass(frozen=True)
class Evaluation:
    """Result of :func:`evaluate_scores`.

    Attributes
    ----------
    results : method -> metric name -> MetricSummary.
    metrics : the metric names, in column order.
    n_questions, n_correct, n_bootstrap, seed : what the figures rest on.
    skipped : method -> reason, for methods with no finite uncertainty at all.
    """

    results: dict[str, dict[str, MetricSummary]]
    metrics: tuple[str, ...]
    n_questions: int
    n_correct: int
    n_bootstrap: int
    seed: int | None
    skipped: dict[str, str] = field(default_factory=dict)

    @property
    def accuracy(self) -> float:
        """Share of correct answers (NaN with no question: say so, never print it)."""
        return self.n_correct / self.n_questions if self.n_questions else float("nan")

    def to_dict(self) -> dict[str, Any]:
        """Return the evaluation as a JSON-ready dict (what ``results.json`` holds)."""
        return {
            "metrics": list(self.metrics),
            "n_questions": self.n_questions,
            "n_correct": self.n_correct,
            "n_bootstrap": self.n_bootstrap,
            "seed": self.seed,
            "skipped": dict(self.skipped),
            "results": {
                meth: {k: s.to_dict() for k, s in row.items()} for meth, row in self.results.items()
            },
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Evaluation:
        """Inverse of :meth:`to_dict` (e.g. an evaluation read back from ``results.json``).

        Evaluations saved before the bootstrap count was named ``n_bootstrap`` (their key
        was ``"n_boot"``) load too.
        """
        results = {
            meth: {k: MetricSummary.from_dict(v) for k, v in row.items()}
            for meth, row in data["results"].items()
        }
        return cls(
            results=results,
            metrics=tuple(data["metrics"]),
            n_questions=int(data["n_questions"]),
            n_correct=int(data["n_correct"]),
            n_bootstrap=int(data["n_bootstrap"] if "n_bootstrap" in data else data["n_boot"]),
            seed=data.get("seed"),
            skipped=dict(data.get("skipped") or {}),
        )


def evaluate_scores(
    table: Mapping[str, ArrayLike],
    correct: ArrayLike,
    *,
    n_bootstrap: int = N_BOOTSTRAP,
    seed: int = 0,
    metrics: Sequence[str] = DEFAULT_METRICS,
    on_single_class: OnSingleClass = "redraw",
) -> Evaluation:
    """Every metric for every method, with paired-bootstrap mean ± std.

    All methods and metrics are evaluated on the *same* resamples (drawn once from
    ``seed``), so differences between methods are paired too.

    Parameters
    ----------
    table : method name -> uncertainty array of shape (n,), higher = more uncertain.
        A method whose values are all NaN (unavailable) is listed in ``skipped``;
        a partly-NaN method raises ValueError naming it.
    correct : array of shape (n,), 0/1 or bool — judgements of the same responses.
    n_bootstrap : int, default :data:`N_BOOTSTRAP` (40, paper, Appendix "Calculation of Mean and Variance")
    seed : int, default 0
    metrics : names from :data:`METRICS`, default all.
    on_single_class : {"redraw", "skip"}, see :func:`bootstrap_indices`.

    Returns
    -------
    Evaluation
    """
    specs = [_get_metric(m) for m in metrics]
    c = np.asarray(correct)
    results: dict[str, dict[str, MetricSummary]] = {}
    skipped: dict[str, str] = {}
    need_both = any(spec.needs_both_classes for spec in specs)
    indices = None  # drawn once: every method and metric sees the same resamples
    for method, values in table.items():
        u = np.asarray(values, dtype=np.float64)
        if u.shape != c.shape:
            raise ValueError(
                f"method {method!r}: {u.size} uncertainties for {c.size} correctness labels"
            )
        nan = np.isnan(u)
        if nan.all():
            skipped[method] = "no finite uncertainty (method unavailable)"
            continue
        if nan.any():
            raise ValueError(
                f"method {method!r}: {int(nan.sum())} of {u.size} uncertainties are NaN "
                f"(first at index {int(np.flatnonzero(nan)[0])})"
            )
        c, u = _check_inputs(c, u)
        if indices is None:
            indices = bootstrap_indices(
                c,
                n_bootstrap=n_bootstrap,
                seed=seed,
                require_both_classes=need_both,
                on_single_class=on_single_class,
            )
        row = {}
        for spec in specs:
            boot = paired_bootstrap(spec, c, u, indices=indices)
            row[spec.name] = MetricSummary(boot.mean, boot.std, spec.func(c, u), boot.values)
        results[method] = row
    c_int = np.asarray(correct).astype(np.int64)
    return Evaluation(
        results=results,
        metrics=tuple(s.name for s in specs),
        n_questions=int(c_int.size),
        n_correct=int(c_int.sum()),
        n_bootstrap=n_bootstrap,
        seed=seed,
        skipped=skipped,
    )


def undefined_reason(correct: ArrayLike, *, needs_both_classes: bool = True) -> str | None:
    """Why a metric cannot be computed on these judgements, or None when it can.

    Parameters
    ----------
    correct : array of shape (n,), 0/1 or bool.
    needs_both_classes : the metric needs correct and incorrect answers (AUROC, PRR).

    Returns
    -------
    ``"no values"`` (n = 0), ``"too few rows"`` (n = 1), ``"all answers right"``,
    ``"all answers wrong"`` or None.
    """
    c = np.asarray(correct, dtype=np.float64).ravel()
    if c.size == 0:
        return "no values"
    if c.size < 2:
        return "too few rows"
    if needs_both_classes and c.min() == c.max():
        return "all answers right" if c[0] else "all answers wrong"
    return None


def point_metrics(
    table: Mapping[str, ArrayLike],
    correct: ArrayLike,
    *,
    metrics: Sequence[str] = ("auroc", "prr"),
) -> dict[str, dict[str, Any]]:
    """Full-sample value of each metric for each method, without bootstrap.

    Each method is evaluated on the questions where its uncertainty is finite
    (a method may fail on some questions), so ``n`` can differ between methods.

    Parameters
    ----------
    table : method name -> uncertainty array of shape (n,), higher = more uncertain;
        NaN where the method has no value.
    correct : array of shape (n,), 0/1 or bool.
    metrics : names from :data:`METRICS`.

    Returns
    -------
    method -> ``{metric: float | None, …, "n": int, "undefined": str | None}``; a
    metric is None when :func:`undefined_reason` gives a reason, stored under
    ``"undefined"`` (e.g. "all answers right").
    """
    specs = [_get_metric(m) for m in metrics]
    c_all = np.asarray(correct)
    out: dict[str, dict[str, Any]] = {}
    for method, values in table.items():
        u = np.asarray(values, dtype=np.float64)
        keep = np.isfinite(u)
        c, u = c_all[keep], u[keep]
        row: dict[str, Any] = {"n": int(keep.sum()), "undefined": None}
        for spec in specs:
            reason = undefined_reason(c, needs_both_classes=spec.needs_both_classes)
            row[spec.name] = None if reason else float(spec.func(c, u))
            row["undefined"] = row["undefined"] or reason
        out[method] = row
    return out


# ---------------------------------------------------------------------------
# TSU — Eq. (tsudefinition)
# ---------------------------------------------------------------------------


def _check_temperatures(temperatures: ArrayLike, n_cols: int) -> np.ndarray:
    t = np.asarray(temperatures, dtype=np.float64)
    if t.ndim != 1 or t.size != n_cols:
        raise ValueError(
            f"temperatures must list one temperature per column of uq ({n_cols}); got {t.tolist()}"
        )
    if t.size < 2:
        raise ValueError("TSU needs at least two temperatures")
    if not np.all(np.diff(t) > 0):
        raise ValueError(f"temperatures must be strictly increasing; got {t.tolist()}")
    return t


def tsu_score(
    uq: ArrayLike,
    temperatures: ArrayLike,
    *,
    nan_policy: Literal["raise", "omit"] = "raise",
) -> float:
    """TSU(T_1, …, T_n): fraction of questions whose UQ strictly increases with temperature.

    ``TSU = 1/|D| Σ_{S_x ∈ D} 1(UQ(S_x, T_1) < UQ(S_x, T_2) < … < UQ(S_x, T_n))``.
    Ties are not increases.

    Parameters
    ----------
    uq : array of shape (n_questions, n_temperatures); column j is the uncertainty at
        ``temperatures[j]``, higher = more uncertain.
    temperatures : strictly increasing sequence of length n_temperatures.
    nan_policy : {"raise", "omit"}, default "raise"
        NaN marks a method unavailable for a question. "raise": ValueError. "omit": drop
        questions with a NaN in any column (|D| counts only the rest).

    Returns
    -------
    float in [0, 1] (format as a percentage at the edge).

    References
    ----------
    Paper §3 "Evaluation metrics", Eq. (tsudefinition).

    Examples
    --------
    >>> tsu_score([[0.1, 0.2, 0.3], [0.1, 0.1, 0.3]], [0.3, 0.7, 1.0])
    0.5
    """
    a = np.asarray(uq, dtype=np.float64)
    if a.ndim != 2:
        raise ValueError(f"uq must be 2-D (n_questions, n_temperatures); got shape {a.shape}")
    _check_temperatures(temperatures, a.shape[1])
    if nan_policy not in ("raise", "omit"):
        raise ValueError(f"nan_policy must be 'raise' or 'omit'; got {nan_policy!r}")
    if np.isinf(a).any():
        raise ValueError("uq contains infinite values")
    nan_rows = np.isnan(a).any(axis=1)
    if nan_rows.any():
        if nan_policy == "raise":
            raise ValueError(
                f"uq has NaN for {int(nan_rows.sum())} of {a.shape[0]} questions (first row "
                f"{int(np.flatnonzero(nan_rows)[0])}); pass nan_policy='omit' to exclude them"
            )
        a = a[~nan_rows]
    if a.shape[0] == 0:
        raise ValueError("TSU needs at least one question with UQ at every temperature")
    return float(np.mean(np.all(np.diff(a, axis=1) > 0, axis=1)))


def _column(temperatures: np.ndarray, t: float) -> int:
    hit = np.flatnonzero(np.isclose(temperatures, t))
    if hit.size == 0:
        raise ValueError(f"temperature {t} is not among {temperatures.tolist()}")
    return int(hit[0])


def tsu_pair(
    uq: ArrayLike,
    temperatures: ArrayLike,
    low: float,
    high: float,
    *,
    nan_policy: Literal["raise", "omit"] = "raise",
) -> float:
    """TSU(low, high): Eq. (tsudefinition) on two columns of ``uq`` (e.g. TSU(1.0,1.4)).

    Parameters
    ----------
    uq : (n_questions, n_temperatures) array; temperatures : strictly increasing.
    low, high : two of ``temperatures``, ``low < high``.
    nan_policy : see :func:`tsu_score` (applies to the two columns only).
    """
    a = np.asarray(uq, dtype=np.float64)
    t = _check_temperatures(temperatures, a.shape[-1] if a.ndim == 2 else -1)
    if not low < high:
        raise ValueError(f"TSU pair needs low < high; got ({low}, {high})")
    cols = [_column(t, low), _column(t, high)]
    return tsu_score(a[:, cols], t[cols], nan_policy=nan_policy)


def tsu_chain(
    uq: ArrayLike,
    temperatures: ArrayLike,
    low: float | None = None,
    high: float | None = None,
    *,
    nan_policy: Literal["raise", "omit"] = "raise",
) -> float:
    """TSU(low–high): strictly increasing UQ across every temperature in [low, high].

    E.g. with temperatures (0.3, 0.7, 1.0, 1.4), ``tsu_chain(uq, t, 0.7, 1.4)`` is the
    paper's TSU(0.7–1.4), a chain over 0.7 < 1.0 < 1.4. ``low``/``high`` default to the
    first/last temperature.
    """
    a = np.asarray(uq, dtype=np.float64)
    t = _check_temperatures(temperatures, a.shape[-1] if a.ndim == 2 else -1)
    i = 0 if low is None else _column(t, low)
    j = t.size - 1 if high is None else _column(t, high)
    if j - i < 1:
        raise ValueError(f"TSU chain needs low < high; got ({t[i]}, {t[j]})")
    return tsu_score(a[:, i : j + 1], t[i : j + 1], nan_policy=nan_policy)


def tsu_label(low: float, high: float, *, kind: Literal["pair", "chain"]) -> str:
    """Paper-style column label: ``TSU(1.0,1.4)`` for a pair, ``TSU(0.7–1.4)`` for a chain."""
    if kind not in ("pair", "chain"):
        raise ValueError(f"kind must be 'pair' or 'chain'; got {kind!r}")

    def fmt(t: float) -> str:
        s = f"{t:g}"
        return s if "." in s else s + ".0"  # 1 -> "1.0", as the paper writes it

    sep = "," if kind == "pair" else "–"
    return f"TSU({fmt(low)}{sep}{fmt(high)})"


#: Columns of the paper's TSU table (Table tsu_horizontal), temperatures 0.3/0.7/1.0/1.4.
PAPER_TSU_PAIRS: tuple[tuple[float, float], ...] = ((1.0, 1.4), (0.7, 1.4))
PAPER_TSU_CHAINS: tuple[tuple[float, float], ...] = ((0.7, 1.4), (0.3, 1.4))


def tsu_table(
    uq_by_method: Mapping[str, ArrayLike],
    temperatures: ArrayLike,
    *,
    pairs: Sequence[tuple[float, float]] = PAPER_TSU_PAIRS,
    chains: Sequence[tuple[float, float]] = PAPER_TSU_CHAINS,
    nan_policy: Literal["raise", "omit"] = "raise",
) -> dict[str, dict[str, float]]:
    """TSU pairs and chains for several methods: method -> {label: fraction}.

    Parameters
    ----------
    uq_by_method : method -> (n_questions, n_temperatures) array.
    temperatures : strictly increasing, one per column.
    pairs, chains : (low, high) temperatures; defaults are the paper's columns
        TSU(1.0,1.4), TSU(0.7,1.4), TSU(0.7–1.4), TSU(0.3–1.4).
    nan_policy : see :func:`tsu_score`.

    Returns
    -------
    dict, ready for :func:`invent_core.evaluation.report.tsu_results_table`.
    """
    out: dict[str, dict[str, float]] = {}
    for method, uq in uq_by_method.items():
        row = {}
        for low, high in pairs:
            row[tsu_label(low, high, kind="pair")] = tsu_pair(
                uq, temperatures, low, high, nan_policy=nan_policy
            )
        for low, high in chains:
            row[tsu_label(low, high, kind="chain")] = tsu_chain(
                uq, temperatures, low, high, nan_policy=nan_policy
            )
        out[method] = row
    return out
