"""The dashboard's pages, in one list: the sidebar's navigation and the home page read it.

Streamlit's own page list names the home page after its file ("app"). The
config turns that list off (``client.showSidebarNavigation = false`` in
``.streamlit/config.toml``) and the sidebar draws this one instead, where the
home page is "Home". The pages are still discovered from ``pages/`` as
before, so a deep link on a fresh server works. Pure: no Streamlit.
"""

from __future__ import annotations

from typing import NamedTuple


class PageInfo(NamedTuple):
    """One page: its file (relative to app.py), its name, icon and one line on what it does."""

    path: str
    label: str
    icon: str
    text: str


HOME = PageInfo("app.py", "Home", ":material/home:", "what Inv-Entropy is, on a shipped demo run")
PAGES: tuple[PageInfo, ...] = (
    PageInfo(
        "pages/1_Explore_a_question.py",
        "Explore a question",
        ":material/search:",
        "run one question; edit its perturbations and re-ask; walks, bootstrap, baselines",
    ),
    PageInfo(
        "pages/2_Compare_embedders.py",
        "Compare embedders",
        ":material/explore:",
        "rescore the same answers with other embedders — no LLM call",
    ),
    PageInfo(
        "pages/3_GAAP_evolution.py",
        "GAAP evolution",
        ":material/genetics:",
        "watch the genetic algorithm build Per(S_x0) generation by generation",
    ),
    PageInfo(
        "pages/4_TSU.py",
        "TSU",
        ":material/thermostat:",
        "does uncertainty rise with temperature? per method, pairs and chains",
    ),
    PageInfo(
        "pages/5_Batch_scoring.py",
        "Batch scoring",
        ":material/inventory_2:",
        "upload a CSV of questions (and answers) and score them all; retry failed rows",
    ),
    PageInfo(
        "pages/6_Evaluation.py",
        "Evaluation",
        ":material/leaderboard:",
        "method × metric leaderboard on a seeded sample, ROC, rejection and reliability",
    ),
    PageInfo(
        "pages/7_History.py",
        "History",
        ":material/history:",
        "every run, trace, evaluation and sweep made here: reopen, rename, delete, download",
    ),
    PageInfo(
        "pages/8_Side_by_side.py",
        "Side by side",
        ":material/compare:",
        "two runs in columns on the same colour scales, and the measures' difference",
    ),
    PageInfo(
        "pages/9_Compare_evaluations.py",
        "Compare evaluations",
        ":material/difference:",
        "two evaluations question by question: paired differences, where they disagree",
    ),
)
