"""Reading an OpenAI-protocol reply: texts, finish reasons, usage, first-token logprobs.

What the ``openai`` client returns (a chat completion, or the chunks of a
streamed one) becomes :class:`~invent_core.llm.base.Completion` objects here.
A 2xx reply that is not a usable completion — no ``choices``, a choice
without ``message``, the wrong number of choices, no text at all — raises
:class:`MalformedReply`, which the retry policy treats as a failed request
(:mod:`.retry`): an empty answer cannot be scored, so it is asked again and,
when every attempt fails, reported, never cached.

Shapes: ``usage`` is ``{"prompt_tokens": int, "completion_tokens": int}``;
first-token logprobs are ``[[token, logprob], …]`` best first. A reasoning
model's trace (``<think>…</think>`` in the text, or the ``reasoning_content``
vLLM and SGLang send beside it) goes to ``Completion.thinking``, never into
the text (:mod:`.thinking`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .base import Completion, Request
from .thinking import split_thinking

__all__ = [
    "MalformedReply",
    "check_usable",
    "empty_before_stop",
    "read_choices",
    "read_reply",
    "read_stream",
    "stream_choices",
    "usage",
]


class MalformedReply(Exception):
    """A 2xx reply that is not a usable chat completion."""


def usage(obj: Any) -> dict[str, int]:
    """The reply's (or a stream chunk's) token counts; 0 where the server gave none."""
    got = getattr(obj, "usage", None)
    return {
        "prompt_tokens": int(getattr(got, "prompt_tokens", 0) or 0),
        "completion_tokens": int(getattr(got, "completion_tokens", 0) or 0),
    }


def _first_token_logprobs(choice: Any) -> list[list[Any]]:
    """``[[token, logprob], …]`` of the first generated token, best first."""
    content = getattr(getattr(choice, "logprobs", None), "content", None)
    if not content:
        return []
    first = content[0]
    alts = getattr(first, "top_logprobs", None) or [first]
    return sorted(([a.token, float(a.logprob)] for a in alts), key=lambda t: -t[1])


def check_usable(completion: Completion, request: Request) -> Completion:
    """``completion``, or ``MalformedReply`` when it carries nothing to use.

    Usable: some text, or — for a logprobs request (the P(True) judge reads
    the first token's alternatives, not the text) — first-token logprobs.
    """
    if completion.text or (request.logprobs and completion.logprobs):
        return completion
    if completion.thinking:
        raise MalformedReply(
            f"the reply is all thinking ({len(completion.thinking)} characters) and no answer "
            f"(finish_reason={completion.finish_reason!r}): turn thinking off (--thinking off) "
            "or raise the token budget"
        )
    raise MalformedReply(
        f"the reply has no text (finish_reason={completion.finish_reason!r}): "
        "content null, empty, or a stream that ended without any"
    )


def empty_before_stop(resp: Any) -> bool:
    """Whether a reply ended on a stop string before any text (``content`` empty)."""
    choices = getattr(resp, "choices", None)
    if not choices or getattr(choices[0], "message", None) is None:
        return False
    content = choices[0].message.content
    return content is not None and not content.strip()


def read_reply(resp: Any, request: Request, latency: float) -> Completion:
    """The one completion of a plain reply to ``request`` (``MalformedReply`` if unusable)."""
    choices = getattr(resp, "choices", None)
    if not choices or getattr(choices[0], "message", None) is None:
        raise MalformedReply(f"reply without choices: {str(resp)[:200]}")
    choice = choices[0]
    text, thinking = _answer_and_thinking(choice.message)
    completion = Completion(
        text=text,
        thinking=thinking,
        usage=usage(resp),
        latency=latency,
        logprobs=_first_token_logprobs(choice) if request.logprobs else None,
        finish_reason=getattr(choice, "finish_reason", None),
    )
    return check_usable(completion, request)


def _answer_and_thinking(message: Any) -> tuple[str, str]:
    """A message's answer and thinking: its ``content`` split, with ``reasoning_content``."""
    reasoning = getattr(message, "reasoning_content", None)
    if reasoning is None:  # the openai client keeps fields it does not know in model_extra
        reasoning = (getattr(message, "model_extra", None) or {}).get("reasoning_content")
    return split_thinking(message.content or "", reasoning if isinstance(reasoning, str) else None)


def read_choices(resp: Any, n: int, latency: float) -> list[Completion]:
    """The ``n`` completions of a plain reply asked for ``n`` choices, in choice order.

    The usage (llama.cpp: the first choice's) goes on choice 0; a choice with
    no text is returned as it is (the caller asks it again on its own).
    """
    choices = sorted(getattr(resp, "choices", None) or [], key=lambda c: c.index)
    if len(choices) != n or any(getattr(c, "message", None) is None for c in choices):
        raise MalformedReply(f"asked for {n} choices, got {len(choices)}: {str(resp)[:200]}")
    split = [_answer_and_thinking(c.message) for c in choices]
    return [
        Completion(
            text=split[k][0],
            thinking=split[k][1],
            usage=usage(resp) if k == 0 else {},
            latency=latency,
            finish_reason=getattr(c, "finish_reason", None),
        )
        for k, c in enumerate(choices)
    ]


def read_stream(stream: Any, stop_when: Callable[[str], bool]) -> Completion:
    """Collect a streamed reply's text until it ends or ``stop_when`` says enough."""
    parts: list[str] = []
    finish: str | None = None
    usage_d = {"prompt_tokens": 0, "completion_tokens": 0}
    for chunk in stream:
        if getattr(chunk, "usage", None) is not None:
            usage_d = usage(chunk)
        if not getattr(chunk, "choices", None):
            continue
        choice = chunk.choices[0]
        delta = getattr(getattr(choice, "delta", None), "content", None)
        if choice.finish_reason:
            finish = choice.finish_reason
        if delta:
            parts.append(delta)
            if "\n" in delta and stop_when("".join(parts)):
                finish = "early_stop"
                break
    if finish == "early_stop" and not usage_d["completion_tokens"]:
        usage_d["completion_tokens"] = len(parts)  # llama.cpp streams one token per chunk
    text, thinking = split_thinking("".join(parts))
    return Completion(text=text, thinking=thinking, usage=usage_d, finish_reason=finish)


def stream_choices(
    client: Any, kwargs: dict[str, Any], n: int, on_choice: Callable[[], None]
) -> list[Completion]:
    """One streamed request for ``n`` choices; ``on_choice()`` as each one finishes.

    The choices decode side by side and end at different times (a short
    answer before a long one), so a run's counter moves with each. The usage
    (llama.cpp: the first choice's) goes on choice 0, as for the plain request.
    """
    kwargs = {k: v for k, v in kwargs.items() if k not in ("logprobs", "top_logprobs")}
    t0 = time.perf_counter()
    texts: list[list[str]] = [[] for _ in range(n)]
    finish: list[str | None] = [None] * n
    usage_d: dict[str, int] = {}
    stream = client.chat.completions.create(
        **kwargs, n=n, stream=True, stream_options={"include_usage": True}
    )
    try:
        for chunk in stream:
            if getattr(chunk, "usage", None) is not None:
                usage_d = usage(chunk)
            for c in getattr(chunk, "choices", None) or []:
                k = int(getattr(c, "index", 0) or 0)
                if not 0 <= k < n:
                    raise MalformedReply(f"asked for {n} choices, got choice index {k}")
                delta = getattr(getattr(c, "delta", None), "content", None)
                if delta:
                    texts[k].append(delta)
                if c.finish_reason and finish[k] is None:
                    finish[k] = c.finish_reason
                    on_choice()
    finally:
        stream.close()
    if any(f is None for f in finish):
        raise MalformedReply(
            f"the stream ended with {finish.count(None)} of {n} choices unfinished"
        )
    latency = time.perf_counter() - t0
    split = [split_thinking("".join(t)) for t in texts]
    return [
        Completion(
            text=split[k][0],
            thinking=split[k][1],
            usage=usage_d if k == 0 else {},
            latency=latency,
            finish_reason=finish[k],
        )
        for k in range(n)
    ]
