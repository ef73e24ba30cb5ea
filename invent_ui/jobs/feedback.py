"""What the user sees when something is missing, slow or wrong.

- :func:`error_text` / :func:`show_error`: a readable one-liner, never a traceback.
- :func:`guarded`: call a library function; on failure show the error and return None.
- :func:`job_panel`: a background :class:`invent_ui.jobs.background.Job`, live every
  second (done/total per stage, elapsed, time left, Cancel), then its outcome.

Messages name the dashboard's controls, not CLI flags, and never a path in
the cache folder (:func:`public_text`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import streamlit as st

from invent_core.config import RunConfig, iter_options
from invent_core.env import cache_dir
from invent_core.errors import InventError
from invent_core.progress import format_range, format_seconds
from invent_ui.text import untrusted

from .background import Job, JobRegistry, JobView, job_of

T = TypeVar("T")

#: CLI options → the dashboard control that does the same (messages name controls).
CONTROLS: dict[str, str] = {
    "--limit": '"Questions"',
    "--llm": '"LLM backend" in the sidebar',
    "--base-url": '"Server URL" in the sidebar',
    "--model": '"Model" in the sidebar',
    "--dataset": '"Dataset"',
    "--data": "the uploaded file",
    "--seed": '"seed" in the sidebar',
    "--temperature": '"temperature" in the sidebar',
    "-n": '"n perturbations" in the sidebar',
    "-r": '"r replications" in the sidebar',
    "--n-perturbations": '"n perturbations" in the sidebar',
    "--n-replications": '"r replications" in the sidebar',
    "--n-bootstrap": '"B bootstrap" in the sidebar',
    "--embedder": '"Embedder ψ" in the sidebar',
    "--profile": '"Profile" in the sidebar',
    "--perturber": '"Perturber"',
    "--judge": '"Correctness"',
}
_FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[nr])(?![\w-])")
#: Section titles of the sidebar's "Advanced" expander, by the config that declares the option.
SECTIONS = {
    "run": "Answers",
    "score": "Scoring",
    "paraphrase": "Paraphrasing",
    "gaap": "GAAP",
    "adaptive": "Adaptive budget",
}


def option_label(opt: Any) -> str:
    """The label of an option's widget under *Advanced*: its name within its section.

    ``gaap_delta`` is "delta" under **GAAP**; ``answer_max_tokens`` "answer max tokens".
    """
    name = opt.name.removeprefix(opt.path[0] + "_") if len(opt.path) > 1 else opt.name
    return name.replace("_", " ")


def _advanced_controls() -> dict[str, str]:
    """Each run option's flag → its widget under *Advanced*, as the sidebar draws it."""
    controls = {}
    for opt in iter_options(RunConfig):
        owner = opt.path[0] if len(opt.path) > 1 else "run"
        section = SECTIONS.get(owner, owner)
        controls[opt.long_flag] = f'"{option_label(opt)}" under {section} (sidebar, Advanced)'
    return controls


def public_text(text: str, names: Mapping[str, str] | None = None) -> str:
    """Return ``text`` with CLI flags named as controls and no path into the cache folder.

    Parameters
    ----------
    text : a library message.
    names : extra replacements, e.g. a stored upload's path → the uploaded file's name.
    """
    for old, new in (names or {}).items():
        text = text.replace(str(old), new)
    root = re.escape(str(cache_dir()))
    text = re.sub(root + r"[^\s'\"),;]*", lambda m: m.group(0).rsplit("/", 1)[-1], text)

    controls = {**_advanced_controls(), **CONTROLS}
    # a flag that no control stands for (an option of the command line only) stays as it is
    return _FLAG.sub(lambda m: controls.get(m.group(1), m.group(1)), text)


def error_text(err: BaseException, names: Mapping[str, str] | None = None) -> str:
    """The message a person should read: InventError/ValueError text as is, else the type too.

    ``names`` replaces stored paths by what the user knows (see :func:`public_text`).
    """
    msg = public_text(str(err).strip() or type(err).__name__, names)
    if isinstance(err, InventError | ValueError | FileNotFoundError):
        return msg
    return f"{type(err).__name__}: {msg}"


def show_error(err: BaseException, what: str, names: Mapping[str, str] | None = None) -> None:
    """Show ``what`` failed and why, in one readable line (no traceback, no cache path)."""
    st.error(
        f"**{untrusted(what)} failed.** {untrusted(error_text(err, names))}",
        icon=":material/error:",
    )


def guarded(what: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T | None:
    """Return ``fn(*args, **kwargs)``, or None after showing a readable error.

    Streamlit's stop/rerun signals are BaseExceptions and pass through.
    """
    try:
        return fn(*args, **kwargs)
    except Exception as err:  # noqa: BLE001 - shown to the user instead of a traceback
        show_error(err, what)
        return None


#: Readable names of the stages of invent_core's progress events.
STAGE_LABELS: dict[str, str] = {
    "rewordings": "rewordings received",
    "perturb": "perturbations",
    "generate": "answers received",
    "score": "scoring",
    "gaap": "GAAP generations",
    "questions": "questions evaluated",
    "runs": "runs (question × temperature)",
    "rows": "rows scored",
    "methods": "baselines computed",
}


def stage_text(stage: Any) -> str:
    """One line of a stage: ``"answers received 23/50 · 12 s · ≈ 14 s left"``."""
    label = STAGE_LABELS.get(stage.stage, stage.stage)
    counts = f"{stage.done}/{stage.total}" if stage.total > 0 else f"{stage.done}"
    parts = [f"{label} {counts}", format_seconds(stage.elapsed)]
    if stage.finished:
        parts.append("done")
    elif stage.time_left is not None:
        parts.append(f"≈ {format_seconds(stage.time_left)} left")
    return " · ".join(parts)


def expected_text(expected: tuple[float, float] | None, elapsed: float) -> str:
    """`` · expected 14–61 s`` (the estimate's range), and whether the job is past it."""
    if expected is None or expected[0] is None or expected[1] is None:
        return ""
    low, high = expected
    said = format_range(low, high) if high > 1.3 * low else f"≈ {format_seconds(high)}"
    late = " · taking longer than estimated" if elapsed > high else ""
    return f" · expected {said}{late}"


#: Seconds between two redraws of a running job (at least every 2 s).
REDRAW_SECONDS = 1


@st.fragment(run_every=REDRAW_SECONDS)
def _live(key: str) -> None:
    """Redraw a running job every second; rerun the page once it ended (to show the result)."""
    job = st.session_state.get(key)
    if job is None:
        return
    if not job.running:
        st.rerun()
    _job_view(job, key)


def _job_view(job: Any, key: str) -> None:
    with st.container(border=True):
        cancelling = (
            " · cancelling: no new request is sent, the ones in flight are stopped"
            if job.token.cancelled
            else ""
        )
        st.markdown(
            f"**{untrusted(job.label)}** · {untrusted(format_seconds(job.elapsed))} elapsed"
            f"{untrusted(expected_text(getattr(job, 'expected', None), job.elapsed))}{cancelling}"
        )
        stages = job.tracker.snapshot()
        if not stages:
            st.progress(0.0, text="starting (loading the models)")
        for stage in stages:
            st.progress(stage.fraction or 0.0, text=stage_text(stage))
        st.button(
            "Cancel",
            key=f"{key}_cancel",
            on_click=job.cancel,
            disabled=job.token.cancelled,
            icon=":material/cancel:",
            help="Stop sending requests; what finished is kept",
        )


@st.cache_resource(show_spinner=False)
def job_registry() -> JobRegistry:
    """The server process's :class:`~invent_ui.jobs.background.JobRegistry` (shared by every session)."""
    return JobRegistry()


#: Page job key → the session keys of its form, saved with a job it starts.
_FORMS: dict[str, tuple[str, ...]] = {}


def reattach(key: str, form: tuple[str, ...] = (), *, shows: str | None = None) -> Any:
    """Adopt the page's newest job after a reload (a new session); call before the form.

    A browser reload opens a new session with an empty state: the job the page
    started before still runs (or has finished) in this process. When the
    registry holds a job newer than this session's, the session shows it (its
    live panel and Cancel while it runs, its result once done) and, while it
    runs, the form shows the settings it was started with (``form``: the
    widgets' session keys, saved by :func:`job_panel` when the job starts).

    ``shows`` is the session key of the page's result. A finished job whose
    result a session has already shown is not adopted where this session
    holds a result of its own (an entry opened from History, Recent or a
    link): taking the job would replace what the user just opened.

    Returns the session's job after adoption (None when there is none).
    """
    _FORMS[key] = tuple(form)
    mine = st.session_state.get(key)
    latest = job_registry().latest(key)
    if latest is None or latest is job_of(mine):
        return mine
    if mine is not None and job_of(mine).started >= latest.started:
        return mine
    if latest.status in ("cancelled", "failed") and latest.taken:
        return mine  # its session said how it ended; the history shows what was kept
    if not latest.running and latest.seen and shows is not None and shows in st.session_state:
        return mine  # an old result: what this session opened stays
    view = JobView(latest)
    st.session_state[key] = view
    if latest.running:
        for name, value in latest.form.items():
            st.session_state[name] = value
    return view


def _publish(key: str, job: Any) -> None:
    """Make a job this session started findable by a later session (a reload)."""
    if isinstance(job, Job) and job_registry().latest(key) is not job:
        form = {k: st.session_state[k] for k in _FORMS.get(key, ()) if k in st.session_state}
        job_registry().publish(key, job, form)


def cancelled_text(job: Any, kept: str = "", names: Mapping[str, str] | None = None) -> str:
    """``"The run: cancelled after 2 of 50 answers; …"``, and where the finished work is, once.

    The page's ``kept`` sentence is left out where the library's message already
    says the finished work is in the cache (a run's does; a re-ask's does not).
    """
    said = error_text(job.error, names).rstrip(".")
    if "cache" in said.lower() and "cache" in kept.lower():
        kept = ""
    return f"{untrusted(job.label)}: {untrusted(said)}. {kept}".strip()


def job_panel(key: str, *, kept: str = "", names: Mapping[str, str] | None = None) -> Any:
    """Show the page's background job: live while it runs, then how it ended.

    Parameters
    ----------
    key : session key of the :class:`invent_ui.jobs.background.Job`.
    kept : after a Cancel, where the finished work is and how to re-use it.
    names : stored paths → what the user knows (an upload's name), for messages.

    Returns
    -------
    The job, or ``None`` when the page has none.
    """
    job = st.session_state.get(key)
    if job is None:
        return None
    _publish(key, job)
    if job.running:
        _live(key)
        return job
    took = format_seconds(job.elapsed)
    if job.status == "done":
        kept_in = " Kept in the run history." if job.history_id else ""
        st.success(
            f"{untrusted(job.label)}: done in {untrusted(took)}.{kept_in}",
            icon=":material/check_circle:",
        )
    elif job.status == "cancelled":
        st.warning(cancelled_text(job, kept, names), icon=":material/cancel:")
    else:
        show_error(job.error, job.label, names)
    if job.note:
        st.warning(untrusted(job.note))
    return job
