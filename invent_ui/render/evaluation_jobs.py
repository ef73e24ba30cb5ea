"""The Evaluation page's background job: start an evaluation, keep it, salvage a cut-short one.

Nothing is thrown away: a cancelled evaluation, or one where every answer was
judged the same, becomes a payload of the questions that finished (with the
reason the summary metrics are undefined) and is kept in the history.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

import invent_core.experiments
from invent_core.errors import Cancelled
from invent_core.evaluation.sample_size import judgeable
from invent_core.experiments import ExperimentConfig
from invent_ui.data import experiments as payloads
from invent_ui.data.experiments import folder_payload, payload_config
from invent_ui.jobs.background import CancellableLLM, start_job
from invent_ui.jobs.feedback import error_text, guarded
from invent_ui.session import archive, resources, state

#: Why the summary metrics wait for both kinds of answer.
UNDEFINED = "AUROC, PRR, Brier and ECE compare the uncertainty of correct answers with that of \
wrong ones, so they are undefined until both kinds are present"


def title(payload: Any) -> str:
    """The history's title of an evaluation: dataset, size, seed."""
    cfg = payload_config(payload)
    return f"{cfg.dataset or 'file'} · {len(payload['rows'])} questions · seed {cfg.sample_seed}"


def start(settings: Any, cfg: ExperimentConfig, out: Path) -> None:
    """Evaluate ``cfg`` into ``out`` in the page's background job; keep the payload when done."""
    llm = resources.llm_for(settings)
    ids = resources.llm_identities(settings)
    identity, para = ids["llm_identity"], ids["paraphrase_identity"]
    history = archive.store()

    def work(progress, cancel):
        # looked up through the modules at each call, as the page once did: tests replace them
        result = invent_core.experiments.evaluate(
            cfg,
            out,
            llm_factory=lambda: CancellableLLM(llm, cancel),
            progress=progress,
        )
        return payloads.eval_payload(result, cfg, llm=identity, out=out, paraphrase_llm=para)

    def keep(payload) -> str:
        return archive.keep_payload(history, "evaluation", payload, title(payload))

    start_job(
        state.EVAL_JOB,
        work,
        label=f"Evaluating {cfg.limit} {cfg.dataset} questions",
        kind="evaluation",
        on_done=keep,
        context={"cfg": cfg, "out": out, "llm": identity, "paraphrase_llm": para},
        expected=resources.expected_range(settings, cfg.run, cfg.limit),
    )


def salvage(job: Any) -> bool:
    """After a Cancel or a failure: show the questions that finished, and why there is no summary.

    Returns whether any question had finished.
    """
    ctx = job.context
    reason = error_text(job.error)  # "cancelled after 3 of 10; the 3 finished are kept" …
    payload = folder_payload(
        ctx["out"],
        ctx["cfg"],
        reason=reason,
        llm=ctx["llm"],
        paraphrase_llm=ctx.get("paraphrase_llm"),
    )
    if payload is None:
        return False
    rows = payload["rows"]
    n_pos = sum(int(r["correct"]) for r in rows)
    judged = judgeable(len(rows), n_pos)
    if not judged.ok and not isinstance(job.error, Cancelled):
        payload["reason"] = f"{judged.reason}. {UNDEFINED}"
    st.session_state[state.EVAL_PAYLOAD] = payload
    guarded(
        "Keeping it in the history",
        archive.keep_payload,
        archive.store(),
        "evaluation",
        payload,
        title(payload),
    )
    return True
