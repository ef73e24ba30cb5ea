"""TSU: does each method's uncertainty rise with the sampling temperature?"""

from __future__ import annotations

import streamlit as st

from invent_core.config import TSU_TEMPERATURES
from invent_core.evaluation.sample_size import judgeable
from invent_core.evaluation.tables import tsu_results_table
from invent_core.experiments import ExperimentConfig, tsu
from invent_core.questions.datasets import available_datasets
from invent_core.workbench.estimate import ThroughputLog, estimate_run
from invent_ui import assets, plots
from invent_ui.data.experiments import (
    parse_temperatures,
    payload_config,
    per_run_table,
    question_file,
    tsu_arrays,
    tsu_payload,
)
from invent_ui.jobs.background import CancellableLLM, start_job
from invent_ui.jobs.feedback import guarded, job_panel, reattach, show_error
from invent_ui.render import link_view, results_view, views
from invent_ui.render.downloads import download_buttons
from invent_ui.session import archive, resources, state
from invent_ui.session.sidebar import page_setup
from invent_ui.text import untrusted

settings = page_setup("TSU", icon="🌡️")
st.title("Temperature Sensitivity of Uncertainty (TSU)")
st.caption(
    "Higher temperatures flatten the model's next-token distribution, so a good uncertainty "
    "measure should grow with T. TSU (defined in the paper's §3, *Evaluation metrics*) is the "
    "share of questions whose uncertainty strictly increases along the temperatures: for a "
    "pair TSU(T1,T2), or a chain TSU(T1–Tk) over every temperature in between. No correctness "
    "labels needed."
)


def _start(cfg: ExperimentConfig, temps: list[float], out, label: str) -> None:
    """Run ``invent_core.experiments.tsu`` in a background job; keep its payload in the history."""
    llm = resources.llm_for(settings)
    ids = resources.llm_identities(settings)
    history = archive.store()

    def work(progress, cancel):
        result = tsu(
            cfg,
            temps,
            out,
            llm_factory=lambda: CancellableLLM(llm, cancel),
            progress=progress,
        )
        return tsu_payload(
            result, temps, cfg, llm=ids["llm_identity"], paraphrase_llm=ids["paraphrase_identity"]
        )

    def keep(payload) -> str:
        n = len({r["id"] for r in payload["rows"]})
        title = f"TSU · {cfg.dataset or payload['rows'][0]['question'][:80]} · {n} question(s)"
        return archive.keep_payload(history, "tsu", payload, title)

    start_job(state.TSU_JOB, work, label=label, kind="tsu", on_done=keep)


# a reload shows the running or last finished sweep, with its settings
link_view.follow(state.TSU_PAYLOAD, "tsu")  # a link or a reload: the sweep it names
reattach(
    state.TSU_JOB,
    ("tsu_source", "tsu_question", "tsu_dataset", "tsu_limit", "tsu_temps"),
    shows=state.TSU_PAYLOAD,
)
with st.expander("Run a temperature sweep", expanded=False):
    source = st.radio("On", ["a question", "a dataset slice"], horizontal=True, key="tsu_source")
    if source == "a question":
        question = st.text_input("Question", key="tsu_question")
    else:
        c1, c2 = st.columns(2)
        dataset = c1.selectbox(
            "Dataset", guarded("Listing datasets", available_datasets) or [], key="tsu_dataset"
        )
        limit = c2.number_input("Questions", 1, 300, 5, key="tsu_limit")
    paper = ", ".join(f"{t:g}" for t in TSU_TEMPERATURES)
    temps_text = st.text_input("Temperatures", paper, key="tsu_temps", help=f"paper: {paper}")
    run_cfg = settings.run_config(perturber=views.perturber_picker("tsu_perturber"))
    n_asked = 1 if source == "a question" else int(limit)
    n_runs = n_asked * max(1, len(temps_text.split(",")))
    estimate = estimate_run(
        run_cfg,
        **resources.llm_identities(settings),
        throughput=ThroughputLog(),
        n_questions=n_runs,
        reworded=n_asked,  # the other temperatures read the rewordings from the cache
    )
    st.caption(
        f"{untrusted(estimate.text)} (one run per question and temperature; sidebar n, r). "
        "Runs are saved and re-used."
    )
    if st.button(
        "Run sweep", type="primary", key="tsu_run", disabled=views.job_running(state.TSU_JOB)
    ):
        try:
            temps = parse_temperatures(temps_text)
            if source == "a question":
                if not question.strip():
                    raise ValueError("type a question in the Question box first")
                out = resources.work_dir("tsu", "question", settings.key(question.strip()))
                cfg = ExperimentConfig(run=run_cfg, data=str(question_file(question.strip(), out)))
                label = "Sweeping the temperatures"
            else:
                out = resources.work_dir("tsu", dataset, settings.key(run_cfg.perturber))
                cfg = ExperimentConfig(run=run_cfg, dataset=dataset, limit=int(limit))
                label = f"Sweeping {limit} {dataset} questions over {len(temps)} temperatures"
            _start(cfg, temps, out, label)
        except Exception as err:  # noqa: BLE001 - shown, not raised
            show_error(err, "The sweep")

job = job_panel(
    state.TSU_JOB,
    kept="Every (question, temperature) run that finished is saved: run the same sweep again "
    "and they are read back, not asked again.",
)
views.take_result(job, state.TSU_PAYLOAD)

payload = views.result_or_demo(
    state.TSU_PAYLOAD, assets.DEMO_TSU, what="demo sweep", hint="Run your own above.", kind="tsu"
)

arrays = guarded("Reading the sweep", tsu_arrays, payload)
if arrays is None:
    st.stop()
temps, questions, uq = arrays
labels = payload.get("labels", {})
cfg = payload_config(payload)
judged = judgeable(len(questions))
link = link_view.link_params(state.TSU_PAYLOAD, payload, ("tsu", assets.DEMO_TSU))
link_view.copy_link(link, what="TSU sweep", key="tsu_link")
st.markdown(
    f"**{len(questions)} question(s)** at T = {', '.join(f'{t:g}' for t in temps)} · "
    f"perturber {untrusted(cfg.run.perturber)} · n = {untrusted(cfg.run.n_perturbations)} · "
    f"r = {untrusted(cfg.run.n_replications)}"
)

st.subheader("Uncertainty versus temperature")
c1, c2 = st.columns([3, 1])
default = views.default_methods(uq)
shown = c1.multiselect(
    "Methods",
    list(uq),
    default=default or list(uq)[:4],
    format_func=lambda m: labels.get(m, m),
    key="tsu_methods",
)
normalize = c2.toggle("Scale each method to [0, 1]", value=True, key="tsu_normalize")
if len(questions) > 1:
    pick = st.selectbox(
        "Question", ["mean over all questions", *questions], key="tsu_pick_question"
    )
else:
    pick = questions[0]
curves = {
    m: uq[m] if pick.startswith("mean over") else uq[m][[questions.index(pick)]] for m in shown
}
curves_fig = plots.uq_temperature_figure(temps, curves, labels=labels, normalize=normalize)
results_view.chart(st, curves_fig, name="uncertainty vs temperature", key="tsu_curves")

st.subheader("TSU per method")
table = payload["tsu"]  # what invent_core.experiments.tsu computed
results_view.leaderboard(
    tsu_results_table(table, labels=labels),
    judged=judged.ok,
    name="TSU table",
    key="tsu_table",
    latex_caption=f"TSU (%): {judged.reason}",
)
shares = (
    "TSU in %: the share of questions whose uncertainty strictly increases from the lower to the "
    "higher temperature (pairs) or along every temperature of the chain (–)."
)
if judged.ok:
    st.caption(f"{shares} {judged.reason}. Bold: best per column.")
else:
    st.caption(
        f"{shares} **{judged.reason}**: with {len(questions)} question(s) a share can only be "
        f"{', '.join(f'{k / len(questions):.0%}' for k in range(min(len(questions), 4) + 1))}"
        f"{' …' if len(questions) > 4 else ''}, so the values are greyed and none is marked best."
    )
by_column: dict[str, dict[str, float]] = {}
for m, row in table.items():
    for col, v in row.items():
        by_column.setdefault(col, {})[m] = v
bars = plots.tsu_bar_figure(by_column, labels=labels)
results_view.chart(st, bars, name="TSU bars", key="tsu_bars")

with st.expander(
    f"Per question and temperature ({len(payload['rows'])} runs)", expanded=not judged.ok
):
    per_run = per_run_table(payload)
    st.dataframe(per_run, hide_index=True, width="stretch")
    download_buttons(st, "TSU per run", per_run, key="tsu_per_run")
