"""What the user sees when something is missing, slow or wrong.

- :func:`error_text` / :func:`show_error`: a readable one-liner, never a traceback.
- :func:`guarded`: call a library function; on failure show the error and return None.
- :class:`StageProgress`: a progress bar with stage text and ETA, fed
  :class:`invent_core.progress.Progress` events.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

import streamlit as st

T = TypeVar("T")


def error_text(err: BaseException) -> str:
    """The message a person should read: InventError/ValueError text as is, else the type too."""
    from invent_core.errors import InventError

    msg = str(err).strip() or type(err).__name__
    if isinstance(err, InventError | ValueError | FileNotFoundError):
        return msg
    return f"{type(err).__name__}: {msg}"


def show_error(err: BaseException, what: str) -> None:
    st.error(f"**{what} failed.** {error_text(err)}", icon=":material/error:")


def guarded(what: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T | None:
    """``fn(*args, **kwargs)``, or None after showing a readable error (Streamlit's
    stop/rerun signals are BaseExceptions and pass through)."""
    try:
        return fn(*args, **kwargs)
    except Exception as err:  # noqa: BLE001 - shown to the user instead of a traceback
        show_error(err, what)
        return None


def format_eta(seconds: float) -> str:
    """``"~12 s"``, ``"~3 min"``."""
    if seconds < 90:
        return f"~{max(1, round(seconds))} s"
    return f"~{round(seconds / 60)} min"


#: Readable names of the stages of invent_core's progress events.
STAGE_LABELS: dict[str, str] = {
    "perturb": "perturbing the question",
    "generate": "asking the LLM",
    "score": "scoring",
    "gaap": "evolving perturbations (GAAP)",
    "questions": "questions",
    "runs": "runs",
    "rows": "scoring rows",
}


class StageProgress:
    """A progress bar plus stage line, fed :class:`invent_core.progress.Progress` events.

    Use as ``with StageProgress("Running") as prog: run_question(..., progress=prog)``.
    The time left is the event's ``eta_seconds`` (computed once, by the library).
    """

    def __init__(self, label: str, stage_labels: dict[str, str] | None = None) -> None:
        self.label = label
        self.stage_labels = {**STAGE_LABELS, **(stage_labels or {})}
        self.t0 = time.perf_counter()
        self.stage = ""
        self._status: Any = None
        self._bar: Any = None
        self._line: Any = None

    def __enter__(self) -> StageProgress:
        self._status = st.status(self.label, expanded=True)
        self._status.__enter__()
        self._line = st.empty()
        self._bar = st.progress(0.0)
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        elapsed = time.perf_counter() - self.t0
        if exc is None:
            self._bar.progress(1.0)
            self._status.update(
                label=f"{self.label}: done in {elapsed:.1f} s", state="complete", expanded=False
            )
        else:
            self._status.update(label=f"{self.label}: failed after {elapsed:.1f} s", state="error")
        self._status.__exit__(None, None, None)
        return False  # the caller decides how to show the error

    def __call__(self, event: Any) -> None:
        """Show one Progress event (``.stage, .done, .total, .eta_seconds, .note``)."""
        stage = self.stage_labels.get(event.stage, event.stage)
        if stage != self.stage:
            self.stage = stage
            self._status.update(label=f"{self.label}: {stage}")
        text = f"**{stage}**"
        if event.total:
            text += f" — {event.done}/{event.total}"
            if event.eta_seconds and event.done < event.total:
                text += f", {format_eta(event.eta_seconds)} left"
        if event.note:
            text += f" · {event.note[:80]}"
        self._line.markdown(text)
        self._bar.progress(min(1.0, max(0.0, event.done / event.total)) if event.total else 0.0)
