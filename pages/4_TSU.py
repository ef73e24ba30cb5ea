"""TSU: does each method's uncertainty rise with the sampling temperature?"""

from __future__ import annotations

import streamlit as st

from invent_ui import assets, plots, resources, tables, views
from invent_ui.feedback import StageProgress, guarded, missing, show_error
from invent_ui.sidebar import page_setup

settings = page_setup("TSU", icon="🌡️")
st.title("Temperature Sensitivity of Uncertainty (TSU)")
st.caption(
    "Higher temperatures flatten the model's next-token distribution, so a good uncertainty "
    "measure should grow with T. TSU (paper Eq. tsudefinition) is the share of questions whose "
    "uncertainty strictly increases along the temperatures: for a pair TSU(T1,T2), or a chain "
    "TSU(T1–Tk) over every temperature in between. No correctness labels needed."
)
if missing("invent_core.experiment", "invent_core.evaluation.metrics", feature="TSU"):
    st.stop()

from invent_core.datasets import available_datasets
from invent_core.evaluation.metrics import tsu_table
from invent_core.evaluation.report import tsu_results_table
from invent_core.experiment import ExperimentConfig, default_tsu_columns
from invent_ui.experiments import parse_temperatures, question_sweep, tsu_arrays, tsu_payload

RESULT_KEY = "tsu_payload"

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
    c3, c4 = st.columns(2)
    temps_text = c3.text_input(
        "Temperatures", "0.3, 0.7, 1.0, 1.4", key="tsu_temps", help="paper: 0.3, 0.7, 1.0, 1.4"
    )
    perturber = c4.selectbox("Perturber", ["paraphrase", "gaap"], key="tsu_perturber")
    st.caption(
        f"Each question costs {(settings.n_perturbations + 1) * settings.n_replications} answers per "
        f"temperature from {settings.llm_label} (sidebar n, r); runs are saved and reused."
    )
    if st.button("Run sweep", type="primary", key="tsu_run"):
        try:
            temps = parse_temperatures(temps_text)
            common = dict(
                perturber=perturber,
                n_perturbations=settings.n_perturbations,
                n_replications=settings.n_replications,
                n_bootstrap=settings.n_bootstrap,
                seed=settings.seed,
                embedder=settings.embedder,
            )
            if source == "a question":
                if not question.strip():
                    raise ValueError("type a question first")
                cfg = ExperimentConfig(data="dashboard question", **common)
                with StageProgress("Sweeping the temperatures") as prog:
                    payload = question_sweep(
                        question.strip(),
                        temps,
                        cfg,
                        resources.work_dir("tsu", "question", settings.key()),
                        resources.llm_for(settings),
                        progress=lambda done, total, note: prog(note, done, total),
                    )
            else:
                from invent_core.experiment import tsu

                cfg = ExperimentConfig(dataset=dataset, limit=int(limit), **common)
                with StageProgress(
                    f"Sweeping {limit} {dataset} questions over {len(temps)} temperatures"
                ) as prog:
                    result = tsu(
                        cfg,
                        temps,
                        resources.work_dir("tsu", dataset, settings.key(perturber)),
                        llm_factory=lambda: resources.llm_for(settings),
                        progress=lambda done, total, note: prog("runs", done, total),
                    )
                payload = tsu_payload(result.rows, result.methods, temps, cfg)
            st.session_state[RESULT_KEY] = payload
        except Exception as err:  # noqa: BLE001 - shown, not raised
            show_error(err, "The sweep")

payload = views.result_or_demo(
    RESULT_KEY,
    assets.DEMO_TSU,
    what="demo sweep",
    script="scripts/make_demo_tsu.py",
    hint="Run your own above.",
)

arrays = guarded("Reading the sweep", tsu_arrays, payload)
if arrays is None:
    st.stop()
temps, questions, uq = arrays
labels = payload.get("labels", {})
cfg = payload.get("config", {})
st.markdown(
    f"**{len(questions)} question(s)** at T = {', '.join(f'{t:g}' for t in temps)} · "
    f"perturber {cfg.get('perturber')} · n = {cfg.get('n_perturbations')} · r = {cfg.get('n_replications')}"
)

st.subheader("Uncertainty versus temperature")
c1, c2 = st.columns([3, 1])
default = [
    m
    for m in ("inv_entropy", "nr_inv_entropy", "semantic_entropy", "kernel_entropy", "lexsim")
    if m in uq
]
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
st.plotly_chart(
    plots.uq_temperature_figure(temps, curves, labels=labels, normalize=normalize), key="tsu_curves"
)

st.subheader("TSU per method")
pairs, chains = default_tsu_columns(temps)
table = guarded(
    "Computing TSU", tsu_table, uq, temps, pairs=pairs, chains=chains, nan_policy="omit"
)
if table is None:
    st.stop()
rt = tsu_results_table(table, labels=labels)
df, marks = tables.results_frame(rt)
st.dataframe(tables.style_marks(df, marks), width="stretch", height=36 * (len(df) + 1) + 3)
st.caption(
    "TSU in %: the share of questions whose uncertainty strictly increases from the lower to the "
    "higher temperature (pairs) or along every temperature of the chain (–). Bold: best per column."
)
by_column: dict[str, dict[str, float]] = {}
for m, row in table.items():
    for col, v in row.items():
        by_column.setdefault(col, {})[m] = v
st.plotly_chart(plots.tsu_bar_figure(by_column, labels=labels), key="tsu_bars")
