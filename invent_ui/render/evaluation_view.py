"""The Evaluation page's blocks: summary tiles, the leaderboard with its caption, the curves.

They render an evaluation payload (:mod:`invent_ui.data.experiments`) as the core
judged it: the leaderboard is greyed and unmarked below the minimum sample
(:func:`invent_core.evaluation.sample_size.judgeable`), and no curve is drawn
when :func:`invent_core.evaluation.metrics.undefined_reason` says why not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from invent_core.evaluation.advice import model_advice
from invent_core.evaluation.tables import results_table
from invent_core.experiments import difficulty_levels
from invent_core.experiments.made_with import NOT_RECORDED, made_with, older_than_today
from invent_core.experiments.result import degenerate_line
from invent_ui.data.experiments import degenerate_count
from invent_ui.text import made_with_line, untrusted

from . import results_view, views
from .downloads import download_buttons

#: What each correctness judge accepts, under the tiles (the reasons are in the per-question table).
JUDGE_NOTES = {
    "paraphrase": "the dataset's rule, also accepting the reference in other words "
    "(WordNet synonyms, kinds, numbers); 96 % agreement with hand labels on SciQ "
    "(docs/results/judge_agreement.md).",
    "match": "the dataset's rule alone (the reference's own words).",
    "paraphrase-llm": "as paraphrase, the answers it cannot decide asked of the LLM.",
    "llm": "the paper's LLM judge prompt.",
}


def summary_tiles(payload: Mapping[str, Any], cfg: Any, n_pos: int) -> None:
    """Dataset, questions, accuracy and perturber · n · r tiles; the model advice under them."""
    rows = payload["rows"]
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("dataset", untrusted(cfg.dataset or "uploaded file"))
    c2.metric(
        "questions",
        len(rows),
        help=f"seed {untrusted(cfg.sample_seed)}" if cfg.sample_seed is not None else None,
    )
    c3.metric(
        "accuracy",
        f"{n_pos / len(rows):.0%}" if rows else "–",
        help=f"{int(n_pos)} of {len(rows)} correct",
    )
    c4.metric(
        "perturber · n · r",
        " · ".join(
            untrusted(v)
            for v in (cfg.run.perturber, cfg.run.n_perturbations, cfg.run.n_replications)
        ),
    )
    st.caption(
        f"Correctness judged by **{untrusted(cfg.judge)}**; {JUDGE_NOTES.get(cfg.judge, '')}"
    )
    llm = str(payload.get("llm") or "")
    advice = model_advice(n_pos / len(rows), len(rows), llm) if rows else None
    if advice:
        st.warning(untrusted(advice), icon=":material/lightbulb:")
    made_with_note(payload)
    degenerate_note(payload)


def made_with_note(payload: Mapping[str, Any]) -> None:
    """How the evaluation was made: gate, rewording rules, ψ_y and padding.

    Each setting older than today's defaults goes in a box, in RESULTS' words
    (:mod:`invent_core.experiments.made_with`).
    """
    made = made_with(payload, NOT_RECORDED)
    st.caption(f"Made with: {made_with_line(made)}.")
    older = older_than_today(payload, NOT_RECORDED)
    if older:
        st.info(
            "**Made with settings older than today's defaults:** "
            + "; ".join(
                f"{untrusted(k)} {untrusted(then)} (today {untrusted(now)})"
                for k, (then, now) in older.items()
            )  # fmt: skip
            + ". Its numbers are those of its own settings; an evaluation made today would "
            "differ.",
            icon=":material/history:",
        )


def degenerate_note(payload: Mapping[str, Any]) -> None:
    """How many questions are degenerate (their scores say nothing), or that it was not recorded."""
    n, total = degenerate_count(payload), len(payload["rows"])
    if n is None:
        st.caption(
            "Degenerate questions (every perturbation a copy of the question): not recorded in "
            "this evaluation, made before they were named."
        )
    elif n:
        st.warning(
            f"{untrusted(degenerate_line(n, total, files='the per-question table'))}.",
            icon=":material/content_copy:",
        )


def per_question(table: Any) -> None:
    """The per-question table and its downloads."""
    st.dataframe(table, hide_index=True, width="stretch")
    download_buttons(st, "per-question results", table, key="eval_per_question")


def leaderboard(
    ev: Any, cfg: Any, labels: Mapping[str, str], judged: Any, *, n_rows: int, n_pos: int
) -> None:
    """Method × metric leaderboard of an :class:`~invent_core.evaluation.metrics.Evaluation`.

    ``n_rows`` questions, ``n_pos`` of them answered right, are what the figures rest on.
    """
    st.subheader("Leaderboard")
    results_view.leaderboard(
        results_table(ev, labels=labels),
        judged=judged.ok,
        name="leaderboard",
        key="eval_leaderboard",
        latex_caption=f"{cfg.dataset}: {judged.reason}",
    )
    boot = (
        f"Value on the sample ± std [95 % interval] over B = {ev.n_bootstrap} paired "
        "bootstrap resamples."
        if ev.centre == "sample"
        else f"Mean ± std over B = {ev.n_bootstrap} paired bootstrap resamples (the paper's)."
    )
    if judged.ok:
        st.caption(
            f"{judged.reason}. {boot} Bold: best per column; underlined: second. "
            "↑ higher is better, ↓ lower is better."
        )
    else:
        st.caption(
            f"**{judged.reason}**: the values are shown greyed and no method is marked "
            f"best; each rests on n = {int(n_rows)} questions ({int(n_pos)} correct). {boot}"
        )
    if ev.skipped:
        st.caption(
            "Not available on this run: "
            + ", ".join(
                f"{untrusted(labels.get(m, m))} ({untrusted(why)})" for m, why in ev.skipped.items()
            )
        )


def curves(correct: Any, table: Mapping[str, Any], labels: Mapping[str, str], judged: Any) -> None:
    """ROC, rejection and reliability curves of the methods picked, or why there are none."""
    st.subheader("Curves")
    default = views.default_methods(table)
    shown = st.multiselect(
        "Methods to draw",
        list(table),
        default=default or list(table)[:4],
        format_func=lambda m: labels.get(m, m),
        key="eval_methods",
    )
    if not shown:
        st.info("Pick at least one method to draw.")
        return
    reason = results_view.curves_undefined(correct)
    if reason is not None:
        st.info(
            f"No ROC, rejection or reliability curve: {untrusted(reason)}, and the curves compare right "
            "answers with wrong ones. The per-question table above has every score."
        )
        return
    n_bins = st.slider(
        "Reliability bins",
        3,
        15,
        5,
        key="eval_bins",
        help="equal-width bins of calibrated P(correct)",
    )
    sel = {m: table[m] for m in shown}
    results_view.class_curves(correct, sel, labels=labels, key="eval", n_bins=n_bins)
    n_pos = int(sum(int(c) for c in correct))
    st.caption(
        f"Every curve rests on n = {len(correct)} questions ({int(n_pos)} correct); "
        f"{judged.reason}."
    )


def levels_picker(population: list) -> tuple[int, ...] | None:
    """Offer the difficulty levels of a sample that has them (the testbed); None: every level.

    A stronger model is right on most of the easy levels (the optional 1.5B on 80 % of the
    whole testbed, 57 % of levels 4-5), so a fair share of wrong answers needs the hard ones.
    """
    have = difficulty_levels(population)
    if not have:
        return None
    chosen = st.multiselect(
        "Difficulty levels",
        have,
        default=have,
        key="eval_levels",
        help="Keep only questions of these levels (1 easy … 5 hard) before the draw: a model "
        "that gets the easy ones right leaves too few wrong answers to judge a method",
    )
    if not chosen:
        st.warning("Choose at least one difficulty level; until then every level is kept.")
    return None if not chosen or len(chosen) == len(have) else tuple(sorted(chosen))
