"""Sending paraphrase requests: the paper's list request or one rewording per request.

:class:`ParaphraseAsker` builds the request template of a style (``"list"``:
:func:`~invent_core.prompts.paraphrase_prompt`; ``"single"``:
:func:`~invent_core.prompts.paraphrase_one_messages`) and sends rounds of it,
each request with the next replication index (a new seed and cache key); a
reply comes back with the paraphrases parsed from it
(:func:`~invent_core.perturb.paraphrase_parse.parse_paraphrases`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..llm import Request, resolve_llm, user
from ..llm.base import StreamingLLM, prefers_single_paraphrase
from ..prompts import PARAPHRASE_TEMPERATURE, paraphrase_one_messages, paraphrase_prompt
from .paraphrase_parse import enough_or_looping, parse_paraphrases

#: Sampling temperature of ``style="single"`` (ours; see :func:`~.paraphrase.gated_paraphrase`).
SINGLE_TEMPERATURE = 1.0


@dataclass
class ParaphraseAsker:
    """Sends paraphrase requests; every request gets the next replication index.

    ``ask(missing, limit)`` sends one round and returns, per reply, the
    paraphrases parsed from it (list style: all; single style: the reply's
    items, of which the first counts) with the raw reply.
    """

    question: str
    model: Any
    style: str
    n: int
    template: Any  # the Request of replication 0; rounds change only ``replication``
    stream: bool
    requests: int = 0
    constructions: bool = False  # single style: request k asks for construction k
    replies: list[str] = field(default_factory=list)
    on_reply: Callable[[int, int], None] | None = None  # progress(done, total) of a round

    @classmethod
    def build(cls, question: str, llm: Any, *, n: int, style: str, **opts: Any) -> ParaphraseAsker:
        """Check the arguments, resolve ``style="auto"`` and build the request template."""
        if not question or not question.strip():
            raise ValueError("question is empty: nothing to paraphrase")
        if n < 1:
            raise ValueError(f"n must be >= 1, got {n}")
        model = resolve_llm(llm)
        if style == "auto":
            style = "single" if prefers_single_paraphrase(model) else "list"
        if style not in ("list", "single"):
            raise ValueError(f"unknown paraphrase style {style!r}: use 'auto', 'list' or 'single'")
        stream = opts.pop("stream")
        template = (_list_request if style == "list" else _single_request)(question, n=n, **opts)
        return cls(question, model, style, n, template, stream)

    @property
    def first_round(self) -> int:
        """Requests of the first round: one list, or ``n + 1`` single rewordings (one spare)."""
        return 1 if self.style == "list" else self.n + 1

    def _request(self, index: int) -> Any:
        """Request ``index``: the template with its replication (and construction) set."""
        if not self.constructions:
            return replace(self.template, replication=index)
        messages = paraphrase_one_messages(self.question, construction=index)
        return replace(self.template, replication=index, messages=messages)

    def ask(self, missing: int, limit: int) -> list[tuple[list[str], str]]:
        """One round: (parsed paraphrases, raw reply) per reply, at most ``limit`` requests."""
        count = 1 if self.style == "list" else max(1, min(missing + 1, limit))
        reqs = [self._request(self.requests + k) for k in range(count)]
        self.requests += count
        if self.style == "list" and self.stream and isinstance(self.model, StreamingLLM):
            q, n = self.question, self.n
            texts = [
                self.model.complete_until(
                    reqs[0],
                    lambda text: enough_or_looping(text, q, n),
                    tag=f"paraphrase-enough-or-looping:n={n}",
                ).text
            ]
        else:
            texts = [c.text for c in self.model.complete_many(reqs, self.on_reply)]
        self.replies += texts
        return [(parse_paraphrases(t, self.question), t) for t in texts]


def _list_request(
    question: str,
    *,
    n: int,
    temperature: float | None,
    seed: int,
    max_tokens: int,
    frequency_penalty: float,
    system: str | None,
) -> Any:
    """Build the paper's list request (replication 0); re-asks change only ``replication``."""
    messages = ([{"role": "system", "content": system}] if system else []) + user(
        paraphrase_prompt(question, n)
    )
    return Request(
        messages=messages,
        temperature=PARAPHRASE_TEMPERATURE if temperature is None else temperature,
        seed=seed,
        max_tokens=max_tokens,
        frequency_penalty=frequency_penalty,
    )


def _single_request(
    question: str, *, n: int, temperature: float | None, seed: int, **_: Any
) -> Any:
    """One-rewording request (replication 0); its reply is about as long as the question."""
    return Request(
        messages=paraphrase_one_messages(question),
        temperature=SINGLE_TEMPERATURE if temperature is None else temperature,
        seed=seed,
        max_tokens=min(256, 16 + 4 * len(question.split())),
        tag="paraphrase-one",
    )
