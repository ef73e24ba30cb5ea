"""One raw LLM reply → the forms every later step reads.

A reply passes through two pure steps, in order:

1. :func:`invent_core.responses.cleaning.clean_response` (paper, Appendix "LLM
   Configuration"): echo, formatting tokens and trailing lines removed;
2. :func:`invent_core.responses.canonical.canonical_answer`: the option letter (MMLU),
   the final number (GSM8K) or the short answer (open QA).

The canonical text is what the walk embeds and the judge reads; the raw and
cleaned texts are kept in the run artefact, and ``mapped=False`` flags a reply
the canonical step could not map (its cleaned text is used as is).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .canonical import canonical_answer
from .cleaning import clean_response, non_answer

__all__ = ["Answer", "postprocess"]


@dataclass(frozen=True)
class Answer:
    """One reply in its three forms.

    Attributes
    ----------
    raw : the completion text as the LLM returned it.
    cleaned : after :func:`invent_core.responses.cleaning.clean_response`.
    canonical : after :func:`invent_core.responses.canonical.canonical_answer` (the cleaned
        text when it could not be mapped).
    mapped : False when the canonical step found no option / number / answer,
        or the reply is a non-answer.
    non_answer : why the reply is not an answer (``"echo"``: it only restates the
        question; ``"operation"``: it names the operation, not a result), else None
        (:func:`invent_core.responses.cleaning.non_answer`).
    """

    raw: str
    cleaned: str
    canonical: str
    mapped: bool
    non_answer: str | None = None


def postprocess(
    raw: str | None, question: str | None, *, task: str, choices: Sequence[str] | None = None
) -> Answer:
    """Clean one raw reply and map it to its canonical form for ``task``.

    Parameters
    ----------
    raw : the completion text (None is read as "").
    question : the question that was asked (its echo is removed).
    task : ``"mmlu"``, ``"gsm8k"`` or ``"qa"``.
    choices : the MMLU options in letter order; required for ``"mmlu"``.

    Returns
    -------
    Answer(raw, cleaned, canonical, mapped).

    Examples
    --------
    >>> postprocess("Answer: (B) Venus", "Which planet?", task="mmlu", choices=["Mars", "Venus"])
    Answer(raw='Answer: (B) Venus', cleaned='(B) Venus', canonical='B', mapped=True, non_answer=None)
    """
    raw_text = "" if raw is None else str(raw)
    cleaned = clean_response(raw_text, question)
    canon = canonical_answer(cleaned, task=task, choices=choices)
    why = non_answer(cleaned, question, task=task) if canon.mapped or task != "mmlu" else None
    mapped = canon.mapped and why is None
    return Answer(
        raw=raw_text, cleaned=cleaned, canonical=canon.text, mapped=mapped, non_answer=why
    )
