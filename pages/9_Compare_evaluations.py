"""Compare evaluations: two evaluations (or two methods of one) question by question.

Pairs the questions, shows each metric's paired difference A − B with its 95 %
interval over the same bootstrap resamples, and lists the questions where the
two disagree most, each one click from its saved run. The reviewer's relabels
(Evaluation page) are applied. Opens on two shipped evaluations of a checkout.
"""

from __future__ import annotations

import streamlit as st

from invent_ui.data.evaluation_folders import SHIPPED, evaluation_folders
from invent_ui.jobs.feedback import guarded
from invent_ui.render import compare_view
from invent_ui.session import resources
from invent_ui.session.sidebar import page_setup

page_setup("Compare evaluations", icon="🆚")
st.title("Compare evaluations")
st.caption(
    "Baseline against contender on the same questions: each metric's paired difference with "
    "its interval, and the questions where the two disagree most. No LLM call."
)
#: The shipped pair the page opens on: one sample reworded by the LLM, then by GAAP.
DEFAULTS = ("shipped/evaluate-arithmetic-100", "shipped/evaluate-arithmetic-100-gaap")

known = evaluation_folders([("shipped", SHIPPED), ("made here", resources.work_dir("eval"))])
if not known:
    st.info("No evaluation to compare yet: run one on the **Evaluation** page first.")
    st.stop()
picked = compare_view.choice(known, DEFAULTS)
if picked is None:
    st.stop()
compare_view.made_with_block(picked["folders"])
res = guarded(
    "Comparing",
    compare_view.compared,
    picked["folders"],
    picked["methods"],
    picked["opts"],
    compare_view.stamp(picked["folders"]),
)
if res is None:
    st.caption("Evaluations over different questions: tick **Shared questions only**.")
    st.stop()
compare_view.differences(res)
compare_view.disagreements(res)
