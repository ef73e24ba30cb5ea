"""Long actions in a background thread: live progress, Cancel, and the result for the page.

A page wraps its action (a run, a GAAP evolution, an evaluation, a sweep, a
batch) in a :class:`Job` and keeps the job in session state. The job's
thread feeds a :class:`~invent_core.progress.ProgressTracker`; a fragment
re-rendered every second shows the tracker's snapshot (done/total per
stage, elapsed, time left) and a Cancel button that sets the job's
:class:`~invent_core.progress.CancelToken`. When the thread ends the page
reads :attr:`Job.result` (or the error) once, through :meth:`Job.take`.

Cancel has one path to the producer's requests, :class:`CancellableLLM`: every
page hands the library the job's backend wrapped in it (a run, a re-ask, an
evaluation, a sweep, a batch, the LLM baselines), and the library is given no
``cancel=`` of its own. The wrapper passes the token to every call of the
backend (``complete_many(cancel=…)``, and the thread's token for ``complete``
and a streamed paraphrase), so no new request leaves after Cancel and the one
in flight is cut (:mod:`invent_core.llm.cancel`). Work between requests (GAAP,
an evaluation between saved questions) stops at its next progress event, which
raises :class:`~invent_core.errors.Cancelled` once the token is set.

Pages start a job with :func:`start_job`, which keeps it under its session-state
key. No Streamlit import at module level (the renderer is
:func:`invent_ui.jobs.feedback.job_panel`), so the class is used in pytest as it is.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from invent_core.errors import Cancelled
from invent_core.llm import sending_for
from invent_core.progress import CancelToken, Progress, ProgressTracker

__all__ = ["Job", "JobView", "JobRegistry", "CancellableLLM", "start_job"]

#: Jobs that may run for minutes to hours and would otherwise share the CPU equally with
#: every page a person opens meanwhile (the pages run in threads of the same process).
LOW_PRIORITY_KINDS = frozenset({"batch", "evaluation", "tsu"})
#: The niceness those jobs' threads take (0 normal … 19 lowest), as ``nice -n 10`` would.
BACKGROUND_NICE = 10


def lower_thread_priority(nice: int = BACKGROUND_NICE) -> bool:
    """Lower the calling thread's CPU priority (Linux: a thread has its own niceness).

    The threads it starts afterwards (a batch's row workers, torch's OpenMP team)
    inherit it, so a long job yields the CPU to the pages' own threads instead of
    taking an equal share. Returns whether it could (elsewhere it is a no-op).
    """
    if not hasattr(os, "setpriority") or not sys.platform.startswith("linux"):
        return False
    try:
        tid = threading.get_native_id()
        current = os.getpriority(os.PRIO_PROCESS, tid)
        os.setpriority(os.PRIO_PROCESS, tid, max(current, nice))
    except OSError:  # not permitted here: the job runs at the usual priority
        return False
    return True


#: What a job's function receives and returns: ``fn(progress, cancel) -> result``.
JobFn = Callable[[Callable[[Any], None], CancelToken], Any]


class Job:
    """One action running in a daemon thread, observable and cancellable from the page.

    Parameters
    ----------
    fn : ``fn(progress, cancel) -> result``; ``progress`` takes
        :class:`~invent_core.progress.Progress` events (any object with
        ``stage``, ``done``, ``total``) and raises
        :class:`~invent_core.errors.Cancelled` once Cancel was pressed.
    label : what the page calls it ("Running the question").
    kind : what it makes (a :data:`invent_core.workbench.history.KINDS` name, or "batch").
    on_done : called in the thread with the result after success (history,
        throughput log); its failure becomes :attr:`note`, never the job's.
    context : what the page needs to read a cancelled or failed job's
        finished work back (e.g. the evaluation's folder).
    expected : the estimate's ``(low, high)`` seconds, shown while it runs.
    """

    def __init__(
        self,
        fn: JobFn,
        *,
        label: str,
        kind: str = "run",
        on_done: Callable[[Any], str | None] | None = None,
        context: dict[str, Any] | None = None,
        expected: tuple[float, float] | None = None,
    ) -> None:
        self.label = label
        self.expected = expected  # (low, high) seconds the estimate said, shown beside elapsed
        self.kind = kind
        self.context = dict(context or {})
        self.tracker = ProgressTracker()
        self.token = CancelToken()
        self.result: Any = None
        self.error: BaseException | None = None
        self.note: str | None = None  # from on_done: e.g. the history entry's id
        self.history_id: str | None = None
        self.started = time.monotonic()
        self.ended: float | None = None
        self.form: dict[str, Any] = {}  # the page's settings it was started with (a reload's form)
        self._fn, self._on_done = fn, on_done
        self._taken = False
        self.seen = False  # a session showed its result (take said True to one)
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._main, name=f"invent-{kind}", daemon=True)

    def start(self) -> Job:
        """Start the thread; return the job."""
        self._thread.start()
        return self

    def _main(self) -> None:
        if self.kind in LOW_PRIORITY_KINDS:
            lower_thread_priority()
        try:
            self.result = self._fn(self.progress, self.token)
        except BaseException as err:  # noqa: BLE001 - kept for the page, which shows it
            self.error = err
        else:
            if self._on_done is not None:
                try:
                    self.history_id = self._on_done(self.result)
                except Exception as err:  # noqa: BLE001 - bookkeeping must not lose the result
                    self.note = f"the result is shown but was not kept in the history: {err}"
        finally:
            self.ended = time.monotonic()

    def progress(self, event: Any) -> None:
        """Record one progress event; raise ``Cancelled`` once Cancel was pressed."""
        self.tracker.update(event)
        if self.token.cancelled:
            done, total = int(event.done), int(event.total or 0)
            self.token.raise_if_cancelled(done, total)

    def report(self, stage: str, done: int, total: int) -> None:
        """Record counts of a producer that reports ``(done, total)`` only (e.g. a batch)."""
        self.progress(Progress(stage, done, total))

    def cancel(self) -> None:
        """Ask the job to stop (no new request is sent; finished work is kept)."""
        self.token.cancel()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the thread; return whether it ended."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    @property
    def running(self) -> bool:
        """Whether the thread is still working (also while it winds down after Cancel)."""
        return self.ended is None

    @property
    def status(self) -> str:
        """``"running"``, ``"cancelling"``, ``"done"``, ``"cancelled"`` or ``"failed"``."""
        if self.running:
            return "cancelling" if self.token.cancelled else "running"
        if self.error is None:
            return "done"
        return "cancelled" if isinstance(self.error, Cancelled) else "failed"

    @property
    def elapsed(self) -> float:
        """Seconds since the job started (until it ended)."""
        return (self.ended if self.ended is not None else time.monotonic()) - self.started

    @property
    def taken(self) -> bool:
        """Whether a page has already handled the ended job (:meth:`take`)."""
        return self._taken

    def take(self) -> bool:
        """Return True exactly once, the first time it is asked after the job ended."""
        with self._lock:
            if self.running or self._taken:
                return False
            self._taken = self.seen = True
            return True


def start_job(
    key: str,
    fn: JobFn,
    *,
    label: str,
    kind: str = "run",
    on_done: Callable[[Any], str | None] | None = None,
    context: dict[str, Any] | None = None,
    expected: tuple[float, float] | None = None,
    store: Any = None,
) -> Job:
    """Start ``fn`` as a :class:`Job` and keep it under ``key`` in the page's session state.

    The one way a page starts a background job; :func:`invent_ui.jobs.feedback.job_panel`
    with the same ``key`` shows its progress and Cancel. ``store`` is the mapping the
    job is kept in (default ``st.session_state``); ``expected`` is the estimate's
    (low, high) seconds, shown beside the time elapsed.
    """
    if store is None:
        import streamlit as st

        store = st.session_state
    job = Job(
        fn, label=label, kind=kind, on_done=on_done, context=context, expected=expected
    ).start()
    store[key] = job
    return job


class JobView:
    """Another browser session's look at a :class:`Job`: everything is the job's but :meth:`take`.

    A reload opens a new session; the page adopts the job its previous session
    started (:class:`JobRegistry`) through a view, so the finished result is
    shown in the new session too. A cancelled or failed job's leftovers are
    handed out once in all (the page keeps them in the history): for those,
    :meth:`take` is the job's own.
    """

    def __init__(self, job: Job) -> None:
        self.job = job
        self._taken = False

    def __getattr__(self, name: str) -> Any:
        """Everything but :meth:`take` is the job's."""
        return getattr(self.job, name)

    def take(self) -> bool:
        """True once for this session when the job ended well; else the job's once-only take."""
        if self.job.running or self._taken:
            return False
        self._taken = True
        if self.job.status != "done":
            return self.job.take()
        self.job.seen = True
        return True


def job_of(job: Any) -> Job | None:
    """The :class:`Job` behind a job or a :class:`JobView` (None stays None)."""
    return getattr(job, "job", job)


class JobRegistry:
    """The latest job of each page key, for the whole server process (all browser sessions).

    A page publishes the job it started; a page opened later (a reload, a new
    tab) finds it there and shows its progress, its Cancel and its result.
    Thread-safe; holds one job per key (the newest).
    """

    def __init__(self) -> None:
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    def publish(self, key: str, job: Job, form: dict[str, Any] | None = None) -> None:
        """Make ``job`` the page's latest, unless a newer one is already there."""
        with self._lock:
            known = self._jobs.get(key)
            if known is None or job.started >= known.started:
                if form is not None:
                    job.form = dict(form)
                self._jobs[key] = job

    def latest(self, key: str) -> Job | None:
        """The newest job published under ``key``, or None."""
        with self._lock:
            return self._jobs.get(key)


class CancellableLLM:
    """An LLM that sends no new request once ``token`` is cancelled.

    Every call reaches the backend with the job's token (see the module docstring).
    Finished answers are in the LLM's cache, so the same run asked again re-uses
    them. Everything else is the backend's.

    Parameters
    ----------
    llm : the backend (an :class:`invent_core.llm.LLM`).
    token : the job's cancel token.
    """

    def __init__(self, llm: Any, token: CancelToken) -> None:
        self._llm = llm
        self._token = token

    @property
    def identity(self) -> str:
        """The backend's identity (the cache key and the run's record)."""
        return self._llm.identity

    def __getattr__(self, name: str) -> Any:
        """Everything not overridden is the backend's (capabilities, close …)."""
        attr = getattr(self._llm, name)
        if name == "complete_until":  # a streamed paraphrase is a request too

            def complete_until(*args: Any, **kwargs: Any) -> Any:
                self._token.raise_if_cancelled()
                with sending_for(self._token):
                    return attr(*args, **kwargs)

            return complete_until
        return attr

    def complete(self, messages: Any, **kwargs: Any) -> Any:
        """One completion, unless cancelled; Cancel cuts it while it waits for the reply."""
        self._token.raise_if_cancelled()
        with sending_for(self._token):
            return self._llm.complete(messages, **kwargs)

    def complete_many(
        self, requests: Sequence[Any], progress: Callable[[int, int], None] | None = None, **kw: Any
    ) -> list[Any]:
        """Every request in order, the job's token passed on: the backend sends none once it is set.

        Every backend takes ``cancel=`` (the LLM Protocol): it stops between requests and
        cuts the one in flight (:mod:`invent_core.llm.cancel`), the one path Cancel takes.
        """
        kw.pop("cancel", None)  # the job's token is the one that counts (the same run's)
        self._token.raise_if_cancelled()  # whatever the backend does with it: nothing new
        return self._llm.complete_many(list(requests), progress, cancel=self._token, **kw)
