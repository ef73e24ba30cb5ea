"""Side by side: two runs in columns, on the same colour scales, with the measures' difference."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from invent_core.engine.artifact import RunArtifact
from invent_core.engine.pipeline import run_question
from invent_ui import plots
from invent_ui.jobs.background import CancellableLLM, start_job
from invent_ui.jobs.feedback import guarded, job_panel, show_error
from invent_ui.render import link_view, results_view, views
from invent_ui.render.downloads import download_buttons
from invent_ui.session import archive, links, resources, state
from invent_ui.session.sidebar import page_setup
from invent_ui.text import untrusted

settings = page_setup("Side by side", icon="⚖️")
st.title("Side by side")
st.caption(
    "Two runs in columns — two questions, paraphrase vs GAAP on one question, or one question "
    "at two temperatures — on one colour scale per matrix, with each measure's difference "
    "(right − left). Pick them from the history, or make them here."
)
MODES = ("two questions", "paraphrase vs GAAP", "two temperatures")


def _pair_settings(mode: str, q1: str, q2: str, t1: float, t2: float):
    """The (question, config) of the left and right run for ``mode``."""
    base = settings.run_config()
    if mode == "two questions":
        return (q1, base), (q2, base)
    if mode == "paraphrase vs GAAP":
        return (q1, base.replace(perturber="paraphrase")), (q1, base.replace(perturber="gaap"))
    return (q1, base.replace(temperature=t1)), (q1, base.replace(temperature=t2))


def _start_pair(pair) -> None:
    llm = resources.llm_for(settings)
    emb = resources.embedder(settings.run.embedder)
    history = archive.store()

    def work(progress, cancel):
        runs = []
        for question, cfg in pair:
            runs.append(
                run_question(
                    question,
                    cfg,
                    llm=CancellableLLM(llm, cancel),
                    progress=progress,
                    embedder=emb,
                )
            )
        return {"left": archive.run_payload(runs[0]), "right": archive.run_payload(runs[1])}

    def keep(payload) -> str:
        for side in ("left", "right"):
            archive.keep_run(history, RunArtifact.from_dict(payload[side]))
        title = f"{payload['left']['question'][:80]} ↔ {payload['right']['question'][:80]}"
        return archive.keep_payload(history, "comparison", payload, title)

    start_job(state.SIDE_JOB, work, label="Making both runs", on_done=keep)


# --- choose ---------------------------------------------------------------------------------
links.follow_link(state.SIDE_BY_SIDE, "comparison")  # a link or a reload: the one it names
entries = guarded("Reading the history", archive.store().list, "run") or []
titles = {e.id: f"{e.title[:70]} · {e.settings_summary} · {e.created[:16]}" for e in entries}
pick_tab, make_tab = st.tabs(["Pick two runs from the history", "Make two runs now"])
with pick_tab:
    if len(entries) < 1:
        st.info("No run kept yet: make two here, or run questions on *Explore a question*.")
    else:
        c1, c2 = st.columns(2)  # by default the newest run on the right, the one before it left
        left_id = c1.selectbox(
            "Left",
            list(titles),
            index=min(1, len(titles) - 1),
            format_func=titles.get,
            key="side_left",
        )
        right_id = c2.selectbox("Right", list(titles), format_func=titles.get, key="side_right")
        if st.button("Show these two", type="primary", key="side_show"):
            store = archive.store()
            payload = {"left": store.load(left_id), "right": store.load(right_id)}
            links.show(state.SIDE_BY_SIDE, payload, None)
with make_tab:
    mode = st.radio("Compare", MODES, horizontal=True, key="side_mode")
    q1 = st.text_input("Question" if mode != "two questions" else "Left question", key="side_q1")
    q2, t1, t2 = "", 0.3, 1.0
    if mode == "two questions":
        q2 = st.text_input("Right question", key="side_q2")
    if mode == "two temperatures":
        c1, c2 = st.columns(2)
        t1 = c1.slider("Left temperature", 0.0, 2.0, 0.3, 0.1, key="side_t1")
        t2 = c2.slider("Right temperature", 0.0, 2.0, 1.0, 0.1, key="side_t2")
    st.caption(
        f"n = {int(settings.run.n_perturbations)}, r = {int(settings.run.n_replications)}, "
        f"{untrusted(settings.llm_label)} (sidebar); both runs are kept in the history."
    )
    if st.button("Make both runs", key="side_run", disabled=views.job_running(state.SIDE_JOB)):
        if not q1.strip() or (mode == "two questions" and not q2.strip()):
            st.error("Type the question(s) first.")
        else:
            try:
                _start_pair(_pair_settings(mode, q1.strip(), q2.strip(), t1, t2))
            except Exception as err:  # noqa: BLE001 - shown, not raised
                show_error(err, "Starting the runs")

job = job_panel(
    state.SIDE_JOB,
    kept="Answers received are in the answer cache: make the runs again and they are re-used.",
)
views.take_result(job, state.SIDE_BY_SIDE)

payload = st.session_state.get(state.SIDE_BY_SIDE)
if payload is None and len(entries) >= 2:  # the two picked (by default the newest) runs
    store = archive.store()
    payload = guarded(
        "Reading the history",
        lambda: {"left": store.load(left_id), "right": store.load(right_id)},
    )
if payload is None:
    st.info("Pick two runs or make them above.", icon=":material/lightbulb:")
    st.stop()
runs = {
    side: guarded(f"Reading the {side} run", RunArtifact.from_dict, payload[side])
    for side in ("left", "right")
}
if None in runs.values():
    st.stop()
left, right = runs["left"], runs["right"]
if payload is st.session_state.get(state.SIDE_BY_SIDE):  # made here or opened from a link
    link = link_view.link_params(state.SIDE_BY_SIDE, payload)
    link_view.copy_link(link, what="comparison", key="side_link")

# --- show -----------------------------------------------------------------------------------
cols = st.columns(2)
for col, (side, run) in zip(cols, runs.items()):
    col.markdown(f"**{side.title()}: {untrusted(run.question)}**")
    col.caption(views.run_caption(run))
    views.run_answer(run, col)
    views.gaap_warning(run, col)

labels = views.registered_method_labels()
names = [n for n in left.measures if n in right.measures]
measures = pd.DataFrame(
    {
        "measure": [labels.get(n, n) for n in names],
        "left": [left.measures[n] for n in names],
        "right": [right.measures[n] for n in names],
        "right − left": [right.measures[n] - left.measures[n] for n in names],
    }
)
st.subheader("Measures")
st.dataframe(
    measures,
    hide_index=True,
    width="stretch",
    column_config={c: st.column_config.NumberColumn(format="%.4f") for c in measures.columns[1:]},
)
st.caption("Higher = more uncertain; a positive difference: the right run is more uncertain.")
bars = plots.measures_comparison_figure(
    {"left": left.measures, "right": right.measures}, labels=labels, title="Measures, left vs right"
)
st.plotly_chart(bars, key="side_bars")
download_buttons(
    st, "side-by-side measures", measures, figure=bars, key="side_measures", png_note=False
)

st.subheader("Matrices on one colour scale")
which, colorscale = results_view.matrix_picker("side")
zrange = results_view.heatmaps_on_one_scale(
    {s: (r.score.walk, r.questions, views.first_answers(r.responses)) for s, r in runs.items()},
    which=which,
    colorscale=colorscale,
    key="side_heat",
)
st.caption(f"One scale for both: {zrange[0]:.3f} … {zrange[1]:.3f}.")
