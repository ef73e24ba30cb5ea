"""The Compare evaluations page's blocks: what to compare, the paired differences, the disagreements.

The numbers come from :mod:`invent_core.experiments.comparison` (cached per
choice and per the folders' files, so a relabel or a new evaluation shows at
once); a disagreement opens its saved run on **Explore a question** in one
click.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import streamlit as st

from invent_core.engine.artifact import RunArtifact
from invent_core.evaluation.compare import COMPARE_METRICS
from invent_core.evaluation.metrics import METRICS, N_BOOTSTRAP
from invent_core.experiments.comparison import compare_evaluations, compare_methods, read_side
from invent_core.experiments.made_with import made_with
from invent_core.experiments.reading import INV
from invent_ui import plots
from invent_ui.data.experiments import folder_meta
from invent_ui.jobs.feedback import show_error
from invent_ui.session import places
from invent_ui.text import made_with_line, untrusted

from . import views

MODES = ("two evaluations", "two methods of one evaluation")
EXPLORE = "pages/1_Explore_a_question.py"


def stamp(folders: Sequence[str]) -> tuple[float, ...]:
    """When each folder's scores and relabels last changed (the cache's key)."""
    files = [Path(f) / name for f in folders for name in ("scores.csv", "relabels.jsonl")]
    return tuple(p.stat().st_mtime if p.is_file() else 0.0 for p in files)


@st.cache_data(show_spinner="Pairing the questions and resampling them…", max_entries=8)
def compared(folders: tuple[str, ...], methods: tuple[str, ...], opts: tuple, _stamp: tuple) -> Any:
    """The :class:`~invent_core.experiments.comparison.EvaluationComparison` of the choice."""
    metrics, intersection, n_bootstrap = opts
    kw = {"metrics": list(metrics), "n_bootstrap": n_bootstrap}
    if len(folders) == 1:
        return compare_methods(folders[0], *methods, **kw)
    return compare_evaluations(*folders, methods=list(methods), intersection=intersection, **kw)


def _methods_of(folder: Path) -> list[str]:
    try:
        return read_side(folder).methods
    except (OSError, ValueError) as err:
        show_error(err, f"Reading {folder}")
        return []


def choice(known: Mapping[str, Path], defaults: tuple[str, str]) -> dict[str, Any] | None:
    """The pickers: mode, folders, methods, metrics, resamples; None until a choice is complete."""
    mode = st.radio("Compare", MODES, horizontal=True, key="cmp_mode")
    names = list(known)
    c1, c2 = st.columns(2)
    pick = [names.index(d) if d in names else 0 for d in defaults]
    a = c1.selectbox("A", names, index=pick[0], key="cmp_a")
    b = c2.selectbox("B", names, index=pick[1], key="cmp_b") if mode == MODES[0] else None
    folders = tuple(str(known[x]) for x in (a, b) if x is not None)
    held = [_methods_of(Path(f)) for f in folders]
    shared = [m for m in held[0] if all(m in h for h in held)]
    if not shared:
        st.info("No method column is in both evaluations.")
        return None
    methods = _method_picker(mode, shared)
    c3, c4, c5 = st.columns([3, 1, 1])
    metrics = c3.multiselect("Metrics", list(METRICS), default=list(COMPARE_METRICS),
                             key="cmp_metrics")  # fmt: skip
    n_bootstrap = c4.number_input("Resamples", 10, 10_000, N_BOOTSTRAP, key="cmp_boot")
    inter = c5.checkbox("Shared questions only", key="cmp_inter", disabled=mode != MODES[0],
                        help="compare evaluations over different questions on those both hold")  # fmt: skip
    if not methods or not metrics:
        st.info("Pick the methods and at least one metric.")
        return None
    opts = (tuple(metrics), bool(inter), int(n_bootstrap))
    return {"folders": folders, "methods": tuple(methods), "opts": opts}


def made_with_block(folders: Sequence[str]) -> None:
    """How each side was made (gate, rewording rules, ψ_y, padding); which settings differ.

    Two evaluations made with different settings differ by those too, not only by what
    the methods saw: the box says so before the numbers.
    """
    made = [made_with(folder_meta(Path(f))) for f in folders]
    if len(made) == 1:
        st.caption(f"Made with: {made_with_line(made[0])}.")
    else:
        st.caption(f"**A** made with: {made_with_line(made[0])}.")
        st.caption(f"**B** made with: {made_with_line(made[1])}.")
    if len(made) == 2:
        differ = [k for k in {**made[0], **made[1]} if made[0].get(k) != made[1].get(k)]
        if differ:
            st.info(
                f"A and B were made with different {untrusted(', '.join(differ))}: a "
                "difference below comes from these as well as from the questions' answers.",
                icon=":material/compare_arrows:",
            )


def _method_picker(mode: str, shared: list[str]) -> list[str]:
    first = [INV] if INV in shared else shared[:1]
    if mode == MODES[0]:
        return st.multiselect("Methods (each compared on A and on B)", shared, default=first,
                              key="cmp_methods")  # fmt: skip
    c1, c2 = st.columns(2)
    m1 = c1.selectbox("Method A", shared, index=shared.index(first[0]), key="cmp_m1")
    rest = [m for m in shared if m != m1]
    m2 = c2.selectbox("Method B", rest, key="cmp_m2") if rest else None
    return [m1, m2] if m2 else []


def differences(res: Any) -> None:
    """The counts, a table of every paired difference, and the dot plot of them."""
    a, b = res.names
    st.markdown(
        f"**A** = {untrusted(a)} · **B** = {untrusted(b)} · {int(res.n_shared)} paired questions "
        f"(A {int(res.n_a)}, B {int(res.n_b)}); A − B over {int(res.n_bootstrap)} paired "
        "bootstrap resamples."
    )
    names = views.registered_method_labels()
    rows = [
        {"method": names.get(m, m), "metric": METRICS[c.metric].label, "A": c.value_a, "B": c.value_b,
         "A − B": c.difference.difference, "95 % low": c.difference.ci95[0],
         "95 % high": c.difference.ci95[1], "verdict (A)": c.difference.verdict}
        for m, cells in res.results.items() for c in cells
    ]  # fmt: skip
    for m, why in res.skipped.items():
        st.warning(f"{untrusted(m)}: not compared — {untrusted(why)}.", icon=":material/info:")
    if not rows:
        return
    st.dataframe(rows, hide_index=True, width="stretch")
    fig = plots.paired_differences_figure(
        [f"{r['method']} · {r['metric']}" for r in rows],
        [r["A − B"] for r in rows],
        [(r["95 % low"], r["95 % high"]) for r in rows],
        [r["verdict (A)"] for r in rows],
    )
    st.plotly_chart(fig, key="cmp_chart")
    st.caption(
        "verdict: A ahead or behind when the interval excludes 0 (for Brier and ECE lower is "
        "better, so a negative A − B is A ahead); otherwise not distinguishable at this size."
    )


def disagreements(res: Any) -> None:
    """The questions the two rank furthest apart: answers, labels, scores, rewordings, runs."""
    if not res.disagreements:
        return
    st.subheader("Where A and B disagree most")
    st.caption("Ranked by how far apart the two put the question among the others (0 … 1).")
    for k, d in enumerate(res.disagreements):
        with st.expander(f"{d.gap:.2f} · {untrusted(d.question)}", expanded=k == 0):
            for side, col in zip(range(2), st.columns(2), strict=True):
                _side(col, res.names[side], d, side, key=f"cmp_open_{k}_{side}")


def _side(col: Any, name: str, d: Any, side: int, *, key: str) -> None:
    row, run = d.rows[side], d.runs[side]
    hand = untrusted(row.get("relabel_reason") or "")
    col.markdown(
        f"**{untrusted(name)}**: **{untrusted(row.get('canonical') or row.get('response'))}** — "
        f"{'right' if int(row['correct']) else 'wrong'}"
        f"{f' (relabelled: {hand})' if hand else ''}"
    )
    col.caption(
        f"uncertainty {d.scores[side]:.3f}; reference {untrusted(row.get('reference', ''))}"
    )
    words = d.rewordings()[side]
    if words:
        col.markdown("\n".join(f"- {untrusted(w)}" for w in words))
    if run is not None and col.button("Open the run", key=key, icon=":material/open_in_new:"):
        open_run(run)


def open_run(path: Path) -> None:
    """Show a saved run on Explore a question (a page run on its own: say where it went)."""
    from streamlit.errors import StreamlitPageNotFoundError

    try:
        run = RunArtifact.load(path)
    except (OSError, ValueError, KeyError, TypeError) as err:
        show_error(err, f"Opening {path.name}")
        return
    name = places.name_of(path)  # a run under a linkable folder keeps its link: ?run=<name>
    views.show_run(run, link=("run", name) if name else None)
    try:
        st.switch_page(EXPLORE, query_params={"run": name} if name else None)
    except StreamlitPageNotFoundError:  # a page run on its own (tests): no other page to go to
        st.info(f"Opened: see {EXPLORE}.")
