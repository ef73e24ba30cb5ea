"""invent dashboard — home page. Run with ``streamlit run app.py``.

A shell over invent_core: every number here comes from the library; the shipped
pair (assets/demo_pair.json, scripts/make_demo_pair.py: one question the packaged model
answers right and one it answers wrong, from a real evaluation) shows what the number means.
"""

from __future__ import annotations

import streamlit as st

from invent_ui import plots
from invent_ui.render import views
from invent_ui.session.navigation import PAGES
from invent_ui.session.resources import demo_pair
from invent_ui.session.sidebar import page_setup
from invent_ui.text import untrusted

settings = page_setup("Home", icon="🎲")

st.title("invent — how uncertain is this LLM answer?")
st.markdown(
    """
**Inv-Entropy** (Song et al., NeurIPS 2025) measures how unsure a language model is about a
question by *perturbing* it: the question is paraphrased (or evolved by **GAAP**) into *n*
variants, the model answers each one *r* times, and questions and answers become two
random walks over their semantic similarities. From them comes **P(X | Y)**, the
probability of each question given an answer; Inv-Entropy sums −p log p of
P(x_i | y_i) over the states and averages it over bootstrap resamples of the answers.
Higher means more uncertain. Everything runs locally: a packaged Qwen2.5 model answers,
a packaged SBERT model embeds, nothing leaves this machine unless you pick a server.
"""
)

st.subheader("Pages")
cols = st.columns(3)
for k, page in enumerate(PAGES):
    with cols[k % 3]:
        st.page_link(page.path, label=page.label, icon=page.icon)
        st.caption(page.text)

st.subheader("One answer right, one wrong")
pair = demo_pair()
runs = [item["run"] for item in pair]
zrange = plots.shared_range([r.score.walk.p_x_given_y for r in runs])
for col, item in zip(st.columns(2), pair):
    run = item["run"]
    with col:
        mark = ":green[**Answered right:**]" if item["correct"] else ":red[**Answered wrong:**]"
        st.markdown(f"{mark} **{untrusted(run.question)}**")
        st.markdown(
            f"Answers: {' · '.join(untrusted(a) for a in run.responses[0])}  \n"
            f"Expected: {untrusted(item['reference'])}"
        )
        value = run.score.measures["inv_entropy"]
        st.metric("Inv-Entropy", f"{value:.3f}", help="higher = more uncertain")
        views.reference_panel(run, key=f"home_{item['label']}")
        fig = plots.walk_heatmaps(
            run.score.walk,
            run.questions,
            views.first_answers(run.responses),
            colorscale="Blues",
            zrange=zrange,
        )["p_x_given_y"]
        st.plotly_chart(fig, key=f"home_p_x_given_y_{item['label']}")
st.caption(
    f"Two shipped runs of the packaged 0.5B model from {untrusted(pair[0]['source'])} "
    f"({untrusted(pair[0]['rule'])}), scored with the default settings; {views.run_caption(runs[0])}. "
    "Row *j* of **P(X | Y)** is the walk's distribution over the questions given answer *y_j*; "
    "Inv-Entropy reads its diagonal, P(x_j | y_j). One colour scale for both. The golfer "
    "question of the paper's GAAP example is the demo on **Explore a question**."
)
views.demo_note(pair[0].get("provenance"))
