"""The LLM Protocol, one request, one completion.

The paper's ``f`` (GPT-3.5-Turbo or LLaMA-3.1-8B-Instruct) is, here, anything
that speaks the OpenAI chat-completions protocol: the embedded llama.cpp
server (default, no key, no network) or any OpenAI-compatible endpoint.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

Message = dict[str, str]

#: ``progress(done, total)`` after each finished request of ``complete_many``.
ProgressFn = Callable[[int, int], None]


def user(content: str) -> list[Message]:
    """A one-turn conversation: ``[{"role": "user", "content": content}]``."""
    return [{"role": "user", "content": content}]


def replication_seed(seed: int, replication: int) -> int:
    """Seed of replication ``replication`` derived from the base ``seed``.

    Replication 0 keeps ``seed``; later ones get a hash of ``(seed, replication)``
    so that r replications at temperature > 0 differ (llama.cpp rejects ``n > 1``,
    so each replication is its own request) and stay reproducible.
    """
    if replication == 0:
        return int(seed)
    digest = hashlib.sha256(f"invent-rep:{int(seed)}:{int(replication)}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


@dataclass(frozen=True)
class Request:
    """One chat-completion request.

    Parameters
    ----------
    messages
        OpenAI-style chat messages.
    temperature, seed, max_tokens
        Sampling settings. The seed actually sent is
        ``replication_seed(seed, replication)``.
    replication
        Index of this replication (0 … r-1); part of the cache key.
    logprobs, top_logprobs
        Ask for the top log-probabilities of the first generated token
        (P(True), the LLM entailment judge).
    frequency_penalty
        OpenAI ``frequency_penalty``; sent only when non-zero.
    tag
        Extra cache-key text (never sent), e.g. the rule that cut a streamed reply.
    """

    messages: tuple[tuple[tuple[str, str], ...], ...] | Sequence[Message]
    temperature: float = 0.0
    seed: int = 0
    max_tokens: int = 32
    replication: int = 0
    logprobs: bool = False
    top_logprobs: int = 0
    frequency_penalty: float = 0.0
    tag: str = ""

    def __post_init__(self) -> None:
        """Validate and freeze the messages (a hashable cache key)."""
        msgs = [dict(m) for m in self.messages]
        for m in msgs:
            if "role" not in m or "content" not in m:
                raise ValueError(f"each message needs 'role' and 'content', got {m!r}")
        object.__setattr__(self, "messages", tuple(tuple(sorted(m.items())) for m in msgs))
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1, got {self.max_tokens}")
        if self.top_logprobs < 0 or self.top_logprobs > 20:
            raise ValueError(f"top_logprobs must be in 0..20, got {self.top_logprobs}")
        if self.replication < 0:
            raise ValueError(f"replication must be >= 0, got {self.replication}")

    @property
    def message_list(self) -> list[Message]:
        """The messages as OpenAI-style dicts."""
        return [dict(m) for m in self.messages]  # type: ignore[arg-type]

    @property
    def effective_seed(self) -> int:
        """The seed sent: :func:`replication_seed` of ``seed`` and ``replication``."""
        return replication_seed(self.seed, self.replication)


@dataclass
class Completion:
    """A completion's text and bookkeeping.

    Attributes
    ----------
    text
        The raw generated text (cleaning is the caller's job).
    usage
        ``{"prompt_tokens": int, "completion_tokens": int}``.
    latency
        Seconds the request took when it was made (kept when read from cache).
    logprobs
        When requested: the top log-probabilities of the first generated
        token, ``[[token, logprob], …]`` best first; else ``None``.
    cached
        True when read from the persistent cache (no request was sent).
    """

    text: str
    usage: dict[str, int] = field(default_factory=dict)
    latency: float = 0.0
    logprobs: list[list[Any]] | None = None
    cached: bool = False
    finish_reason: str | None = None

    def first_token_prob(self, *candidates: str) -> float:
        """Summed probability of first tokens that match ``candidates``.

        Tokens are compared after stripping spaces and case, so ``"Yes"``
        matches ``"yes"`` and ``" Yes"``. Needs ``logprobs``; returns 0.0 when
        none of the top tokens match.
        """
        import math

        if self.logprobs is None:
            raise ValueError(
                "this completion carries no logprobs: request logprobs=True, top_logprobs>0"
            )
        wanted = {c.strip().casefold() for c in candidates}
        return float(
            sum(math.exp(lp) for tok, lp in self.logprobs if str(tok).strip().casefold() in wanted)
        )


@runtime_checkable
class LLM(Protocol):
    """What the pipeline and the baselines need from a model.

    Optional capabilities are declared, not guessed: a backend that can stream
    one reply and stop early implements :class:`StreamingLLM`; a backend that
    rewords better one request at a time sets the class attribute
    ``prefers_single_paraphrase = True`` (read by :func:`prefers_single_paraphrase`).
    """

    @property
    def identity(self) -> str:
        """Backend identity for the cache key: base_url or local model sha256, plus model."""
        ...

    def complete(
        self,
        messages: Sequence[Message],
        *,
        temperature: float = 0.0,
        seed: int = 0,
        max_tokens: int = 32,
        logprobs: bool = False,
        top_logprobs: int = 0,
    ) -> Completion:
        """One chat completion."""
        ...

    def complete_many(
        self, requests: Sequence[Request], progress: ProgressFn | None = None
    ) -> list[Completion]:
        """Several requests (concurrently where the backend can), in order."""
        ...

    def close(self) -> None:
        """Release the backend's resources (servers, connections)."""
        ...


@runtime_checkable
class StreamingLLM(LLM, Protocol):
    """An :class:`LLM` that can stream one reply and stop as soon as a rule says so."""

    def complete_until(
        self, request: Request, stop_when: Callable[[str], bool], *, tag: str
    ) -> Completion:
        """Stream ``request`` and stop once ``stop_when(text_so_far)`` is true.

        ``tag`` names the stop rule; it is part of the cache key, so a cached
        text is one cut by the same rule.
        """
        ...


def prefers_single_paraphrase(llm: Any) -> bool:
    """Whether ``llm`` declares that it paraphrases better one rewording per request.

    Backends declare it as a class attribute (the packaged small local models
    do: asked for a list they echo the question); undeclared means False.
    """
    return bool(getattr(llm, "prefers_single_paraphrase", False))
