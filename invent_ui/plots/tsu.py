"""Temperature sensitivity (TSU): uncertainty against temperature, and TSU per method as bars.

Curves map a method to its ``(T,)`` values, or ``(Q, T)`` per question (the mean
is drawn); the TSU table maps a column label to method → fraction, drawn as
percentages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from .measures import grouped_bar_figure
from .style import MARGIN, line_style


def uq_temperature_figure(
    temperatures: Sequence[float],
    curves: Mapping[str, np.ndarray],
    *,
    labels: Mapping[str, str] | None = None,
    normalize: bool = True,
    title: str = "Uncertainty versus temperature",
) -> go.Figure:
    """One line per method: its uncertainty (mean over questions) at each temperature.

    Parameters
    ----------
    curves : method → (T,) values, or (Q, T) per question (the mean line is drawn,
        with the per-question spread as a band).
    normalize : rescale each method's line to [0, 1] (methods live on
        different scales; display-only).
    """
    labels = labels or {}
    t = list(map(float, temperatures))
    fig = go.Figure()
    for k, (name, raw) in enumerate(curves.items()):
        a = np.asarray(raw, dtype=np.float64)
        a = a[None, :] if a.ndim == 1 else a
        if normalize:
            lo, hi = np.nanmin(a), np.nanmax(a)
            a = (a - lo) / (hi - lo) if hi - lo > 1e-12 else a * 0.0
        mean = np.nanmean(a, axis=0)
        fig.add_trace(
            go.Scatter(
                x=t,
                y=mean,
                mode="lines+markers",
                name=labels.get(name, name),
                line=line_style(k),
                hovertemplate="T=%{x}<br>%{y:.4f}<extra>" + labels.get(name, name) + "</extra>",
            )
        )
    fig.update_layout(
        title=dict(text=title),
        xaxis_title="temperature T",
        yaxis_title="uncertainty (min–max scaled)" if normalize else "uncertainty",
        height=400,
        margin=MARGIN,
    )
    return fig


def tsu_bar_figure(
    tsu: Mapping[str, Mapping[str, float]],
    *,
    labels: Mapping[str, str] | None = None,
    title: str = "TSU per method (higher = more temperature-sensitive)",
) -> go.Figure:
    """Grouped bars: ``tsu[column_label][method]`` as percentages."""
    fig = grouped_bar_figure(
        tsu, labels=labels, title=title, scale=100.0, hover_format="%{y:.1f} %", height=400
    )
    fig.update_layout(yaxis_title="TSU (%)")
    fig.update_yaxes(range=[0, 100])
    return fig
