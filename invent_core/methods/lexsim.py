"""Lexical Similarity (Fomicheva et al., 2020): mean pairwise ROUGE-L between sampled answers."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from ..responses.equivalence import lcs_length, rouge_l
from .registry import Method, ScoringContext, register

__all__ = ["lcs_length", "lexical_similarity", "rouge_l"]


def lexical_similarity(answers: Sequence[str]) -> float:
    """Mean ROUGE-L F over the r(r−1)/2 unordered pairs; 1.0 when r = 1."""
    answers = list(answers)
    if not answers:
        raise ValueError("lexical similarity needs at least one answer")
    pairs = list(combinations(answers, 2))
    if not pairs:
        return 1.0
    memo: dict[tuple[str, str], float] = {}
    total = 0.0
    for a, b in pairs:
        key = (a, b) if a <= b else (b, a)
        if key not in memo:
            memo[key] = rouge_l(*key)
        total += memo[key]
    return total / len(pairs)


def compute(ctx: ScoringContext) -> float:
    """1 − mean lexical similarity of the r original answers (higher = more uncertain)."""
    return 1.0 - lexical_similarity(ctx.original_responses)


METHOD = register(
    Method(
        name="lexsim",
        label="LexSim",
        family="baseline",
        compute=compute,
        needs=frozenset({"replications"}),
        reference="Fomicheva et al., Unsupervised Quality Estimation for Neural Machine Translation, "
        "TACL 8 (2020), 'lexical similarity'",
        summary="1 − mean pairwise ROUGE-L F between the r original answers.",
        simplifications=(
            "ROUGE-L F1 (β = 1) on lowercase \\w+ tokens, no stemming or stop-word removal "
            "(Fomicheva et al. also use METEOR); r = 1 gives 0."
        ),
    )
)
