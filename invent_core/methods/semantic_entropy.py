"""Semantic Entropy (Farquhar et al., Nature 2024), discrete version.

The r answers to the original question are clustered by bidirectional
entailment and the entropy of the cluster frequencies is the uncertainty.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np

from .graph import shannon_entropy
from .registry import Method, ScoringContext, register


def cluster_by_equivalence(texts: Sequence[str], same: Callable[[str, str], bool]) -> list[int]:
    """Greedy bidirectional-entailment clustering (Kuhn et al. 2023, Alg. 1).

    Each text joins the first existing cluster whose *first* member it is
    equivalent to, else opens a new cluster. To make the result independent
    of the order of the replications, distinct texts are visited in sorted
    order (the algorithm itself is order-dependent when the judge is not
    transitive); identical texts share a cluster without a judge call.

    Parameters
    ----------
    texts : the r answers.
    same : ``same(a, b)`` → bidirectional entailment.

    Returns
    -------
    cluster id of each text, in the input order (ids 0, 1, … in sorted-visit order).
    """
    reps: list[str] = []  # first member of each cluster
    cluster_of: dict[str, int] = {}
    for t in sorted(set(texts)):
        for c, rep in enumerate(reps):
            if same(rep, t):
                cluster_of[t] = c
                break
        else:
            cluster_of[t] = len(reps)
            reps.append(t)
    return [cluster_of[t] for t in texts]


def discrete_semantic_entropy(cluster_ids: Sequence[int]) -> float:
    """``-Σ_c p(c) log p(c)`` with ``p(c)`` = fraction of answers in cluster c (natural log).

    References
    ----------
    Farquhar et al. (2024), Methods, "discrete semantic entropy" (the
    black-box variant that needs no token probabilities).

    Examples
    --------
    >>> round(discrete_semantic_entropy([0, 0, 1]), 4)  # entropy of (2/3, 1/3)
    0.6365
    """
    if len(cluster_ids) == 0:
        raise ValueError("semantic entropy needs at least one answer")
    counts = np.array(list(Counter(cluster_ids).values()), dtype=np.float64)
    return shannon_entropy(counts / counts.sum())


def compute(ctx: ScoringContext) -> float:
    """Semantic Entropy of the r original answers (higher = more uncertain)."""
    answers = ctx.original_responses
    if len(answers) == 1:
        return 0.0  # one answer is one cluster: documented value for r = 1
    ids = cluster_by_equivalence(answers, ctx.same_answer)
    ctx.extras["semantic_entropy"] = {"judge": ctx.judge.name, "clusters": ids}
    return discrete_semantic_entropy(ids)


METHOD = register(
    Method(
        name="semantic_entropy",
        label="Semantic Entropy",
        family="baseline",
        compute=compute,
        needs=frozenset({"replications"}),
        reference="Farquhar, Kossen, Kuhn & Gal, Detecting hallucinations in large language models "
        "using semantic entropy, Nature 630 (2024); Kuhn et al., ICLR 2023",
        summary="Entropy of the frequencies of bidirectional-entailment clusters of the r original answers.",
        simplifications=(
            "Discrete (frequency) version, no token probabilities. Two answers are first compared "
            "by the rules of invent_core.responses.equivalence (canonical forms, then words): "
            "different numbers, letters or names are never merged; the judge decides the rest. "
            "Entailment judge pluggable "
            "(ctx.entailment): default = MiniLM shifted-cosine affinity >= 0.85 (a proxy, not NLI); "
            "'llm' = local LLM Yes/No (P(Yes) from logprobs when returned); or an NLI model folder. "
            "Distinct answers are clustered in sorted order (order-invariant); r = 1 gives 0."
        ),
    )
)
