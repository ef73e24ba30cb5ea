"""LUQ (Zhang et al., EMNLP 2024): long-text uncertainty from sentence-level support by the other samples."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from ..paper.random_walk import KERNEL_TAU
from .graph import COINCIDE_NOTE
from .registry import Method, ScoringContext, register

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def split_sentences(text: str) -> list[str]:
    """Split on ``.``, ``!`` or ``?`` followed by whitespace; a short answer is one unit.

    A regex, not a trained splitter (nltk's punkt data is not available
    offline): abbreviations such as "Dr. Smith" split too.
    """
    parts = [p.strip() for p in _SENTENCE_END.split(text.strip())]
    parts = [p for p in parts if p]
    return parts or [text.strip()]


def luq_uncertainty(
    sentences: Sequence[Sequence[str]], support: Callable[[int, int, int], float]
) -> float:
    """``U = 1 − (1/n) Σ_i (1/|s_i|) Σ_k (1/(n−1)) Σ_{j≠i} S(s_ik | r_j)``.

    Parameters
    ----------
    sentences : ``sentences[i]`` = the sentences of sample i (n samples).
    support : ``support(i, k, j)`` = support in [0, 1] of sentence k of
        sample i by the whole sample j (j ≠ i).

    Returns
    -------
    float in [0, 1]; for n = 1 there is no other sample and we return 0.

    References
    ----------
    Zhang et al., LUQ: Long-text Uncertainty Quantification for LLMs, EMNLP
    2024, Eqs. for S(s | r'), C(x, r_i) and U(x).
    """
    n = len(sentences)
    if n < 2:
        return 0.0
    conf = np.empty(n)
    for i, sents in enumerate(sentences):
        per_sentence = [
            np.mean([support(i, k, j) for j in range(n) if j != i]) for k in range(len(sents))
        ]
        conf[i] = float(np.mean(per_sentence))
    return float(1.0 - conf.mean())


def compute(ctx: ScoringContext) -> float:
    """LUQ of the r original answers (higher = more uncertain)."""
    answers = ctx.original_responses
    n = len(answers)
    if n < 2:
        return 0.0
    sentences = [split_sentences(a) for a in answers]
    judge = ctx.judge
    if getattr(judge, "gives_probabilities", False):
        q = ctx.original_question

        def support(i: int, k: int, j: int) -> float:
            return float(judge.probability(answers[j], sentences[i][k], question=q))

    elif all(len(s) == 1 for s in sentences):
        aff = np.asarray(
            ctx.original_affinity, dtype=np.float64
        )  # one unit per answer: the shared matrix

        def support(i: int, k: int, j: int) -> float:
            return float(aff[j, i])

    else:
        flat = [s for sents in sentences for s in sents]
        offsets = np.cumsum([0] + [len(s) for s in sentences])
        sim = np.asarray(
            ctx.similarity.similarity_matrix(
                flat + list(answers), kind="shifted_cosine", tau=KERNEL_TAU
            ),
            dtype=np.float64,
        )
        cross = sim[: len(flat), len(flat) :]  # (sentences, answers)

        def support(i: int, k: int, j: int) -> float:
            return float(cross[offsets[i] + k, j])

    return luq_uncertainty(sentences, support)


METHOD = register(
    Method(
        name="luq",
        label="LUQ",
        family="baseline",
        compute=compute,
        needs=frozenset({"replications"}),
        reference="Zhang, Li, Das, Wu, Chen & Wang, LUQ: Long-text Uncertainty Quantification for LLMs, "
        "EMNLP 2024 (arXiv:2403.20279)",
        summary="1 − mean over samples of the mean support of each of its sentences by the other samples.",
        simplifications=(
            "Support S(s | r') = the run's affinity between sentence s and answer r' by default "
            "(for one-sentence answers exactly ctx.original_affinity); with an NLI/LLM judge, "
            "P(entail | r' ⇒ s) without LUQ's renormalisation P(e)/(P(e)+P(c)) (P(contradiction) is "
            "not exposed). Regex sentence split; short QA answers are a single unit, where LUQ equals "
            "(r/(r−1))·DegMat on the same matrix. r = 1 gives 0."
        )
        + COINCIDE_NOTE,
    )
)
