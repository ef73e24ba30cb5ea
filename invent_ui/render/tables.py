"""pandas tables and Stylers for the dashboard: rows and columns of what the core computed.

Numbers come from ``invent_core`` (a run's affinities, walk, bootstrap values and
method results; a :class:`~invent_core.evaluation.tables.ResultsTable` with its
best/second marks; a GAAP trace). Nothing here is paper math: the only arithmetic
is display arithmetic (the spread max − min across embedders, how far a cell is
from the first embedder's value, for colouring). The Stylers bold, underline,
grey or shade cells; the Streamlit rendering is in :mod:`invent_ui.render.views` and
:mod:`invent_ui.render.results_view`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from invent_core.evaluation.tables import format_mean_std


def perturbations_table(
    questions: Sequence[str], sim_x: np.ndarray, p_x: np.ndarray
) -> pd.DataFrame:
    """One row per state: the text, its affinity to the original and P_x(x0 → x_i).

    Parameters
    ----------
    questions : the m questions, original first.
    sim_x : (m, m) input affinities of the run (row 0: affinity to the original).
    p_x : (m, m) input transition matrix.
    """
    sim_x, p_x = np.asarray(sim_x), np.asarray(p_x)
    return pd.DataFrame(
        {
            "state": [f"x{i}" + (" (original)" if i == 0 else "") for i in range(len(questions))],
            "question": list(questions),
            "affinity to x0": sim_x[0, : len(questions)].astype(float),
            "P_x(x0 → x_i)": p_x[0, : len(questions)].astype(float),
        }
    )


def responses_table(questions: Sequence[str], responses: Sequence[Sequence[str]]) -> pd.DataFrame:
    """The responses grid: one row per question (perturbation), one column per replication."""
    r = max((len(reps) for reps in responses), default=0)
    data = {
        f"rep {k + 1}": [reps[k] if k < len(reps) else "" for reps in responses] for k in range(r)
    }
    df = pd.DataFrame(data, index=[f"x{i}" for i in range(len(responses))])
    df.insert(0, "question", list(questions))
    return df


def measures_table(
    measures: Mapping[str, float],
    values: Mapping[str, np.ndarray],
    *,
    labels: Mapping[str, str] | None = None,
    intervals: Mapping[str, tuple[float, float]] | None = None,
) -> pd.DataFrame:
    """The Inv measures of one run: value, bootstrap interval and B."""
    labels = labels or {}
    intervals = intervals or {}
    rows = []
    for name, value in measures.items():
        lo, hi = intervals.get(name, (np.nan, np.nan))
        rows.append(
            {
                "measure": labels.get(name, name),
                "value": float(value),
                "interval low": float(lo),
                "interval high": float(hi),
                "B": int(np.asarray(values.get(name, [])).size),
            }
        )
    return pd.DataFrame(rows)


def methods_table(results: Mapping[str, Any], methods: Sequence[Any]) -> pd.DataFrame:
    """Every registered method's value on one run (or why it has none).

    Parameters
    ----------
    results : name → :class:`invent_core.methods.registry.MethodResult`.
    methods : the registry's :class:`~invent_core.methods.registry.Method` objects, in order.
    """
    rows = []
    for m in methods:
        res = results.get(m.name)
        if res is None:
            status, value, secs = "not computed", np.nan, np.nan
        elif res.error:
            status, value, secs = res.error, np.nan, res.seconds
        else:
            status, value, secs = "ok", res.value, res.seconds
        rows.append(
            {
                "method": m.label,
                "family": m.family,
                "uncertainty": float(value),
                "seconds": float(secs),
                "needs": ", ".join(sorted(m.needs)) or "–",
                "status": status,
            }
        )
    return pd.DataFrame(rows)


def comparison_table(
    columns: Mapping[str, Mapping[str, float]], *, labels: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """Measures (rows) × embedders (columns), plus the spread across embedders.

    The ``spread`` column is max − min across embedders (what
    :func:`style_comparison` shades).
    """
    labels = labels or {}
    df = pd.DataFrame({col: dict(row) for col, row in columns.items()})
    df["spread"] = df.max(axis=1) - df.min(axis=1)
    df.index = [labels.get(i, i) for i in df.index]
    return df


def style_comparison(df: pd.DataFrame, *, rel_tol: float = 0.05) -> Any:
    """Styler of :func:`comparison_table`: what differs by more than ``rel_tol`` is coloured.

    A cell more than ``rel_tol`` (5 %) away from the first embedder's value is
    orange; the ``spread`` cell of a measure is shaded only when the spread
    exceeds ``rel_tol`` of the first embedder's value (darker = larger), so a
    0.0009 spread stays white.
    """
    cols = [c for c in df.columns if c != "spread"]
    base = df[cols[0]].abs().clip(lower=1e-12)
    css = pd.DataFrame("", index=df.index, columns=df.columns)
    for c in cols[1:]:
        far = (df[c] - df[cols[0]]).abs() > rel_tol * base
        css.loc[far, c] = "background-color: #ffe0b2; font-weight: bold"
    relative = df["spread"] / base
    top = float(relative[relative > rel_tol].max()) if (relative > rel_tol).any() else 1.0
    css["spread"] = [
        f"background-color: rgba(230, 81, 0, {0.15 + 0.45 * min(1.0, v / top):.2f})"
        if v > rel_tol
        else ""
        for v in relative
    ]
    return df.style.format("{:.4f}").apply(lambda _: css, axis=None)


def results_frame(table: Any) -> tuple[pd.DataFrame, np.ndarray]:
    """A :class:`invent_core.evaluation.tables.ResultsTable` as display strings and marks.

    Returns
    -------
    (DataFrame of ``"mean ± std"`` strings, (rows, cols) array of "best"/"second"/"").
    """
    cells = [
        [_cell_text(table, i, j) for j in range(len(table.columns))]
        for i in range(len(table.methods))
    ]
    df = pd.DataFrame(cells, index=list(table.methods), columns=[c.header for c in table.columns])
    return df, table.marks()


def _cell_text(table: Any, i: int, j: int) -> str:
    """``"0.812 ± 0.020 [0.771, 0.850]"``: the interval too when the table has one (captions say so)."""
    scale, digits = table.scale, table.digits
    text = format_mean_std(table.mean[i, j] * scale, table.std[i, j] * scale, digits=digits)
    ci = getattr(table, "ci", None)
    if ci is None or np.isnan(ci[i, j]).any() or np.isnan(table.mean[i, j]):
        return text
    lo, hi = np.asarray(ci[i, j], dtype=float) * scale
    return f"{text} [{lo:.{digits}f}, {hi:.{digits}f}]"


#: How a value too few to judge is shown (greyed; never bold).
GREY = "color: #9e9e9e"


def style_marks(df: pd.DataFrame, marks: np.ndarray, *, judged: bool = True) -> Any:
    """Pandas Styler: bold the best cell of each column, underline the second.

    With ``judged=False`` (a sample too small, ``evaluation.sample_size.judgeable``)
    every cell is greyed and none is marked, whatever ``marks`` says.
    """
    if not judged:
        css = np.full(df.shape, GREY, dtype=object)
        return df.style.apply(
            lambda _: pd.DataFrame(css, index=df.index, columns=df.columns), axis=None
        )
    css = np.where(marks == "best", "font-weight: bold; background-color: #e6f2e6", "")
    css = np.where(marks == "second", "text-decoration: underline", css)
    return df.style.apply(
        lambda _: pd.DataFrame(css, index=df.index, columns=df.columns), axis=None
    )


def gaap_members_table(members: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """One generation's members with fitness and provenance (rows of :func:`gaap_members`)."""
    return pd.DataFrame(
        [
            {
                "#": int(m.get("index", k)),
                "text": m["text"],
                "fitness": float(m["fitness"]),
                "made by": m.get("kind", ""),
                "provenance": m.get("provenance", ""),
                "selected": bool(m.get("selected", False)),
                "in Per(S_x0)": bool(m.get("in_per", False)),
            }
            for k, m in enumerate(members)
        ]
    )


def gaap_members(trace: Any) -> list[list[dict[str, Any]]]:
    """A :class:`invent_core.perturb.gaap_trace.GaapTrace` as plain member dicts per generation.

    Each dict: ``index`` (#i in its generation, as provenance refers to it),
    ``text``, ``fitness``, ``kind`` (initial / parent / crossover / mutation),
    ``provenance`` (the trace's own one-line description), ``selected``, ``in_per``.
    """
    return [
        [
            {
                "index": i,
                "text": m.text,
                "fitness": float(m.fitness),
                "kind": m.origin.op,
                "provenance": m.origin.describe(),
                "selected": bool(m.selected),
                "in_per": bool(m.in_perturbations),
            }
            for i, m in enumerate(gen.members)
        ]
        for gen in trace.generations
    ]


def gaap_generations_table(trace: Any) -> pd.DataFrame:
    """One row per generation: size, best and mean fitness, what was dropped, sampled for Per."""
    per_counts = [
        sum(1 for p in trace.perturbations if p.generation == g.index) for g in trace.generations
    ]
    return pd.DataFrame(
        {
            "generation": [g.index for g in trace.generations],
            "members": [len(g.members) for g in trace.generations],
            "best fitness": [g.max_fitness for g in trace.generations],
            "mean fitness": [g.mean_fitness for g in trace.generations],
            "duplicates dropped": [g.n_duplicates for g in trace.generations],
            "capped": [g.n_capped for g in trace.generations],
            "sampled (t = kτ)": [g.sampled for g in trace.generations],
            "into Per(S_x0)": per_counts,
        }
    )
