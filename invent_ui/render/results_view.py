"""Streamlit views of judged results, shared by the Evaluation, TSU and Batch pages.

- :func:`chart`: a plotly figure with its download buttons under it.
- :func:`leaderboard`: a :class:`~invent_core.evaluation.tables.ResultsTable`
  (method × metric, or method × TSU column) styled bold/underlined, or greyed
  when the sample is too small to judge, with its CSV/JSON/LaTeX buttons.
- :func:`class_curves`: ROC and rejection curves (and the reliability diagram)
  of each method's uncertainty against 0/1 correctness, or the reason from
  :func:`invent_core.evaluation.metrics.undefined_reason` why there are none.
- :func:`matrix_picker` and :func:`heatmaps_on_one_scale`: one of P_x, P_y,
  P(X|Y) for several walks side by side on one colour range (Compare embedders,
  Side by side).

They render what the core computed; nothing here computes a metric.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import streamlit as st

from invent_core.evaluation import metrics
from invent_ui import plots
from invent_ui.text import untrusted

from . import tables
from .downloads import download_buttons
from .views import COLORSCALES


def chart(container: Any, figure: Any, *, name: str, key: str) -> None:
    """``figure`` in ``container`` (``st`` or a column), its download buttons under it."""
    container.plotly_chart(figure, key=key)
    download_buttons(container, name, figure=figure, key=key, png_note=False)


def leaderboard(rt: Any, *, judged: bool, name: str, key: str, latex_caption: str) -> None:
    """A results table: best per column bold, second underlined; all greyed when not ``judged``.

    ``rt`` is a :class:`~invent_core.evaluation.tables.ResultsTable`; when the
    sample is too small to judge no cell is marked best, whatever its values.
    """
    if not judged:
        rt = rt.unmarked()
    df, marks = tables.results_frame(rt)
    st.dataframe(
        tables.style_marks(df, marks, judged=judged),
        width="stretch",
        height=36 * (len(df) + 1) + 3,
    )
    download_buttons(st, name, rt, key=key, latex_caption=latex_caption)


def curves_undefined(correct: Any) -> str | None:
    """Why no ROC/rejection/reliability curve can be drawn (the core's reason), or None."""
    return _metrics().undefined_reason(np.asarray(correct, dtype=int))


def class_curves(
    correct: Any,
    table: Mapping[str, Any],
    *,
    labels: Mapping[str, str],
    key: str,
    what: str = "",
    n_bins: int | None = None,
) -> str | None:
    """ROC and rejection curves side by side; the reliability diagram below when ``n_bins``.

    Parameters
    ----------
    correct : (n,) 0/1 correctness of each question's answer.
    table : method → (n,) uncertainty, higher = more uncertain.
    key : widget-key prefix (``{key}_roc``, ``{key}_rejection``, ``{key}_reliability``).
    what : prefix of the download names ("batch " → "batch ROC").

    Returns
    -------
    The reason there are no curves (``undefined_reason``: every answer right or
    wrong, too few rows), after nothing was drawn; None when they were drawn.
    """
    m = _metrics()
    reason = curves_undefined(correct)
    if reason is not None:
        return reason
    left, right = st.columns(2)
    roc = plots.roc_figure(correct, table, labels=labels)
    rejection = plots.rejection_figure(
        {name: m.rejection_curve(correct, u) for name, u in table.items()}, labels=labels
    )
    chart(left, roc, name=f"{what}ROC", key=f"{key}_roc")
    chart(right, rejection, name=f"{what}rejection curve", key=f"{key}_rejection")
    if n_bins is not None:
        diagram = {
            name: m.reliability_diagram(correct, u, n_bins=n_bins) for name, u in table.items()
        }
        reliability = plots.reliability_figure(diagram, labels=labels)
        chart(st, reliability, name=f"{what}reliability diagram", key=f"{key}_reliability")
    return None


#: The three matrices of a dual random walk, as the pickers name them.
MATRICES = {"p_x": "P_x (inputs)", "p_y": "P_y (outputs)", "p_x_given_y": "P(X | Y)"}


def matrix_picker(key: str) -> tuple[str, str]:
    """(which matrix, colour scale), picked side by side; widget keys ``{key}_matrix``/``_colorscale``."""
    c1, c2 = st.columns([1, 2])
    which = c1.radio(
        "Matrix", list(MATRICES), format_func=MATRICES.get, horizontal=True, key=f"{key}_matrix"
    )
    colorscale = c2.selectbox("Colour scale", COLORSCALES, key=f"{key}_colorscale")
    return which, colorscale


def heatmaps_on_one_scale(
    walks: Mapping[str, tuple[Any, Any, Any]],
    *,
    which: str,
    colorscale: str,
    key: str,
    titles: Mapping[str, str] | None = None,
) -> tuple[float, float]:
    """Matrix ``which`` of each walk in its own column, every one on the same colour range.

    Parameters
    ----------
    walks : name → (:class:`~invent_core.paper.random_walk.RandomWalk`, the m questions, the
        m answers its P_y was built on).
    key : chart keys are ``{key}_{name}``; download names ``{name} heatmap``.
    titles : name → a bold line above its chart (none when absent).

    Returns
    -------
    The shared (min, max) colour range.
    """
    zrange = plots.shared_range([getattr(w, which) for w, _, _ in walks.values()])
    for col, (name, (walk, questions, answers)) in zip(st.columns(len(walks)), walks.items()):
        if titles and name in titles:
            col.markdown(f"**{untrusted(titles[name])}**")
        fig = plots.walk_heatmaps(walk, questions, answers, colorscale=colorscale, zrange=zrange)
        chart(col, fig[which], name=f"{name} heatmap", key=f"{key}_{name}")
    return zrange


def _metrics() -> Any:
    return metrics
