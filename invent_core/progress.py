"""Progress of a long action, read the same way by the CLI and the dashboard.

A producer (the pipeline, an evaluation, a TSU sweep, a batch) emits events
with three fields, ``stage`` (``"perturb"``, ``"generate"``, ``"questions"`` …),
``done`` and ``total``. :class:`ProgressTracker` consumes them, whatever their
class (duck-typed, so ``pipeline.Progress`` plugs in as it is), and answers
what a person wants to see: done/total per stage, elapsed time, time left,
and one line for a terminal. :class:`CancelToken` is the other direction: the
person asks to stop, and the producer checks between requests.

Time left is rate-based and honest: ``None`` until a rate has been measured
within the stage (at least one item finished after the stage's first event),
so a run never shows "0 s left" before anything happened; and it never grows
while the counter is stalled (the rate is measured up to the last move).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from .errors import Cancelled

__all__ = [
    "ProgressEvent",
    "Progress",
    "ProgressCallback",
    "ProgressReporter",
    "StageProgress",
    "ProgressTracker",
    "CancelToken",
    "format_seconds",
    "format_range",
    "ordinal",
]

#: Least seconds between two CLI progress lines within a stage (a user asked for
#: "updated at least every 2 s"; more often floods a log file).
RENDER_INTERVAL = 2.0
#: Seconds between progress lines written to a log (stderr not a terminal): a line
#: every 2 s made 40 lines of a 46 s run.
LOG_INTERVAL = 15.0


class ProgressEvent(Protocol):
    """Anything with ``stage``, ``done`` and ``total`` (e.g. ``pipeline.Progress``)."""

    stage: str
    done: int
    total: int


@dataclass(frozen=True)
class Progress:
    """The one progress event: what every ``progress`` callback receives.

    Attributes
    ----------
    stage : what is being counted: "perturb", "generate", "score" (one question),
        "questions" / "runs" (an experiment), "rows" (a batch) …
    done, total : units finished so far, and in all (``done == total`` at the end).
    eta_seconds : estimated seconds left in this stage (0 when done, None when unknown).
    note : a short free text, e.g. the question being worked on.
    """

    stage: str
    done: int
    total: int
    eta_seconds: float | None = None
    note: str = ""


ProgressCallback = Callable[[Progress], None]

#: A count within one stage, ``(done, total)``: what a backend or GAAP reports and
#: :meth:`ProgressReporter.counter` turns into :class:`Progress` events.
CountCallback = Callable[[int, int], None]


@dataclass(frozen=True)
class StageProgress:
    """What is known of one stage.

    Attributes
    ----------
    stage : its name, as the producer sent it.
    done, total : the last counts received; ``total`` 0 = unknown.
    elapsed : seconds since the stage's first event.
    time_left : seconds, from the rate within the stage; ``None`` until an item
        finished after the first event, or when ``total`` is unknown.
    """

    stage: str
    done: int
    total: int
    elapsed: float
    time_left: float | None

    @property
    def finished(self) -> bool:
        """Whether ``done`` reached a known ``total``."""
        return self.total > 0 and self.done >= self.total

    @property
    def fraction(self) -> float | None:
        """``done / total`` in [0, 1], ``None`` when the total is unknown."""
        return min(1.0, self.done / self.total) if self.total > 0 else None


@dataclass
class _Stage:
    first_t: float  # time of the stage's first event
    first_done: int  # its ``done`` then: items already finished (cache hits) are no rate
    done: int
    total: int
    last_t: float = 0.0  # time ``done`` last went up (the rate is measured up to it)

    def count(self, done: int, total: int, now: float) -> None:
        """Take the latest counts; remember when the count moved."""
        if done > self.done:
            self.last_t = now
        self.done, self.total = done, total


def format_seconds(seconds: float) -> str:
    """``"8 s"``, ``"2 min 05 s"``, ``"1 h 03 min"`` (rounded to whole seconds)."""
    s = max(0, int(round(seconds)))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {(s % 3600) // 60:02d} min"


def format_range(low: float, high: float) -> str:
    """``"14–61 s"``, ``"40 s – 2 min 10 s"``: a time range, as :func:`format_seconds` says each."""
    if high < 59.5:
        return f"{max(0, round(low))}–{round(high)} s"
    return f"{format_seconds(low)} – {format_seconds(high)}"


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``–``13th``, ``21st``, ``43rd``, ``112th``.

    >>> [ordinal(k) for k in (1, 2, 3, 4, 11, 12, 13, 21, 22, 43, 100, 101, 111)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '43rd', '100th', '101st', '111th']
    """
    n = int(n)
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


class ProgressTracker:
    """Per-stage counts, elapsed time and time left from a stream of events.

    Call it (or :meth:`update`) with each event; it is thread-safe, so a
    worker thread may feed it while the page reads :meth:`snapshot`.

    Parameters
    ----------
    clock : seconds, monotonic (``time.monotonic``; tests pass a fake).
    render_interval : least seconds between two lines of :meth:`poll_line`
        within a stage.

    Examples
    --------
    >>> t = ProgressTracker()
    >>> t(Progress("generate", 0, 50))
    >>> t.current.done, t.current.total, t.current.time_left
    (0, 50, None)
    """

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        render_interval: float = RENDER_INTERVAL,
    ) -> None:
        self._clock = clock
        self._interval = render_interval
        self._lock = threading.Lock()
        self._start = clock()
        self._stages: dict[str, _Stage] = {}
        self._current: str | None = None
        self._rendered_at: float | None = None
        self._rendered_stage: str | None = None
        self._rendered_done: int | None = None

    def update(self, event: ProgressEvent) -> None:
        """Record one event (any object with ``stage``, ``done``, ``total``)."""
        stage, done, total = str(event.stage), int(event.done), int(event.total or 0)
        now = self._clock()
        with self._lock:
            st = self._stages.get(stage)
            if st is None or done < st.done:
                # a new stage, or the same one counting again (next question): restart its clock
                self._stages[stage] = _Stage(now, done, done, total, now)
            else:
                st.count(done, total, now)
            self._current = stage

    __call__ = update

    def _view(self, name: str, now: float) -> StageProgress:
        st = self._stages[name]
        return StageProgress(
            stage=name,
            done=st.done,
            total=st.total,
            elapsed=now - st.first_t,
            time_left=_time_left(st, now),
        )

    @property
    def elapsed(self) -> float:
        """Seconds since the tracker was made."""
        return self._clock() - self._start

    @property
    def current(self) -> StageProgress | None:
        """The stage of the latest event, ``None`` before any."""
        with self._lock:
            return None if self._current is None else self._view(self._current, self._clock())

    def snapshot(self) -> list[StageProgress]:
        """Every stage seen so far, in order of first appearance."""
        now = self._clock()
        with self._lock:
            return [self._view(name, now) for name in self._stages]

    def render_line(self) -> str:
        """One line: ``"generate 23/50 · 12 s elapsed · ≈ 14 s left"``."""
        cur = self.current
        if cur is None:
            return f"starting · {format_seconds(self.elapsed)} elapsed"
        counts = f"{cur.done}/{cur.total}" if cur.total > 0 else f"{cur.done}"
        parts = [f"{cur.stage} {counts}", f"{format_seconds(self.elapsed)} elapsed"]
        if cur.finished:
            parts.append("done")
        elif cur.time_left is not None:
            parts.append(f"≈ {format_seconds(cur.time_left)} left")
        return " · ".join(parts)

    def poll_line(self) -> str | None:
        """:meth:`render_line` when one is due, else ``None``.

        Due on a new stage, when a stage finishes, or when ``render_interval``
        seconds have passed since the last line and the counts moved or time
        passed (the elapsed time always moves). The CLI calls this on each
        event and prints what it returns.
        """
        now = self._clock()
        with self._lock:
            stage = self._current
            st = self._stages.get(stage) if stage is not None else None
            new_stage = stage != self._rendered_stage
            finished = (
                st is not None
                and st.total > 0
                and st.done >= st.total
                and self._rendered_done != st.done
            )
            waited = self._rendered_at is None or now - self._rendered_at >= self._interval
            if not (new_stage or finished or waited):
                return None
            self._rendered_at, self._rendered_stage = now, stage
            self._rendered_done = st.done if st is not None else None
        return self.render_line()


def _time_left(st: _Stage, now: float) -> float | None:
    """Seconds left: (total − done) × seconds per item, less the time since the count last moved.

    The rate is measured from the stage's first event up to the last time its
    count went up, never up to *now*: a stage that blocks (the paraphrase
    requests, a slow answer) does not make time left grow by extrapolating
    from a stalled counter ("≈ 7 min 47 s left" on a 70 s run). While
    it stalls, time left counts down; once the stall outlasts it, it is
    ``None`` (unknown: the page shows the elapsed time and the estimate's range).
    """
    if st.total <= 0:
        return None
    if st.done >= st.total:
        return 0.0
    gained, spent = st.done - st.first_done, st.last_t - st.first_t
    if gained <= 0 or spent <= 0:
        return None
    left = (st.total - st.done) * spent / gained - (now - st.last_t)
    return left if left > 0 else None


class CancelToken:
    """A thread-safe "stop" flag: the page sets it, the producer checks it.

    Producers call :meth:`raise_if_cancelled` before issuing each new request
    (or batch of requests); the :class:`~invent_core.errors.Cancelled` it
    raises carries a message that says what was kept.

    Examples
    --------
    >>> token = CancelToken()
    >>> token.cancelled
    False
    >>> token.cancel(); token.cancelled
    True
    """

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._callbacks: dict[int, Callable[[], None]] = {}
        self._ids = iter(range(1 << 62))

    def cancel(self) -> None:
        """Ask the producer to stop (idempotent, callable from any thread).

        The callbacks registered with :meth:`on_cancel` run now, in the calling
        thread (e.g. to close a request's connection so the server stops too).
        """
        with self._lock:
            self._event.set()
            callbacks, self._callbacks = list(self._callbacks.values()), {}
        for fn in callbacks:
            try:
                fn()
            except Exception:  # noqa: BLE001, S110 - a failed abort must not stop the others
                pass

    def on_cancel(self, fn: Callable[[], None]) -> Callable[[], None]:
        """Call ``fn()`` once when cancelled (at once if it already is); return an unregister.

        Used to stop work that cannot poll the flag, such as an HTTP request
        waiting for its reply: ``fn`` shuts its socket. Call the returned
        function when that work ended, so a later Cancel leaves it alone.
        """
        with self._lock:
            if not self._event.is_set():
                key = next(self._ids)
                self._callbacks[key] = fn
                return lambda: self._callbacks.pop(key, None)
        fn()
        return lambda: None

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called."""
        return self._event.is_set()

    def wait(self, timeout: float) -> bool:
        """Sleep up to ``timeout`` seconds, less when cancelled meanwhile; return :attr:`cancelled`."""
        return self._event.wait(timeout)

    def raise_if_cancelled(self, done: int | None = None, total: int | None = None) -> None:
        """Raise :class:`~invent_core.errors.Cancelled` if :meth:`cancel` was called.

        Parameters
        ----------
        done, total : what was finished, to say so in the message
            (``"cancelled after 23 of 50; the 23 finished are kept"``).
        """
        if not self._event.is_set():
            return
        if done is None:
            raise Cancelled("cancelled; the work finished before is kept")
        of = f" of {total}" if total else ""
        raise Cancelled(f"cancelled after {done}{of}; the {done} finished are kept")


class ProgressReporter:
    """Turns stage counts into :class:`Progress` events, with the tracker's time left.

    Library steps that count in their own way (an LLM backend's
    ``progress(done, total)``, GAAP's ``progress(t, T)``) report through one of
    these; the ETA is the same rate rule as :class:`ProgressTracker`'s.

    Examples
    --------
    >>> events = []
    >>> report = ProgressReporter(events.append)
    >>> report("generate", 0, 4); report("generate", 4, 4)
    >>> events[-1].eta_seconds
    0.0
    """

    def __init__(self, callback: ProgressCallback | None) -> None:
        self.callback = callback
        self._stages: dict[str, _Stage] = {}

    def __call__(self, stage: str, done: int, total: int, note: str = "") -> None:
        """Send one event (nothing happens without a callback)."""
        if self.callback is None:
            return
        now = time.perf_counter()
        st = self._stages.get(stage)
        if st is None or done < st.done:  # a new stage, or the same one counted again
            st = self._stages[stage] = _Stage(now, done, done, total, now)
        st.count(done, total, now)
        self.callback(Progress(stage, done, total, _time_left(st, now), note))

    def counter(self, stage: str) -> CountCallback:
        """Return a ``progress(done, total)`` callable that reports ``stage`` through this reporter."""
        return lambda done, total: self(stage, done, total)
