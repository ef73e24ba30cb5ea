"""Uncertainty measures defined on the dual random walk (paper §2.4 and §3 "Baselines").

Every measure is "higher = more uncertain" and accepts a leading batch axis so
all B bootstrap resamples are scored at once. Inputs are the transition
matrices ``p_x`` and ``p_y`` of shape ``(..., m, m)``; outputs have shape ``(...)``.
:data:`INV_MEASURES` lists the family once, for the bootstrap and the registry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..config import MaxVariant, ScoreConfig, WDGround
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
        from scipy.stats import wasserstein_distance  # lazy: ~1 s at every CLI start

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


# -- the Inv family: one table read by the bootstrap and by the method registry --------

_REF = "Song et al., Inv-Entropy, NeurIPS 2025"


@dataclass(frozen=True)
class InvMeasure:
    """One measure of the Inv family: how to compute it and how the registry shows it.

    ``fn(p_x, p_y, config)`` maps transition matrices of shape (..., m, m) to
    values of shape (...), higher = more uncertain; ``config`` is the run's
    :class:`~invent_core.config.ScoreConfig` (for options such as
    ``wd_ground``). ``resampled`` measures are averaged over the B bootstrap
    resamples (Eq. meanentropy); the others are computed once, on the first
    replication of every state.
    """

    label: str  # as printed in the paper's tables
    reference: str  # paper citation
    summary: str  # one line: what it measures
    fn: Callable[[np.ndarray, np.ndarray, ScoreConfig], np.ndarray]
    simplifications: str = ""  # what this implementation chooses where the paper is silent
    resampled: bool = True


#: name → measure, in the order of the paper's Table 1. Adding an Inv variant is
#: one function above plus one entry here: :func:`invent_core.paper.scoring.bootstrap_measures`,
#: ``ScoreResult.measures`` and the method registry all iterate this table.
INV_MEASURES: dict[str, InvMeasure] = {
    "inv_entropy": InvMeasure(
        label="Inv-Entropy",
        reference=_REF + ", Eqs. (entropy), (meanentropy)",
        summary="Bootstrap mean of -Σ P(x_i|y_i) log P(x_i|y_i) over resampled replications.",
        fn=lambda p_x, p_y, config: inv_entropy(p_x, p_y),
    ),
    "ni_entropy": InvMeasure(
        label="NI-Entropy",
        reference=_REF + ", §3 Baselines (i)",
        summary="Same entropy on the forward conditional P(y_i|x_i) (Bayes).",
        fn=lambda p_x, p_y, config: ni_entropy(p_x, p_y),
    ),
    "nr_inv_entropy": InvMeasure(
        label="NR-Inv-Entropy",
        reference=_REF + ", §3 Baselines (ii)",
        summary="Inv-Entropy without replications: the first response of each question.",
        fn=lambda p_x, p_y, config: inv_entropy(p_x, p_y),
        resampled=False,
    ),
    "wd_px_py": InvMeasure(
        label="WD-px-py",
        reference=_REF + ", §3 Baselines (iii)",
        summary="Wasserstein distance between P(X) and P(Y) on the state set.",
        fn=lambda p_x, p_y, config: wd_px_py(p_x, p_y, ground=config.wd_ground),
        simplifications="Ground metric not named by the paper: state index by default "
        "(see measures.wd_px_py).",
    ),
    "max_py_x": InvMeasure(
        label="MAX-py-x",
        reference=_REF + ", §3 Baselines (iv)",
        summary="max_i P(y_i|x_i).",
        fn=lambda p_x, p_y, config: max_py_x(p_x, p_y, variant=config.max_variant),
    ),
}
