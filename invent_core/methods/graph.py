"""Graph helpers shared by the graph baselines (DegMat, KLE, Kernel Entropy, LUQ).

A pure module: NumPy and SciPy only, no context, no model. Every baseline
that needs a degree matrix, a Laplacian, a heat kernel or a von Neumann
entropy calls these functions instead of re-deriving them (lm-polygraph
pastes the same Laplacian code into several estimators; we do not).

Conventions: a *weight matrix* ``w`` is a square (k, k) array of
non-negative similarities, symmetric unless said otherwise; the diagonal
holds self-similarities (1 for a similarity in [0, 1]) and does not affect
the Laplacian ``L = D - W`` (it cancels between D and W).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import scipy.linalg

LaplacianKind = Literal["unnormalized", "normalized"]


#: Said in the help of each of the three: under the embedding judge they are one baseline.
COINCIDE_NOTE = (
    " Coincides with Kernel Entropy, DegMat and LUQ under the embedding judge: with one-line "
    "answers all three are increasing affine maps of the mean pairwise affinity of the r answers "
    "(−mean; 1 − mean with the diagonal; (r/(r−1))·DegMat), so they rank questions identically and "
    "give the same AUROC, PRR and Brier (Spearman ρ = 1.00 on every shipped evaluation, "
    'docs/RESULTS.md "Methods that coincide"). With the LLM entailment judge (100 arithmetic '
    "questions) Kernel Entropy separates, as it keeps the embedding kernel, but DegMat and LUQ "
    "still coincide (LUQ = (r/(r−1))·DegMat for one-line answers whatever the judge) and KLE "
    "nearly (ρ 0.9996); they differ only with multi-sentence answers, as in the paper."
)


def check_weights(
    w: np.ndarray, *, what: str = "weight matrix", symmetric: bool = True
) -> np.ndarray:
    """Validate a (k, k) finite, non-negative weight matrix; return it as float64.

    Raises
    ------
    ValueError
        Not square, empty, non-finite, negative entries, or (when
        ``symmetric``) not symmetric within 1e-6.
    """
    w = np.asarray(w, dtype=np.float64)
    if w.ndim != 2 or w.shape[0] != w.shape[1]:
        raise ValueError(f"{what} must be a square (k, k) matrix, got shape {w.shape}")
    if w.shape[0] == 0:
        raise ValueError(f"{what} is empty")
    if not np.all(np.isfinite(w)):
        raise ValueError(f"{what} has non-finite entries")
    if np.any(w < -1e-12):
        raise ValueError(f"{what} has negative entries (min {w.min():.3g}); weights must be >= 0")
    if symmetric and not np.allclose(w, w.T, atol=1e-6):
        raise ValueError(f"{what} is not symmetric; symmetrise it first, e.g. (W + W.T) / 2")
    return np.clip(w, 0.0, None)


def degree(w: np.ndarray) -> np.ndarray:
    """Degrees ``d_i = Σ_j W_ij`` (self-loops included), shape (k,).

    This is the diagonal of the degree matrix D of Lin et al. (2024), Eq. (DegMat).
    """
    return check_weights(w, symmetric=False).sum(axis=1)


def degree_matrix(w: np.ndarray) -> np.ndarray:
    """``D = diag(Σ_j W_ij)``, shape (k, k)."""
    return np.diag(degree(w))


def laplacian(w: np.ndarray, *, kind: LaplacianKind = "unnormalized") -> np.ndarray:
    """Graph Laplacian of a symmetric weight matrix.

    Parameters
    ----------
    w : (k, k) symmetric non-negative weights.
    kind : ``"unnormalized"``: ``L = D - W``; ``"normalized"``:
        ``L = I - D^{-1/2} W D^{-1/2}`` (nodes of degree 0 get a zero row).

    Returns
    -------
    (k, k) symmetric positive semi-definite matrix; the self-loops (diagonal
    of W) cancel in ``D - W`` and are dropped from both forms for consistency.
    """
    w = check_weights(w).copy()
    np.fill_diagonal(w, 0.0)
    d = w.sum(axis=1)
    if kind == "unnormalized":
        return np.diag(d) - w
    if kind == "normalized":
        inv_sqrt = np.divide(1.0, np.sqrt(d), out=np.zeros_like(d), where=d > 0)
        lap = np.eye(len(d)) - inv_sqrt[:, None] * w * inv_sqrt[None, :]
        lap[d == 0, :] = 0.0
        lap[:, d == 0] = 0.0
        return lap
    raise ValueError(f"unknown Laplacian kind {kind!r}: use 'unnormalized' or 'normalized'")


def heat_kernel(lap: np.ndarray, *, t: float = 1.0) -> np.ndarray:
    """Heat kernel ``K_t = expm(-t L)`` of a Laplacian (Kondor & Lafferty 2002).

    Parameters
    ----------
    lap : (k, k) symmetric Laplacian.
    t : diffusion time (lengthscale), > 0.

    Returns
    -------
    (k, k) symmetric positive definite matrix.
    """
    if not t > 0:
        raise ValueError(f"heat-kernel time t must be > 0, got {t}")
    lap = np.asarray(lap, dtype=np.float64)
    k = scipy.linalg.expm(-float(t) * lap)
    return (k + k.T) / 2.0  # remove round-off asymmetry


def unit_trace(k: np.ndarray) -> np.ndarray:
    """``K / tr(K)`` — a density matrix when K is positive semi-definite."""
    k = np.asarray(k, dtype=np.float64)
    tr = float(np.trace(k))
    if not tr > 0:
        raise ValueError(f"cannot normalise a kernel matrix with trace {tr:.3g} to unit trace")
    return k / tr


def von_neumann_entropy(rho: np.ndarray, *, normalize: bool = True) -> float:
    """``VNE(ρ) = -tr(ρ log ρ) = -Σ λ_i log λ_i`` (natural log; 0·log 0 = 0).

    Parameters
    ----------
    rho : (k, k) symmetric positive semi-definite matrix.
    normalize : divide by the trace first (so the eigenvalues sum to 1).

    Returns
    -------
    float in [0, log k]: 0 for a rank-one ρ, log k for ρ = I / k.
    """
    rho = np.asarray(rho, dtype=np.float64)
    if normalize:
        rho = unit_trace(rho)
    lam = scipy.linalg.eigh((rho + rho.T) / 2.0, eigvals_only=True)
    lam = np.clip(lam, 0.0, None)  # tiny negative round-off eigenvalues
    s = lam.sum()
    if s > 0:
        lam = lam / s
    nz = lam[lam > 0]
    return float(-(nz * np.log(nz)).sum()) + 0.0  # + 0.0 turns -0.0 into 0.0


def shannon_entropy(p: np.ndarray) -> float:
    """``-Σ p log p`` of a probability vector (natural log; zeros ignored)."""
    p = np.asarray(p, dtype=np.float64)
    if p.ndim != 1 or p.size == 0:
        raise ValueError(f"expected a non-empty probability vector, got shape {p.shape}")
    if np.any(p < 0) or not np.isclose(p.sum(), 1.0):
        raise ValueError(f"probabilities must be >= 0 and sum to 1, got sum {p.sum():.6g}")
    nz = p[p > 0]
    return float(-(nz * np.log(nz)).sum()) + 0.0


def mean_off_diagonal(w: np.ndarray) -> float:
    """Mean of ``W_ij`` over ``i != j``; NaN-free: raises for k = 1."""
    w = np.asarray(w, dtype=np.float64)
    k = w.shape[0]
    if k < 2:
        raise ValueError("mean_off_diagonal needs at least two items")
    return float((w.sum() - np.trace(w)) / (k * (k - 1)))
