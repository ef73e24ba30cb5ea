"""One run's LLM requests through one set of workers: priorities, slots, cancel.

A question's requests are independent once their text is known: the
perturber's rewording requests, the original's r answers (known at once) and
each perturbation's r answers (known as soon as it is accepted). The pool
keeps the backend busy with them, whoever submitted them:

- **jobs**: a job is one request, or a batch of requests sent with one
  ``complete_many`` call — a state's r replications, the perturber's n + 1
  rewordings — so that a backend that answers several choices per request
  (the packaged llama.cpp server, ``max_choices``) evaluates their shared
  prompt once and decodes them side by side;
- **slots**: the jobs in flight hold at most ``slots`` requests (the
  backend's ``concurrency``: the server's slots for the packaged model); a job
  larger than that holds them all;
- **priority**: a free slot goes to the most urgent job that fits
  (:data:`PERTURB` before :data:`ANSWER`: answers wait on perturbations, never
  the other way round), in submission order within a priority;
- **cancel**: once the :class:`~invent_core.progress.CancelToken` is
  cancelled, no further job is sent; jobs that have not started fail with
  :class:`~invent_core.errors.Cancelled`, and those in flight are cut (their
  connection is shut, :func:`invent_core.llm.cancel.sending_for`), so
  :meth:`RequestPool.close` returns within moments; answers finished before
  are cached.

:meth:`RequestPool.as_llm` is the view a perturber gets: an object with the
LLM Protocol whose requests go through the same pool at :data:`PERTURB`
priority and are counted.
"""

from __future__ import annotations

import bisect
import itertools
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import Cancelled
from .base import Completion, Request, StreamingLLM
from .cancel import raise_if_cancelled, sending_for

if TYPE_CHECKING:
    from ..progress import CancelToken

#: Job priorities (lower runs first).
PERTURB = 0
ANSWER = 1


@dataclass(order=True)
class _Job:
    priority: int
    seq: int
    fn: Callable[[], list[Completion]] = field(compare=False)
    weight: int = field(compare=False)  # requests it sends
    kind: str = field(compare=False)
    future: Future = field(compare=False, default_factory=Future)


class RequestPool:
    """Worker threads that send one run's requests, most urgent first, within the slots.

    Parameters
    ----------
    llm
        The backend (any object with the LLM Protocol).
    slots
        Requests in flight at once; default ``llm.concurrency`` (4 when it has none).
    cancel
        Checked before each job is sent.

    Attributes
    ----------
    counts : ``{kind: {"requests": int, "cached": int}}`` of the finished
        requests, kind ``"perturb"`` or ``"answer"``; a cache hit is a request too.
    """

    def __init__(
        self,
        llm: Any,
        *,
        slots: int | None = None,
        cancel: CancelToken | None = None,
    ) -> None:
        self.llm = llm
        self.slots = int(slots or getattr(llm, "concurrency", 4) or 4)
        if self.slots < 1:
            raise ValueError(f"slots must be >= 1, got {self.slots}")
        self.cancel = cancel
        self.counts: dict[str, dict[str, int]] = {}
        self._cond = threading.Condition()
        self._pending: list[_Job] = []  # sorted by (priority, seq)
        self._busy = 0  # requests of the jobs in flight
        self._seq = itertools.count()
        self._threads: list[threading.Thread] = []
        self._closed = False

    # -- submitting --------------------------------------------------------------
    def submit_many(
        self,
        requests: Sequence[Request],
        *,
        priority: int = ANSWER,
        kind: str = "answer",
        progress: Callable[[int, int], None] | None = None,
    ) -> list[Future]:
        """Queue ``requests``; one future per request, its :class:`Completion`.

        More than one request goes as one job (one ``complete_many`` call).
        ``progress(done, total)``: the grouped job's count as the backend reports it
        (a backend that streams choices counts each as it ends); see :meth:`groups`.
        """
        requests = list(requests)
        llm = self.llm
        if self.cancel is not None:  # a backend stops between the requests of a job too
            many = lambda rs: llm.complete_many(rs, progress, cancel=self.cancel)  # noqa: E731
        else:
            many = lambda rs: llm.complete_many(rs, progress)  # noqa: E731
        if not self.groups(requests):
            one = [
                self._queue(lambda r=r: llm.complete_many([r]), 1, priority, kind) for r in requests
            ]
            return [_item(f, 0) for f in one]
        whole = self._queue(lambda: many(requests), len(requests), priority, kind)
        return [_item(whole, i) for i in range(len(requests))]

    def groups(self, requests: Sequence[Request]) -> bool:
        """Whether :meth:`submit_many` sends ``requests`` as one job (which reports ``progress``)."""
        return len(requests) > 1

    def call(
        self, fn: Callable[[], Completion], *, priority: int = PERTURB, kind: str = "perturb"
    ) -> Future:
        """Queue ``fn()``, one LLM request that returns a :class:`Completion`."""
        return _item(self._queue(lambda: [fn()], 1, priority, kind), 0)

    def _queue(self, fn, weight: int, priority: int, kind: str) -> Future:
        # a job larger than the slots holds them all (the backend queues the rest)
        job = _Job(priority, next(self._seq), fn, min(weight, self.slots), kind)
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
        while len(self._threads) < self.slots:
            t = threading.Thread(target=self._work, name="invent-pool", daemon=True)
            self._threads.append(t)
            t.start()

    def _next_job(self) -> _Job | None:
        """Pop the most urgent waiting job that fits in the free slots (lock held)."""
        free = self.slots - self._busy
        for i, job in enumerate(self._pending):
            if job.weight <= free:
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
                self._busy += job.weight
            try:
                self._run(job)
            finally:
                with self._cond:
                    self._busy -= job.weight
                    self._cond.notify_all()

    def _run(self, job: _Job) -> None:
        if not job.future.set_running_or_notify_cancel():
            return
        try:
            with sending_for(self.cancel):  # Cancel cuts the job's request in flight
                raise_if_cancelled()  # no job is sent once the run was cancelled
                completions = job.fn()
        except BaseException as err:  # noqa: BLE001 - handed to the waiting thread
            job.future.set_exception(err)
            return
        with self._cond:
            c = self.counts.setdefault(job.kind, {"requests": 0, "cached": 0})
            c["requests"] += len(completions)
            c["cached"] += sum(bool(getattr(x, "cached", False)) for x in completions)
        job.future.set_result(completions)

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


def _item(whole: Future, index: int) -> Future:
    """Return a future for item ``index`` of ``whole``'s list result (its failure or cancel too)."""
    part: Future = Future()

    def done(f: Future) -> None:
        if f.cancelled():
            part.cancel()
            part.set_running_or_notify_cancel()
        elif f.exception() is not None:
            part.set_exception(f.exception())
        else:
            part.set_result(f.result()[index])

    whole.add_done_callback(done)
    return part


def gather(futures: Sequence[Future], progress: Callable[[int, int], None] | None = None) -> list:
    """Return the results of ``futures`` in order; the first failure is raised at once.

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

    Other attributes (``identity``, declared capabilities such as
    ``prefers_single_paraphrase``) are the backend's. ``close`` does nothing:
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
        """The pool's slots: requests in flight at once."""
        return self._pool.slots

    def __getattr__(self, name: str) -> Any:
        """Forward other attributes to the backend."""
        return getattr(self._inner, name)

    def complete(self, messages: Any, **kwargs: Any) -> Completion:
        """One completion through the pool."""
        inner = self._inner
        return self._pool.call(lambda: inner.complete(messages, **kwargs)).result()

    def complete_many(
        self, requests: Sequence[Request], progress: Any = None, **_: Any
    ) -> list[Completion]:
        """Every request through the pool, as one job (the backend may group replications).

        ``progress(done, total)`` moves as the backend finishes each request (or choice).
        """
        pool = self._pool
        if progress is None or not pool.groups(requests):
            return gather(pool.submit_many(requests, priority=PERTURB, kind="perturb"), progress)
        last = [-1]

        def moved(done: int, total: int) -> None:
            last[0] = done
            progress(done, total)

        out = gather(pool.submit_many(requests, priority=PERTURB, kind="perturb", progress=moved))
        if last[0] != len(out):  # a backend that does not count: the end is still told
            progress(len(out), len(out))
        return out

    def close(self) -> None:
        """Leave the backend open (its owner closes it)."""


class _PooledStreamingLLM(_PooledLLM):
    """:class:`_PooledLLM` for a backend that streams (``complete_until``)."""

    def complete_until(
        self, request: Request, stop_when: Callable[[str], bool], *, tag: str
    ) -> Completion:
        """One streamed completion through the pool."""
        inner = self._inner
        return self._pool.call(lambda: inner.complete_until(request, stop_when, tag=tag)).result()


def each_job(run: Callable[[list[int]], None], jobs: list[list[int]], workers: int) -> None:
    """``run(job)`` for every job, ``workers`` at a time; the first failure ends all."""
    if workers == 1:  # one job at a time (or a single one): no thread pool
        for job in jobs:
            run(job)
        return
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="invent-llm") as pool:
        pending = {pool.submit(run, job) for job in jobs}
        while pending:
            finished, pending = wait(pending, return_when=FIRST_EXCEPTION)
            for fut in finished:
                err = fut.exception()
                if err is not None:
                    for p in pending:
                        p.cancel()
                    raise err
