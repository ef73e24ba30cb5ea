"""The baselines that ask the LLM (VU, P(True)) in a background job: a counter and Cancel.

Before, they ran under a blocking spinner for about 20 s with no way
to stop them. Here they run like a run does (:class:`invent_ui.jobs.background.Job`):
the panel counts the methods done, Cancel cuts the request in flight
(:class:`~invent_ui.jobs.background.CancellableLLM`), and the results land in the
session under the key of the run and backend they belong to.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from invent_core.methods.registry import ScoringContext, compute_methods
from invent_ui.jobs.background import CancellableLLM, start_job
from invent_ui.jobs.feedback import guarded, job_panel
from invent_ui.session import resources, state

KEPT = "The replies received are in the LLM cache: asking again re-uses them."


def methods_work(run: Any, names: Sequence[str], llm: Any) -> Any:
    """The job's function: ``names`` on ``run`` with ``llm``, one progress event per method."""

    def work(progress: Any, cancel: Any) -> dict:
        ctx = ScoringContext.from_run(run, llm=CancellableLLM(llm, cancel))
        return compute_methods(ctx, list(names), progress=progress)

    return work


def start(result_key: str, run: Any, names: Sequence[str], settings: Any) -> None:
    """Start computing ``names`` on ``run`` with the sidebar's LLM (results under ``result_key``)."""
    llm = guarded("Loading the LLM", resources.llm_for, settings)
    if llm is None:
        return
    start_job(
        state.EXPLORE_METHODS_JOB,
        methods_work(run, names, llm),
        label="The baselines that ask the LLM",
        kind="methods",
        context={"key": result_key},
    )


def panel(result_key: str) -> None:
    """Show the job (live, Cancel; then how it ended); keep its results for ``result_key``."""
    job = job_panel(state.EXPLORE_METHODS_JOB, kept=KEPT)
    if job is not None and job.context.get("key") == result_key and job.take():
        if job.status == "done":
            st.session_state[result_key] = job.result


def running() -> bool:
    """Whether the LLM baselines are being computed (the button waits)."""
    job = st.session_state.get(state.EXPLORE_METHODS_JOB)
    return job is not None and job.running
