"""What every backend of this package does around the model: the cache, the count, Cancel.

:class:`CachedLLM` is the base of the OpenAI-protocol backend
(:class:`~invent_core.llm.openai_compat.OpenAICompatLLM`, and through it the
packaged llama.cpp model) and of the transformers engine
(:class:`~invent_core.llm.hf.HFLLM`). It implements the LLM Protocol's
``complete`` and ``complete_many``:

1. the requests found in the persistent cache (keyed by the backend's
   ``identity`` and the request) are answered from it;
2. ``progress(done, total)`` is told the count, cache hits included;
3. the rest go to the backend's :meth:`CachedLLM._answer` as one
   :class:`Pending`, each distinct request once (equal requests share a cache
   key, so they get one answer); the backend records each answer as soon as it has it
   (:meth:`Pending.answered`, which caches it, so a cancelled run keeps what
   was finished) and counts it;
4. Cancel takes one path (:mod:`.cancel`): ``cancel=`` makes the token this
   thread's run token, and the backend checks that token
   (:meth:`CachedLLM._check_cancel`) before it sends anything.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..errors import Cancelled
from .base import Completion, Message, Request
from .cache import LLMCache
from .cancel import raise_if_cancelled, sending_for
from .replies import REPLY_CAP

if TYPE_CHECKING:
    from ..progress import CancelToken, CountCallback

__all__ = ["CachedLLM", "Count", "Pending", "thinking_suffix"]


def thinking_suffix(thinking: bool) -> str:
    """``"|thinking=on"`` for a backend that lets a reasoning model think, else ``""``.

    Part of such a backend's identity, hence of the cache key and the run's
    provenance: answers made while thinking are never reused with it off. Off
    (the default) adds nothing, so the keys of earlier caches stay valid.
    """
    return "|thinking=on" if thinking else ""


class Count:
    """Answers finished so far, told to ``progress(done, total)`` one thread at a time."""

    def __init__(self, done: int, total: int, progress: CountCallback | None) -> None:
        self.done, self.total, self._progress = done, total, progress
        self._lock = threading.Lock()

    def add(self, k: int) -> None:
        """Count ``k`` more (0: report the count as it is)."""
        with self._lock:
            self.done += k
            if self._progress is not None:
                self._progress(self.done, self.total)


@dataclass
class Pending:
    """The requests of one ``complete_many`` call that the cache did not answer.

    ``out`` holds the answers by request index (the cache hits already in);
    ``todo`` the indices still to answer; ``concurrency`` the caller's
    requests in flight (None: the backend's own).
    """

    requests: list[Request]
    todo: list[int]
    out: list[Completion | None]
    count: Count
    concurrency: int | None
    store: Callable[[Request, Completion], None]  # into the cache (or nowhere)
    identity: str | None = None  # the cache identity the answers are stored under
    #: request index -> the later indices of the same request (not in ``todo``)
    copies: dict[int, list[int]] = field(default_factory=dict)

    def answered(self, i: int, completion: Completion) -> None:
        """Record ``completion`` as the answer to request ``i`` (and its copies); cache it at once.

        At once, so that a run cancelled later keeps it. Counting request ``i``
        is the caller's (a backend that streams choices counts them as they
        end); its copies are counted here, as they are answered with it.
        """
        self.out[i] = completion
        self.store(self.requests[i], completion)
        later = self.copies.get(i, ())
        for j in later:
            self.out[j] = replace(completion)
        if later:
            self.count.add(len(later))


def _first_of_each(
    todo: list[int], requests: list[Request]
) -> tuple[list[int], dict[int, list[int]]]:
    """``todo`` without repeated requests, and each kept index's later copies.

    Equal requests share one cache key, so they must get one answer: sent
    twice, two slots of llama.cpp's batch gave P(Yes) 0.748 and 0.730 for the
    same prompt, and a re-run would then read the first of them for both.
    """
    first: dict[Request, int] = {}
    kept: list[int] = []
    copies: dict[int, list[int]] = {}
    for i in todo:
        j = first.setdefault(requests[i], i)
        if j == i:
            kept.append(i)
        else:
            copies.setdefault(j, []).append(i)
    return kept, copies


class CachedLLM:
    """The LLM Protocol around a backend's own way of answering (see the module docstring).

    A subclass sets ``cache`` (an :class:`LLMCache` or None), defines
    ``identity`` (the cache key's backend part) and :meth:`_answer`.
    """

    cache: LLMCache | None = None

    @property
    def identity(self) -> str:
        """Cache-key identity of the backend (the model, and what runs it)."""
        raise NotImplementedError

    # -- the cache ------------------------------------------------------------------
    def _cache_identity(self) -> str | None:
        """The identity to key the cache with, or None when there is no cache."""
        return self.identity if self.cache is not None else None

    def _cached(self, identity: str | None, request: Request) -> Completion | None:
        """The stored completion of ``request``, or None (a miss, or no cache)."""
        if self.cache is None or identity is None:
            return None
        hit = self.cache.get(identity, request)
        if hit is not None and request.logprobs and not hit.logprobs:
            return None  # stored without the logprobs asked for (grouped before a fix): ask again
        return hit

    def _store(self, identity: str | None, request: Request, completion: Completion) -> None:
        """Keep ``completion`` as the answer to ``request`` (nothing without a cache).

        A reply cut here for its size (:data:`~.replies.REPLY_CAP`) is used, never
        kept: a later run asks again rather than reading a part as the whole.
        """
        if completion.finish_reason == REPLY_CAP:
            return
        if self.cache is not None and identity is not None:
            self.cache.put(identity, request, completion)

    # -- Cancel ---------------------------------------------------------------------
    @staticmethod
    def _check_cancel(count: Count | None = None) -> None:
        """The one Cancel check: raise ``Cancelled`` if this thread's run was cancelled.

        With ``count``, the message says how many answers were finished.
        """
        if count is None:
            raise_if_cancelled()
        else:
            raise_if_cancelled(count.done, count.total)

    # -- the Protocol ---------------------------------------------------------------
    def complete(
        self,
        messages: Sequence[Message],
        *,
        temperature: float = 0.0,
        seed: int = 0,
        max_tokens: int = 32,
        logprobs: bool = False,
        top_logprobs: int = 0,
        replication: int = 0,
    ) -> Completion:
        """One completion (read from the cache when present).

        Parameters
        ----------
        messages
            Chat messages, e.g. ``invent_core.llm.user("…")``.
        temperature, seed, max_tokens
            Sampling settings, sent as they are.
        logprobs, top_logprobs
            When ``logprobs``: ``Completion.logprobs`` holds the top
            ``top_logprobs`` alternatives of the first token.
        """
        request = Request(
            messages=messages,
            temperature=temperature,
            seed=seed,
            max_tokens=max_tokens,
            logprobs=logprobs,
            top_logprobs=top_logprobs,
            replication=replication,
        )
        return self.complete_many([request])[0]

    def complete_many(
        self,
        requests: Sequence[Request],
        progress: CountCallback | None = None,
        *,
        concurrency: int | None = None,
        cancel: CancelToken | None = None,
    ) -> list[Completion]:
        """All ``requests``, in order: cache hits first, then the backend answers the rest.

        Parameters
        ----------
        requests
            The requests.
        progress
            ``progress(done, total)`` after the cache look-up and as answers come.
        concurrency
            Requests in flight at once for this call (backends that send
            requests one by one; default: the backend's own).
        cancel
            The run's token (else the one this thread sends for,
            :func:`~invent_core.llm.cancel.sending_for`). Once cancelled no
            further request is sent, the answers finished are cached and
            :class:`~invent_core.errors.Cancelled` says how many there were.

        Raises
        ------
        LLMError
            The first request that failed for good.
        Cancelled
            When the run was cancelled before every request was answered.
        """
        requests = list(requests)
        identity = self._cache_identity()
        out = [self._cached(identity, request) for request in requests]
        missing = [i for i, hit in enumerate(out) if hit is None]
        todo, copies = _first_of_each(missing, requests)
        count = Count(len(requests) - len(missing), len(requests), progress)
        count.add(0)
        store = lambda request, completion: self._store(identity, request, completion)  # noqa: E731
        pending = Pending(requests, todo, out, count, concurrency, store, identity, copies)
        with sending_for(cancel):
            try:
                if todo:
                    self._answer(pending)
            except Cancelled:  # a request in flight was cut: say how far it got
                self._check_cancel(count)
                raise
        return out  # type: ignore[return-value]

    def _answer(self, pending: Pending) -> None:
        """Answer every request of ``pending.todo`` with :meth:`Pending.answered`, counting them.

        Called with this thread's run token set; check it with
        :meth:`_check_cancel` before sending anything.
        """
        raise NotImplementedError

    def close(self) -> None:
        """Release the backend's resources (nothing by default)."""
