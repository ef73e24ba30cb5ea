"""Calibration metrics: how close an isotonic-calibrated P(correct) is to the labels.

Uncertainty is mapped to P(correct) by isotonic regression
(:func:`isotonic_probabilities`, (n,) values in [0, 1]), in-sample as the paper
does or cross-fitted; :func:`brier_isotonic_loss` is the Brier score of those
probabilities, :func:`reliability_diagram` / :func:`ece_loss` their reliability
over equal-width bins and the expected calibration error. All lower-is-better
losses of ``(correct, uncertainty)`` of shape (n,) (paper §3 "Evaluation
metrics").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .inputs import Seed, check_inputs, confidence_from_uncertainty


def pava_sklearn(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted pool-adjacent-violators: the non-decreasing fit of ``y`` (already ordered)."""
    from sklearn._isotonic import _inplace_contiguous_isotonic_regression

    out, wt = np.array(y, dtype=np.float64), np.array(w, dtype=np.float64)
    _inplace_contiguous_isotonic_regression(out, wt)  # scikit-learn's own PAVA, in place
    return out


def pava_python(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """:func:`pava_sklearn` in plain Python: the same blocks, merged in the same order.

    scikit-learn's algorithm step for step (a decreasing run is pooled into
    its first entry, then the scan backtracks one block), so the pooled means
    are the same sums in the same order. It costs what a Python loop costs
    (about 0.1 ms for 100 points) but imports nothing: for a few hundred fits
    of a small reference (:mod:`invent_core.evaluation.reference.calibration`),
    where importing scikit-learn (1-2 s) would be most of a cached run.
    """
    yv = [float(v) for v in y]
    wv = [float(v) for v in w]
    n = len(yv)
    target = list(range(n))  # an active block [i..j]: target[i] = j and target[j] = i
    i = 0
    while i < n:
        k = target[i] + 1
        if k == n:
            break
        if yv[i] < yv[k]:
            i = k
            continue
        sum_wy, sum_w = wv[i] * yv[i], wv[i]
        while True:  # within a decreasing run: pool it into entry i
            prev_y = yv[k]
            sum_wy += wv[k] * yv[k]
            sum_w += wv[k]
            k = target[k] + 1
            if k == n or prev_y < yv[k]:
                yv[i], wv[i] = sum_wy / sum_w, sum_w
                target[i], target[k - 1] = k - 1, i
                if i > 0:
                    i = target[i - 1]  # backtrack one block
                break
    out = np.empty(n)
    i = 0
    while i < n:
        k = target[i] + 1
        out[i:k] = yv[i]
        i = k
    return out


def isotonic_fit(
    conf_train: np.ndarray,
    y_train: np.ndarray,
    *,
    bounds: tuple[float, float] = (0.0, 1.0),
    pava=pava_sklearn,
) -> tuple[np.ndarray, np.ndarray]:
    """Increasing isotonic fit of ``y_train`` on ``conf_train``: (distinct x, fitted level).

    What scikit-learn's ``IsotonicRegression(y_min=lo, y_max=hi, out_of_bounds="clip")``
    fits (tied x pooled to their mean, weighted by their count; PAVA; clipped to
    ``bounds``), without its per-call overhead: the bootstrap fits it tens of
    thousands of times. Read it with :func:`isotonic_read`.
    """
    x, inverse, counts = np.unique(conf_train, return_inverse=True, return_counts=True)
    y_mean = np.bincount(inverse, weights=y_train.astype(np.float64)) / counts
    return x, np.clip(pava(y_mean, counts.astype(np.float64)), *bounds)


def isotonic_read(fit: tuple[np.ndarray, np.ndarray], conf_eval: np.ndarray) -> np.ndarray:
    """A fit of :func:`isotonic_fit` at ``conf_eval``: linear between its points, flat outside."""
    x, fitted = fit
    return np.interp(np.clip(conf_eval, x[0], x[-1]), x, fitted)


def _fit_isotonic(conf_train: np.ndarray, y_train: np.ndarray, conf_eval: np.ndarray):
    """:func:`isotonic_fit` on the training answers, read at ``conf_eval``, in [0, 1]."""
    return isotonic_read(isotonic_fit(conf_train, y_train), conf_eval)


def isotonic_probabilities(
    correct: ArrayLike,
    uncertainty: ArrayLike,
    *,
    cross_fit: bool = False,
    n_folds: int = 5,
    seed: Seed = 0,
    groups: ArrayLike | None = None,
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
    groups : array of shape (n,), optional
        With ``cross_fit``: answers of one group always share a fold. A bootstrap
        resample passes its indices, so the copies of one question are never on
        both sides of a fold (see :func:`cross_fit_folds`). None: every answer its own group.

    Returns
    -------
    array of shape (n,) with values in [0, 1].

    References
    ----------
    Zadrozny & Elkan (2002); paper §3 "Evaluation metrics" (isotonic normalisation).
    """
    c, u = check_inputs(correct, uncertainty)
    conf = confidence_from_uncertainty(u)
    if not cross_fit:
        return _fit_isotonic(conf, c, conf)
    if n_folds < 2:
        raise ValueError(f"n_folds must be at least 2 for cross-fitting; got {n_folds}")
    if c.size < n_folds:
        raise ValueError(
            f"cross-fitting with {n_folds} folds needs at least {n_folds} answers; got {c.size}"
        )
    fold = cross_fit_folds(c.size if groups is None else np.asarray(groups), n_folds, seed)
    prob = np.empty(c.size, dtype=np.float64)
    for k in range(n_folds):
        test = fold == k
        prob[test] = _fit_isotonic(conf[~test], c[~test], conf[test])
    return prob


def cross_fit_folds(groups: int | np.ndarray, n_folds: int, seed: Seed) -> np.ndarray:
    """The fold (0 … n_folds − 1) of each answer: a random partition of the groups from ``seed``.

    Why groups: a bootstrap resample holds about a third of its questions two or
    more times. Folded answer by answer, one copy lands in the test fold and another
    in the training folds, so the isotonic map has seen the label it is tested on:
    the resample's cross-fitted Brier and ECE come out optimistic, most of all for a
    method whose map is noise (one of 100 arithmetic questions: ECE 0.229 on the
    sample, 0.109 on the average resample, and a paired interval that left out the
    sample's own difference). Folding whole questions keeps each resample as honest
    as the sample. An int ``n`` is n groups of one answer: the same partition as
    ``array_split(permutation(n))`` of the same seed, so the value on the sample is
    what it was before groups existed. With fewer distinct questions than folds (a
    resample of a handful), each answer is its own group again.
    """
    ids = np.arange(groups) if isinstance(groups, int) else groups
    uniq, member = np.unique(ids, return_inverse=True)
    if uniq.size < n_folds:  # a tiny resample: too few questions to fold them whole
        uniq, member = np.arange(member.size), np.arange(member.size)
    rng = np.random.default_rng(seed)
    fold_of = np.empty(uniq.size, dtype=np.int64)
    for k, part in enumerate(np.array_split(rng.permutation(uniq.size), n_folds)):
        fold_of[part] = k
    return fold_of[member.ravel()]


def brier_isotonic_loss(
    correct: ArrayLike,
    uncertainty: ArrayLike,
    *,
    cross_fit: bool = False,
    n_folds: int = 5,
    seed: Seed = 0,
    groups: ArrayLike | None = None,
) -> float:
    """Brier score ``mean((p − correct)²)`` of isotonic-calibrated P(correct).

    Parameters
    ----------
    correct, uncertainty : arrays of shape (n,).
    cross_fit : bool, default False
        False reproduces the paper (isotonic map fitted in-sample); True cross-fits
        (see :func:`isotonic_probabilities`), an honest out-of-sample figure.
    n_folds, seed, groups : see :func:`isotonic_probabilities`.

    Returns
    -------
    float in [0, 1]; lower is better. In-sample, a perfect ranking gives exactly 0.

    References
    ----------
    Brier (1950); paper §3 "Evaluation metrics" (Brier Score with isotonic normalisation).
    """
    c, u = check_inputs(correct, uncertainty)
    p = isotonic_probabilities(c, u, cross_fit=cross_fit, n_folds=n_folds, seed=seed, groups=groups)
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
    groups: ArrayLike | None = None,
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
    n_folds, seed, groups : see :func:`isotonic_probabilities`.

    Returns
    -------
    ReliabilityDiagram
    """
    if n_bins < 1:
        raise ValueError(f"n_bins must be at least 1; got {n_bins}")
    c, u = check_inputs(correct, uncertainty)
    p = isotonic_probabilities(c, u, cross_fit=cross_fit, n_folds=n_folds, seed=seed, groups=groups)
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
    groups: ArrayLike | None = None,
) -> float:
    """Return the expected calibration error of isotonic-calibrated P(correct); lower is better.

    See :func:`reliability_diagram` (why ``cross_fit`` defaults to True here).

    References
    ----------
    Naeini et al. (2015); paper Appendix "Related Work" (SPUQ reports ECE).
    """
    return reliability_diagram(
        correct,
        uncertainty,
        n_bins=n_bins,
        cross_fit=cross_fit,
        n_folds=n_folds,
        seed=seed,
        groups=groups,
    ).ece
