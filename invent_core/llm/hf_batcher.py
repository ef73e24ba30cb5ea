"""One transformers engine, many threads: requests from every thread decode as one batch.

A caller hands the :class:`Batcher` a :class:`Ticket`, its chunk of groups
(a group: the requests that share one prompt, e.g. its r replications).
Whoever finds the engine free takes every waiting ticket that fits in one
batch (``capacity()`` sequences; the first ticket always goes) and decodes
them together with ``run(groups) -> completions per group``; the others wait
and read their results. A ticket whose run was cancelled before its batch
started is never decoded.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..errors import Cancelled
from .base import Completion, Request

if TYPE_CHECKING:
    from ..progress import CancelToken

__all__ = ["Batcher", "Ticket"]


class Ticket:
    """One caller's chunk of groups waiting for the engine."""

    def __init__(self, groups: list[list[Request]], cancel: CancelToken | None) -> None:
        self.groups, self.cancel = groups, cancel
        self.result: list[list[Completion]] | None = None
        self.error: BaseException | None = None

    @property
    def size(self) -> int:
        """Sequences the ticket decodes (its groups' requests)."""
        return sum(len(g) for g in self.groups)


class Batcher:
    """One engine, many threads: whoever finds it free decodes every waiting ticket that fits."""

    def __init__(
        self,
        run: Callable[[list[list[Request]]], list[list[Completion]]],
        capacity: Callable[[], int],
    ) -> None:
        self._run, self._capacity = run, capacity
        self._cond = threading.Condition()
        self._queue: list[Ticket] = []
        self._busy = False

    def submit(self, ticket: Ticket) -> list[list[Completion]]:
        """Wait until ``ticket`` is decoded (maybe by this thread, with others' tickets)."""
        with self._cond:
            self._queue.append(ticket)
            while ticket.result is None and ticket.error is None:
                if self._busy:
                    self._cond.wait()
                    continue
                self._busy, batch = True, self._take()
                self._cond.release()
                try:
                    self._decode(batch)
                finally:
                    self._cond.acquire()
                    self._busy = False
                    self._cond.notify_all()
        if ticket.error is not None:
            raise ticket.error
        return ticket.result  # type: ignore[return-value]

    def _take(self) -> list[Ticket]:
        """Pop the waiting tickets that fit in one batch (the first always does). Lock held."""
        room, out = self._capacity(), []
        while self._queue and (not out or self._queue[0].size <= room):
            t = self._queue.pop(0)
            room -= t.size
            out.append(t)
        return out

    def _decode(self, batch: list[Ticket]) -> None:
        live = []
        for t in batch:
            if t.cancel is not None and t.cancel.cancelled:
                t.error = Cancelled("cancelled: no further LLM request was sent")
            else:
                live.append(t)
        if not live:
            return
        try:
            flat = self._run([g for t in live for g in t.groups])
        except BaseException as err:  # noqa: BLE001 - handed to every waiting caller
            for t in live:
                t.error = err
            return
        for t in live:
            t.result, flat = flat[: len(t.groups)], flat[len(t.groups) :]
