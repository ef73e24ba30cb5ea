"""Ranking metrics: how well confidence orders right answers above wrong ones.

- :func:`auroc_score` — AUROC of confidence (−uncertainty) for correctness;
- :func:`rejection_curve` / :class:`RejectionCurve` — the prediction-rejection
  curve, (n+1,) arrays for k = 0..n answers rejected most-uncertain first;
- :func:`prr_score` — Malinin et al.'s (2021) prediction-rejection ratio;
- :func:`auprc_released_code_score` — what the paper's released code reports as
  "PRR" (the AUPRC).

Each takes ``correct`` and ``uncertainty`` of shape (n,) and returns a float,
higher is better (paper §3 "Evaluation metrics").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .inputs import check_both_classes, check_inputs, confidence_from_uncertainty


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
    c, u = check_inputs(correct, uncertainty)
    check_both_classes(c, "AUROC")
    conf = confidence_from_uncertainty(u)
    if sample_weight is not None:
        from sklearn.metrics import roc_auc_score

        return float(roc_auc_score(c, conf, sample_weight=sample_weight))
    return _mann_whitney_auroc(c, conf)


def _mann_whitney_auroc(c: np.ndarray, conf: np.ndarray) -> float:
    """AUROC as the Mann–Whitney U over (right, wrong) pairs, ties 1/2 (average ranks).

    The same number as scikit-learn's ``roc_auc_score``, at a fraction of its cost:
    the bootstrap evaluates it thousands of times.
    """
    from scipy.stats import rankdata

    ranks = rankdata(conf)
    n_pos = int(c.sum())
    n_neg = c.size - n_pos
    u_stat = ranks[c == 1].sum() - n_pos * (n_pos + 1) / 2
    return float(u_stat / (n_pos * n_neg))


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
    c, u = check_inputs(correct, uncertainty)
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
    c, u = check_inputs(correct, uncertainty)
    check_both_classes(c, "PRR")
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
    c, u = check_inputs(correct, uncertainty)
    check_both_classes(c, "AUPRC (released-code PRR)")
    ap = _average_precision(c, confidence_from_uncertainty(u))
    ap_perfect = _average_precision(c, c.astype(np.float64))
    return float(ap / ap_perfect)


def _average_precision(c: np.ndarray, score: np.ndarray) -> float:
    """scikit-learn's ``average_precision_score``: Σ (R_k − R_{k−1}) P_k over distinct thresholds.

    Written out in numpy because the bootstrap calls it thousands of times.
    """
    order = np.argsort(-score, kind="mergesort")
    s, y = score[order], c[order]
    last = np.r_[np.flatnonzero(s[1:] != s[:-1]), s.size - 1]  # end of each tied run
    tp = np.cumsum(y)[last]
    fp = (last + 1) - tp
    precision = tp / (tp + fp)
    recall = tp / tp[-1]
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))
