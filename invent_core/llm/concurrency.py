"""How many requests a served backend keeps in flight: a fixed number, or ``auto`` that adapts.

``--concurrency 16`` keeps 16 requests in flight, whatever the server says.
``--concurrency auto`` (the default for ``--llm openai``; ``auto:N`` sets the
upper bound, default :attr:`ConcurrencyConfig.max`) starts at
:attr:`ConcurrencyConfig.start` and follows the server, one
:class:`AdaptiveLimit` per endpoint:

- **grow** after each window (as many answers as the limit) in which the
  limit was reached and the median latency stayed within
  :attr:`ConcurrencyConfig.latency_tolerance` of the lowest window median seen: doubling
  until the first overload (slow start), then doubling back up to just below
  the in-flight count that overloaded the server, then one more every
  :attr:`ConcurrencyConfig.probe_every` windows (the server may have grown);
- **halve** on an overload — HTTP 429, 503 or a timeout — once per window:
  the answers to requests sent before the cut say nothing new.

This is TCP's congestion control (slow start, multiplicative decrease) with
CUBIC's habit of returning quickly to the last good level and probing above
it only now and then, so a server that throttles above a fixed in-flight count
is held just below it instead of see-sawing between half and full.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

__all__ = [
    "MAX_CONCURRENCY",
    "AdaptiveLimit",
    "Concurrency",
    "ConcurrencyConfig",
    "parse_concurrency",
]

#: The most requests in flight one backend may have: a thread each (``10**9`` never returned).
MAX_CONCURRENCY = 256


@dataclass(frozen=True)
class ConcurrencyConfig:
    """The adaptive limit's settings (``--concurrency auto``)."""

    #: Requests in flight before the server has said anything: the fixed default
    #: served backends had before ``auto``, safe for a single small server.
    start: int = 4
    #: Default upper bound of ``auto``: where ``benchmarks/bench_scaleout.py``
    #: measured 81 % of the ideal request rate against one endpoint.
    max: int = 64
    #: A window whose median latency exceeds this multiple of the lowest window
    #: median seen does not grow the limit: the server queues rather than serves.
    latency_tolerance: float = 2.0
    #: Windows held just below the last overload before one more request is tried.
    probe_every: int = 8


@dataclass(frozen=True)
class Concurrency:
    """A ``--concurrency`` value: ``limit`` requests in flight, or at most ``limit`` adapting."""

    limit: int
    adaptive: bool = False

    def __str__(self) -> str:
        """``"16"`` or ``"auto:64"``: the value as the option takes it."""
        return f"auto:{self.limit}" if self.adaptive else str(self.limit)


def parse_concurrency(
    value: int | str | Concurrency | None, *, config: ConcurrencyConfig | None = None
) -> Concurrency:
    """Read a concurrency: an integer, ``"auto"``, ``"auto:N"``; None is ``auto``.

    Raises ``ValueError`` naming the value for anything else, a number below 1
    or an ``auto:N`` above :data:`MAX_CONCURRENCY`.

    Examples
    --------
    >>> str(parse_concurrency("auto")), str(parse_concurrency("auto:16")), str(parse_concurrency(8))
    ('auto:64', 'auto:16', '8')
    """
    if isinstance(value, Concurrency):
        return value
    config = config or ConcurrencyConfig()
    if value is None:
        return Concurrency(config.max, adaptive=True)
    text = str(value).strip().lower()
    adaptive = text == "auto" or text.startswith("auto:")
    number = text[len("auto:") :] if text.startswith("auto:") else text
    if text == "auto":
        number = str(config.max)
    try:
        limit = int(number)
    except ValueError:
        raise ValueError(
            f"concurrency must be an integer, 'auto' or 'auto:N' (N the most in flight), "
            f"got {value!r}"
        ) from None
    if limit < 1:
        raise ValueError(f"concurrency must be >= 1, got {limit}")
    if adaptive and limit > MAX_CONCURRENCY:  # a thread each
        raise ValueError(f"concurrency auto:N must be <= {MAX_CONCURRENCY}, got {limit}")
    return Concurrency(limit, adaptive=adaptive)


@dataclass
class AdaptiveLimit:
    """The requests in flight one endpoint is allowed now (see the module docstring).

    Not thread-safe: its owner (:class:`~invent_core.llm.endpoints.Router`)
    calls it under its own lock. ``admitted(in_flight)`` when a request is
    sent returns the request's epoch; ``succeeded(latency)`` and
    ``overloaded(epoch, in_flight)`` when it ends.
    """

    bound: int
    config: ConcurrencyConfig = field(default_factory=ConcurrencyConfig)
    limit: int = 0
    #: the fewest requests in flight at which the server said "too many" (None: never)
    ceiling: int | None = None
    epoch: int = 0
    _fastest: float = float("inf")
    _latencies: list[float] = field(default_factory=list)
    _peak: int = 0
    _calm: int = 0

    def __post_init__(self) -> None:
        self.limit = self.limit or min(self.bound, self.config.start)

    def admitted(self, in_flight: int) -> int:
        """A request was sent with ``in_flight`` in flight (itself included); its epoch."""
        self._peak = max(self._peak, in_flight)
        return self.epoch

    def succeeded(self, latency: float) -> None:
        """A request was answered after ``latency`` seconds; grows the limit at a window's end.

        A window is slow against the fastest window's median, not the fastest
        single answer: on a busy client one early, lucky reply would stop all growth.
        """
        self._latencies.append(latency)
        if len(self._latencies) < self.limit:
            return
        saturated = self._peak >= self.limit
        median = statistics.median(self._latencies)
        slow = median > self.config.latency_tolerance * self._fastest
        self._fastest = min(self._fastest, median)
        if slow and self.ceiling is None:
            self.ceiling = self.limit + 1  # latency rose first: slow start ends here
        if saturated and not slow:
            self.limit = self._grown()
        self._new_window()

    def _grown(self) -> int:
        """The limit after a window that filled it while the latency held."""
        if self.ceiling is None:
            return min(self.bound, 2 * self.limit)
        if self.limit < self.ceiling - 1:
            return min(self.bound, self.ceiling - 1, 2 * self.limit)
        self._calm += 1
        if self._calm < self.config.probe_every:
            return self.limit
        self._calm = 0
        self.ceiling = max(self.ceiling, self.limit + 2)  # the probe's own level, if it holds
        return min(self.bound, self.limit + 1)

    def overloaded(self, epoch: int, in_flight: int) -> None:
        """The server answered 429 or 503, or timed out, with ``in_flight`` sent (itself included).

        Halves the limit once per epoch: requests sent before the last cut
        overloaded the server at the old limit, not the new one.
        """
        self.ceiling = in_flight if self.ceiling is None else min(self.ceiling, in_flight)
        self.ceiling = max(self.ceiling, 2)
        if epoch != self.epoch:
            return
        self.limit = max(1, self.limit // 2)
        self.epoch += 1
        self._calm = 0
        self._new_window()

    def _new_window(self) -> None:
        self._latencies = []
        self._peak = 0
