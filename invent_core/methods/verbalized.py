"""Verbalized Uncertainty (Tian et al., EMNLP 2023): 1 − the confidence the model states.

After its own answer the model is asked, in a follow-up turn, for a percentage
(the Inv-Entropy paper's suffix, :data:`invent_core.prompts.VERBALIZED_CONFIDENCE_SUFFIX`),
once per distinct answer to the original question; :func:`parse_confidence`
reads the reply (a percentage, a fraction, a decimal, or qualitative words).
The replies are kept in the run's extras (``verbalized_uncertainty``), so a
saved run is re-scored without asking again.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal

from ..llm.base import user
from ..prompts import VERBALIZED_CONFIDENCE_SUFFIX, answer_prompt, verbalized_confidence_prompt
from ..text.numbers import CARDINALS, TENS
from .registry import Method, ScoringContext, register

#: Used when a reply states no confidence we can read.
FALLBACK_CONFIDENCE = 0.5

_NUMBER_WORD = (
    r"(?:(?:a|one)\s+hundred|(?:"
    + "|".join(TENS)
    + r")(?:[\s-]+(?:"
    + "|".join(list(CARDINALS)[1:10])
    + r"))?"
    r"|" + "|".join(sorted(CARDINALS, key=len, reverse=True)) + r")"
)
_PCT = r"\s*(?:%|percent\b|per\s*cent\b|pct\b)"

#: Qualitative phrases → confidence, checked in this order (negations and
#: intensifiers before the plain words they contain). Our mapping; Tian et al.
#: ask for numbers and do not define one.
QUALITATIVE: tuple[tuple[str, float], ...] = (
    (r"\bno idea\b|\bvery low\b|\bjust (?:a )?guess", 0.1),
    (r"\bnot (?:very |at all )?(?:sure|confident|certain)\b|\bunsure\b|\buncertain\b|\blow\b", 0.3),
    (r"\bmoderate(?:ly)?\b|\bmedium\b|\bfairly\b|\breasonably\b|\bsomewhat\b", 0.6),
    (
        r"\bcompletely\b|\babsolutely\b|\bextremely\b|\bvery high\b|\bcertain\b|\bvery (?:sure|confident)\b",
        0.95,
    ),
    (r"\bhigh\b|\bconfident\b|\bsure\b", 0.8),
)


def _words_to_number(words: str) -> int:
    words = words.strip().lower()
    if words.endswith("hundred"):
        return 100
    parts = re.split(r"[\s-]+", words)
    total = 0
    for p in parts:
        total += TENS.get(p, 0) + CARDINALS.get(p, 0)
    return total


def parse_confidence(text: str) -> float | None:
    """A confidence in [0, 1] read from a model's reply, or None when it states none.

    Tried in order (the first that matches wins):

    1. a range with a percent sign, "80-90%" / "80 to 90 percent" / "70 and 80 percent" → midpoint;
    2. a number with a percent sign or word: "85%", "85 percent", "85.5 %";
    3. a number in words with a percent word: "eighty-five percent", "a hundred percent";
    4. "x/10", "x/100", "x out of 10|100";
    5. a decimal in [0, 1]: "0.85", ".9", "1.0";
    6. a bare number in (1, 100] after "confidence"/"confident" (``Confidence: 85``) → percent;
    7. qualitative words (:data:`QUALITATIVE`): "very high" 0.95, "high" 0.8,
       "moderate" 0.6, "low" 0.3, "very low" 0.1, …

    Values are clipped to [0, 1].

    Examples
    --------
    >>> parse_confidence("I am 85% confident.")
    0.85
    >>> parse_confidence("Confidence: high")
    0.8
    >>> parse_confidence("Paris") is None
    True
    """
    t = text.lower().replace(",", " ")
    m = re.search(r"(\d+(?:\.\d+)?)\s*%?\s*(?:-|–|to|and)\s*(\d+(?:\.\d+)?)" + _PCT, t)
    if m:
        return _clip((float(m.group(1)) + float(m.group(2))) / 200.0)
    m = re.search(r"(\d+(?:\.\d+)?)" + _PCT, t)
    if m:
        return _clip(float(m.group(1)) / 100.0)
    m = re.search(r"\b(" + _NUMBER_WORD + r")" + _PCT, t)
    if m:
        return _clip(_words_to_number(m.group(1)) / 100.0)
    m = re.search(r"(\d+(?:\.\d+)?)\s*(?:/|out of)\s*(10|100)\b", t)
    if m:
        return _clip(float(m.group(1)) / float(m.group(2)))
    m = re.search(r"(?<![\d.])(0?\.\d+|1\.0+|0|1)(?![\d.]*%)(?![\d])", t)
    if m and re.search(r"confiden|probab|certain|score|level|\A\s*[\d.]+\s*\Z", t):
        return _clip(float(m.group(1)))
    m = re.search(r"confiden\w*\D{0,20}?(\d+(?:\.\d+)?)", t)
    if m and 1.0 < float(m.group(1)) <= 100.0:
        return _clip(float(m.group(1)) / 100.0)
    for pattern, value in QUALITATIVE:
        if re.search(pattern, t):
            return value
    return None


def _clip(x: float) -> float:
    return float(min(1.0, max(0.0, x)))


@dataclass(frozen=True)
class VUConfig:
    """How the confidence is asked."""

    #: "followup": a second turn after the model's own answer (paper: "After the previous
    #: prompt of generating responses, we append the following prompt"), asked once per
    #: distinct original answer and averaged by frequency (order-invariant).
    #: "single": one prompt, answer prompt + suffix (prompts.verbalized_confidence_prompt).
    mode: Literal["followup", "single"] = "followup"
    temperature: float = 0.0  # the confidence is read, not sampled
    max_tokens: int = 24


DEFAULT_CONFIG = VUConfig()
EXTRAS_KEY = "verbalized_uncertainty"


def _ask(ctx: ScoringContext, answer: str | None, config: VUConfig) -> dict[str, Any]:
    """Ask for the confidence in ``answer`` (None: the one-prompt mode); ``{"confidence", "reply"}``."""
    llm = ctx.require_llm("Verbalized Uncertainty")
    if answer is None:
        messages = user(verbalized_confidence_prompt(ctx.original_question, ctx.task, ctx.choices))
    else:
        # the run's own answer message (the pipeline's prompt), its answer, then the question
        messages = [
            *user(answer_prompt(ctx.original_question, ctx.task, ctx.choices)),
            {"role": "assistant", "content": answer},
            *user(VERBALIZED_CONFIDENCE_SUFFIX),
        ]
    reply = llm.complete(
        messages, temperature=config.temperature, seed=ctx.seed, max_tokens=config.max_tokens
    )
    conf = parse_confidence(reply.text)
    return {"confidence": FALLBACK_CONFIDENCE if conf is None else conf, "reply": reply.text}


def compute(ctx: ScoringContext, config: VUConfig = DEFAULT_CONFIG) -> float:
    """1 − the stated confidence (frequency-weighted over distinct answers); higher = more uncertain."""
    # confidences in [0, 1] that came with the run (a run file made elsewhere); invent's own
    # pipeline does not write this key, it asks below
    given = ctx.extras.get("verbalized_confidence")
    if given is not None:
        vals = [float(v) for v in (given if isinstance(given, (list, tuple)) else [given])]
        return 1.0 - sum(vals) / len(vals)

    def asked(answer: str | None) -> float:
        record = ctx.ask_once(
            (EXTRAS_KEY, "asked", answer or ""),
            lambda: _ask(ctx, answer, config),
            settings={"mode": config.mode},
        )
        return record["confidence"]

    if config.mode == "single":
        return 1.0 - asked(None)
    counts = Counter(ctx.original_responses)
    total = sum(c * asked(answer) for answer, c in sorted(counts.items()))
    return 1.0 - total / sum(counts.values())


METHOD = register(
    Method(
        name="verbalized",
        label="VU",
        family="baseline",
        compute=compute,
        needs=frozenset({"llm"}),
        reference="Tian et al., Just Ask for Calibration: Strategies for Eliciting Calibrated Confidence "
        "Scores from Language Models Fine-Tuned with Human Feedback, EMNLP 2023; suffix from the "
        "Inv-Entropy paper's appendix 'VU Derivation'",
        summary="1 − the confidence the model states when asked 'And use a percentage to tell me your "
        "confidence in your answer.'",
        simplifications=(
            "Follow-up turn (answer prompt, the model's answer, suffix) at temperature 0, once per "
            "distinct original answer, frequency-weighted mean. Robust parsing (%, words, fractions, "
            "decimals, qualitative words → 0.95/0.8/0.6/0.3/0.1); no readable confidence → 0.5. "
            "Confidences cached in ctx.extras['verbalized_uncertainty']; confidences given with "
            "the run in ctx.extras['verbalized_confidence'] are used as they are."
        ),
    )
)
