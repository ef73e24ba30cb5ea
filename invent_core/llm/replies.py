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

import logging
import time
from collections.abc import Callable
from typing import Any

from .base import Completion, Request
from .thinking import split_thinking

__all__ = [
    "REPLY_CAP",
    "MalformedReply",
    "check_usable",
    "reply_cap",
    "empty_before_stop",
    "read_choices",
    "read_reply",
    "read_stream",
    "stream_choices",
    "stream_reply",
    "usage",
]

log = logging.getLogger(__name__)

#: The finish reason of a reply cut here because it outgrew :func:`reply_cap`: kept for
#: the run (its start is an answer) but never cached as if it were complete.
REPLY_CAP = "reply_cap"


class MalformedReply(Exception):
    """A 2xx reply that is not a usable chat completion."""


def reply_cap(max_tokens: int) -> int:
    """The most characters kept of a reply asked for ``max_tokens`` tokens.

    32 characters a token (a token is 4 on average; a run of spaces or a long
    word may be 16), at least 8,000: a server that ignores ``max_tokens`` (a
    100 kB reply to a 32-token answer) cannot fill memory, the cache or the
    run's files.

    >>> reply_cap(32), reply_cap(1024)
    (8000, 32768)
    """
    return max(8_000, 32 * int(max_tokens))


def _capped(text: str, cap: int) -> tuple[str, bool]:
    """``text`` cut to ``cap`` characters, and whether it was (said once in the log)."""
    if len(text) <= cap:
        return text, False
    log.warning(
        "a reply of %d characters was cut to %d (the reply cap, 32 a token of max_tokens): "
        "the server sent more than it was asked for; the cut reply is not cached",
        len(text),
        cap,
    )
    return text[:cap], True


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
    text, cut = _capped(text, reply_cap(request.max_tokens))
    completion = Completion(
        text=text,
        thinking=thinking,
        usage=usage(resp),
        latency=latency,
        logprobs=_first_token_logprobs(choice) if request.logprobs else None,
        finish_reason=REPLY_CAP if cut else getattr(choice, "finish_reason", None),
    )
    return check_usable(completion, request)


def _answer_and_thinking(message: Any) -> tuple[str, str]:
    """A message's answer and thinking: its ``content`` split, with ``reasoning_content``."""
    reasoning = getattr(message, "reasoning_content", None)
    if reasoning is None:  # the openai client keeps fields it does not know in model_extra
        reasoning = (getattr(message, "model_extra", None) or {}).get("reasoning_content")
    return split_thinking(message.content or "", reasoning if isinstance(reasoning, str) else None)


def read_choices(resp: Any, n: int, latency: float, cap: int = 8_000) -> list[Completion]:
    """The ``n`` completions of a plain reply asked for ``n`` choices, in choice order.

    The usage (llama.cpp: the first choice's) goes on choice 0; a choice with
    no text is returned as it is (the caller asks it again on its own); a text
    longer than ``cap`` characters is cut there (finish reason :data:`REPLY_CAP`).
    """
    choices = sorted(getattr(resp, "choices", None) or [], key=lambda c: c.index)
    if len(choices) != n or any(getattr(c, "message", None) is None for c in choices):
        raise MalformedReply(f"asked for {n} choices, got {len(choices)}: {str(resp)[:200]}")
    split = [_answer_and_thinking(c.message) for c in choices]
    capped = [_capped(text, cap) for text, _ in split]
    return [
        Completion(
            text=capped[k][0],
            thinking=split[k][1],
            usage=usage(resp) if k == 0 else {},
            latency=latency,
            finish_reason=REPLY_CAP if capped[k][1] else getattr(c, "finish_reason", None),
        )
        for k, c in enumerate(choices)
    ]


def read_stream(
    stream: Any, stop_when: Callable[[str], bool] | None = None, cap: int = 8_000
) -> Completion:
    """Collect a streamed reply's text until it ends or ``stop_when`` says enough.

    Complete only with a finish reason: a stream that ends without one was cut
    (the server died, a proxy closed it) and raises ``MalformedReply``, so it
    is asked again and never cached. Past ``cap`` characters reading stops
    (finish reason :data:`REPLY_CAP`, not cached).
    """
    parts: list[str] = []
    size = 0
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
            size += len(delta)
            if size > cap:
                finish = REPLY_CAP
                break
            if stop_when is not None and "\n" in delta and stop_when("".join(parts)):
                finish = "early_stop"
                break
    if finish is None:
        raise MalformedReply(
            f"the stream ended without a finish_reason after {size} characters: the reply "
            "was cut before it was complete"
        )
    if finish in ("early_stop", REPLY_CAP) and not usage_d["completion_tokens"]:
        usage_d["completion_tokens"] = len(parts)  # llama.cpp streams one token per chunk
    raw, _ = _capped("".join(parts), cap)
    text, thinking = split_thinking(raw)
    return Completion(text=text, thinking=thinking, usage=usage_d, finish_reason=finish)


def stream_reply(client: Any, kwargs: dict[str, Any], cap: int) -> Completion:
    """One reply to ``kwargs``, streamed (so a stall timeout sees every token come), read whole."""
    kwargs = {k: v for k, v in kwargs.items() if k not in ("logprobs", "top_logprobs")}
    t0 = time.perf_counter()
    stream = client.chat.completions.create(
        **kwargs, stream=True, stream_options={"include_usage": True}
    )
    try:
        completion = read_stream(stream, None, cap)
    finally:
        stream.close()
    completion.latency = time.perf_counter() - t0
    return completion


def stream_choices(
    client: Any,
    kwargs: dict[str, Any],
    n: int,
    on_choice: Callable[[], None],
    cap: int = 8_000,
) -> list[Completion]:
    """One streamed request for ``n`` choices; ``on_choice()`` as each one finishes.

    The choices decode side by side and end at different times (a short
    answer before a long one), so a run's counter moves with each. The usage
    (llama.cpp: the first choice's) goes on choice 0, as for the plain request.
    A choice past ``cap`` characters is finished here (:data:`REPLY_CAP`),
    the rest of its text ignored; one without a finish reason is a cut stream.
    """
    kwargs = {k: v for k, v in kwargs.items() if k not in ("logprobs", "top_logprobs")}
    t0 = time.perf_counter()
    texts: list[list[str]] = [[] for _ in range(n)]
    finish: list[str | None] = [None] * n
    sizes = [0] * n
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
                if delta and finish[k] is None:
                    texts[k].append(delta)
                    sizes[k] += len(delta)
                    if sizes[k] > cap:
                        finish[k] = REPLY_CAP
                        on_choice()
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
    split = [split_thinking(_capped("".join(t), cap)[0]) for t in texts]
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
