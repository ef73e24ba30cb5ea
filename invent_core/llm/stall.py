"""The stall timeout: a request fails when no token has come for a while, not when it is long.

On a busy machine a reply may take minutes and still be healthy: tokens keep
coming, only slowly. A total deadline cannot tell that from a dead server
(on two cores at load 8–13, three of twelve default questions hit a 120 s
total and wrote nothing). So a backend in *stall mode* streams every reply
and gives each read of the socket :func:`stall_seconds` to bring the next
bytes; the wait restarts with every chunk. A server that is gone (the port
closed, the process killed) refuses or drops the connection, which fails at
once, never after the stall interval.

The default interval grows with the model (a bigger model's token and
prompt evaluation take longer) and with the machine's load (a core shared
by k runnable processes gives each about 1/k of its time), both read when
a request is sent.
"""

from __future__ import annotations

import math
import os
from typing import Any

__all__ = [
    "STALL_BASE_BYTES",
    "StallTimed",
    "STALL_BASE_SECONDS",
    "STALL_MAX_SECONDS",
    "default_stall_timeout",
    "load_per_core",
    "stall_message",
]

#: The interval for the packaged 0.5B model on a quiet machine. A token there takes
#: 0.04 s and a long prompt's evaluation a few seconds: 30 s without a byte is no
#: slowness but a stall.
STALL_BASE_SECONDS = 30.0
#: The weights the base interval is for (the packaged 0.5B GGUF: 491 MB); a model
#: k times larger gets k times the interval.
STALL_BASE_BYTES = 500_000_000
#: The longest default interval: even an 8B model at load 20 brings a token sooner.
STALL_MAX_SECONDS = 900.0


def load_per_core() -> float:
    """The 1-minute load average per CPU core (0 where the system cannot say)."""
    try:
        load = os.getloadavg()[0]
    except (OSError, AttributeError):  # not every system keeps one
        return 0.0
    return load / max(1, os.cpu_count() or 1)


def default_stall_timeout(model_bytes: int | None = None, load: float | None = None) -> float:
    """Seconds without a byte after which a request to a model of ``model_bytes`` has stalled.

    ``STALL_BASE_SECONDS`` × the model's size in units of ``STALL_BASE_BYTES``
    (at least 1) × the load per core (at least 1; ``load=None``: read now),
    at most ``STALL_MAX_SECONDS``.

    Examples
    --------
    >>> default_stall_timeout(491_400_064, load=0.5)
    30.0
    >>> default_stall_timeout(491_400_064, load=6.5)  # load 13 on two cores
    195.0
    >>> default_stall_timeout(1_117_320_768, load=1.0)
    67.03924608
    """
    size = max(1.0, (model_bytes or 0) / STALL_BASE_BYTES)
    busy = max(1.0, load_per_core() if load is None else load)
    return min(STALL_MAX_SECONDS, STALL_BASE_SECONDS * size * busy)


def stall_message(where: str, seconds: float, attempts: int) -> str:
    """The error of a request that stalled, naming the interval and the option that sets it."""
    return (
        f"{where} sent no token for {seconds:g} s ({attempts} attempt(s)): the reply stalled "
        "(the stall timeout; the server is alive but stopped producing tokens). On a machine "
        "this busy, allow longer: --stall-timeout SECONDS (get_llm(…, stall_timeout=…))"
    )


class StallTimed:
    """What a backend in stall mode knows: its interval, and whether a timeout was a stall.

    The backend sets ``stall_timeout`` (seconds, or None: the default),
    ``stall_mode`` and ``timeout`` (its total deadline, ``inf`` for none).
    """

    #: Whether requests are in stall mode when no ``stall_timeout`` is given.
    stalls_by_default: bool = False
    #: The weights' size in bytes, which the default interval grows with (None: unknown).
    model_bytes: int | None = None
    stall_timeout: float | None = None
    stall_mode: bool = False
    last_stall_seconds: float | None = None
    timeout: float = math.inf

    def _set_timing(self, stall_timeout: float | None, timeout: float | None) -> None:
        """Check and keep the stall interval and the total deadline.

        The deadline's default: none in stall mode, else 60 s.
        """
        if stall_timeout is not None and not stall_timeout > 0:
            raise ValueError(f"stall_timeout must be > 0 seconds, got {stall_timeout}")
        self.stall_timeout = None if stall_timeout is None else float(stall_timeout)
        self.stall_mode = self.stall_timeout is not None or self.stalls_by_default
        self.last_stall_seconds = None  # the interval the latest request had
        if timeout is None:
            timeout = math.inf if self.stall_mode else 60.0
        if not timeout > 0:
            raise ValueError(f"timeout must be > 0 seconds, got {timeout}")
        self.timeout = float(timeout)

    def stall_seconds(self) -> float:
        """The interval a request sent now gets (the one given, else the default now).

        The default: :func:`default_stall_timeout` of the model's size and the load now.
        """
        seconds = self.stall_timeout or default_stall_timeout(self.model_bytes)
        self.last_stall_seconds = seconds
        return seconds

    def _stalled(self, err: BaseException | None) -> bool:
        """Whether a timed-out attempt stalled (no byte for the interval), not missed a deadline."""
        return self.stall_mode and not _deadline_missed(err)

    @property
    def runtime(self) -> dict[str, Any]:
        """How requests are timed, for a run's record: the stall interval (given or "auto")."""
        return {
            "stall_timeout": self.stall_timeout if self.stall_timeout else "auto",
            "stall_seconds_last": self.last_stall_seconds,
            "total_timeout": None if math.isinf(self.timeout) else self.timeout,
        }


def _deadline_missed(err: BaseException | None) -> bool:
    """Whether ``err`` (or what caused it: the client wraps it) is the total deadline's."""
    for _ in range(10):
        if err is None:
            return False
        if "no complete reply within" in str(err):
            return True
        err = err.__cause__ or err.__context__
    return False
