"""One run's LLM requests through one set of workers: priorities, prompt lanes, cancel.

A question's requests are independent once their text is known: the
perturber's rewording requests, the original's r answers (known at once) and
each perturbation's r answers (known as soon as it is accepted). The pool
keeps ``workers`` of them in flight (the backend's ``concurrency``: the
llama.cpp server's slots for the packaged model), whoever submitted them:

- **priority**: a free worker takes the most urgent waiting job first
  (:data:`PERTURB` before :data:`ANSWER`: answers wait on perturbations, never
  the other way round), in submission order within a priority;
- **prompt lanes**: at most ``lanes`` jobs with one prompt run at once (the
  backend's :func:`~invent_core.llm.base.lanes_per_prompt`; for the packaged
  model 1, so the r replications of a prompt reuse the slot that cached it);
- **cancel**: once the :class:`~invent_core.progress.CancelToken` is
  cancelled, no further request is sent; jobs that have not started fail with
  :class:`~invent_core.errors.Cancelled`, and those in flight finish (and are
  cached) before :meth:`RequestPool.close` returns.

:meth:`RequestPool.as_llm` is the view a perturber gets: an object with the
LLM Protocol whose requests go through the same pool at :data:`PERTURB`
priority and are counted.
"""

from __future__ import annotations

import bisect
import itertools
import threading
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, wait
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import Cancelled
from .base import Completion, Request, StreamingLLM, lanes_per_prompt

if TYPE_CHECKING:
    from ..progress import CancelToken

#: Job priorities (lower runs first).
PERTURB = 0
ANSWER = 1

_DEFAULT = object()


@dataclass(order=True)
class _Job:
    priority: int
    seq: int
    fn: Callable[[], Any] = field(compare=False)
    group: Hashable = field(compare=False)
    lanes: int | None = field(compare=False)
    kind: str = field(compare=False)
    future: Future = field(compare=False, default_factory=Future)


class RequestPool:
    """Worker threads that send one run's requests, most urgent first.

    Parameters
    ----------
    llm
        The backend (any object with the LLM Protocol).
    workers
        Requests in flight at once; default ``llm.concurrency`` (4 when it has none).
    cancel
        Checked before each request is sent.
    lanes
        Most answer requests with one prompt in flight at once; default the
        backend's :func:`~invent_core.llm.base.lanes_per_prompt` (None: no limit).

    Attributes
    ----------
    counts : ``{kind: {"requests": int, "cached": int}}`` of the finished jobs,
        kind ``"perturb"`` or ``"answer"``; a cache hit is a request too.
    """

    def __init__(
        self,
        llm: Any,
        *,
        workers: int | None = None,
        cancel: CancelToken | None = None,
        lanes: int | None | object = _DEFAULT,
    ) -> None:
        self.llm = llm
        self.workers = int(workers or getattr(llm, "concurrency", 4) or 4)
        if self.workers < 1:
            raise ValueError(f"workers must be >= 1, got {self.workers}")
        self.cancel = cancel
        self.lanes = lanes_per_prompt(llm) if lanes is _DEFAULT else lanes
        self.counts: dict[str, dict[str, int]] = {}
        self._cond = threading.Condition()
        self._pending: list[_Job] = []  # sorted by (priority, seq)
        self._running: Counter[Hashable] = Counter()
        self._seq = itertools.count()
        self._threads: list[threading.Thread] = []
        self._closed = False

    # -- submitting --------------------------------------------------------------
    def submit(
        self,
        request: Request,
        *,
        priority: int = ANSWER,
        kind: str = "answer",
        lanes: Any = _DEFAULT,
    ) -> Future:
        """Queue one request; the future's result is its :class:`Completion`.

        ``lanes`` caps the requests with this prompt in flight at once (default:
        the pool's ``lanes``; None: no cap).
        """
        llm = self.llm
        return self.call(
            lambda: llm.complete_many([request])[0],
            priority=priority,
            kind=kind,
            group=request.messages,
            lanes=self.lanes if lanes is _DEFAULT else lanes,
        )

    def call(
        self,
        fn: Callable[[], Completion],
        *,
        priority: int = PERTURB,
        kind: str = "perturb",
        group: Hashable = None,
        lanes: int | None = None,
    ) -> Future:
        """Queue ``fn()`` (one LLM request that returns a :class:`Completion`)."""
        job = _Job(priority, next(self._seq), fn, group, lanes, kind)
        with self._cond:
            if self._closed:
                raise RuntimeError("the request pool is closed")
            bisect.insort(self._pending, job)
            self._start_workers()
            self._cond.notify()
        return job.future

    def as_llm(self) -> Any:
        """Return the backend seen through this pool (what a perturber is given)."""
        cls = _PooledStreamingLLM if isinstance(self.llm, StreamingLLM) else _PooledLLM
        return cls(self)

    # -- workers -------------------------------------------------------------------
    def _start_workers(self) -> None:
        while len(self._threads) < self.workers:
            t = threading.Thread(target=self._work, name="invent-pool", daemon=True)
            self._threads.append(t)
            t.start()

    def _next_job(self) -> _Job | None:
        """Pop the most urgent waiting job whose prompt is under its lane cap (lock held)."""
        for i, job in enumerate(self._pending):
            if job.lanes is None or self._running[job.group] < job.lanes:
                return self._pending.pop(i)
        return None

    def _work(self) -> None:
        while True:
            with self._cond:
                job = self._next_job()
                while job is None:
                    if self._closed:
                        return
                    self._cond.wait()
                    job = self._next_job()
                self._running[job.group] += 1
            try:
                self._run(job)
            finally:
                with self._cond:
                    self._running[job.group] -= 1
                    self._cond.notify_all()

    def _run(self, job: _Job) -> None:
        if not job.future.set_running_or_notify_cancel():
            return
        try:
            if self.cancel is not None and self.cancel.cancelled:
                raise Cancelled("cancelled: no further LLM request was sent")
            completion = job.fn()
        except BaseException as err:  # noqa: BLE001 - handed to the waiting thread
            job.future.set_exception(err)
            return
        with self._cond:
            c = self.counts.setdefault(job.kind, {"requests": 0, "cached": 0})
            c["requests"] += 1
            c["cached"] += int(bool(getattr(completion, "cached", False)))
        job.future.set_result(completion)

    # -- closing -------------------------------------------------------------------
    def close(self) -> None:
        """Drop the waiting jobs (their futures are cancelled) and wait for those in flight."""
        with self._cond:
            self._closed = True
            dropped, self._pending = self._pending, []
            self._cond.notify_all()
        for job in dropped:
            job.future.cancel()
        for t in self._threads:
            t.join()

    def __enter__(self) -> RequestPool:
        """Use as ``with RequestPool(llm) as pool:``; closed on exit."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Close the pool (in-flight requests finish first)."""
        self.close()


def gather(futures: Sequence[Future], progress: Callable[[int, int], None] | None = None) -> list:
    """Results of ``futures`` in order; the first failure is raised at once.

    ``progress(done, total)`` is called in the waiting thread as they finish.
    """
    total, done = len(futures), 0
    pending = set(futures)
    while pending:
        finished, pending = wait(pending, return_when=FIRST_EXCEPTION)
        for fut in finished:
            if fut.cancelled():
                raise Cancelled("cancelled: no further LLM request was sent")
            err = fut.exception()
            if err is not None:
                raise err
            done += 1
            if progress is not None:
                progress(done, total)
    return [f.result() for f in futures]


class _PooledLLM:
    """The LLM Protocol over a :class:`RequestPool` (requests at :data:`PERTURB` priority).

    Other attributes (``identity``, ``concurrency``, declared capabilities such
    as ``prefers_single_paraphrase``) are the backend's. ``close`` does nothing:
    the backend belongs to whoever made the pool.
    """

    def __init__(self, pool: RequestPool) -> None:
        self._pool = pool
        self._inner = pool.llm

    @property
    def identity(self) -> str:
        """The backend's identity."""
        return self._inner.identity

    @property
    def concurrency(self) -> int:
        """The pool's workers: requests in flight at once."""
        return self._pool.workers

    def __getattr__(self, name: str) -> Any:
        """Forward other attributes to the backend."""
        return getattr(self._inner, name)

    def complete(self, messages: Any, **kwargs: Any) -> Completion:
        """One completion through the pool."""
        inner = self._inner
        group = Request(messages=messages).messages
        return self._pool.call(lambda: inner.complete(messages, **kwargs), group=group).result()

    def complete_many(
        self, requests: Sequence[Request], progress: Any = None, **_: Any
    ) -> list[Completion]:
        """Every request through the pool (no lane cap: these are on the critical path)."""
        futures = [
            self._pool.submit(r, priority=PERTURB, kind="perturb", lanes=None) for r in requests
        ]
        return gather(futures, progress)

    def close(self) -> None:
        """Leave the backend open (its owner closes it)."""


class _PooledStreamingLLM(_PooledLLM):
    """:class:`_PooledLLM` for a backend that streams (``complete_until``)."""

    def complete_until(
        self, request: Request, stop_when: Callable[[str], bool], *, tag: str
    ) -> Completion:
        """One streamed completion through the pool."""
        inner = self._inner
        fn = lambda: inner.complete_until(request, stop_when, tag=tag)  # noqa: E731
        return self._pool.call(fn, group=request.messages).result()
