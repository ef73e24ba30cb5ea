"""Several servers of one model behind one backend: routing, health, the identity they share.

``--base-url`` may be given more than once (the dashboard: several URLs,
comma- or space-separated). :class:`Router` sends each request to the endpoint
with the fewest requests in flight among those in service and with room
under their limit (:class:`~invent_core.llm.concurrency.AdaptiveLimit` with
``--concurrency auto``). An endpoint that refuses connections, or answers
with server errors or timeouts :attr:`HealthConfig.max_failures` times in a
row, is taken out for a cool-down (doubling with each outage up to
:attr:`HealthConfig.max_cooldown`), after which one request at a time tries it
again; the failed request is re-sent to another endpoint at once. When every
endpoint is out, requests go to the one due back first, so the retry policy
— not a wait without end — decides when to give up.

The endpoints must serve the same model (the backend checks their model lists
before the first request), so the cache identity is the same whichever of them
answered: :func:`endpoints_identity` names the set, not the one that answered.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from ..errors import LLMError
from .cancel import raise_if_cancelled
from .concurrency import AdaptiveLimit, ConcurrencyConfig

__all__ = [
    "Endpoint",
    "HealthConfig",
    "Router",
    "Ticket",
    "agreed_model",
    "endpoints_identity",
    "split_base_urls",
    "url_problem",
]

#: Outcomes of one request, as :meth:`Router.release` takes them.
OK, THROTTLED, OVERLOAD, DOWN, FAILED, OTHER = (
    "ok",
    "throttled",
    "overload",
    "down",
    "failed",
    "other",
)


def split_base_urls(value: str | Iterable[str]) -> list[str]:
    """The URLs in ``value``: one string (comma- or newline-separated) or several.

    Trailing slashes and surrounding blanks go; a URL given twice counts once
    (first place kept). Blanks inside one do not separate: the packaged
    models' own address (``local://Qwen2.5 Coder 0.5B``) holds some.

    Examples
    --------
    >>> split_base_urls("http://a:1/v1, http://b:2/v1/, http://a:1/v1")
    ['http://a:1/v1', 'http://b:2/v1']
    """
    items = [value] if isinstance(value, str) else list(value)
    parts = (u.strip() for item in items for u in re.split(r"[,\n]+", item))
    urls = [u.rstrip("/") for u in parts if u]
    return list(dict.fromkeys(urls))


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot be an OpenAI-compatible server's address, or None.

    Checked before any request, so ``--base-url 'not a url'`` is one line at once
    rather than five failed connections per row.

    Examples
    --------
    >>> url_problem("http://127.0.0.1:8000/v1") is None
    True
    >>> url_problem("ftp://host/v1")
    "not an http(s) URL (scheme 'ftp')"
    >>> url_problem("not a url")
    'not an http(s) URL (no scheme)'
    """
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (raises on a port that is no number)
    except ValueError:  # its text may quote a password: not repeated
        return "not a URL (a port that is no number, or brackets that do not close)"
    if parts.scheme not in ("http", "https"):
        return f"not an http(s) URL ({f'scheme {parts.scheme!r}' if parts.scheme else 'no scheme'})"
    if not parts.hostname:
        return "not an http(s) URL (no host)"
    return None


def endpoints_identity(urls: Sequence[str], model: str) -> str:
    """The cache identity of ``model`` served at ``urls`` (credentials already removed).

    One URL: ``URL|model=M``, as before several were possible. Several: the
    sorted URLs joined by commas, so the order they were given in and the one
    that answered change nothing.

    Examples
    --------
    >>> endpoints_identity(["http://b/v1", "http://a/v1"], "m")
    'http://a/v1,http://b/v1|model=m'
    """
    return f"{','.join(sorted(urls))}|model={model}"


def agreed_model(served: dict[str, list[str]], model: str | None) -> str:
    """The one model every endpoint in ``served`` (URL → the models it lists) serves.

    ``model``: the one asked for (``--model``), or None (each endpoint must
    then serve exactly one). Raises ``LLMError`` naming two URLs and what each
    serves when they disagree.

    Examples
    --------
    >>> agreed_model({"http://a/v1": ["m"], "http://b/v1": ["m", "n"]}, "m")
    'm'
    """
    if model is None:
        for url, models in served.items():
            if len(models) != 1:
                raise LLMError(
                    f"{url} serves {len(models)} models ({', '.join(models[:10])}); "
                    "pass model=… (CLI: --model)"
                )
        model = next(iter(served.values()))[0]
    good = next((u for u, ms in served.items() if model in ms), None)
    bad = next((u for u, ms in served.items() if model not in ms), None)
    if bad is not None:
        theirs = ", ".join(repr(m) for m in served[bad][:10]) or "no model"
        here = f"{good} serves {model!r} but " if good else f"model {model!r} was asked for but "
        raise LLMError(
            f"{here}{bad} serves {theirs}: the endpoints of one backend must serve the "
            "same model (its answers share one cache identity)"
        )
    return model


@dataclass(frozen=True)
class HealthConfig:
    """When an endpoint is taken out of service, and for how long."""

    #: Server errors (5xx) or timeouts in a row that take an endpoint out; a
    #: refused or dropped connection takes it out at once.
    max_failures: int = 3
    #: Seconds out of service after the first outage, doubled after each next one.
    cooldown: float = 2.0
    max_cooldown: float = 60.0


@dataclass(eq=False)
class Endpoint:
    """One server: its URL (without credentials), credentials, limit and health."""

    url: str
    auth: tuple[str, str] | None = None
    limit: AdaptiveLimit | None = None  # None: only the backend's fixed budget bounds it
    verified: bool = False  # its model list was checked against the backend's model
    retired: str | None = None  # why it is out for good (it serves another model)
    in_flight: int = 0
    failures: int = 0  # in a row
    outages: int = 0  # in a row, without a success between
    down_until: float = 0.0  # monotonic clock; later than now: out of service
    client: object | None = field(default=None, repr=False)

    def room(self) -> bool:
        """Whether one more request fits under its limit."""
        return self.limit is None or self.in_flight < self.limit.limit


@dataclass(frozen=True)
class Ticket:
    """One request admitted to an endpoint."""

    endpoint: Endpoint
    epoch: int
    in_flight: int  # when it was sent, itself included
    sent: float


class Router:
    """Routes requests among ``endpoints`` (see the module docstring). Thread-safe."""

    def __init__(
        self,
        endpoints: Sequence[Endpoint],
        *,
        health: HealthConfig | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not endpoints:
            raise ValueError("at least one endpoint is needed")
        self.endpoints = list(endpoints)
        self.health = health or HealthConfig()
        self._clock = clock
        self._cond = threading.Condition()

    @classmethod
    def build(
        cls, urls: Sequence[tuple[str, tuple[str, str] | None]], *, adaptive: int | None
    ) -> Router:
        """A router over ``(url, auth)`` pairs; ``adaptive``: each endpoint's upper bound, or None."""
        config = ConcurrencyConfig()
        return cls(
            [
                Endpoint(url, auth, AdaptiveLimit(adaptive, config) if adaptive else None)
                for url, auth in urls
            ]
        )

    @property
    def several(self) -> bool:
        """Whether there is more than one endpoint."""
        return len(self.endpoints) > 1

    @property
    def live_limit(self) -> int | None:
        """The adaptive limits of the endpoints in service, summed (None when fixed)."""
        with self._cond:
            now = self._clock()
            limits = [e.limit.limit for e in self.endpoints if e.limit and self._usable(e, now)]
            return sum(limits) if any(e.limit for e in self.endpoints) else None

    # -- choosing -----------------------------------------------------------------------
    def _usable(self, e: Endpoint, now: float) -> bool:
        """In service: not retired, not cooling down, and not a second request while on trial."""
        if e.retired is not None:
            return False
        if e.down_until > now:
            return False
        return e.outages == 0 or e.in_flight == 0  # back from an outage: one request tries it

    def _pick(self, now: float) -> Endpoint | None:
        """The endpoint in service with room and the fewest in flight (None: wait)."""
        ready = [e for e in self.endpoints if self._usable(e, now) and e.room()]
        if ready:
            return min(ready, key=lambda e: e.in_flight)
        alive = [e for e in self.endpoints if e.retired is None]
        if not alive:
            raise RuntimeError("every endpoint serves another model")  # checked before: a bug
        if any(e.down_until <= now for e in alive):
            return None  # some are in service but full: wait for a slot
        soonest = min(alive, key=lambda e: e.down_until)  # all out: the retry policy decides
        return soonest if soonest.room() else None

    def acquire(self) -> Ticket:
        """Wait for room on an endpoint and admit one request there (Cancel ends the wait)."""
        with self._cond:
            while True:
                endpoint = self._pick(self._clock())
                if endpoint is not None:
                    break
                raise_if_cancelled()
                self._cond.wait(0.2)  # also wakes when an outage ends
            endpoint.in_flight += 1
            epoch = endpoint.limit.admitted(endpoint.in_flight) if endpoint.limit else 0
            return Ticket(endpoint, epoch, endpoint.in_flight, self._clock())

    # -- results ------------------------------------------------------------------------
    def release(self, ticket: Ticket, outcome: str) -> None:
        """Record how ``ticket``'s request ended (:func:`~invent_core.llm.retry.outcome`).

        ``THROTTLED`` (429) halves the limit; ``OVERLOAD`` (503, a timeout)
        halves it and counts as a failure, as ``FAILED`` (another 5xx) does;
        ``DOWN`` (no connection) takes the endpoint out at once; ``OTHER`` (the
        request's own fault, a malformed reply) changes nothing.
        """
        with self._cond:
            e = ticket.endpoint
            e.in_flight -= 1
            if outcome == OK:
                e.failures = e.outages = 0
                if e.limit:
                    e.limit.succeeded(self._clock() - ticket.sent)
            if outcome in (THROTTLED, OVERLOAD) and e.limit:
                e.limit.overloaded(ticket.epoch, ticket.in_flight)
            if outcome == DOWN:
                e.failures = self.health.max_failures
            elif outcome in (OVERLOAD, FAILED):
                e.failures += 1
            if e.failures >= self.health.max_failures and e.down_until <= self._clock():
                self._take_out(e)
            self._cond.notify_all()

    def _take_out(self, e: Endpoint) -> None:
        """Out of service for the cool-down (lock held)."""
        pause = min(self.health.max_cooldown, self.health.cooldown * 2**e.outages)
        e.outages += 1
        e.failures = 0
        e.down_until = self._clock() + pause

    def mark_down(self, endpoint: Endpoint) -> None:
        """Take ``endpoint`` out for a cool-down now (it failed its health check)."""
        with self._cond:
            self._take_out(endpoint)
            self._cond.notify_all()

    def retire(self, endpoint: Endpoint, why: str) -> None:
        """Take ``endpoint`` out for good (it came back serving another model)."""
        with self._cond:
            endpoint.retired = why
            self._cond.notify_all()

    def others_in_service(self, endpoint: Endpoint) -> bool:
        """Whether an endpoint other than ``endpoint`` is in service now."""
        with self._cond:
            now = self._clock()
            return any(e is not endpoint and self._usable(e, now) for e in self.endpoints)

    def out_of_service(self, endpoint: Endpoint) -> bool:
        """Whether ``endpoint`` is out now (cooling down or retired)."""
        with self._cond:
            return endpoint.retired is not None or endpoint.down_until > self._clock()
