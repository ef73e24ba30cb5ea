"""The dual random walk of the paper: affinities, P_x, P_y and the distributions built on them.

Pure numpy. Every function takes arrays and returns arrays; batched versions
work on a leading batch axis (``(..., m, m)``) so the bootstrap evaluates all B
resamples in one matmul.

Notation (paper, §2.2–2.3): states ``0..n`` are the original question (state 0)
and its ``n`` perturbations. ``P_x[i, j]`` is the probability that the input
walk goes from state i to state j, ``P_y`` the same for the outputs.

References
----------
Song et al., "Inv-Entropy: A Fully Probabilistic Framework for Uncertainty
Quantification in Language Models", NeurIPS 2025, Eqs. (dualdiffusion), (p_y), (pxy).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..config import AffinityKind, ScoreConfig

#: τ of the ``exp_cosine`` affinity by default; written once, in ScoreConfig (read here for
#: callers outside a run's config, e.g. GAAP's fitness and the embedders' default).
KERNEL_TAU: float = ScoreConfig.kernel_tau
#: Floor under similarities: a row of zero affinities would make P undefined.
_TINY = 1e-12


def cosine_similarity(emb: np.ndarray) -> np.ndarray:
    """Pairwise cosine similarity of the rows of ``emb``.

    Parameters
    ----------
    emb : array of shape (..., m, d)

    Returns
    -------
    array of shape (..., m, m), values in [-1, 1].
    Rows of zero norm are treated as orthogonal to everything (cosine 0).
    """
    emb = np.asarray(emb, dtype=np.float64)
    if emb.ndim < 2:
        raise ValueError(f"embeddings must have shape (m, d), got {emb.shape}")
    norms = np.linalg.norm(emb, axis=-1, keepdims=True)
    unit = np.divide(emb, norms, out=np.zeros_like(emb), where=norms > 0)
    cos = unit @ np.swapaxes(unit, -1, -2)
    return np.clip(cos, -1.0, 1.0)


def affinity_from_embeddings(emb: np.ndarray, *, kind: AffinityKind, tau: float) -> np.ndarray:
    """Non-negative similarity a(z_i, z_j) between embeddings.

    Parameters
    ----------
    emb : array of shape (..., m, d)
    kind, tau : see :func:`affinity_from_cosine`.

    Returns
    -------
    array of shape (..., m, m) with entries in [0, 1] and ones on the diagonal
    for non-zero embeddings.
    """
    return affinity_from_cosine(cosine_similarity(emb), kind=kind, tau=tau)


def affinity_from_cosine(cos: np.ndarray, *, kind: AffinityKind, tau: float) -> np.ndarray:
    """Map cosine similarities to affinities a(z_i, z_j).

    ``kind`` and ``tau`` have no default here: the run's come from
    :class:`~invent_core.config.ScoreConfig` (``affinity``, ``kernel_tau``), where
    each default is written once, and every caller passes them.

    Parameters
    ----------
    cos : array of shape (..., m, m), values in [-1, 1].
    kind : which kernel.

        - ``"shifted_cosine"`` (the pure paper):
          ``(1 + cos) / 2``, the paper's (§3 "Implementation details").
        - ``"abs_cosine"``: ``|cos|``, what the paper's released code uses —
          a parity option; it treats opposite embeddings as similar.
        - ``"exp_cosine"`` (ours): ``exp((cos − 1) / τ)``, in (0, 1], ones on
          the diagonal, symmetric, increasing in cos. It keeps the paper's
          framework (any non-negative a; paper §2.2) and fixes what makes the
          paper's kernel uninformative with sentence embedders: every
          ``(1 + cos)/2`` lies in about [0.6, 1], so P_x, P_y and
          P(X|Y) = P_y P_x are close to uniform and Inv-Entropy sits at
          ≈ log(n + 1) whatever the answers are. The run default
          (``ScoreConfig.affinity``), chosen on saved runs: on the arithmetic
          testbed Inv-Entropy's AUROC rose from 0.73 to 0.83 (τ = 0.25); on
          MMLU, where no method beats chance with the packaged model, it fell
          0.04 (within its ± 0.03). Where common sense (a measure that moves
          with the answers) and the paper's kernel disagree, we side with the
          former and keep the paper's as an option.
    tau : τ > 0 of ``"exp_cosine"`` (ignored by the others). Smaller is
        sharper. Too sharp is wrong too: once P(x_i | y_i) > 1/e the
        unnormalised entropy *falls* as answers scatter (paper §"Insights").
        With n = 9 inputs that requires their mean off-diagonal affinity to
        stay above ≈ 0.19, i.e. input cosines above ``1 − 1.66 τ``.

    Returns
    -------
    array of the shape of ``cos``, entries in [0, 1].

    Notes
    -----
    Inv-Entropy of the golfer question of ``assets/demo_run.json`` (its 10
    real GAAP inputs, all-MiniLM-L6-v2, r = 5, B = 30, seed 0): identical
    answers (``Tom Watson`` × 50) vs the run's 50 scattered names
    (``tests/paper/test_kernels.py`` prints it):

    =====================  =========  =========  =======
    kernel                 identical  scattered  Δ
    =====================  =========  =========  =======
    (1 + cos)/2 (paper)    2.3019     2.3106     0.0088
    |cos| (released code)  2.2990     2.3735     0.0745
    exp, τ = 0.1           2.2921     3.1909     0.8987
    exp, τ = 0.25          2.2900     2.9917     0.7017
    exp, τ = 0.5           2.2967     2.4523     0.1556
    exp, τ = 0.05          2.3003     1.9660     -0.3343
    =====================  =========  =========  =======

    τ = 0.05 is past the 1/e turning point (scattered scores *lower*); the
    default τ = 0.25 (``ScoreConfig.kernel_tau``) keeps inputs with cosines
    down to ≈ 0.6 on the rising side.
    """
    if kind == "shifted_cosine":
        return (1.0 + cos) / 2.0
    if kind == "abs_cosine":
        return np.abs(cos)
    if kind == "exp_cosine":
        if not tau > 0:
            raise ValueError(f"tau of the exp_cosine affinity must be > 0, got {tau!r}")
        return np.exp((np.asarray(cos, dtype=np.float64) - 1.0) / tau)
    raise ValueError(
        f"unknown affinity kind {kind!r}; use 'shifted_cosine', 'abs_cosine' or 'exp_cosine'"
    )


def symmetrize(directed: np.ndarray) -> np.ndarray:
    """``(a(x, x') + a(x', x)) / 2`` for directed scores such as entailment (paper §3).

    Parameters
    ----------
    directed : array of shape (..., m, m); ``directed[i, j]`` scores i → j.
    """
    directed = np.asarray(directed, dtype=np.float64)
    return (directed + np.swapaxes(directed, -1, -2)) / 2.0


def transition_matrix(affinity: np.ndarray) -> np.ndarray:
    """Row-normalise an affinity matrix into a Markov transition matrix.

    ``P[i, j] = a(z_i, z_j) / sum_k a(z_i, z_k)`` — Eq. (dualdiffusion).

    Parameters
    ----------
    affinity : array of shape (..., m, m), non-negative.

    Returns
    -------
    array of shape (..., m, m) whose rows sum to 1.

    Raises
    ------
    ValueError
        If an affinity is negative or not finite. A row whose affinities are
        all zero (no state resembles state i, not even itself) becomes a
        self-loop ``P[i, i] = 1`` rather than a NaN: the walk stays put.
    """
    a = np.asarray(affinity, dtype=np.float64)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"affinity must be square (..., m, m), got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError("affinity contains NaN or infinite values")
    if np.any(a < 0):
        raise ValueError("affinity must be non-negative (use (1 + cos) / 2, not cos)")
    row = a.sum(axis=-1, keepdims=True)
    dead = row <= _TINY  # (..., m, 1)
    if np.any(dead):
        eye = np.broadcast_to(np.eye(a.shape[-1]), a.shape)
        a = np.where(dead, eye, a)
        row = a.sum(axis=-1, keepdims=True)
    return a / row


def p_y_marginal(p_y: np.ndarray) -> np.ndarray:
    """P(Y = y_j) = (π^Uniform P_y)[j] — Eq. (p_y).

    Parameters
    ----------
    p_y : array of shape (..., m, m), row-stochastic.

    Returns
    -------
    array of shape (..., m), sums to 1. Mass sits on outputs surrounded by
    many similar outputs.
    """
    return np.asarray(p_y).mean(axis=-2)


def p_x_given_y(p_x: np.ndarray, p_y: np.ndarray) -> np.ndarray:
    """P(X = x_i | Y = y_j) = (P_y P_x)[j, i] — Eq. (pxy).

    Parameters
    ----------
    p_x, p_y : arrays of shape (..., m, m), row-stochastic.

    Returns
    -------
    array of shape (..., m, m); row j is the distribution P(X | Y = y_j).
    """
    return np.asarray(p_y) @ np.asarray(
        p_x
    )  # (..., m, m); walk y_j -P_y-> y_k -LLM-> x_k -P_x-> x_i


def p_joint(p_x: np.ndarray, p_y: np.ndarray) -> np.ndarray:
    """Joint P(X = x_i, Y = y_j) = P(Y = y_j) P(X = x_i | Y = y_j), indexed ``[j, i]``.

    Returns
    -------
    array of shape (..., m, m) summing to 1; rows are outputs j, columns inputs i.
    """
    return p_y_marginal(p_y)[..., :, None] * p_x_given_y(p_x, p_y)


def p_x_marginal(p_x: np.ndarray, p_y: np.ndarray) -> np.ndarray:
    """P(X = x_i): the marginal of the joint P(Y) P(X | Y), i.e. ``π P_y P_y P_x``.

    The paper's text (§2.3) writes ``P(X) ≜ π P_y P_x``. That vector is *not*
    the marginal of the joint the paper defines (``P(Y) = π P_y`` times
    ``P(X|Y) = P_y P_x``), whose marginal is ``Σ_j (π P_y)[j] (P_y P_x)[j, i] =
    (π P_y P_y P_x)[i]``. Only the latter makes ``P(Y|X)`` from Bayes' theorem
    a distribution, and it is what the paper's released code computes, so we
    follow the code and the probability calculus, not the text.

    Returns
    -------
    array of shape (..., m), sums to 1.
    """
    return p_joint(p_x, p_y).sum(axis=-2)


def p_y_given_x(p_x: np.ndarray, p_y: np.ndarray) -> np.ndarray:
    """P(Y = y_j | X = x_i) by Bayes' theorem, indexed ``[j, i]``.

    ``P(y_j | x_i) = P(y_j) P(x_i | y_j) / P(x_i)`` with the consistent marginal
    of :func:`p_x_marginal`.

    Returns
    -------
    array of shape (..., m, m) whose *columns* sum to 1 (column i is the
    distribution P(Y | X = x_i)); its diagonal is ``P(y_i | x_i)``.
    """
    joint = p_joint(p_x, p_y)
    px = joint.sum(axis=-2, keepdims=True)  # (..., 1, m)
    # P(x_i) > 0 always: every row of P_y P_x is a distribution and P(Y) > 0.
    return joint / np.maximum(px, _TINY)


@dataclass(frozen=True)
class RandomWalk:
    """All matrices of the dual random walk for one set of inputs and outputs.

    Attributes (m = n + 1 states)
    -----------------------------
    p_x, p_y : (m, m) transition matrices, row-stochastic.
    p_y_marginal : (m,) P(Y).
    p_x_given_y : (m, m), ``[j, i] = P(x_i | y_j)``, rows sum to 1.
    p_x_marginal : (m,) P(X).
    p_y_given_x : (m, m), ``[j, i] = P(y_j | x_i)``, columns sum to 1.
    """

    p_x: np.ndarray
    p_y: np.ndarray
    p_y_marginal: np.ndarray
    p_x_given_y: np.ndarray
    p_x_marginal: np.ndarray
    p_y_given_x: np.ndarray


def random_walk(p_x: np.ndarray, p_y: np.ndarray) -> RandomWalk:
    """Every distribution of §2.3 from the two transition matrices."""
    return RandomWalk(
        p_x=p_x,
        p_y=p_y,
        p_y_marginal=p_y_marginal(p_y),
        p_x_given_y=p_x_given_y(p_x, p_y),
        p_x_marginal=p_x_marginal(p_x, p_y),
        p_y_given_x=p_y_given_x(p_x, p_y),
    )
