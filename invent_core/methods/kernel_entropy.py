"""Kernel Entropy (Gruber & Buettner, 2023/ICML 2024): the predictive kernel entropy.

Gruber & Buettner decompose the kernel score ``S_k(P, y) = ‖P‖²_k − 2 E_{X∼P} k(X, y)``
and read the entropy associated with it, ``G_k(P) = −‖P‖²_k = −E[k(X, X')]``
with X, X' drawn independently from the model's predictive distribution
(their Fig. 1: "the negative average kernel value"). It is estimated from
r samples without the model by the unbiased U-statistic

    Ĝ_k = −1 / (r (r − 1)) · Σ_{i ≠ j} k(y_i, y_j).

No public implementation exists; this one follows that definition.
"""

from __future__ import annotations

import numpy as np

from .graph import COINCIDE_NOTE, mean_off_diagonal
from .registry import Method, ScoringContext, register


def predictive_kernel_entropy(kernel: np.ndarray) -> float:
    """Unbiased estimate of ``−E[k(X, X')]`` from an (r, r) kernel matrix of r samples.

    Parameters
    ----------
    kernel : (r, r) symmetric kernel matrix ``k(y_i, y_j)``; the diagonal is ignored.

    Returns
    -------
    float; higher = more uncertain. For a kernel with values in [0, 1] the
    range is [−1, 0]: −1 when every pair has kernel 1 (identical answers).
    For r = 1 no pair exists; we return ``−k(y, y)`` (the value of identical
    answers, i.e. no observed disagreement).

    References
    ----------
    Gruber & Buettner, "A Bias-Variance-Covariance Decomposition of Kernel
    Scores for Generative Models", ICML 2024 (arXiv:2310.05833), Sec. 4
    (kernel entropy and its unbiased estimator).

    Examples
    --------
    >>> import numpy as np
    >>> predictive_kernel_entropy(np.array([[1.0, 0.5], [0.5, 1.0]]))
    -0.5
    """
    kernel = np.asarray(kernel, dtype=np.float64)
    if kernel.ndim != 2 or kernel.shape[0] != kernel.shape[1] or kernel.shape[0] == 0:
        raise ValueError(
            f"kernel must be a non-empty square (r, r) matrix, got shape {kernel.shape}"
        )
    if kernel.shape[0] == 1:
        return -float(kernel[0, 0])
    return -mean_off_diagonal(kernel)


def compute(ctx: ScoringContext) -> float:
    """Kernel Entropy of the r original answers (higher = more uncertain)."""
    return predictive_kernel_entropy(ctx.original_affinity)


METHOD = register(
    Method(
        name="kernel_entropy",
        label="Kernel Entropy",
        family="baseline",
        compute=compute,
        needs=frozenset({"replications"}),
        reference="Gruber & Buettner, A Bias-Variance-Covariance Decomposition of Kernel Scores for "
        "Generative Models, ICML 2024 (arXiv:2310.05833)",
        summary="Predictive kernel entropy −E[k(Y, Y')]: minus the mean pairwise kernel of the r original answers.",
        simplifications=(
            "Kernel = the run's answer affinity ctx.original_affinity, (1 + cos)/2 of the embedder "
            "(a PSD kernel: constant plus linear kernel on unit vectors; values in [0, 1]); always "
            "the embedding kernel, never entailment weights (not PSD). Unbiased U-statistic over "
            "i ≠ j, no normalisation; range [−1, 0]; r = 1 gives −1 (identical answers)."
        )
        + COINCIDE_NOTE,
    )
)
