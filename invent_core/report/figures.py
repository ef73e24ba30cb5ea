"""The report's charts: ROC and AUROC of an evaluation, a measure by correctness, one run's bootstrap.

plotly is imported when a chart is made (a report is the only place the library
draws); every uncertainty is "higher = more uncertain" and the ROC ranks by its
negative, as :func:`invent_core.evaluation.metrics.auroc_score` does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..evaluation.metrics import auroc_score

__all__ = ["auroc_bars", "bootstrap_histogram", "by_correctness", "roc_chart"]

_LAYOUT = dict(height=420, margin=dict(l=50, r=20, t=50, b=50), template="plotly_white")


def _roc_points(correct: np.ndarray, uncertainty: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(false positive rate, true positive rate) of ranking answers by −uncertainty."""
    order = np.argsort(uncertainty, kind="stable")  # most confident first
    right = correct[order].astype(float)
    tpr = np.concatenate([[0.0], np.cumsum(right) / max(right.sum(), 1.0)])
    fpr = np.concatenate([[0.0], np.cumsum(1.0 - right) / max((1.0 - right).sum(), 1.0)])
    return fpr, tpr


def roc_chart(correct: Sequence[int], table: Mapping[str, Sequence[float]], labels: Mapping) -> Any:
    """One ROC line per method (its AUROC in the legend), the diagonal for guessing."""
    import plotly.graph_objects as go

    c = np.asarray(correct, dtype=int)
    fig = go.Figure(go.Scatter(x=[0, 1], y=[0, 1], name="guessing", line=dict(dash="dot")))
    for name, values in table.items():
        u = np.asarray(values, dtype=float)
        keep = np.isfinite(u)
        if len(set(c[keep])) < 2:
            continue  # one class: no curve to draw
        fpr, tpr = _roc_points(c[keep], u[keep])
        auc = auroc_score(c[keep], u[keep])
        fig.add_trace(go.Scatter(x=fpr, y=tpr, name=f"{labels.get(name, name)} ({auc:.3f})"))
    fig.update_layout(
        title="ROC: answers ranked by confidence (−uncertainty)",
        xaxis_title="share of wrong answers kept",
        yaxis_title="share of right answers kept",
        **_LAYOUT,
    )
    return fig


def auroc_bars(results: Mapping[str, Mapping[str, Any]], labels: Mapping) -> Any:
    """Each method's AUROC with its 95 % interval, where the evaluation has one."""
    import plotly.graph_objects as go

    names = [m for m in results if (results[m].get("auroc") or {}).get("point") is not None]
    points = [results[m]["auroc"]["point"] for m in names]
    ci = [results[m]["auroc"].get("ci95") or (p, p) for m, p in zip(names, points, strict=True)]
    fig = go.Figure(
        go.Bar(
            x=[labels.get(m, m) for m in names],
            y=points,
            error_y=dict(
                type="data",
                symmetric=False,
                array=[hi - p for (_, hi), p in zip(ci, points, strict=True)],
                arrayminus=[p - lo for (lo, _), p in zip(ci, points, strict=True)],
            ),
        )
    )
    fig.add_hline(y=0.5, line_dash="dot", annotation_text="guessing")
    fig.update_layout(title="AUROC with its 95 % interval", yaxis_title="AUROC", **_LAYOUT)
    return fig


def by_correctness(correct: Sequence[int], values: Sequence[float], label: str) -> Any:
    """The measure's values over right and over wrong answers (overlaid histograms)."""
    import plotly.graph_objects as go

    c = np.asarray(correct, dtype=int)
    v = np.asarray(values, dtype=float)
    fig = go.Figure()
    for flag, name in ((1, "right"), (0, "wrong")):
        keep = (c == flag) & np.isfinite(v)
        fig.add_trace(go.Histogram(x=v[keep], name=f"{name} ({int(keep.sum())})", opacity=0.6))
    fig.update_layout(
        barmode="overlay", title=f"{label} by correctness", xaxis_title=label, **_LAYOUT
    )
    return fig


def bootstrap_histogram(values: Mapping[str, Sequence[float]], labels: Mapping) -> Any:
    """Each Inv measure's B bootstrap values of one run."""
    import plotly.graph_objects as go

    fig = go.Figure()
    for name, v in values.items():
        fig.add_trace(go.Histogram(x=np.asarray(v, dtype=float), name=labels.get(name, name)))
    fig.update_layout(
        barmode="overlay", title="Bootstrap values (higher = more uncertain)", **_LAYOUT
    )
    fig.update_traces(opacity=0.6)
    return fig
