"""The LLM Protocol, one request, one completion.

The paper's ``f`` (GPT-3.5-Turbo or LLaMA-3.1-8B-Instruct) is, here, anything
that speaks the OpenAI chat-completions protocol: the embedded llama.cpp
server (default, no key, no network) or any OpenAI-compatible endpoint.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from ..progress import CancelToken, CountCallback

Message = dict[str, str]


def user(content: str) -> list[Message]:
    """Return a one-turn conversation: ``[{"role": "user", "content": content}]``."""
    return [{"role": "user", "content": content}]


def derive_seed(*parts: int | str) -> int:
    """Return a 31-bit seed made from ``parts`` (sha256), e.g. ``derive_seed("state", seed, i, k)``.

    Every seed invent sends is derived from the one run seed at the edge this
    way, so two purposes never share a seed by accident and each is reproducible.
    """
    text = ":".join(str(int(p)) if not isinstance(p, str) else p for p in parts)
    digest = hashlib.sha256(f"invent:{text}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def replication_seed(seed: int, replication: int) -> int:
    """Seed of replication ``replication`` derived from the base ``seed`` (no state).

    Replication 0 keeps ``seed``; later ones get a hash of ``(seed, replication)``
    so that r replications at temperature > 0 differ (each replication is its
    own request) and stay reproducible. Requests that belong to a state of a
    run (the answers) use :func:`state_seed` instead.
    """
    if replication == 0:
        return int(seed)
    digest = hashlib.sha256(f"invent-rep:{int(seed)}:{int(replication)}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def state_seed(seed: int, state: int, replication: int) -> int:
    """Seed of replication k of state i (x_0 is state 0, x_i is state i) in a run seeded ``seed``.

    Every (state, replication) pair gets its own seed, so replication k of two
    rewordings is not sampled with the same random stream: with one seed per
    replication, two rewordings agreed 63 % of the time against 17 % with
    different seeds (held-out MMLU runs), which correlates the
    columns the bootstrap of Eq. (meanentropy) treats as independent. A
    duplicated perturbation is its own state, so it gets its own answers.
    """
    if state < 0 or replication < 0:
        raise ValueError(f"state and replication must be >= 0, got {state}, {replication}")
    return derive_seed("state", int(seed), int(state), int(replication))


@dataclass(frozen=True)
class Request:
    """One chat-completion request.

    Parameters
    ----------
    messages
        OpenAI-style chat messages.
    temperature, seed, max_tokens
        Sampling settings. The seed actually sent is :attr:`effective_seed`:
        ``state_seed(seed, state, replication)`` for a request that answers
        state ``state`` of a run, else ``replication_seed(seed, replication)``;
        ``seed`` is the run's seed in both cases. A backend that takes several
        choices per request (``max_choices`` > 1, the packaged model) sends the
        replications of one prompt as one request with ``n`` choices, seeded
        with the first one's seed; the server derives the others. Each answer
        is still cached under its own request's key.
    replication
        Index of this replication (0 … r-1); part of the cache key.
    state
        Which input of the run this request answers (0 = the original question,
        i = the i-th perturbation, a duplicate included), or ``None`` for requests
        that belong to no state (paraphrasing, judges). Part of the cache key and
        of the seed, so two states with the same text get independent answers.
    stop
        OpenAI ``stop`` strings (at most 4): generation ends before the first
        one, which is not returned. Part of the cache key. An answer request
        stops at the first newline (the cleaner keeps the first line anyway).
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
    state: int | None = None
    stop: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        """Validate and freeze the messages (a hashable cache key) and the stop strings."""
        msgs = [dict(m) for m in self.messages]
        for m in msgs:
            if "role" not in m or "content" not in m:
                raise ValueError(f"each message needs 'role' and 'content', got {m!r}")
        object.__setattr__(self, "messages", tuple(tuple(sorted(m.items())) for m in msgs))
        if isinstance(self.stop, str):
            raise ValueError(f"stop must be a tuple of strings, got the string {self.stop!r}")
        object.__setattr__(self, "stop", tuple(self.stop))
        if len(self.stop) > 4 or not all(isinstance(s, str) and s for s in self.stop):
            raise ValueError(f"stop must hold at most 4 non-empty strings, got {self.stop!r}")
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1, got {self.max_tokens}")
        if self.top_logprobs < 0 or self.top_logprobs > 20:
            raise ValueError(f"top_logprobs must be in 0..20, got {self.top_logprobs}")
        if self.replication < 0:
            raise ValueError(f"replication must be >= 0, got {self.replication}")
        if self.state is not None and self.state < 0:
            raise ValueError(f"state must be >= 0 or None, got {self.state}")

    @property
    def message_list(self) -> list[Message]:
        """The messages as OpenAI-style dicts."""
        return [dict(m) for m in self.messages]  # type: ignore[arg-type]

    @property
    def effective_seed(self) -> int:
        """The seed sent: :func:`state_seed` for a state's answer, else :func:`replication_seed`."""
        if self.state is not None:
            return state_seed(self.seed, self.state, self.replication)
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
    thinking
        A reasoning model's trace, taken out of ``text`` (:mod:`.thinking`); ``""`` when none.
    """

    text: str
    usage: dict[str, int] = field(default_factory=dict)
    latency: float = 0.0
    logprobs: list[list[Any]] | None = None
    cached: bool = False
    finish_reason: str | None = None
    thinking: str = ""

    def first_token_prob(self, *candidates: str) -> float:
        """Return the summed probability of first tokens that match ``candidates``.

        Tokens are compared after stripping spaces and case, so ``"Yes"``
        matches ``"yes"`` and ``" Yes"``. Needs ``logprobs``; returns 0.0 when
        none of the top tokens match.
        """
        if self.logprobs is None:
            raise ValueError(
                "this completion carries no logprobs: request logprobs=True, top_logprobs>0"
            )
        wanted = {c.strip().casefold() for c in candidates}
        return float(
            sum(math.exp(lp) for tok, lp in self.logprobs if str(tok).strip().casefold() in wanted)
        )


_WORD = re.compile(r"[a-z]+")


def yes_probability(completion: Any) -> float:
    """P("Yes") of a Yes/No completion.

    From the first token's top log-probabilities when present:
    ``P(yes) / (P(yes) + P(no))`` (renormalised over the two answers; when
    neither is among the top tokens, falls back to the text). From the text:
    first word "yes" → 1.0, "no" → 0.0, else the only one of the two words it
    contains, else 0.0 (no evidence of entailment).
    """
    lps = getattr(completion, "logprobs", None)
    if lps:
        p_yes = float(completion.first_token_prob("Yes"))
        p_no = float(completion.first_token_prob("No"))
        if p_yes + p_no > 0:
            return p_yes / (p_yes + p_no)
    words = _WORD.findall(str(getattr(completion, "text", "")).lower())
    if words and words[0] in ("yes", "no"):
        return 1.0 if words[0] == "yes" else 0.0
    said = {w for w in words if w in ("yes", "no")}
    return 1.0 if said == {"yes"} else 0.0


@runtime_checkable
class LLM(Protocol):
    """What the pipeline and the baselines need from a model.

    Optional capabilities are declared, not guessed: a backend that can stream
    one reply and stop early implements :class:`StreamingLLM`; a backend that
    rewords better one request at a time sets the class attribute
    ``prefers_single_paraphrase = True`` (read by :func:`prefers_single_paraphrase`);
    ``concurrency`` is how many requests it wants in flight (default 4).
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
        self,
        requests: Sequence[Request],
        progress: CountCallback | None = None,
        *,
        cancel: CancelToken | None = None,
    ) -> list[Completion]:
        """Several requests (concurrently where the backend can), in order.

        Once ``cancel`` is cancelled no further request is sent and
        :class:`~invent_core.errors.Cancelled` is raised; the completions
        finished before are kept in the backend's cache. Callers that pass no
        ``cancel`` work with backends that do not take it.
        """
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
