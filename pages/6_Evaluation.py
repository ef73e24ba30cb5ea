"""Evaluation: method × metric leaderboard on a dataset sample, ROC, rejection and reliability."""

from __future__ import annotations

import streamlit as st

from invent_core.datasets import available_datasets
from invent_core.evaluation.metrics import rejection_curve, reliability_diagram
from invent_core.evaluation.report import results_table
from invent_core.experiment import JUDGES, ExperimentConfig, evaluate
from invent_ui import assets, plots, resources, state, tables, views
from invent_ui.experiments import eval_arrays, eval_payload, payload_config, payload_evaluation
from invent_ui.feedback import StageProgress, guarded, show_error
from invent_ui.sidebar import page_setup

settings = page_setup("Evaluation", icon="🏁")
st.title("Evaluation")
st.caption(
    "How well does each method's uncertainty predict a wrong answer? AUROC and PRR (higher is "
    "better), Brier and ECE after isotonic calibration (lower is better), mean ± std over "
    "paired bootstrap resamples (paper, Appendix 'Calculation of Mean and Variance')."
)

with st.expander("Run an evaluation on a dataset sample", expanded=False):
    c1, c2, c3 = st.columns(3)
    dataset = c1.selectbox(
        "Dataset", guarded("Listing datasets", available_datasets) or [], key="eval_dataset"
    )
    limit = c2.number_input("Questions (--limit)", 2, 300, 10, key="eval_limit")
    judge = c3.selectbox(
        "Correctness",
        list(JUDGES),
        key="eval_judge",
        help="match: rules per dataset; llm: the paper's judge prompt",
    )
    run_cfg = settings.run_config(perturber=views.perturber_picker("eval_perturber"))
    st.caption(
        f"Each question costs {(run_cfg.n_perturbations + 1) * run_cfg.n_replications} answers "
        f"from {settings.llm_label}; runs are saved, so a refresh or a larger limit resumes."
    )
    if st.button("Run evaluation", type="primary", key="eval_run") and dataset:
        try:
            cfg = ExperimentConfig(run=run_cfg, dataset=dataset, limit=int(limit), judge=judge)
            out = resources.work_dir("eval", settings.key(dataset, run_cfg.perturber, judge))
            with StageProgress(f"Evaluating {limit} {dataset} questions") as prog:
                result = evaluate(
                    cfg, out, llm_factory=lambda: resources.llm_for(settings), progress=prog
                )
            st.session_state[state.EVAL_PAYLOAD] = eval_payload(result, cfg)
        except Exception as err:  # noqa: BLE001 - shown, not raised
            show_error(err, "The evaluation")

payload = views.result_or_demo(
    state.EVAL_PAYLOAD, assets.DEMO_EVAL, what="demo evaluation", hint="Run your own above."
)

arrays = guarded("Reading the evaluation", eval_arrays, payload)
ev = guarded("Reading the evaluation", payload_evaluation, payload)
if arrays is None or ev is None:
    st.stop()
correct, table = arrays
labels = payload.get("labels", {})
cfg = payload_config(payload)
c1, c2, c3, c4 = st.columns(4)
c1.metric("dataset", str(cfg.dataset or cfg.data))
c2.metric("questions", ev.n_questions)
c3.metric("accuracy", f"{ev.accuracy:.0%}")
c4.metric(
    "perturber · n · r",
    f"{cfg.run.perturber} · {cfg.run.n_perturbations} · {cfg.run.n_replications}",
)

st.subheader("Leaderboard")
rt = results_table(ev, labels=labels)
df, marks = tables.results_frame(rt)
st.dataframe(tables.style_marks(df, marks), width="stretch", height=36 * (len(df) + 1) + 3)
st.caption(
    f"Mean ± std over B = {ev.n_boot} paired bootstrap resamples. Bold: best per column; "
    "underlined: second. ↑ higher is better, ↓ lower is better."
)
if ev.skipped:
    st.caption(
        "Not available on this run: "
        + ", ".join(f"{labels.get(m, m)} ({why})" for m, why in ev.skipped.items())
    )

st.subheader("Curves")
default = views.default_methods(table)
shown = st.multiselect(
    "Methods to draw",
    list(table),
    default=default or list(table)[:4],
    format_func=lambda m: labels.get(m, m),
    key="eval_methods",
)
if not shown:
    st.info("Pick at least one method to draw.")
    st.stop()
n_bins = st.slider(
    "Reliability bins", 3, 15, 5, key="eval_bins", help="equal-width bins of calibrated P(correct)"
)
sel = {m: table[m] for m in shown}
left, right = st.columns(2)
left.plotly_chart(plots.roc_figure(correct, sel, labels=labels), key="eval_roc")
right.plotly_chart(
    plots.rejection_figure({m: rejection_curve(correct, u) for m, u in sel.items()}, labels=labels),
    key="eval_rejection",
)
st.plotly_chart(
    plots.reliability_figure(
        {m: reliability_diagram(correct, u, n_bins=n_bins) for m, u in sel.items()}, labels=labels
    ),
    key="eval_reliability",
)
with st.expander("Per-question answers and uncertainties"):
    st.dataframe(payload["rows"], width="stretch")
