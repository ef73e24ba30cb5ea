"""Streamlit blocks shared by several pages: they render what invent_core computed."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import streamlit as st

from invent_core.evaluation.advice import model_advice
from invent_core.evaluation.correctness import judge_correct
from invent_core.evaluation.reference import (
    MIN_NEAR,
    calibration_note,
    record_source,
    record_values,
    settings_mismatch,
)
from invent_core.llm.names import describe_llm
from invent_core.methods.registry import list_methods
from invent_core.perturb import available_perturbers, get_perturber
from invent_core.perturb.gaap import GaapResult
from invent_core.perturb.gaap_sampling import member_flags
from invent_core.perturb.gate import acceptance_line, distinct_warning
from invent_ui import assets, plots
from invent_ui.data.answers import majority_answer
from invent_ui.jobs.feedback import guarded
from invent_ui.session import archive, links, own_reference, places, resources, state
from invent_ui.text import untrusted

from . import tables
from .downloads import download_buttons

#: Colour scales offered for heatmaps (display-only).
COLORSCALES: tuple[str, ...] = ("Blues", "Viridis", "Cividis", "Magma", "Greens")


@lru_cache(maxsize=1)
def registered_method_labels() -> dict[str, str]:
    """Registry name → label as printed in the paper (e.g. ``inv_entropy`` → ``Inv-Entropy``)."""
    return {m.name: m.label for m in list_methods()}


def first_answers(responses: list[list[str]]) -> list[str]:
    """The answer of replication 1 of each state: what the shown walk's P_y was built on."""
    return [reps[0] for reps in responses]


def measure_metrics(score: Any) -> None:
    """The five Inv measures as ``st.metric`` tiles (bootstrap interval in the help)."""
    labels = registered_method_labels()
    cols = st.columns(len(score.measures))
    for col, (name, value) in zip(cols, score.measures.items()):
        help_text = None
        if name in score.values and len(score.values[name]) > 1:
            lo, hi = score.interval(name)
            help_text = (
                f"90 % bootstrap interval [{lo:.4f}, {hi:.4f}] over B = {len(score.values[name])}"
            )
        col.metric(untrusted(labels.get(name, name)), f"{value:.4f}", help=help_text)


def heatmap_row(
    score: Any, *, colorscale: str, key: str, which: tuple[str, ...] = ("p_x", "p_y", "p_x_given_y")
) -> None:
    """P_x, P_y and P(X|Y) heatmaps side by side (hover shows the texts)."""
    figs = plots.walk_heatmaps(
        score.walk, score.questions, first_answers(score.responses), colorscale=colorscale
    )

    cols = st.columns(len(which))
    for col, name in zip(cols, which):
        col.plotly_chart(figs[name], key=f"{key}_{name}", config={"displaylogo": False})
        with col:
            download_buttons(
                st, f"{name} heatmap", figure=figs[name], key=f"{key}_{name}", png_note=False
            )


#: What the sign of a method's value means where it is not obvious (shown under the Baselines).
SIGN_NOTES = (
    "**Kernel Entropy** is minus the mean pairwise kernel of the r answers to the original "
    "question (−E[k(Y, Y′)], Gruber & Buettner), so it lies in [−1, 0]: −1.0000 means the r "
    "answers are identical (least uncertain), values near 0 mean unrelated answers."
)


def run_caption(run: Any) -> str:
    """Return one line naming what made a run: perturber, LLM, ψ, ψ_y, padding, n, r, B, T, seed."""
    c = run.config
    edited = sum(bool(f) for f in run.extras.get("edited") or [])
    u = untrusted  # every setting comes from the run's file: shown literally
    parts = [
        f"perturber **{u(c.perturber)}**" + (f" ({edited} edited by you)" if edited else ""),
        f"LLM **{u(describe_llm(str(run.identities.get('llm') or '')))}**",
        *_paraphraser_part(run),
        f"embedder **{u(c.embedder)}**",
        f"answers compared by **{u(c.score.answer_similarity)}**",
        f"padding {u(c.score.padding)}",
        f"n = {u(c.n_perturbations)}",
        f"r = {u(c.n_replications)}",
        f"B = {u(c.score.n_bootstrap)}",
        f"T = {float(c.temperature):g}",
        f"seed = {u(c.seed)}",
    ]
    if run.timings.get("total"):
        parts.append(f"{float(run.timings['total']):.1f} s")
    return " · ".join(parts)


def run_answer(run: Any, container: Any = st) -> None:
    """The model's answer to the original question beside its uncertainty: the most common of r."""
    answers = list(getattr(run, "cleaned_responses", None) or run.responses)
    answers = answers[0] if answers else []
    if not answers:
        return
    answer, agree = majority_answer(answers)
    container.markdown(
        f"**Answer:** {untrusted(answer) or '(empty)'} — {int(agree)} of {len(answers)} answers to the "
        "original question agree (the most common, after cleaning)"
    )


#: Says what GAAP's flags mean, on the GAAP page and wherever a GAAP run is shown.
GAAP_FLAGS = "below δ, a lost name or number, or a visibly changed question"


def gaap_flag_text(n_flagged: int, total: int) -> str:
    """``"3 of 9 perturbations are flagged (below δ, a lost name or number, …)"``."""
    return f"{n_flagged} of {total} perturbations are flagged ({GAAP_FLAGS})"


def gaap_warning(run: Any, container: Any = st) -> None:
    """A GAAP run of a question with numbers: say that GAAP swaps words, numbers included.

    GAAP's default substitutes WordNet senses of key tokens, so "What is 4213 plus
    3862?" can become "What is forte?": the perturbations then ask other
    questions and the measures compare answers to them. Each perturbation is
    checked as the GAAP page checks Per(S_x0) (:func:`member_flags`).
    """
    if run.config.perturber != "gaap" or not re.search(r"\d", run.question):
        return
    delta = run.config.gaap.delta
    flagged = [p for p in run.perturbations if member_flags(p, run.question, None, delta)]
    container.warning(
        "GAAP on a question with numbers: it substitutes words by WordNet senses and may "
        "drop or replace a number, so a perturbation can ask another question. "
        f"{gaap_flag_text(len(flagged), len(run.perturbations))}. The paraphrase perturber "
        "keeps names and numbers (its gate refuses a rewording that loses one).",
        icon=":material/warning:",
    )


def _paraphraser_part(run: Any) -> list[str]:
    """``["paraphrases by **M**"]`` when another model than the answering one reworded."""
    para = getattr(run, "paraphrase_identity", None)
    if not para or para == run.identities.get("llm"):
        return []
    return [f"paraphrases by **{untrusted(describe_llm(para))}**"]


def perturber_picker(key: str, container: Any = st) -> str:
    """Draw a radio over the registered perturbers (invent_core.perturb), labelled by the registry."""
    return container.radio(
        "Perturber",
        list(available_perturbers()),
        horizontal=True,
        key=key,
        format_func=lambda name: get_perturber(name).label,
    )


def default_methods(available: Any, k: int = 5) -> list[str]:
    """Return the methods drawn by default: Inv-Entropy and NR-Inv-Entropy, then offline baselines.

    Read from the registry's order; ``available`` limits it to the methods a result has.
    """
    inv = [m.name for m in list_methods("inv")][:2]
    offline = [m.name for m in list_methods("baseline") if not m.needs_llm]
    return [name for name in [*inv, *offline] if name in available][:k]


def measures_dataframe(score: Any) -> Any:
    """The run's measures as a table: label, bootstrap mean and 90 % interval, one row each."""
    labels = registered_method_labels()
    intervals = {n: score.interval(n) for n, v in score.values.items() if len(v) > 1}
    return tables.measures_table(score.measures, score.values, labels=labels, intervals=intervals)


def latest_kept(kind: str, what: str, key: str | None = None) -> Any:
    """The newest history entry of ``kind`` as its page shows it (with a note), or None.

    A reload or a server restart starts an empty session: the page then shows
    the last result made here, not the shipped demo, as GAAP evolution does
    (Evaluation and Explore once went back to the demo). With ``key`` it is
    shown as the session's own (:func:`invent_ui.session.links.show`: its id in the URL).
    """
    latest = guarded("Reading the history", lambda: archive.store().latest(kind))
    if latest is None:
        return None
    opened = guarded(f"Opening the latest {what}", archive.reopen, archive.store(), latest.id)
    if opened is None:
        return None
    st.info(
        f"Showing the latest {what} in the history ({untrusted(latest.created[:16])} UTC). "
        "Others: *Recent* in the sidebar or the History page.",
        icon=":material/history:",
    )
    if key is not None:
        links.show(key, opened.value, latest.id)
    return opened.value


def result_or_demo(
    key: str, demo_path: Any, *, what: str, hint: str, kind: str | None = None
) -> Any:
    """Return the page's own result, else the latest of ``kind`` in the history, else the demo.

    The history and the demo each come with a note saying what is shown.
    """
    payload = st.session_state.get(key)
    if payload is not None:
        return payload
    kept = latest_kept(kind, what.removeprefix("demo "), key) if kind else None
    if kept is not None:
        return kept
    st.info(f"Showing the shipped {what} (a small real run). {hint}", icon=":material/lightbulb:")
    demo = resources.demo_json(demo_path)
    demo_note(demo.get("provenance"))
    return demo


def demo_note(prov: Any) -> None:
    """The caption under a shipped demo: the code, day and model that made it (its ``provenance``)."""
    st.caption(untrusted(assets.demo_caption(prov)))


def take_result(job: Any, key: str) -> bool:
    """Show a job's result under ``key`` once it is done (its history id in the URL)."""
    if job is None or not job.take() or job.status != "done":
        return False
    links.show(key, job.result, job.history_id)
    return True


def job_running(key: str) -> bool:
    """Whether the page's background job (session key ``key``) is still working."""
    job = st.session_state.get(key)
    return job is not None and job.running


def show_run(run: Any, entry_id: str | None = None, link: tuple[str, str] | None = None) -> None:
    """Show ``run`` on Explore, named by ``entry_id`` (its history entry) or ``link``; a GAAP trace too.

    ``link``: the ``("run", name)`` of the file it was opened from (the URL's ``?run=``).
    """
    trace = archive.gaap_payload_of_run(run)
    if trace is not None:
        links.show(state.GAAP_RESULT, GaapResult.from_dict(trace), None)
    links.show(state.EXPLORE_RUN, run, entry_id, link)


def gate_summary(run: Any) -> None:
    """A degenerate result's warning; the paraphrase gate's acceptance line and rejected candidates."""
    degenerate = getattr(run, "degenerate", None)
    if degenerate:  # every perturbation a copy of the question: the measures say nothing
        st.warning(untrusted(degenerate[0].upper() + degenerate[1:]))
    line = acceptance_line(getattr(run, "acceptance", None))
    if line is None:
        return
    st.caption(untrusted(line[0].upper() + line[1:]))
    warning = distinct_warning(getattr(run, "acceptance", None))
    if warning:  # few distinct states
        st.warning(untrusted(warning[0].upper() + warning[1:]))
    rejected = [c for c in getattr(run, "candidates", None) or [] if not c.get("accepted")]
    if rejected:
        import pandas as pd

        with st.expander(f"Rejected paraphrase candidates ({len(rejected)})"):
            cols = ["text", "reason", "detail", "round"]
            st.dataframe(
                pd.DataFrame([{c: r.get(c) for c in cols} for r in rejected]),
                hide_index=True,
                width="stretch",
            )


def _own_path(run: Any, name: str) -> Path | None:
    """The sidebar's own reference file for ``run``, or None after saying why it is refused."""
    try:
        ref = own_reference.checked(name)
    except ValueError as err:
        st.error(
            f"**Your reference file cannot be used.** {untrusted(err)}", icon=":material/error:"
        )
        return None
    differ = settings_mismatch(ref, run.config, llm_identity=run.identities.get("llm"))
    if differ:
        st.error(
            f"**Your reference file {untrusted(name)} was made with other settings than this "
            f"run** ({'; '.join(untrusted(d) for d in differ)}), so its percentiles are not comparable and the run is not "
            "placed. Pick the shipped references, or a file made with these settings, in the "
            "sidebar's *Reference questions*.",
            icon=":material/error:",
        )
        return None
    st.caption(
        f"Reference questions from your file **{untrusted(name)}** (sidebar), not the shipped ones."
    )
    return places.resolve(name)


def reference_panel(run: Any, *, key: str, own: bool = False) -> None:
    """Inv-Entropy among the reference questions like this one: percentile, P(right), chart.

    A bare 2.3101 says nothing; its place among reference questions scored with
    the same settings does, and only among questions like it: the
    0.5B model is right on most arithmetic and almost no TriviaQA.
    The panel shows the placement the run carries
    (:func:`invent_core.evaluation.reference.placement_record`, made by the pipeline);
    a run placed among other references than the ones in use (the sidebar's own
    file, a run saved before runs carried one) is placed once by the same function
    (:func:`invent_ui.session.resources.shown_placement`). The reference questions it was
    placed among are shown in a small table; when none is close enough, or no
    reference matches the settings, the panel says so and gives no number.
    """
    value = run.score.measures.get("inv_entropy") if run.score is not None else None
    if value is None:
        return
    name = own_reference.chosen() if own else None
    where = _own_path(run, name) if name else resources.reference_root()
    if name and where is None:
        return
    record = resources.shown_placement(run, where)
    if record is None:
        st.caption(
            "No shipped reference was made with these settings (model, perturber, n, r, T, "
            "embedder, kernel), so this value cannot be placed among other questions. The "
            "shipped references use the packaged models with the default settings."
        )
        return
    placement = record["placement"] or {"mode": "pooled", "reason": "", "rows": []}
    if placement["mode"] == "none_like":
        st.caption(
            f"No reference questions like this one ({untrusted(placement['reason'])}), so no "
            "percentile and "
            "no P(right): a number calibrated on other kinds of questions would mislead. "
            "The nearest reference questions:"
        )
        _neighbour_table(placement["rows"])
        return
    _reference_numbers(record, float(value), key=key)
    if placement["mode"] == "nearest":
        st.caption(
            f"Placed among these {int(record['n_reference'])} reference questions "
            f"({untrusted(placement['like'])}):"
        )
        _neighbour_table(placement["rows"])
    else:
        st.caption(f"Not placed among questions like this one: {untrusted(placement['reason'])}.")


def _neighbour_table(rows: Any) -> None:
    """The reference questions a question was placed among: text, dataset, similarity, value, right."""
    import pandas as pd

    table = pd.DataFrame(
        [
            {
                "reference question": r["question"],
                "dataset": r["dataset"],
                "similarity": round(r["similarity"], 3),
                "Inv-Entropy": round(r["value"], 4),
                "right": None if r["correct"] is None else bool(r["correct"]),
            }
            for r in rows
        ]
    )
    st.dataframe(table, hide_index=True, width="stretch", height=min(38 + 35 * len(rows), 300))


def _reference_numbers(d: Any, value: float, *, key: str) -> None:
    """Percentile and P(right) metrics beside the reference distribution with this value marked.

    ``d``: the run's placement record (what :meth:`ReferenceSet.describe` said, kept).
    """
    c1, c2 = st.columns([1, 2])
    c1.metric(
        "Percentile",
        f"{d['percentile']:.0f}",
        help=f"Share of the {int(d['n_reference'])} reference questions with this Inv-Entropy or "
        "less.",
    )
    if d["p_correct"] is not None:
        lo, hi = d["p_interval"]
        c1.metric(
            "P(right)",
            f"{d['p_correct']:.2f}",
            help="Calibrated probability that the answer is right: the mean of isotonic fits of "
            "the reference questions' correctness on Inv-Entropy over bootstrap resamples "
            "(90 % interval below). It carries their share of right answers, so it holds for "
            "questions like them only.",
        )
        c1.caption(
            f"90 % interval {lo:.2f}–{hi:.2f}; {int(d['n_near'])} reference questions near this "
            f"value; {untrusted(calibration_note(d))}."
        )
    elif d["n_near"] is not None:
        c1.caption(
            f"P(right): not enough reference questions near this value ({int(d['n_near'])} < "
            f"{int(MIN_NEAR)}), so no number."
        )
    values, correct = record_values(d)
    fig = plots.reference_figure(values, value, correct=correct, percentile=d["percentile"])
    c2.plotly_chart(fig, key=f"{key}_reference", config={"displaylogo": False})
    st.caption(f"Among {untrusted(record_source(d))}.")  # the figures themselves are above


def reference_check(run: Any, example: Any) -> None:
    """When the run's question is a picked dataset sample: its r answers against the reference.

    Below 10 % correct with the packaged 0.5B model, say so and how to get a stronger model.
    """
    if example is None or not getattr(example, "answers", None):
        return
    if example.question.strip() != run.question.strip():
        return
    answers = run.responses[0]
    right = [
        judge_correct(
            a,
            list(example.answers),
            dataset=example.dataset if example.dataset != "custom" else example.task,
            question=example.question,
            choices=list(example.choices) if example.choices else None,
        )
        for a in answers
    ]
    st.caption(
        f"{sum(right)} of {len(right)} answers to the original question match the sample's "
        f"reference ({' | '.join(untrusted(a) for a in example.answers[:3])}); n = {len(right)}."
    )
    advice = model_advice(sum(right) / len(right), len(right), str(run.identities.get("llm")))
    if advice:
        st.warning(untrusted(advice), icon=":material/lightbulb:")
