"""Several questions in flight at once, their results taken in input order.

``batch``, ``evaluate`` and ``tsu`` generate one run per unit of work (a row,
a question, a (question, temperature) pair). One run keeps only a few
requests busy on average: one list request while it is paraphrased, then its
(n + 1) answer groups. Against a served model with ``--concurrency 64`` that
leaves most of the backend idle, so the callers keep several units in flight
(:func:`units_in_flight`) and consume them in input order (:func:`in_order`):
checkpoints, output rows and progress stay in input order, and a resume reads
the same files as before.

The backend's own budget (``OpenAICompatLLM._in_flight``) bounds the requests
in flight whatever the number of units, so more units never means more load
than ``concurrency`` allows.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: Units generated at once per ``llm.concurrency`` / this: a unit keeps about this
#: many requests busy on average, so concurrency 64 keeps 32 units in flight.
REQUESTS_PER_UNIT = 2
#: Upper bound on units in flight (memory: each holds its run until it is consumed).
MAX_UNITS_IN_FLIGHT = 32


def units_in_flight(llm: Any) -> int:
    """How many units (rows, questions) to generate at once so the backend stays busy.

    A backend may declare its own figure (``llm.units_in_flight``; the packaged
    local model declares 1: see :class:`~invent_core.llm.local.LocalLLM`);
    otherwise ``ceil(concurrency / REQUESTS_PER_UNIT)``, at most
    :data:`MAX_UNITS_IN_FLIGHT`, at least 1.
    """
    declared = getattr(llm, "units_in_flight", None)
    if isinstance(declared, int) and declared >= 1:
        return min(MAX_UNITS_IN_FLIGHT, declared)
    concurrency = int(getattr(llm, "concurrency", 1) or 1)
    return max(1, min(MAX_UNITS_IN_FLIGHT, -(-concurrency // REQUESTS_PER_UNIT)))


def in_order(
    fn: Callable[[T], R], items: Iterable[T], width: int, *, name: str = "invent-unit"
) -> Iterator[Future]:
    """Yield one finished future per item, in input order, with ``width`` items running.

    ``fn(item)`` runs in a worker thread; the consumer calls ``.result()`` on
    each future (its exception, if any, is raised there). With ``width == 1``
    the items run one after another in the calling thread's order (still
    through one worker, so the behaviour is the same). Closing the generator
    early (the consumer raised, or broke out) cancels the items not started;
    those running finish in the background — a cancel token given to ``fn``
    is what stops them quickly.
    """
    if width < 1:
        raise ValueError(f"width must be >= 1, got {width}")
    pool = ThreadPoolExecutor(max_workers=width, thread_name_prefix=name)
    pending: deque[Future] = deque()
    source = iter(items)
    try:
        for item in source:
            pending.append(pool.submit(fn, item))
            if len(pending) >= width:
                head = pending.popleft()
                head.exception()  # wait for it (its error goes to the consumer)
                yield head
        while pending:
            head = pending.popleft()
            head.exception()
            yield head
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
