"""The Explore page's tabs: random walks, the perturbation editor, the bootstrap, the baselines.

Each renders one :class:`~invent_core.engine.pipeline.RunArtifact` (and its
:class:`~invent_core.paper.scoring.ScoreResult`) as the core computed it; the
perturbation editor hands the edited list to the page's Re-ask job, and the
baselines that ask the LLM (``Method.needs_llm``) wait for a button.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from invent_core.engine.reask import match_states
from invent_core.methods.registry import list_methods
from invent_ui import plots
from invent_ui.jobs.feedback import guarded, show_error
from invent_ui.session import resources, state
from invent_ui.session.settings import run_fingerprint
from invent_ui.text import untrusted

from . import method_jobs, results_view, tables, views
from .downloads import download_buttons


def walk_tab(run: Any, score: Any) -> None:
    """P_x, P_y, P(X|Y) heatmaps and the two walk graphs above an edge threshold."""
    c1, c2 = st.columns([1, 3])
    colorscale = c1.selectbox("Colour scale", views.COLORSCALES, key="explore_colorscale")
    c2.caption(
        "P_x and P_y are built from replication 1 of each state (as NR-Inv-Entropy); the "
        "bootstrap below resamples one replication per state B times."
    )
    views.heatmap_row(score, colorscale=colorscale, key="explore")
    m = len(run.questions)
    threshold = st.slider(
        "Edge threshold: draw transitions with probability ≥",
        0.0,
        0.5,
        value=round(1.0 / m, 3),
        step=0.005,
        format="%.3f",
        key="explore_threshold",
        help=f"1/m = {1 / m:.3f} is a uniform walk; edges above it are more likely than chance.",
    )
    g1, g2 = st.columns(2)
    graph_x = plots.walk_graph_figure(
        score.walk.p_x, texts=run.questions, threshold=threshold, title="Input walk P_x"
    )
    graph_y = plots.walk_graph_figure(
        score.walk.p_y,
        texts=views.first_answers(run.responses),
        threshold=threshold,
        title="Output walk P_y",
        prefix="y",
    )
    results_view.chart(g1, graph_x, name="input walk graph", key="explore_graph_x")
    results_view.chart(g2, graph_y, name="output walk graph", key="explore_graph_y")


def edited_perturbations(edited: pd.DataFrame) -> list[str]:
    """The editor's rows in order, blank (just added, not typed) rows left out."""
    texts = edited["perturbation"].tolist() if "perturbation" in edited else []
    return [t.strip() for t in texts if isinstance(t, str) and t.strip()]


def perturbations_tab(
    run: Any, score: Any, *, running: bool, reask: Callable[[Any, list[str]], None]
) -> None:
    """The perturbations as an editable table (Re-ask asks only what changed); the answers.

    ``reask(run, perturbations)`` starts the page's Re-ask job.
    """
    m = len(run.questions)
    st.markdown(
        f"**x0 (original):** {untrusted(run.question)}  \n"
        "**The perturbations**: edit a cell, delete rows (select, then the bin) or add your "
        "own (the + below the table); **Re-ask** asks only the changed and added rows, r "
        "times each, and scores the run again."
    )
    flags = list(run.extras.get("edited") or [False] * m)
    base = tables.perturbations_table(run.questions, score.sim_x, score.walk.p_x).iloc[1:]
    frame = pd.DataFrame(
        {
            "perturbation": base["question"].tolist(),
            "affinity to x0": base["affinity to x0"].tolist(),
            "P_x(x0 → x_i)": base["P_x(x0 → x_i)"].tolist(),
            "edited by you": [bool(f) for f in flags[1:m]],
        }
    )
    edited = st.data_editor(
        frame,
        num_rows="dynamic",
        hide_index=True,
        width="stretch",
        disabled=["affinity to x0", "P_x(x0 → x_i)", "edited by you"],
        key=f"{state.EXPLORE_EDITOR}_{run_fingerprint(run)}",
        column_config={
            "perturbation": st.column_config.TextColumn(width="large"),
            "affinity to x0": st.column_config.ProgressColumn(
                format="%.3f", min_value=0.0, max_value=1.0
            ),
            "P_x(x0 → x_i)": st.column_config.NumberColumn(format="%.4f"),
        },
    )
    wanted = edited_perturbations(edited)
    asked = sum(1 for src in match_states(run.questions, [run.question, *wanted]) if src is None)
    changed = wanted != list(run.perturbations)
    r = run.config.n_replications
    if changed:
        kept = len(wanted) - asked
        st.caption(
            f"{int(asked)} new or changed perturbation(s) → {int(asked * r)} LLM request(s) "
            f"(r = {int(r)}); {int(kept)} unchanged keep their answers; "
            f"{int(len(run.perturbations) - kept)} earlier row(s) edited or deleted."
        )
    if st.button(
        "Re-ask",
        type="primary",
        key="explore_reask",
        disabled=running or not changed or not wanted,
        help="Ask only the new or changed perturbations, then score the run again",
    ):
        try:
            reask(run, wanted)
            st.rerun()
        except Exception as err:  # noqa: BLE001 - shown, not raised
            show_error(err, "Re-asking")
    download_buttons(st, "perturbations", frame, key="explore_perturbations")
    st.markdown("**Answers: one row per question, one column per replication**")
    answers = tables.responses_table(run.questions, run.responses)
    st.dataframe(answers, width="stretch")
    download_buttons(st, "answers", answers, key="explore_answers")
    if run.raw_responses and run.raw_responses != run.responses:
        with st.expander("Raw answers before cleaning"):
            st.dataframe(tables.responses_table(run.questions, run.raw_responses), width="stretch")


def bootstrap_tab(score: Any) -> None:
    """Inv-Entropy's bootstrap histogram, the other measures' grid and the measures table."""
    labels = views.registered_method_labels()
    lo_hi = score.interval("inv_entropy") if len(score.values["inv_entropy"]) > 1 else None
    boot = plots.bootstrap_figure(score.values["inv_entropy"], label="Inv-Entropy", interval=lo_hi)
    results_view.chart(st, boot, name="bootstrap histogram", key="explore_boot")
    others = {k: v for k, v in score.values.items() if k != "inv_entropy" and len(v) > 1}
    if others:
        grid = plots.measures_grid_figure(others, labels=labels)
        results_view.chart(st, grid, name="bootstrap grid", key="explore_boot_grid")
    measures = views.measures_dataframe(score)
    st.dataframe(
        measures,
        hide_index=True,
        width="stretch",
        column_config={
            c: st.column_config.NumberColumn(format="%.4f")
            for c in ("value", "interval low", "interval high")
        },
    )
    download_buttons(st, "measures", measures, key="explore_measures")
    st.caption(
        "Shaded: 90 % percentile interval. NR-Inv-Entropy uses replication 1 only (one value)."
    )


def baselines_tab(run: Any, settings: Any) -> None:
    """Every method on the run's answers; the LLM-asking ones (``needs_llm``) behind a button."""
    methods = list_methods()
    fp = run_fingerprint(run)
    offline = tuple(m.name for m in methods if not m.needs_llm)
    needs_llm = tuple(m.name for m in methods if m.needs_llm)
    results = dict(
        guarded("Computing the baselines", resources.method_results, fp, offline, "", run, None)
        or {}
    )
    llm_key = f"{state.EXPLORE_LLM_METHODS}{fp}_{settings.key()}"
    if needs_llm:
        if st.button(
            f"Also compute {', '.join(views.registered_method_labels().get(n, n) for n in needs_llm)} "
            f"(asks {untrusted(settings.llm_label)})",
            key="explore_llm_methods",
            disabled=method_jobs.running(),
        ):
            method_jobs.start(llm_key, run, needs_llm, settings)  # a job: counter and Cancel
        method_jobs.panel(llm_key)
        results.update(st.session_state.get(llm_key) or {})
    baselines = tables.methods_table(results, methods)
    st.dataframe(
        baselines,
        hide_index=True,
        width="stretch",
        height="content",  # every method visible, no inner scroll
        column_config={
            "uncertainty": st.column_config.NumberColumn(format="%.4f"),
            "seconds": st.column_config.NumberColumn(format="%.2f"),
        },
    )
    download_buttons(st, "baselines", baselines, key="explore_baselines")
    st.caption(
        "Every method reads the same answers (higher = more uncertain). Values of different "
        "methods live on different scales; compare them across questions, not with each other. "
        + views.SIGN_NOTES
    )
