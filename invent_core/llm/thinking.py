"""Reasoning models' thinking traces: split from the answer, kept beside it.

Reasoning models (Qwen3, DeepSeek-R1, …) write ``<think>…</think>`` before
the answer; servers with a reasoning parser (vLLM, SGLang) return the trace
separately as ``reasoning_content``. Either way the trace is not the answer:
left in, it would be cleaned, embedded and judged as one. :func:`split_thinking`
separates the two (every block, an unclosed leading ``<think>`` cut off by the
token budget, and a lone ``</think>`` whose ``<think>`` was in the chat
template's prompt); :func:`join_thinking` writes them back as one text, as the
LLM cache stores them. Pure functions, no model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .base import Completion

__all__ = ["CLOSE", "OPEN", "join_thinking", "split_thinking", "traces_of"]

OPEN, CLOSE = "<think>", "</think>"
_BLOCK = re.compile(r"<think>(.*?)</think>", re.S | re.I)


def split_thinking(text: str, reasoning: str | None = None) -> tuple[str, str]:
    """``(answer, thinking)`` of a reply's ``text`` (and a separate ``reasoning_content``).

    The answer is the text with every trace removed and stripped of the
    whitespace around it; the thinking is the traces' text, joined by blank
    lines. A text without a trace comes back as it is, with ``""``. An
    unclosed leading ``<think>`` (the budget ran out while thinking) leaves no answer.
    """
    if "</think>" not in text.lower() and "<think>" not in text.lower() and not reasoning:
        return text, ""
    traces = [reasoning.strip()] if reasoning and reasoning.strip() else []
    lowered = text.lower()
    if CLOSE in lowered and OPEN not in lowered[: lowered.index(CLOSE)]:
        cut = lowered.index(CLOSE)  # the template opened the block in the prompt
        traces.append(text[:cut].strip())
        text = text[cut + len(CLOSE) :]
    traces += [m.strip() for m in _BLOCK.findall(text)]
    text = _BLOCK.sub("", text)
    start = text.lower().find(OPEN)
    if start != -1 and not text[:start].strip():  # thinking that never ended
        traces.append(text[start + len(OPEN) :].strip())
        text = ""
    return text.strip(), "\n\n".join(t for t in traces if t)


def join_thinking(answer: str, thinking: str) -> str:
    """One text holding both (``<think>thinking</think>answer``); the inverse of :func:`split_thinking`."""
    return f"{OPEN}{thinking}{CLOSE}{answer}" if thinking else answer


def traces_of(completions: Sequence[Sequence[Completion]]) -> list[list[str]] | None:
    """The m × r thinking traces of a run's answers, or None when none has one."""
    traces = [[c.thinking for c in reps] for reps in completions]
    return traces if any(t for reps in traces for t in reps) else None
