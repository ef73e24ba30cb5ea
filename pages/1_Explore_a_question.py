"""Explore a question: one run of the pipeline, everything it computed, and the baselines.

Run and Re-ask work in a background job (live progress, Cancel); every finished
run is kept in the history. The perturbations are an editable table: Re-ask
asks only the changed or added rows (invent_core.reask) and scores again.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from invent_core.datasets import available_datasets, load_dataset
from invent_core.estimate import ThroughputLog, estimate_run, record_artifact
from invent_core.pipeline import run_question
from invent_core.reask import match_states, reask
from invent_core.registry import list_methods
from invent_ui import archive, plots, resources, spread_view, state, tables, views
from invent_ui.downloads import download_buttons
from invent_ui.feedback import guarded, job_panel, show_error
from invent_ui.jobs import CancellableLLM, Job
from invent_ui.settings import run_fingerprint
from invent_ui.sidebar import page_setup

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
            cancel=cancel,
        )

    st.session_state[state.EXPLORE_JOB] = Job(
        work, label="The run", on_done=lambda run: _keep(run, log, history)
    ).start()


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
            cancel=cancel,
            embedder=emb,
        )

    st.session_state[state.EXPLORE_JOB] = Job(
        work,
        label="The re-ask",
        on_done=lambda new: _keep(new, log, history),
    ).start()


# --- input -------------------------------------------------------------------
def _pick_sample() -> None:
    ex = st.session_state.get(state.EXPLORE_SAMPLE)
    if ex is not None:
        st.session_state[state.EXPLORE_QUESTION] = ex.question
        st.session_state[state.EXPLORE_TASK] = (ex.task, list(ex.choices) if ex.choices else None)


running = views.job_running(state.EXPLORE_JOB)
with st.expander("Ask a question", expanded=st.session_state.get(state.EXPLORE_RUN) is None):
    if state.EXPLORE_QUESTION not in st.session_state:
        st.session_state[state.EXPLORE_QUESTION] = resources.demo_run().question
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
    task, choices = st.session_state.get(state.EXPLORE_TASK, ("qa", None))
    if choices:
        st.caption(f"Task **{task}** with choices: " + " · ".join(choices))
    c3, c4 = st.columns([2, 1])
    perturber = views.perturber_picker("explore_perturber", c3)
    run_cfg = settings.run_config(perturber=perturber)
    estimate = estimate_run(
        run_cfg, **resources.llm_identities(settings), throughput=ThroughputLog()
    )
    c4.caption(f"n = {run_cfg.n_perturbations}, r = {run_cfg.n_replications}: {estimate.text}.")
    pressed = st.button("Run", type="primary", key="explore_run_button", disabled=running)

if pressed:
    if not question.strip():
        st.error("Type a question in the **Question** box first.")
    else:
        try:
            _start_run(question.strip(), run_cfg, task, choices)
        except Exception as err:  # noqa: BLE001 - shown, not raised
            show_error(err, "The run")

job = job_panel(state.EXPLORE_JOB, kept=KEPT)
if job is not None and job.take() and job.status == "done":
    views.show_run(job.result)

run = st.session_state.get(state.EXPLORE_RUN)
with st.expander("Open a saved run (JSON)"):
    up = st.file_uploader("Run file", type=["json"], key="explore_upload")
    if up is not None:
        loaded = guarded("Reading the run file", resources.load_run_bytes, up.getvalue(), up.name)
        if loaded is not None:
            run = loaded
if run is None:
    run = resources.demo_run()
    st.info(
        "Showing the shipped demo run. Type a question and press **Run** for your own; "
        "earlier runs are under *Recent* in the sidebar and on the History page.",
        icon=":material/lightbulb:",
    )

score = run.score

# --- summary -----------------------------------------------------------------
st.subheader(run.question)
st.caption(views.run_caption(run))
views.measure_metrics(score)
views.gate_summary(run)
views.reference_panel(run, key="explore")
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

tab_walk, tab_pert, tab_boot, tab_base = st.tabs(
    ["Random walks", "Perturbations & answers", "Bootstrap", "Baselines"]
)

with tab_walk:
    c1, c2 = st.columns([1, 3])
    colorscale = c1.selectbox("Colour scale", views.COLORSCALES, key="explore_colorscale")
    c2.caption(
        "P_x and P_y are built from replication 1 of each state (as NR-Inv-Entropy); the "
        "bootstrap below resamples one replication per state B times."
    )
    views.heatmap_row(score, colorscale=colorscale, key="explore")
    m = len(run.questions)
    threshold = st.slider(
        "Edge threshold: draw transitions with probability ≥",
        0.0,
        0.5,
        value=round(1.0 / m, 3),
        step=0.005,
        format="%.3f",
        key="explore_threshold",
        help=f"1/m = {1 / m:.3f} is a uniform walk; edges above it are more likely than chance.",
    )
    g1, g2 = st.columns(2)
    graph_x = plots.walk_graph_figure(
        score.walk.p_x, texts=run.questions, threshold=threshold, title="Input walk P_x"
    )
    graph_y = plots.walk_graph_figure(
        score.walk.p_y,
        texts=views.first_answers(run.responses),
        threshold=threshold,
        title="Output walk P_y",
        prefix="y",
    )
    g1.plotly_chart(graph_x, key="explore_graph_x")
    g2.plotly_chart(graph_y, key="explore_graph_y")
    with g1:
        download_buttons(
            st, "input walk graph", figure=graph_x, key="explore_graph_x", png_note=False
        )
    with g2:
        download_buttons(
            st, "output walk graph", figure=graph_y, key="explore_graph_y", png_note=False
        )


def _edited_perturbations(edited: pd.DataFrame) -> list[str]:
    """The editor's rows in order, blank (just added, not typed) rows left out."""
    texts = edited["perturbation"].tolist() if "perturbation" in edited else []
    return [t.strip() for t in texts if isinstance(t, str) and t.strip()]


with tab_pert:
    st.markdown(
        f"**x0 (original):** {run.question}  \n"
        "**The perturbations**: edit a cell, delete rows (select, then the bin) or add your "
        "own (the + below the table); **Re-ask** asks only the changed and added rows, r "
        "times each, and scores the run again."
    )
    flags = list(run.extras.get("edited") or [False] * m)
    base = tables.perturbations_table(run.questions, score.sim_x, score.walk.p_x).iloc[1:]
    frame = pd.DataFrame(
        {
            "perturbation": base["question"].tolist(),
            "affinity to x0": base["affinity to x0"].tolist(),
            "P_x(x0 → x_i)": base["P_x(x0 → x_i)"].tolist(),
            "edited by you": [bool(f) for f in flags[1:m]],
        }
    )
    edited = st.data_editor(
        frame,
        num_rows="dynamic",
        hide_index=True,
        width="stretch",
        disabled=["affinity to x0", "P_x(x0 → x_i)", "edited by you"],
        key=f"{state.EXPLORE_EDITOR}_{run_fingerprint(run)}",
        column_config={
            "perturbation": st.column_config.TextColumn(width="large"),
            "affinity to x0": st.column_config.ProgressColumn(
                format="%.3f", min_value=0.0, max_value=1.0
            ),
            "P_x(x0 → x_i)": st.column_config.NumberColumn(format="%.4f"),
        },
    )
    wanted = _edited_perturbations(edited)
    asked = sum(1 for src in match_states(run.questions, [run.question, *wanted]) if src is None)
    changed = wanted != list(run.perturbations)
    r = run.config.n_replications
    if changed:
        kept = len(wanted) - asked
        st.caption(
            f"{asked} new or changed perturbation(s) → {asked * r} LLM request(s) (r = {r}); "
            f"{kept} unchanged keep their answers; "
            f"{len(run.perturbations) - kept} earlier row(s) edited or deleted."
        )
    if st.button(
        "Re-ask",
        type="primary",
        key="explore_reask",
        disabled=running or not changed or not wanted,
        help="Ask only the new or changed perturbations, then score the run again",
    ):
        try:
            _start_reask(run, wanted)
            st.rerun()
        except Exception as err:  # noqa: BLE001 - shown, not raised
            show_error(err, "Re-asking")
    download_buttons(st, "perturbations", frame, key="explore_perturbations")
    st.markdown("**Answers: one row per question, one column per replication**")
    answers = tables.responses_table(run.questions, run.responses)
    st.dataframe(answers, width="stretch")
    download_buttons(st, "answers", answers, key="explore_answers")
    if run.raw_responses and run.raw_responses != run.responses:
        with st.expander("Raw answers before cleaning"):
            st.dataframe(tables.responses_table(run.questions, run.raw_responses), width="stretch")

with tab_boot:
    labels = views.method_labels()
    lo_hi = score.interval("inv_entropy") if len(score.values["inv_entropy"]) > 1 else None
    boot = plots.bootstrap_figure(score.values["inv_entropy"], label="Inv-Entropy", interval=lo_hi)
    st.plotly_chart(boot, key="explore_boot")
    download_buttons(st, "bootstrap histogram", figure=boot, key="explore_boot", png_note=False)
    others = {k: v for k, v in score.values.items() if k != "inv_entropy" and len(v) > 1}
    if others:
        grid = plots.measures_grid_figure(others, labels=labels)
        st.plotly_chart(grid, key="explore_boot_grid")
        download_buttons(st, "bootstrap grid", figure=grid, key="explore_boot_grid", png_note=False)
    measures = views.measures_dataframe(score)
    st.dataframe(
        measures,
        hide_index=True,
        width="stretch",
        column_config={
            c: st.column_config.NumberColumn(format="%.4f")
            for c in ("value", "interval low", "interval high")
        },
    )
    download_buttons(st, "measures", measures, key="explore_measures")
    st.caption(
        "Shaded: 90 % percentile interval. NR-Inv-Entropy uses replication 1 only (one value)."
    )

with tab_base:
    methods = list_methods()
    fp = run_fingerprint(run)
    offline = tuple(m.name for m in methods if not ({"llm", "logprobs"} & set(m.needs)))
    needs_llm = tuple(m.name for m in methods if {"llm", "logprobs"} & set(m.needs))
    results = dict(
        guarded("Computing the baselines", resources.method_results, fp, offline, "", run, None)
        or {}
    )
    llm_key = f"{state.EXPLORE_LLM_METHODS}{fp}_{settings.key()}"
    if needs_llm:
        if st.button(
            f"Also compute {', '.join(views.method_labels().get(n, n) for n in needs_llm)} "
            f"(asks {settings.llm_label})",
            key="explore_llm_methods",
        ):
            with st.spinner("Asking the LLM for the baselines that need it…"):
                llm = guarded("Loading the LLM", resources.llm_for, settings)
                if llm is not None:
                    st.session_state[llm_key] = guarded(
                        "Computing the LLM baselines",
                        resources.method_results,
                        fp,
                        needs_llm,
                        settings.key(),
                        run,
                        llm,
                    )
        results.update(st.session_state.get(llm_key) or {})
    baselines = tables.methods_table(results, methods)
    st.dataframe(
        baselines,
        hide_index=True,
        width="stretch",
        height="content",  # every method visible, no inner scroll
        column_config={
            "uncertainty": st.column_config.NumberColumn(format="%.4f"),
            "seconds": st.column_config.NumberColumn(format="%.2f"),
        },
    )
    download_buttons(st, "baselines", baselines, key="explore_baselines")
    st.caption(
        "Every method reads the same answers (higher = more uncertain). Values of different "
        "methods live on different scales; compare them across questions, not with each other. "
        + views.SIGN_NOTES
    )
