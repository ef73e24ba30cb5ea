"""Lexical Similarity (Fomicheva et al., 2020): mean pairwise ROUGE-L between sampled answers."""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import combinations

from .registry import Method, ScoringContext, register

_TOKEN = re.compile(r"\w+")


def tokenize(text: str) -> list[str]:
    r"""Lowercase word tokens (``\w+``, Unicode-aware; punctuation dropped)."""
    return _TOKEN.findall(text.lower())


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of two token lists (O(|a|·|b|) DP, O(|b|) memory)."""
    if not a or not b:
        return 0
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b, start=1):
            cur.append(prev[j - 1] + 1 if x == y else max(prev[j], cur[j - 1]))
        prev = cur
    return prev[-1]


def rouge_l(a: str, b: str) -> float:
    """ROUGE-L F-measure (β = 1) on lowercase word tokens.

    ``P = LCS / |b|``, ``R = LCS / |a|``, ``F = 2PR / (P + R)`` (Lin 2004);
    symmetric in a and b. Two empty token lists → 1.0; one empty → 0.0.

    Examples
    --------
    >>> round(rouge_l("the cat sat on the mat", "the cat lay on a mat"), 4)  # LCS 4 of 6 and 6
    0.6667
    """
    ta, tb = tokenize(a), tokenize(b)
    if not ta and not tb:
        return 1.0
    lcs = lcs_length(ta, tb)
    if lcs == 0:
        return 0.0
    p, r = lcs / len(tb), lcs / len(ta)
    return 2 * p * r / (p + r)


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
