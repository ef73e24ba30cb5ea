"""P(True) (Kadavath et al., 2022): the model judges whether its own answer is true.

On multiple choice the model is shown the options, as in Kadavath et al.'s
multiple-choice evaluations, and the proposed answer is the option letter with
its text ("B. Jupiter"): without them a bare "B" cannot be judged.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from ..llm.base import replication_seed, user
from ..prompts import format_choices, p_true_prompt
from .registry import Method, ScoringContext, register

#: P(True) when no sampled reply says A/True or B/False.
FALLBACK_P_TRUE = 0.5
EXTRAS_KEY = "p_true"


@dataclass(frozen=True)
class PTrueConfig:
    """P(True) settings."""

    n_samples: int = 5  # k black-box samples per answer, at the run temperature
    top_logprobs: int = 10
    min_answer_mass: float = (
        0.05  # logprob form only when A/True + B/False hold this much first-token mass
    )
    max_tokens: int = 4


DEFAULT_CONFIG = PTrueConfig()


def parse_true_false(text: str) -> bool | None:
    """Read a verdict: ``True`` for "(A)", "A)", "A", "True"; ``False`` for the B forms; else None.

    Examples
    --------
    >>> parse_true_false(" (A) True"), parse_true_false("B"), parse_true_false("a city")
    (True, False, None)
    """
    m = re.search(r"\(([AaBb])\)", text)
    if m:
        return m.group(1).upper() == "A"
    m = re.match(r"\s*([AB])(?:\)|\.|:|,|\s|$)", text)
    if m:
        return m.group(1) == "A"
    m = re.search(r"\b(true|false)\b", text.lower())
    if m:
        return m.group(1) == "true"
    return None


def p_true_from_logprobs(completion, *, min_mass: float = 0.05) -> float | None:
    """``P(A or True) / (P(A or True) + P(B or False))`` from first-token top logprobs.

    None when the top tokens hold less than ``min_mass`` on those answers
    (e.g. the reply starts with "(").
    """
    if not getattr(completion, "logprobs", None):
        return None
    p_t = float(completion.first_token_prob("A", "True"))
    p_f = float(completion.first_token_prob("B", "False"))
    if p_t + p_f < min_mass:
        return None
    return p_t / (p_t + p_f)


def p_true_question(ctx: ScoringContext) -> str:
    """Return the question P(True) shows: with its options on MMLU (``A. …`` lines)."""
    if ctx.task == "mmlu" and ctx.choices:
        return f"{ctx.original_question.strip()}\n{format_choices(ctx.choices)}"
    return ctx.original_question


def p_true_answer(ctx: ScoringContext, answer: str) -> str:
    """Return the proposed answer P(True) shows: an MMLU option letter gets its text ("B. Jupiter")."""
    letter = answer.strip()
    if ctx.task == "mmlu" and ctx.choices and len(letter) == 1 and letter.isupper():
        i = ord(letter) - ord("A")
        if 0 <= i < len(ctx.choices):
            return f"{letter}. {ctx.choices[i]}"
    return answer


def _p_true_one(ctx: ScoringContext, answer: str, config: PTrueConfig) -> dict:
    """Ask whether ``answer`` is true: logprob form first, else ``n_samples`` sampled votes."""
    llm = ctx.require_llm("P(True)")
    messages = user(p_true_prompt(p_true_question(ctx), p_true_answer(ctx, answer)))
    first = llm.complete(
        messages,
        temperature=0.0,
        seed=ctx.seed,
        max_tokens=1,
        logprobs=True,
        top_logprobs=config.top_logprobs,
    )
    p = p_true_from_logprobs(first, min_mass=config.min_answer_mass)
    if p is not None:
        return {"p_true": p, "form": "logprobs"}
    votes = []
    for k in range(config.n_samples):
        reply = llm.complete(
            messages,
            temperature=ctx.temperature,
            seed=replication_seed(ctx.seed, k),
            max_tokens=config.max_tokens,
        )
        votes.append(parse_true_false(reply.text))
    read = [v for v in votes if v is not None]
    p = sum(read) / len(read) if read else FALLBACK_P_TRUE
    return {
        "p_true": float(p),
        "form": "sampled",
        "votes": [None if v is None else bool(v) for v in votes],
    }


def compute(ctx: ScoringContext, config: PTrueConfig = DEFAULT_CONFIG) -> float:
    """1 − the frequency-weighted P(True) of the distinct original answers (higher = more uncertain)."""
    settings = {"n_samples": config.n_samples, "temperature": ctx.temperature}
    if ctx.task == "mmlu" and ctx.choices:
        settings["options"] = True  # asked with the options: answers stored without them are stale
    counts = Counter(ctx.original_responses)
    total = 0.0
    for answer, c in sorted(counts.items()):
        judged = ctx.ask_once(
            (EXTRAS_KEY, "answers", answer),
            lambda answer=answer: _p_true_one(ctx, answer, config),
            settings=settings,
        )
        total += c * judged["p_true"]
    return 1.0 - total / sum(counts.values())


METHOD = register(
    Method(
        name="p_true",
        label="P(True)",
        family="baseline",
        compute=compute,
        needs=frozenset({"llm"}),
        reference="Kadavath et al., Language Models (Mostly) Know What They Know, arXiv:2207.05221 (2022), "
        "Sec. 3 'self-evaluation'",
        summary="1 − P(the model says its answer is True), averaged over the distinct original answers.",
        simplifications=(
            "Logprob form P(A|True)/(P(A|True)+P(B|False)) from the first token at temperature 0 when the "
            "backend returns logprobs and they put mass on those tokens; else black-box: k = 5 samples at "
            "the run temperature, fraction saying A/True (unreadable replies excluded; none readable → 0.5). "
            "No brainstormed samples in the prompt. Each distinct original answer is judged once, "
            "frequency-weighted; results cached in ctx.extras['p_true']. On MMLU the question is shown "
            "with its options and the proposed answer as 'B. <option text>'."
        ),
    )
)
