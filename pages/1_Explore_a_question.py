"""Explore a question: one run of the pipeline, everything it computed, and the baselines."""

from __future__ import annotations

import streamlit as st

from invent_core.datasets import available_datasets, load_dataset
from invent_core.pipeline import run_question
from invent_core.registry import list_methods
from invent_ui import plots, resources, state, tables, views
from invent_ui.feedback import StageProgress, guarded, show_error
from invent_ui.settings import run_fingerprint
from invent_ui.sidebar import page_setup

settings = page_setup("Explore a question", icon="🔎")
st.title("Explore a question")
st.caption(
    "Perturb a question, ask the LLM r times per variant, and see the dual random walk, "
    "Inv-Entropy's bootstrap distribution and the baselines on the same answers."
)


# --- input -------------------------------------------------------------------
def _pick_sample() -> None:
    ex = st.session_state.get(state.EXPLORE_SAMPLE)
    if ex is not None:
        st.session_state[state.EXPLORE_QUESTION] = ex.question
        st.session_state[state.EXPLORE_TASK] = (ex.task, list(ex.choices) if ex.choices else None)


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
    c4.caption(
        f"n = {run_cfg.n_perturbations}, r = {run_cfg.n_replications}: "
        f"{(run_cfg.n_perturbations + 1) * run_cfg.n_replications} answers from {settings.llm_label}."
    )
    pressed = st.button("Run", type="primary", key="explore_run_button")

if pressed:
    if not question.strip():
        st.error("Type a question first.")
    else:
        try:
            llm = resources.llm_for(settings)
            with StageProgress("Running the question") as prog:
                st.session_state[state.EXPLORE_RUN] = run_question(
                    question.strip(), run_cfg, llm=llm, task=task, choices=choices, progress=prog
                )
        except Exception as err:  # noqa: BLE001 - shown, not raised
            show_error(err, "The run")

run = st.session_state.get(state.EXPLORE_RUN)
with st.expander("Open a saved run (JSON)"):
    up = st.file_uploader("Run file", type=["json"], key="explore_upload")
    if up is not None:
        loaded = guarded("Reading the run file", resources.load_run_bytes, up.getvalue())
        if loaded is not None:
            run = loaded
if run is None:
    run = resources.demo_run()
    st.info(
        "Showing the shipped demo run. Type a question and press **Run** for your own.",
        icon=":material/lightbulb:",
    )

score = run.score

# --- summary -----------------------------------------------------------------
st.subheader(run.question)
st.caption(views.run_caption(run))
views.measure_metrics(score)
st.download_button(
    "Download this run (JSON)",
    run.to_json(),
    file_name=f"invent_run_{run_fingerprint(run)}.json",
    mime="application/json",
    key="explore_download",
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
    g1.plotly_chart(
        plots.walk_graph_figure(
            score.walk.p_x, texts=run.questions, threshold=threshold, title="Input walk P_x"
        ),
        key="explore_graph_x",
    )
    g2.plotly_chart(
        plots.walk_graph_figure(
            score.walk.p_y,
            texts=views.first_answers(run.responses),
            threshold=threshold,
            title="Output walk P_y",
            prefix="y",
        ),
        key="explore_graph_y",
    )

with tab_pert:
    st.markdown("**The perturbations and their affinity a(x0, x_i) to the original question**")
    st.dataframe(
        tables.perturbations_table(run.questions, score.sim_x, score.walk.p_x),
        hide_index=True,
        width="stretch",
        column_config={
            "affinity to x0": st.column_config.ProgressColumn(
                format="%.3f", min_value=0.0, max_value=1.0
            ),
            "P_x(x0 → x_i)": st.column_config.NumberColumn(format="%.4f"),
        },
    )
    st.markdown("**Answers: one row per question, one column per replication**")
    st.dataframe(tables.responses_table(run.questions, run.responses), width="stretch")
    if run.raw_responses and run.raw_responses != run.responses:
        with st.expander("Raw answers before cleaning"):
            st.dataframe(tables.responses_table(run.questions, run.raw_responses), width="stretch")

with tab_boot:
    labels = views.method_labels()
    lo_hi = score.interval("inv_entropy") if len(score.values["inv_entropy"]) > 1 else None
    st.plotly_chart(
        plots.bootstrap_figure(score.values["inv_entropy"], label="Inv-Entropy", interval=lo_hi),
        key="explore_boot",
    )
    others = {k: v for k, v in score.values.items() if k != "inv_entropy" and len(v) > 1}
    if others:
        st.plotly_chart(plots.measures_grid_figure(others, labels=labels), key="explore_boot_grid")
    st.dataframe(
        views.measures_dataframe(score),
        hide_index=True,
        width="stretch",
        column_config={
            c: st.column_config.NumberColumn(format="%.4f")
            for c in ("value", "interval low", "interval high")
        },
    )
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
    st.dataframe(
        tables.methods_table(results, methods),
        hide_index=True,
        width="stretch",
        column_config={
            "uncertainty": st.column_config.NumberColumn(format="%.4f"),
            "seconds": st.column_config.NumberColumn(format="%.2f"),
        },
    )
    st.caption(
        "Every method reads the same answers (higher = more uncertain). Values of different "
        "methods live on different scales; compare them across questions, not with each other."
    )
