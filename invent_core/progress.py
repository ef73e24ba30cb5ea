"""One progress event type for every long call, and the one place its ETA is computed.

``run_question``, the perturbers, ``evaluate``/``tsu`` and the shells (CLI
progress lines, the dashboard's progress bar) all speak :class:`Progress`.
Library steps that count in their own way (an LLM backend's
``progress(done, total)``, GAAP's ``progress(t, T)``) are turned into events by
a :class:`ProgressReporter`, which also estimates the time left.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Progress:
    """What a ``progress`` callback receives.

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


class ProgressReporter:
    """Turns stage counts into :class:`Progress` events with a rate-based ETA.

    The rate is measured per stage from the first event of that stage, so a
    slow first step (a model load) is part of the estimate.

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
        self._t0: dict[str, float] = {}

    def __call__(self, stage: str, done: int, total: int, note: str = "") -> None:
        """Send one event (nothing happens without a callback)."""
        if self.callback is None:
            return
        now = time.perf_counter()
        t0 = self._t0.setdefault(stage, now)
        eta = None
        if 0 < done < total:
            eta = (now - t0) / done * (total - done)
        elif done >= total:
            eta = 0.0
        self.callback(Progress(stage, done, total, eta, note))

    def counter(self, stage: str) -> Callable[[int, int], None]:
        """Return a ``progress(done, total)`` callable that reports ``stage`` through this reporter."""
        return lambda done, total: self(stage, done, total)
