"""invent dashboard — home page. Run with ``streamlit run app.py``.

A shell over invent_core: every number here comes from the library; the shipped
demo run (assets/demo_run.json, made by scripts/make_demo_run.py with the real
pipeline) lets every page show real charts before anything is computed.
"""

from __future__ import annotations

import streamlit as st

from invent_ui import views
from invent_ui.navigation import PAGES
from invent_ui.resources import demo_run
from invent_ui.sidebar import page_setup

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

st.subheader("A shipped demo run")
run = demo_run()
st.markdown(f"**Question:** {run.question}")
st.markdown(f"**Answers to the original question:** {' · '.join(run.responses[0])}")
st.caption(views.run_caption(run))
views.measure_metrics(run.score)
left, right = st.columns([3, 2])
with left:
    views.heatmap_row(run.score, colorscale="Blues", key="home", which=("p_x_given_y",))
with right:
    st.markdown(
        """
Row *j* of **P(X | Y)** is the walk's distribution over the questions given answer
*y_j*; Inv-Entropy reads its diagonal, the probability P(x_j | y_j) of getting back
to the question that produced the answer. Hover a cell to read the question and the
answer behind it. Open **Explore a question** for the whole run.
"""
    )
