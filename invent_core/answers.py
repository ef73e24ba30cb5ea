"""From a raw LLM reply to the answer every method reads: raw → cleaned → canonical.

One step per response, used by the pipeline for every state and replication:
:func:`invent_core.cleaning.clean_response` (paper, app:setting: echo, format
tokens and trailing text removed, first line kept), then
:func:`invent_core.canonical.canonical_answer` (issue #12 §2: MMLU → the
option letter, GSM8K → the number, QA → the short answer). The run artefact
keeps all three; the canonical text is what is embedded and judged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .canonical import canonical_answer
from .cleaning import clean_response

__all__ = ["Answer", "postprocess"]


@dataclass(frozen=True)
class Answer:
    """One response in its three forms.

    Attributes
    ----------
    raw : the completion text as the LLM returned it.
    cleaned : after :func:`~invent_core.cleaning.clean_response`.
    canonical : after :func:`~invent_core.canonical.canonical_answer` (the cleaned
        text itself when it could not be mapped).
    mapped : False when the canonical step found no option / number / answer.
    """

    raw: str
    cleaned: str
    canonical: str
    mapped: bool


def postprocess(
    raw: str, question: str, *, task: str = "qa", choices: Sequence[str] | None = None
) -> Answer:
    """Clean and canonicalise one raw response to ``question`` (the state's text)."""
    cleaned = clean_response(raw, question)
    canon = canonical_answer(cleaned, task=task, choices=choices)
    return Answer(raw=raw, cleaned=cleaned, canonical=canon.text, mapped=canon.mapped)
