"""Uncertainty measures defined on the dual random walk (paper §2.4 and §3 "Baselines").

Every measure is "higher = more uncertain" and accepts a leading batch axis so
all B bootstrap resamples are scored at once. Inputs are the transition
matrices ``p_x`` and ``p_y`` of shape ``(..., m, m)``; outputs have shape ``(...)``.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import wasserstein_distance

from .config import MaxVariant, WDGround
from .random_walk import p_x_given_y, p_x_marginal, p_y_given_x, p_y_marginal


def _neg_p_log_p(p: np.ndarray) -> np.ndarray:
    """Elementwise ``-p log p`` with the limit 0 at p = 0 (no NaN)."""
    p = np.asarray(p, dtype=np.float64)
    out = np.zeros_like(p)
    pos = p > 0
    out[pos] = -p[pos] * np.log(p[pos])
    return out


def inv_entropy(p_x: np.ndarray, p_y: np.ndarray) -> np.ndarray:
    """Inv-Entropy H(X_n | Y_n) — Eq. (entropy).

    ``H = -Σ_i P(x_i | y_i) log P(x_i | y_i) = -trace(P_y P_x ⊙ log(P_y P_x))``,
    natural log, *unnormalised*: it rises both with the dispersion and with the
    magnitude of the diagonal (paper §2.4). With all P(x_i|y_i) < 1/e it grows
    with output dispersion ε_y (paper §"Insights into Inv-Entropy").

    Parameters
    ----------
    p_x, p_y : arrays of shape (..., m, m), row-stochastic.

    Returns
    -------
    array of shape (...); higher = more uncertain.
    """
    diag = np.diagonal(p_x_given_y(p_x, p_y), axis1=-2, axis2=-1)  # (..., m): P(x_i | y_i)
    return _neg_p_log_p(diag).sum(axis=-1)


def ni_entropy(p_x: np.ndarray, p_y: np.ndarray) -> np.ndarray:
    """NI-Entropy (non-inverse): ``-Σ_i P(y_i | x_i) log P(y_i | x_i)`` (paper §3 "Baselines" (i)).

    Same as :func:`inv_entropy` on the forward conditional P(Y|X) from Bayes.
    Higher = more uncertain.
    """
    diag = np.diagonal(p_y_given_x(p_x, p_y), axis1=-2, axis2=-1)  # (..., m): P(y_i | x_i)
    return _neg_p_log_p(diag).sum(axis=-1)


def wd_px_py(p_x: np.ndarray, p_y: np.ndarray, *, ground: WDGround = "index") -> np.ndarray:
    """WD-px-py: Wasserstein distance between P(X) and P(Y) (paper §3 "Baselines" (iii)).

    Both marginals live on the same states ``0..n``. The paper does not name
    the ground metric; we offer three, all documented:

    - ``"index"`` (default): 1-Wasserstein on the real line with state i at
      position i, i.e. ``scipy.stats.wasserstein_distance(range(m), range(m),
      P(X), P(Y))``. State 0 is the original and (for GAAP) later states are
      further perturbed, so the order carries some meaning.
    - ``"discrete"``: the 0/1 metric between states, for which W1 equals the
      total-variation distance ``½ Σ |P(X) − P(Y)|``; invariant to the order
      of perturbations.
    - ``"released_code"``: what the paper's released code does — it passes the
      two probability *vectors* to ``wasserstein_distance`` as if they were
      samples, comparing the multiset of probability values and ignoring
      which state carries which mass. Kept for parity only.

    Higher = the input and output walks disagree more = more uncertain.

    Returns
    -------
    array of shape (...).
    """
    px = p_x_marginal(p_x, p_y)  # (..., m)
    py = p_y_marginal(p_y)  # (..., m)
    if ground == "discrete":
        return 0.5 * np.abs(px - py).sum(axis=-1)
    if ground == "index":
        # W1 on a line = L1 distance between the CDFs times the unit spacing.
        return np.abs(np.cumsum(px - py, axis=-1))[..., :-1].sum(axis=-1)
    if ground == "released_code":
        flat_x = px.reshape(-1, px.shape[-1])
        flat_y = py.reshape(-1, py.shape[-1])
        out = np.array([wasserstein_distance(a, b) for a, b in zip(flat_x, flat_y)])
        return out.reshape(px.shape[:-1])
    raise ValueError(
        f"unknown WD ground metric {ground!r}; use 'index', 'discrete' or 'released_code'"
    )


def max_py_x(p_x: np.ndarray, p_y: np.ndarray, *, variant: MaxVariant = "paper") -> np.ndarray:
    """MAX-py-x (paper §3 "Baselines" (iv)).

    - ``"paper"`` (default): ``max_i P(y_i | x_i)``. Like Inv-Entropy's
      diagonal, a large self-transition means the outputs are dispersed (with
      identical outputs P_y is uniform and every diagonal is 1/(n+1)), so
      higher = more uncertain without a sign flip.
    - ``"released_code"``: ``max_j P(Y = y_j)``, what the released code
      computes; kept for parity.

    Returns
    -------
    array of shape (...).
    """
    if variant == "paper":
        return np.diagonal(p_y_given_x(p_x, p_y), axis1=-2, axis2=-1).max(axis=-1)
    if variant == "released_code":
        return p_y_marginal(p_y).max(axis=-1)
    raise ValueError(f"unknown MAX variant {variant!r}; use 'paper' or 'released_code'")
