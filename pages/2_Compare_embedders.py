"""Compare embedders: the same answers rescored with two or three embedders ψ or answer
similarities ψ_y — no new generation (ψ_y's judge option asks its judge, cached)."""

from __future__ import annotations

import dataclasses

import streamlit as st

from invent_core.embedders import available_embedders
from invent_core.responses.same import ANSWER_SIMILARITIES
from invent_ui import assets, plots
from invent_ui.jobs.feedback import guarded
from invent_ui.render import link_view, results_view, tables, views
from invent_ui.render.downloads import download_buttons
from invent_ui.session import resources, state
from invent_ui.session.settings import EMBEDDER_LABELS, run_fingerprint
from invent_ui.session.sidebar import page_setup
from invent_ui.text import untrusted

settings = page_setup("Compare embedders", icon="🧭")
st.title("Compare embedders")
st.caption(
    "The embedder ψ decides what 'similar' means, and ψ_y how two answers are compared. Here "
    "the same questions and answers are scored again with other embedders or answer "
    "similarities (run.rescore: no new generation; only ψ_y's judge asks an LLM, cached)."
)

# the run Explore shows (a link's entry, else the newest run kept here), else the demo
link_view.follow(state.EXPLORE_RUN, "run")
run = st.session_state.get(state.EXPLORE_RUN)
if run is None:
    run = views.latest_kept("run", "run", state.EXPLORE_RUN)
source, demo = "the run shown on *Explore a question*", None
if run is None:
    run, demo = resources.demo_run(), ("run", assets.DEMO_RUN)
    source = "the shipped demo run"
st.markdown(f"Rescoring {source}: **{untrusted(run.question)}**")
if demo is not None:
    views.demo_note(run.provenance)
link_view.copy_link(link_view.link_params(state.EXPLORE_RUN, run, demo), what="run", key="cmp_link")
st.caption(views.run_caption(run))

vary = st.radio(
    "Compare",
    ["embedders (ψ)", "answer similarities (ψ_y)"],
    horizontal=True,
    key="compare_vary",
    help="ψ compares questions and answers for the walk; ψ_y is how two answers are "
    "compared (--answer-similarity). Only the judge option may ask an LLM, once per "
    "undecided pair of answers, through the cache.",
)
by_embedder = vary.startswith("embedders")
if by_embedder:
    options = available_embedders()
    if settings.run.embedder not in options:
        options.append(settings.run.embedder)
    chosen = st.multiselect(
        "Embedders (two or three)",
        options,
        default=options[:3],
        max_selections=3,
        format_func=lambda s: EMBEDDER_LABELS.get(s, f"NLI · {s}"),
        key="compare_embedders",
    )
    # every scoring option of the run (B, seed, affinity …) but ψ
    variants = {n: dataclasses.replace(run.config.score, embedder=n) for n in chosen}
else:
    chosen = st.multiselect(
        "Answer similarities (two or three)",
        list(ANSWER_SIMILARITIES),
        default=["embedding", "rules", "canonical"],
        max_selections=3,
        key="compare_similarities",
    )
    judge = settings.run.score.answer_judge
    variants = {
        n: dataclasses.replace(run.config.score, answer_similarity=n, answer_judge=judge)
        for n in chosen
    }
    if "judge" in chosen:
        st.caption(f"The judge option asks {untrusted(judge)} (the sidebar's *answer judge*) about the "
                   "answer pairs the rules leave undecided; its answers are cached.")  # fmt: skip
what = "embedder" if by_embedder else "answer similarity"
if len(chosen) < 2:
    st.info(f"Pick at least two {'embedders' if by_embedder else 'answer similarities'}.")
    st.stop()

fp = run_fingerprint(run)
scores = {}
with st.spinner("Rescoring (the stored answers, no new generation)…"):
    for name, config in variants.items():
        res = guarded(f"Rescoring with {name}", resources.rescored, fp, config.to_dict(), run)
        if res is not None:
            scores[name] = res
if len(scores) < 2:
    st.stop()

labels = views.registered_method_labels()
st.subheader("Measures")
table = tables.comparison_table({n: s.measures for n, s in scores.items()}, labels=labels)
spread_max = float(table["spread"].max())
st.dataframe(tables.style_comparison(table), width="stretch", height="content")
download_buttons(st, f"{what} comparison", table, key="compare_table")
st.caption(
    f"Orange cells differ by more than 5 % from the first {what}; `spread` = max − min across "
    f"them, shaded only where it is more than 5 % of the first one's value (darker = "
    f"more disagreement; largest spread {spread_max:.4f}). "
    f"B = {untrusted(run.config.score.n_bootstrap)} bootstrap resamples, the run's seed "
    f"({untrusted(run.config.seed)}) and affinity ({untrusted(run.config.score.affinity)}) for "
    f"every {what}."
)
bars = plots.measures_comparison_figure({n: s.measures for n, s in scores.items()}, labels=labels)
st.plotly_chart(bars, key="compare_bars")
download_buttons(st, f"{what} comparison chart", figure=bars, key="compare_bars", png_note=False)

st.subheader("Matrices side by side")
which, colorscale = results_view.matrix_picker("compare")
answers = views.first_answers(run.responses)
results_view.heatmaps_on_one_scale(
    {name: (sc.walk, run.questions, answers) for name, sc in scores.items()},
    which=which,
    colorscale=colorscale,
    key="compare_heat",
    titles={name: EMBEDDER_LABELS.get(name, name) for name in scores},
)

base_name, base = next(iter(scores.items()))
st.subheader(f"Differences from {untrusted(EMBEDDER_LABELS.get(base_name, base_name))}")
diff_cols = st.columns(len(scores) - 1)
xs = plots.state_labels(len(run.questions), "x")
ys = plots.state_labels(len(run.questions), "y")
row_texts = run.questions if which == "p_x" else answers
col_texts = answers if which == "p_y" else run.questions
for col, (name, sc) in zip(diff_cols, list(scores.items())[1:]):
    if plots.same_matrix(getattr(base.walk, which), getattr(sc.walk, which)):
        col.info(  # a blank chart would look like a failure; say why there is nothing to draw
            f"{untrusted(name)} − {untrusted(base_name)}: no difference, the two give the same matrix"
            + ("" if by_embedder else " (P_x is built from the questions; ψ_y compares answers)")
            + ".",
            icon=":material/drag_handle:",
        )
        continue
    diff = plots.difference_heatmap(
        getattr(base.walk, which),
        getattr(sc.walk, which),
        labels=xs if which == "p_x" else ys,
        col_labels=ys if which == "p_y" else xs,
        row_texts=row_texts,
        col_texts=col_texts,
        title=f"{name} − {base_name}",
    )
    results_view.chart(col, diff, name=f"{name} difference heatmap", key=f"compare_diff_{name}")
st.caption(f"Red: the other {what} puts more probability there; blue: less.")
