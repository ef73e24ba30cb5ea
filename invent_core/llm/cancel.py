"""How Cancel reaches an LLM backend: the run's token, held per thread.

One path for every backend. A thread that sends requests on behalf of a
cancellable run says so with :func:`sending_for` (``complete_many(cancel=…)``
does it for its caller, the request pool for its workers, the dashboard for
its jobs); a backend reads that token with :func:`current_cancel` and checks
it with :func:`raise_if_cancelled` before each request it sends. While an
HTTP request waits for its reply, the same token shuts its socket
(:mod:`.http_transport`), so the waiting thread is freed at once.

The token is a :class:`~invent_core.progress.CancelToken` (anything
with ``cancelled``, ``raise_if_cancelled``, ``wait`` and ``on_cancel``).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["current_cancel", "raise_if_cancelled", "sending_for"]

_sending = threading.local()  # .token: the CancelToken of the run this thread sends for


@contextlib.contextmanager
def sending_for(token: Any) -> Iterator[None]:
    """Within the block, this thread's requests belong to the run cancelled by ``token``.

    ``token`` is a :class:`~invent_core.progress.CancelToken` or None (the
    block then changes nothing). Blocks nest; the outer token comes back after.
    """
    before = getattr(_sending, "token", None)
    _sending.token = token if token is not None else before
    try:
        yield
    finally:
        _sending.token = before


def current_cancel() -> Any:
    """The token of the run this thread sends for (:func:`sending_for`), or None."""
    return getattr(_sending, "token", None)


def raise_if_cancelled(done: int | None = None, total: int | None = None) -> None:
    """Raise :class:`~invent_core.errors.Cancelled` when this thread's run was cancelled.

    ``done`` and ``total`` (answers finished, in all) go into the message, as
    :meth:`~invent_core.progress.CancelToken.raise_if_cancelled` says them.
    """
    token = current_cancel()
    if token is not None:
        token.raise_if_cancelled(done, total)
