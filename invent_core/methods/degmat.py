"""DegMat (Lin, Trivedi & Sun, "Generating with Confidence", TMLR 2024): degree-matrix uncertainty."""

from __future__ import annotations

import numpy as np

from .graph import COINCIDE_NOTE, check_weights, degree
from .registry import Method, ScoringContext, register


def degree_uncertainty(w: np.ndarray) -> float:
    """``U_Deg = tr(m I − D) / m² = 1 − Σ_j D_jj / m²``.

    Parameters
    ----------
    w : (m, m) symmetric similarity matrix of the m answers, entries in
        [0, 1], with ``W_jj = 1`` (an answer is fully similar to itself, as in
        the paper's W built from NLI probabilities).

    Returns
    -------
    float in [0, (m − 1)/m]; 0 when every pair has weight 1.

    References
    ----------
    Lin, Trivedi & Sun (2024), Sec. "Degree matrix": ``D_jj = Σ_k W_jk`` and
    ``U_Deg(x) = trace(mI − D) / m²``.

    Examples
    --------
    >>> import numpy as np
    >>> degree_uncertainty(np.array([[1.0, 0.5], [0.5, 1.0]]))  # 1 − 3/4
    0.25
    """
    w = check_weights(w, what="DegMat weight matrix")
    m = w.shape[0]
    return float(np.trace(m * np.eye(m) - np.diag(degree(w))) / m**2)


def compute(ctx: ScoringContext) -> float:
    """DegMat of the r original answers' weight matrix (higher = more uncertain)."""
    w, _ = ctx.response_weights
    return degree_uncertainty(w)


METHOD = register(
    Method(
        name="degmat",
        label="DegMat",
        family="baseline",
        compute=compute,
        needs=frozenset({"replications"}),
        reference="Lin, Trivedi & Sun, Generating with Confidence: Uncertainty Quantification for "
        "Black-box Large Language Models, TMLR 2024 (arXiv:2305.19187), U_Deg",
        summary="1 − trace(D)/m²: one minus the mean similarity of the r original answers (diagonal included).",
        simplifications=(
            "W = the run's answer affinity ctx.original_affinity ((1 + cos)/2, diagonal 1) by default; "
            "with a probability entailment judge (NLI folder, LLM) W = (P(i⇒j) + P(j⇒i))/2 as in the paper "
            "(which uses DeBERTa-MNLI entailment). Shifted-cosine affinities of unrelated answers are "
            "≈ 0.5–0.7, not 0, so values are compressed. r = 1 gives 0."
        )
        + COINCIDE_NOTE,
    )
)
