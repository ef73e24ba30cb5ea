"""What the user sees when something is missing, slow or wrong.

- :func:`error_text` / :func:`show_error`: a readable one-liner, never a traceback.
- :func:`guarded`: call a library function; on failure show the error and return None.
- :func:`missing`: an ``st.info`` naming a part of invent_core not in this checkout yet.
- :class:`StageProgress`: a progress bar with stage text and ETA fed by callbacks.
"""

from __future__ import annotations

import importlib.util
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


def module_available(module: str) -> bool:
    """Whether ``module`` can be imported (without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def missing(*modules: str, feature: str) -> bool:
    """Show an ``st.info`` and return True when one of ``modules`` is not in this checkout."""
    absent = [m for m in modules if not module_available(m)]
    if absent:
        names = ", ".join(f"`{m}`" for m in absent)
        st.info(
            f"{feature} needs {names}, which is not in this checkout yet.",
            icon=":material/extension:",
        )
        return True
    return False


def format_eta(seconds: float) -> str:
    """``"~12 s"``, ``"~3 min"``."""
    if seconds < 90:
        return f"~{max(1, round(seconds))} s"
    return f"~{round(seconds / 60)} min"


#: Readable names of the stages of invent_core.pipeline / batch progress events.
STAGE_LABELS: dict[str, str] = {
    "perturb": "perturbing the question",
    "generate": "asking the LLM",
    "score": "scoring",
    "gaap": "evolving perturbations (GAAP)",
}


class StageProgress:
    """A progress bar plus stage line, fed by library progress callbacks.

    Use as ``with StageProgress("Running") as prog: run_question(..., progress=prog)``;
    other callback shapes are adapted with a lambda, e.g.
    ``progress=lambda done, total, eta: prog("rows", done, total, eta_seconds=eta)``.
    """

    def __init__(self, label: str, stage_labels: dict[str, str] | None = None) -> None:
        self.label = label
        self.stage_labels = {**STAGE_LABELS, **(stage_labels or {})}
        self.t0 = time.perf_counter()
        self.stage = ""
        self._stage_t0 = self.t0
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

    def __call__(
        self,
        event: Any,
        done: int = 0,
        total: int = 0,
        *,
        eta_seconds: float | None = None,
    ) -> None:
        """``prog(progress_event)`` (``.stage, .done, .total, .eta_seconds``, as
        ``invent_core.pipeline.Progress``) or ``prog(stage, done, total, eta_seconds=…)``."""
        if isinstance(event, str):
            stage, eta = event, eta_seconds
        else:
            stage, done, total = event.stage, event.done, event.total
            eta = getattr(event, "eta_seconds", None)
        stage = self.stage_labels.get(stage, stage)
        if stage and stage != self.stage:
            self.stage = stage
            self._stage_t0 = time.perf_counter()
            self._status.update(label=f"{self.label}: {stage}")
        frac = 0.0 if not total else min(1.0, max(0.0, done / total))
        text = f"**{self.stage or self.label}**"
        if total:
            text += f" — {done}/{total}"
            spent = time.perf_counter() - self._stage_t0
            if eta is None and 0 < done < total and spent > 1.0:
                eta = spent / done * (total - done)
            if eta and done < total:
                text += f", {format_eta(eta)} left"
        self._line.markdown(text)
        self._bar.progress(frac)
