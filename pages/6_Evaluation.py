"""Evaluation: method × metric leaderboard on a seeded dataset sample, ROC, rejection, reliability.

The evaluation runs in a background job (live progress per question, Cancel).
Nothing is thrown away: a cancelled run, or one where every answer was judged
the same, shows its per-question table with the reason the summary metrics
are undefined. Below the minimum sample (evaluation.sample_size.judgeable)
every metric is greyed and nothing is bold.
"""

from __future__ import annotations

import streamlit as st

from invent_core.evaluation.metrics import undefined_reason
from invent_core.evaluation.sample_size import MIN_PER_CLASS, MIN_QUESTIONS, judgeable
from invent_core.experiments import JUDGES, ExperimentConfig, select_examples
from invent_core.questions.datasets import available_datasets, load_dataset
from invent_core.workbench.estimate import ThroughputLog, estimate_run
from invent_ui import assets
from invent_ui.data.experiments import (
    eval_arrays,
    payload_config,
    payload_evaluation,
    per_question_table,
)
from invent_ui.jobs.feedback import guarded, job_panel, reattach, show_error
from invent_ui.render import (
    evaluation_jobs,
    evaluation_view,
    link_view,
    relabel_view,
    report_button,
    spread_view,
    views,
)
from invent_ui.session import links, resources, state
from invent_ui.session.sidebar import page_setup
from invent_ui.text import untrusted

settings = page_setup("Evaluation", icon="🏁")
st.title("Evaluation")
CAPTION = "How well does each method's uncertainty predict a wrong answer? AUROC, PRR ↑; Brier, ECE ↓ (isotonic); each its value on the sample ± std [95 % interval] over paired bootstrap resamples."  # fmt: skip
st.caption(CAPTION)
# --- run ------------------------------------------------------------------------------------
DEFAULT_DATASET = "arithmetic"
FORM = (
    "eval_dataset",
    "eval_limit",
    state.EVAL_SEED,
    "eval_judge",
    "eval_perturber",
    "eval_levels",
)
link_view.follow(state.EVAL_PAYLOAD, "evaluation")  # a link or a reload: the one it names
reattach(state.EVAL_JOB, FORM, shows=state.EVAL_PAYLOAD)  # a running evaluation
with st.expander("Run an evaluation on a dataset sample", expanded=False):
    c1, c2, c3, c4 = st.columns(4)
    names = guarded("Listing datasets", available_datasets) or []
    dataset = c1.selectbox(
        "Dataset",
        names,
        # the packaged 0.5B answers 62 % of the arithmetic testbed right (MMLU 30 %, the
        # knowledge sets 2-6 %): the one sample where both classes are common
        index=names.index(DEFAULT_DATASET) if DEFAULT_DATASET in names else 0,
        key="eval_dataset",
        help="arithmetic: a generated testbed of graded difficulty where the packaged model "
        "is right about as often as wrong; on the knowledge sets it is almost always wrong, "
        "and no method can then tell right from wrong",
    )
    limit = c2.number_input("Questions", 2, 300, 10, key="eval_limit")
    seed = c3.number_input(
        "Sample seed",
        0,
        2**31 - 1,
        0,
        key=state.EVAL_SEED,
        help="The questions are a shuffled sample of the dataset drawn with this seed "
        "(not the first ones of the file, which are often one topic)",
    )
    judge = c4.selectbox(
        "Correctness",
        list(JUDGES),
        key="eval_judge",
        help="paraphrase: the rules, also accepting the reference in other words (offline); "
        "match: the rules alone; paraphrase-llm: the LLM decides the unclear ones; llm: the "
        "paper's judge prompt. The per-question table says why each answer was judged so",
    )
    run_cfg = settings.run_config(perturber=views.perturber_picker("eval_perturber"))
    cfg = None
    if dataset:
        population = guarded("Counting the questions", load_dataset, dataset) or []
        levels = evaluation_view.levels_picker(population)
        opts = dict(limit=int(limit), judge=judge, sample_seed=int(seed), difficulty=levels)
        cfg = guarded("The evaluation settings", ExperimentConfig, run_cfg, dataset, **opts)
        if population and cfg:  # the line the run itself will print (draw_examples on these rows)
            st.caption(untrusted(select_examples(population, cfg)[1]) + ".")
    estimate = estimate_run(
        run_cfg,
        **resources.llm_identities(settings),
        throughput=ThroughputLog(),
        n_questions=int(limit),
    )
    st.caption(
        f"{untrusted(estimate.text)}. Runs are saved, so a refresh or a larger sample resumes; "
        f"metrics are judged from {MIN_QUESTIONS} questions and {MIN_PER_CLASS} correct and "
        f"{MIN_PER_CLASS} wrong answers on (fewer: shown greyed, none marked best)."
    )
    if (
        st.button(
            "Run evaluation",
            type="primary",
            key="eval_run",
            disabled=views.job_running(state.EVAL_JOB),
        )
        and cfg
    ):
        try:
            # the levels name the folder only when some are left out: earlier work stays found
            kept = (cfg.difficulty,) if cfg.difficulty else ()
            out = resources.work_dir(
                "eval", settings.key(dataset, run_cfg.perturber, judge, int(seed), *kept)
            )
            evaluation_jobs.start(settings, cfg, out)
        except Exception as err:  # noqa: BLE001 - shown, not raised
            show_error(err, "The evaluation")

job = st.session_state.get(state.EVAL_JOB)
if job is not None and job.take():
    if job.status == "done":
        links.show(state.EVAL_PAYLOAD, job.result, job.history_id)
    elif evaluation_jobs.salvage(job) and job.status == "failed":
        # every question finished but the summary is undefined: the per-question table
        # below says why; the job's exception is no failure to show
        del st.session_state[state.EVAL_JOB]
job_panel(
    state.EVAL_JOB,
    kept="The questions that finished are shown below and saved: run the same evaluation "
    "again and they are read back, not asked again.",
)

payload = views.result_or_demo(
    state.EVAL_PAYLOAD,
    assets.DEMO_EVAL,
    what="demo evaluation",
    hint="Run your own above.",
    kind="evaluation",  # a reload shows the last evaluation made here
)
link = link_view.link_params(state.EVAL_PAYLOAD, payload, ("evaluation", assets.DEMO_EVAL))
payload = relabel_view.applied(payload)  # the reviewer's labels, metrics recomputed from them
cfg = payload_config(payload)
labels = payload.get("labels", {})
rows = payload["rows"]
n_pos = sum(int(r["correct"]) for r in rows)
judged = judgeable(len(rows), n_pos)

evaluation_view.summary_tiles(payload, cfg, n_pos)

per_question = per_question_table(payload)
# every answer judged the same: evaluate reports it; there is nothing to rank
one_class = bool(rows) and undefined_reason([int(r["correct"]) for r in rows]) is not None
if payload.get("evaluation") is None or one_class:
    st.warning(
        f"No summary metrics: {untrusted(payload.get('reason') or judged.reason)}.",
        icon=":material/info:",
    )
    st.subheader(f"Per question ({len(rows)})")
    evaluation_view.per_question(per_question)
    relabel_view.control(payload)
    st.stop()

arrays = guarded("Reading the evaluation", eval_arrays, payload)
ev = guarded("Reading the evaluation", payload_evaluation, payload)
if arrays is None or ev is None:
    st.stop()
correct, table = arrays

evaluation_view.leaderboard(ev, cfg, labels, judged, n_rows=len(rows), n_pos=n_pos)
spread_view.method_agreement(table, labels)

evaluation_view.curves(correct, table, labels, judged)
c_report, c_link = st.columns([1, 4])
with c_report:
    report_button.evaluation_report_button(payload, key="eval_report")
with c_link:
    link_view.copy_link(link, what="evaluation", key="eval_link")
with st.expander(f"Per-question answers and uncertainties ({len(rows)})"):
    evaluation_view.per_question(per_question)
relabel_view.control(payload)
