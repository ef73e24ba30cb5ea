"""Evaluation: method × metric leaderboard on a dataset sample, ROC, rejection and reliability."""

from __future__ import annotations

import streamlit as st

from invent_ui import assets, plots, resources, tables, views
from invent_ui.feedback import StageProgress, guarded, missing, show_error
from invent_ui.sidebar import page_setup

settings = page_setup("Evaluation", icon="🏁")
st.title("Evaluation")
st.caption(
    "How well does each method's uncertainty predict a wrong answer? AUROC and PRR (higher is "
    "better), Brier and ECE after isotonic calibration (lower is better), mean ± std over 40 "
    "paired bootstrap resamples (paper, Appendix 'Calculation of Mean and Variance')."
)
if missing("invent_core.experiment", "invent_core.evaluation.report", feature="The evaluation"):
    st.stop()

from invent_core.datasets import available_datasets
from invent_core.evaluation.metrics import rejection_curve, reliability_diagram
from invent_core.evaluation.report import results_table
from invent_ui.experiments import eval_arrays, eval_payload

RESULT_KEY = "eval_payload"

with st.expander("Run an evaluation on a dataset sample", expanded=False):
    c1, c2, c3, c4 = st.columns(4)
    dataset = c1.selectbox(
        "Dataset", guarded("Listing datasets", available_datasets) or [], key="eval_dataset"
    )
    limit = c2.number_input("Questions (--limit)", 2, 300, 10, key="eval_limit")
    perturber = c3.selectbox("Perturber", ["paraphrase", "gaap"], key="eval_perturber")
    judge = c4.selectbox(
        "Correctness",
        ["match", "llm"],
        key="eval_judge",
        help="match: rules per dataset; llm: the paper's judge prompt",
    )
    st.caption(
        f"Each question costs {(settings.n_perturbations + 1) * settings.n_replications} answers from "
        f"{settings.llm_label}; runs are saved, so a refresh or a larger limit resumes."
    )
    if st.button("Run evaluation", type="primary", key="eval_run") and dataset:
        from invent_core.experiment import ExperimentConfig, evaluate

        cfg = ExperimentConfig(
            dataset=dataset,
            limit=int(limit),
            perturber=perturber,
            n_perturbations=settings.n_perturbations,
            n_replications=settings.n_replications,
            n_bootstrap=settings.n_bootstrap,
            temperature=settings.temperature,
            seed=settings.seed,
            embedder=settings.embedder,
            judge=judge,
        )
        out = resources.work_dir("eval", settings.key(dataset, perturber, judge))
        try:
            with StageProgress(f"Evaluating {limit} {dataset} questions") as prog:
                result = evaluate(
                    cfg,
                    out,
                    llm_factory=lambda: resources.llm_for(settings),
                    progress=lambda done, total, note: prog("questions", done, total),
                )
            st.session_state[RESULT_KEY] = eval_payload(result, cfg)
        except Exception as err:  # noqa: BLE001 - shown, not raised
            show_error(err, "The evaluation")

payload = views.result_or_demo(
    RESULT_KEY,
    assets.DEMO_EVAL,
    what="demo evaluation",
    script="scripts/make_demo_eval.py",
    hint="Run your own above.",
)

arrays = guarded("Reading the evaluation", eval_arrays, payload)
if arrays is None:
    st.stop()
correct, table = arrays
labels = payload.get("labels", {})
cfg = payload.get("config", {})
c1, c2, c3, c4 = st.columns(4)
c1.metric("dataset", str(cfg.get("dataset") or cfg.get("data")))
c2.metric("questions", len(correct))
c3.metric("accuracy", f"{correct.mean():.0%}")
c4.metric(
    "perturber · n · r",
    f"{cfg.get('perturber')} · {cfg.get('n_perturbations')} · {cfg.get('n_replications')}",
)
if correct.min() == correct.max():
    st.warning(
        "Every answer was judged the same: AUROC and PRR need both correct and incorrect answers."
    )
    st.stop()

ev = guarded(
    "Computing the metrics",
    resources.evaluation,
    resources.payload_key(payload),
    int(cfg.get("n_boot_metrics", 40)),
    int(cfg.get("seed", 0)),
    payload,
)
if ev is None:
    st.stop()

st.subheader("Leaderboard")
rt = results_table(ev, labels=labels)
df, marks = tables.results_frame(rt)
st.dataframe(tables.style_marks(df, marks), width="stretch", height=36 * (len(df) + 1) + 3)
st.caption("Bold: best per column; underlined: second. ↑ higher is better, ↓ lower is better.")
if ev.skipped:
    st.caption(
        "Not available on this run: "
        + ", ".join(f"{labels.get(m, m)} ({why})" for m, why in ev.skipped.items())
    )

st.subheader("Curves")
default = [
    m
    for m in ("inv_entropy", "nr_inv_entropy", "semantic_entropy", "kernel_entropy", "lexsim")
    if m in table
]
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
