"""Streamlit views of judged results, shared by the Evaluation, TSU and Batch pages.

- :func:`chart`: a plotly figure with its download buttons under it.
- :func:`leaderboard`: a :class:`~invent_core.evaluation.report.ResultsTable`
  (method × metric, or method × TSU column) styled bold/underlined, or greyed
  when the sample is too small to judge, with its CSV/JSON/LaTeX buttons.
- :func:`class_curves`: ROC and rejection curves (and the reliability diagram)
  of each method's uncertainty against 0/1 correctness, or the reason from
  :func:`invent_core.evaluation.metrics.undefined_reason` why there are none.

They render what the core computed; nothing here computes a metric.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import streamlit as st

from . import plots, tables
from .downloads import download_buttons


def chart(container: Any, figure: Any, *, name: str, key: str) -> None:
    """``figure`` in ``container`` (``st`` or a column), its download buttons under it."""
    container.plotly_chart(figure, key=key)
    download_buttons(container, name, figure=figure, key=key, png_note=False)


def leaderboard(rt: Any, *, judged: bool, name: str, key: str, latex_caption: str) -> None:
    """A results table: best per column bold, second underlined; all greyed when not ``judged``.

    ``rt`` is a :class:`~invent_core.evaluation.report.ResultsTable`; when the
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


def _metrics() -> Any:
    from invent_core.evaluation import metrics

    return metrics
