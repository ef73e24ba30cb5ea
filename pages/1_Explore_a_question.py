"""Explore a question: one run of the pipeline, everything it computed, and the baselines.

Run and Re-ask work in a background job (live progress, Cancel); every finished
run is kept in the history. The perturbations are an editable table: Re-ask
asks only the changed or added rows (invent_core.engine.reask) and scores again.
"""

from __future__ import annotations

import streamlit as st

from invent_core.engine.pipeline import run_question
from invent_core.engine.reask import reask
from invent_core.questions.datasets import available_datasets, load_dataset
from invent_core.workbench.estimate import ThroughputLog, estimate_run, record_artifact
from invent_ui import assets
from invent_ui.jobs.background import CancellableLLM, start_job
from invent_ui.jobs.feedback import guarded, job_panel, reattach, show_error
from invent_ui.render import explore_view, link_view, report_button, spread_view, views
from invent_ui.session import archive, links, resources, state
from invent_ui.session.settings import run_fingerprint
from invent_ui.session.sidebar import page_setup
from invent_ui.text import untrusted

settings = page_setup("Explore a question", icon="🔎")
st.title("Explore a question")
st.caption(
    "Perturb a question, ask the LLM r times per variant, and see the dual random walk, "
    "Inv-Entropy's bootstrap distribution and the baselines on the same answers. Edit the "
    "perturbations and re-ask only what changed."
)
KEPT = (
    "They are in the answer cache: run the same question with the same settings again and "
    "only the missing answers are asked."
)


# --- jobs ----------------------------------------------------------------------
def _keep(run, log: ThroughputLog, history) -> str:
    """In the job's thread: the throughput log learns this machine's speed; the run is kept."""
    record_artifact(run, log)
    return archive.keep_run(history, run)


def _start_run(question: str, run_cfg, task: str, choices) -> None:
    llm = resources.llm_for(settings)
    emb = resources.embedder(run_cfg.embedder)
    log, history = ThroughputLog(), archive.store()

    def work(progress, cancel):
        return run_question(
            question,
            run_cfg,
            llm=CancellableLLM(llm, cancel),
            task=task,
            choices=choices,
            progress=progress,
            embedder=emb,
        )

    start_job(
        state.EXPLORE_JOB,
        work,
        label="The run",
        on_done=lambda r: _keep(r, log, history),
        expected=resources.expected_range(settings, run_cfg),
    )


def _start_reask(run, perturbations: list[str]) -> None:
    llm = resources.llm_for(settings)
    emb = resources.embedder(run.config.embedder)
    log, history = ThroughputLog(), archive.store()

    def work(progress, cancel):
        return reask(
            run,
            perturbations,
            llm=CancellableLLM(llm, cancel),
            progress=progress,
            embedder=emb,
        )

    start_job(state.EXPLORE_JOB, work, label="The re-ask", on_done=lambda r: _keep(r, log, history))


# --- input -------------------------------------------------------------------
def _pick_sample() -> None:
    ex = st.session_state.get(state.EXPLORE_SAMPLE)
    if ex is not None:
        st.session_state[state.EXPLORE_QUESTION] = ex.question
        st.session_state[state.EXPLORE_TASK] = (ex.task, list(ex.choices) if ex.choices else None)


def _fill_question_box(run, running: bool) -> None:
    """The question box holds the shown run's question each time another run is shown.

    A page switch drops the box's own state: it then gets back what was typed.
    While a job runs, the box keeps the question the job was started with.
    """
    mark = (links.shown_id(state.EXPLORE_RUN), run.question)
    if st.session_state.get(state.EXPLORE_BOX_FOR) != mark:
        st.session_state[state.EXPLORE_BOX_FOR] = mark
        if not running:
            st.session_state[state.EXPLORE_QUESTION] = run.question
    if state.EXPLORE_QUESTION not in st.session_state:
        st.session_state[state.EXPLORE_QUESTION] = st.session_state.get(
            state.EXPLORE_TYPED, run.question
        )


# what is shown: a link's entry, else a reload's running or finished job, else the session's
# run, else the newest run kept here, else the demo; decided before the form is drawn
link_view.follow(state.EXPLORE_RUN, "run")
reattach(
    state.EXPLORE_JOB,
    (state.EXPLORE_QUESTION, state.EXPLORE_TASK, "explore_perturber"),
    shows=state.EXPLORE_RUN,
)
job = st.session_state.get(state.EXPLORE_JOB)
if job is not None and job.take() and job.status == "done":
    views.show_run(job.result, job.history_id)
if state.EXPLORE_RUN not in st.session_state:
    views.latest_kept("run", "run", state.EXPLORE_RUN)
running = views.job_running(state.EXPLORE_JOB)
_fill_question_box(st.session_state.get(state.EXPLORE_RUN) or resources.demo_run(), running)
with st.expander("Ask a question", expanded=st.session_state.get(state.EXPLORE_RUN) is None):
    c1, c2 = st.columns([1, 3])
    names = guarded("Listing the dataset samples", available_datasets) or []
    dataset = c1.selectbox("Dataset sample", ["—", *names], key="explore_dataset")
    if dataset == "—":
        st.session_state[state.EXPLORE_TASK] = ("qa", None)  # a typed question is open QA
    else:
        examples = guarded(f"Loading {dataset}", load_dataset, dataset, limit=50, seed=0) or []
        c2.selectbox(
            "Pick a question",
            examples,
            index=None,
            format_func=lambda ex: ex.question[:140],
            key=state.EXPLORE_SAMPLE,
            on_change=_pick_sample,
        )
    question = st.text_area("Question", key=state.EXPLORE_QUESTION, height=80)
    st.session_state[state.EXPLORE_TYPED] = question
    task, choices = st.session_state.get(state.EXPLORE_TASK, ("qa", None))
    if choices:
        st.caption(
            f"Task **{untrusted(task)}** with choices: " + " · ".join(map(untrusted, choices))
        )
    c3, c4 = st.columns([2, 1])
    perturber = views.perturber_picker("explore_perturber", c3)
    run_cfg = settings.run_config(perturber=perturber)
    estimate = estimate_run(
        run_cfg, **resources.llm_identities(settings), throughput=ThroughputLog()
    )
    c4.caption(
        f"n = {int(run_cfg.n_perturbations)}, r = {int(run_cfg.n_replications)}: "
        f"{untrusted(estimate.text)}."
    )
    pressed = st.button("Run", type="primary", key="explore_run_button", disabled=running)

if pressed:
    if not question.strip():
        st.error("Type a question in the **Question** box first.")
    else:
        try:
            _start_run(question.strip(), run_cfg, task, choices)
        except Exception as err:  # noqa: BLE001 - shown, not raised
            show_error(err, "The run")

job_panel(state.EXPLORE_JOB, kept=KEPT)

run = st.session_state.get(state.EXPLORE_RUN)
demo = None
with st.expander("Open a saved run (JSON)"):
    up = st.file_uploader("Run file", type=["json"], key="explore_upload")
    if up is not None:
        loaded = guarded("Reading the run file", resources.load_run_bytes, up.getvalue(), up.name)
        if loaded is not None:
            run = loaded
if run is None:
    run, demo = resources.demo_run(), ("run", assets.DEMO_RUN)
    st.info(
        "Showing the shipped demo run. Type a question and press **Run** for your own; "
        "earlier runs are under *Recent* in the sidebar and on the History page.",
        icon=":material/lightbulb:",
    )
    views.demo_note(run.provenance)

score = run.score

# --- summary -----------------------------------------------------------------
st.subheader(untrusted(run.question))
st.caption(views.run_caption(run))
views.run_answer(run)
views.gaap_warning(run)
views.measure_metrics(score)
views.gate_summary(run)
views.reference_panel(run, key="explore", own=True)  # the sidebar's file, if chosen
views.reference_check(run, st.session_state.get(state.EXPLORE_SAMPLE))
spread_view.wording_spread(run.responses)
st.download_button(
    "Download this run (JSON)",
    run.to_json(),
    file_name=f"invent_run_{run_fingerprint(run)}.json",
    mime="application/json",
    key="explore_download",
    on_click="ignore",
)
c_report, c_link = st.columns([1, 4])
with c_report:
    report_button.run_report_button(run, key="explore_report")
with c_link:
    link = link_view.link_params(state.EXPLORE_RUN, run, demo)
    link_view.copy_link(link, what="run", key="explore_link")

tab_walk, tab_pert, tab_boot, tab_base = st.tabs(
    ["Random walks", "Perturbations & answers", "Bootstrap", "Baselines"]
)

with tab_walk:
    explore_view.walk_tab(run, score)
with tab_pert:
    explore_view.perturbations_tab(run, score, running=running, reask=_start_reask)
with tab_boot:
    explore_view.bootstrap_tab(score)
with tab_base:
    explore_view.baselines_tab(run, settings)
