"""Reasoning models' thinking traces: split from the answer, kept beside it.

Reasoning models (Qwen3, DeepSeek-R1, …) write ``<think>…</think>`` before
the answer; servers with a reasoning parser (vLLM, SGLang) return the trace
separately as ``reasoning_content``. Either way the trace is not the answer:
left in, it would be cleaned, embedded and judged as one. :func:`split_thinking`
separates the two (every block in every form it takes, see there); :func:`join_thinking` writes them back as one text, as the
LLM cache stores them. Pure functions, no model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .base import Completion

__all__ = ["CLOSE", "OPEN", "join_thinking", "split_thinking", "traces_of"]

OPEN, CLOSE = "<think>", "</think>"
#: The tags reasoning models wrap a trace in: ``<think>`` (Qwen3, DeepSeek-R1),
#: ``<thinking>`` and ``<reasoning>`` (other fine-tunes and prompts), any case.
_TAG = re.compile(r"<(/?)(think|thinking|reasoning)>", re.I)


def split_thinking(text: str, reasoning: str | None = None) -> tuple[str, str]:
    r"""``(answer, thinking)`` of a reply's ``text`` (and a separate ``reasoning_content``).

    The one place a trace is taken out, whatever its form: ``<think>``,
    ``<thinking>`` or ``<reasoning>`` blocks anywhere (before the answer or
    after it), nested blocks (the outermost one is the trace), a lone closing
    tag whose opening was in the chat template's prompt (everything before it
    is the trace), and an opening tag never closed (the budget ran out while
    thinking: everything after it is the trace, the text before it the answer).
    The answer is what is left, stripped of the whitespace around it; the
    thinking is the traces, joined by blank lines. A text without any tag
    comes back as it is, with ``""``.

    >>> split_thinking("<think>a<think>b</think>c</think> 4 <thinking>d</thinking>")
    ('4', 'a<think>b</think>c\n\nd')
    >>> split_thinking("Paris <think>and yet")
    ('Paris', 'and yet')
    """
    traces = [reasoning.strip()] if reasoning and reasoning.strip() else []
    tags = list(_TAG.finditer(text))
    if not tags:
        return (text.strip(), traces[0]) if traces else (text, "")
    answer: list[str] = []
    depth, pos, opened_at = 0, 0, 0
    for k, tag in enumerate(tags):
        closing = tag.group(1) == "/"
        if depth == 0 and not closing:  # a trace begins: what came before is answer
            answer.append(text[pos : tag.start()])
            opened_at = tag.end()
        elif depth == 0 and k == 0:  # closed before any opening: the prompt opened it
            traces.append(text[: tag.start()].strip())
        elif depth == 1 and closing:  # the outermost trace ends
            traces.append(text[opened_at : tag.start()].strip())
        elif depth == 0:  # a stray closing tag in the answer: dropped
            answer.append(text[pos : tag.start()])
        depth = max(0, depth + (-1 if closing else 1))
        pos = tag.end()
    if depth:  # never closed: the rest is thinking
        traces.append(text[opened_at:].strip())
    else:
        answer.append(text[pos:])
    return "".join(answer).strip(), "\n\n".join(t for t in traces if t)


def join_thinking(answer: str, thinking: str) -> str:
    """One text holding both (``<think>thinking</think>answer``); the inverse of :func:`split_thinking`."""
    return f"{OPEN}{thinking}{CLOSE}{answer}" if thinking else answer


def traces_of(completions: Sequence[Sequence[Completion]]) -> list[list[str]] | None:
    """The m × r thinking traces of a run's answers, or None when none has one."""
    traces = [[c.thinking for c in reps] for reps in completions]
    return traces if any(t for reps in traces for t in reps) else None
