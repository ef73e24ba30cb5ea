"""One run's measures: bootstrap histograms, the place among reference questions, grouped bars.

``values`` are a measure's B bootstrap values (a ``(B,)`` array, or a mapping
measure → array); a reference distribution is the shipped reference questions'
values with their 0/1 correctness when known. Grouped bars take a nested
mapping ``table[column][row] → value`` (e.g. embedder → measure → value).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from invent_core.progress import ordinal

from .style import MARGIN, ORIGINAL_COLOUR, OTHER_COLOUR, PALETTE


def bootstrap_figure(
    values: np.ndarray,
    *,
    label: str,
    interval: tuple[float, float] | None = None,
    height: int = 320,
) -> go.Figure:
    """Histogram of one measure's B bootstrap values with its mean and interval."""
    v = np.asarray(values, dtype=np.float64).ravel()
    mean = float(v.mean())
    fig = go.Figure(
        go.Histogram(
            x=v, nbinsx=max(5, min(30, v.size // 2)), name=label, marker_color=OTHER_COLOUR
        )
    )
    fig.add_vline(
        x=mean, line=dict(color=ORIGINAL_COLOUR, width=3), annotation_text=f"mean {mean:.4f}"
    )
    if interval is not None:
        lo, hi = interval
        fig.add_vrect(x0=lo, x1=hi, fillcolor="orange", opacity=0.15, line_width=0)
    fig.update_layout(
        title=dict(text=f"{label}: {v.size} bootstrap values"),
        xaxis_title=label,
        yaxis_title="count",
        height=height,
        margin=MARGIN,
        bargap=0.05,
    )
    return fig


def reference_figure(
    values: np.ndarray,
    value: float,
    *,
    correct: np.ndarray | None = None,
    label: str = "Inv-Entropy",
    percentile: float | None = None,
    height: int = 300,
) -> go.Figure:
    """The reference distribution of a measure (split by correctness when known), this question a line."""
    v = np.asarray(values, dtype=np.float64).ravel()
    fig = go.Figure()
    if correct is None:
        fig.add_trace(go.Histogram(x=v, name="reference questions", marker_color=OTHER_COLOUR))
    else:
        c = np.asarray(correct).astype(bool)
        for mask, name, colour in (
            (c, "answered right", "#2e7d32"),
            (~c, "answered wrong", "#c62828"),
        ):
            fig.add_trace(go.Histogram(x=v[mask], name=name, marker_color=colour, opacity=0.6))
    note = (
        f"this question ({ordinal(round(percentile))} percentile)"
        if percentile is not None
        else "this question"
    )
    fig.add_vline(x=float(value), line=dict(color=ORIGINAL_COLOUR, width=3), annotation_text=note)
    fig.update_layout(
        title=dict(text=f"{label} of {v.size} reference questions"),
        xaxis_title=f"{label} (higher = more uncertain)",
        yaxis_title="questions",
        barmode="overlay",
        height=height,
        margin=MARGIN,
        legend=dict(orientation="h", y=-0.3),
    )
    return fig


def measures_grid_figure(
    values: Mapping[str, np.ndarray],
    *,
    labels: Mapping[str, str] | None = None,
    height: int = 300,
) -> go.Figure:
    """Small multiples: one histogram of bootstrap values per measure, means as lines."""
    names = list(values)
    labels = labels or {}
    fig = make_subplots(rows=1, cols=len(names), subplot_titles=[labels.get(n, n) for n in names])
    for k, name in enumerate(names, start=1):
        v = np.asarray(values[name], dtype=np.float64).ravel()
        fig.add_trace(
            go.Histogram(
                x=v, name=labels.get(name, name), marker_color=PALETTE[k % len(PALETTE)], nbinsx=15
            ),
            row=1,
            col=k,
        )
        fig.add_vline(x=float(v.mean()), line=dict(color="black", width=2), row=1, col=k)
    fig.update_layout(height=height, margin=MARGIN, showlegend=False, bargap=0.05)
    return fig


# ---------------------------------------------------------------------------
# Perturbations and embedders
# ---------------------------------------------------------------------------


def grouped_bar_figure(
    table: Mapping[str, Mapping[str, float]],
    *,
    labels: Mapping[str, str] | None = None,
    title: str,
    scale: float = 1.0,
    hover_format: str = "%{y:.4g}",
    height: int = 340,
) -> go.Figure:
    """Grouped bars: one trace per ``table`` key, one bar per inner key, values × ``scale``."""
    labels = labels or {}
    fig = go.Figure()
    for k, (col, row) in enumerate(table.items()):
        names = list(row)
        fig.add_trace(
            go.Bar(
                name=col,
                x=[labels.get(n, n) for n in names],
                y=[scale * row[n] for n in names],
                marker_color=PALETTE[k % len(PALETTE)],
                hovertemplate="%{x}: " + hover_format + "<extra>" + col + "</extra>",
            )
        )
    fig.update_layout(barmode="group", title=dict(text=title), height=height, margin=MARGIN)
    return fig


def measures_comparison_figure(
    table: Mapping[str, Mapping[str, float]],
    *,
    labels: Mapping[str, str] | None = None,
    title: str = "Measures per embedder",
) -> go.Figure:
    """One small panel per measure, each on its own y axis: ``table[column][measure]``.

    The measures live on different scales (Inv-Entropy in nats, up to log m; a
    Wasserstein distance or a probability below 1), so one shared axis would
    flatten the small ones: each measure gets its own panel, the columns (e.g.
    embedders, or left and right) side by side within it, one colour each.
    """
    labels = labels or {}
    columns = list(table)
    measures = list(dict.fromkeys(n for row in table.values() for n in row))
    fig = make_subplots(
        rows=1, cols=max(1, len(measures)), subplot_titles=[labels.get(n, n) for n in measures]
    )
    for k, col in enumerate(columns):
        for j, name in enumerate(measures, start=1):
            if name not in table[col]:
                continue
            fig.add_trace(
                go.Bar(
                    name=col,
                    x=[col],
                    y=[table[col][name]],
                    marker_color=PALETTE[k % len(PALETTE)],
                    showlegend=j == 1,
                    legendgroup=col,
                    hovertemplate=f"{labels.get(name, name)} · {col}: %{{y:.4g}}<extra></extra>",
                ),
                row=1,
                col=j,
            )
    fig.update_xaxes(showticklabels=False)
    fig.update_layout(title=dict(text=title), height=340, margin=MARGIN, bargap=0.15)
    return fig
