"""Evaluation curves: ROC, rejection and reliability, one line per method.

Inputs are what :mod:`invent_core.evaluation.metrics` computed (0/1 correctness
and each method's ``(Q,)`` uncertainty, its ``RejectionCurve`` or
``ReliabilityDiagram``). The ROC points are scikit-learn's ``roc_curve`` of the
core's confidence (−uncertainty); scikit-learn is imported when a ROC is drawn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from invent_core.evaluation.metrics import auroc_score, confidence_from_uncertainty

from .style import MARGIN, line_style


def roc_figure(
    correct: np.ndarray,
    uncertainties: Mapping[str, np.ndarray],
    *,
    labels: Mapping[str, str] | None = None,
) -> go.Figure:
    """ROC curves of confidence (−uncertainty, via invent_core) for correctness."""
    from sklearn.metrics import roc_curve

    labels = labels or {}
    c = np.asarray(correct).astype(int)
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=[0, 1], y=[0, 1], mode="lines", line=dict(color="grey", dash="dot"), name="random"
        )
    )
    for k, (name, u) in enumerate(uncertainties.items()):
        fpr, tpr, _ = roc_curve(c, confidence_from_uncertainty(u))
        auc = auroc_score(c, u)
        fig.add_trace(
            go.Scatter(
                x=fpr,
                y=tpr,
                mode="lines",
                name=f"{labels.get(name, name)} ({auc:.3f})",
                line=line_style(k),
            )
        )
    fig.update_layout(
        # short enough for half a page: the legend says what the numbers are
        title=dict(text="ROC: confidence vs. correct answer"),
        legend=dict(title=dict(text="method (AUROC)")),
        xaxis_title="false positive rate",
        yaxis_title="true positive rate",
        height=420,
        margin=MARGIN,
    )
    return fig


def rejection_figure(
    curves: Mapping[str, Any],
    *,
    labels: Mapping[str, str] | None = None,
) -> go.Figure:
    """Accuracy of the kept answers as the most uncertain ones are rejected.

    Parameters
    ----------
    curves : method → :class:`invent_core.evaluation.metrics.RejectionCurve`.
    """
    labels = labels or {}
    fig = go.Figure()
    for k, (name, cur) in enumerate(curves.items()):
        fig.add_trace(
            go.Scatter(
                x=np.asarray(cur.fraction_rejected),
                y=np.asarray(cur.accuracy_kept),
                mode="lines",
                name=labels.get(name, name),
                line=line_style(k),
            )
        )
    if curves:
        first = next(iter(curves.values()))
        base = float(np.asarray(first.accuracy_kept)[0])
        fig.add_hline(
            y=base, line=dict(color="grey", dash="dot"), annotation_text="random rejection"
        )
    fig.update_layout(
        title=dict(text="Rejection curves: accuracy of the answers kept"),
        xaxis_title="fraction rejected (most uncertain first)",
        yaxis_title="accuracy of kept answers",
        height=420,
        margin=MARGIN,
    )
    return fig


def reliability_figure(
    diagrams: Mapping[str, Any], *, labels: Mapping[str, str] | None = None
) -> go.Figure:
    """Reliability diagram(s): accuracy against calibrated confidence per bin.

    Parameters
    ----------
    diagrams : method → :class:`invent_core.evaluation.metrics.ReliabilityDiagram`.
    """
    labels = labels or {}
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=[0, 1], y=[0, 1], mode="lines", line=dict(color="grey", dash="dot"), name="perfect"
        )
    )
    for k, (name, d) in enumerate(diagrams.items()):
        ok = np.asarray(d.count) > 0
        fig.add_trace(
            go.Scatter(
                x=np.asarray(d.mean_confidence)[ok],
                y=np.asarray(d.accuracy)[ok],
                mode="lines+markers",
                name=f"{labels.get(name, name)} (ECE {d.ece:.3f})",
                marker=dict(size=6 + 14 * np.asarray(d.count)[ok] / max(1, int(np.max(d.count)))),
                line=line_style(k, width=1.5),
                customdata=np.asarray(d.count)[ok],
                hovertemplate="confidence %{x:.2f}<br>accuracy %{y:.2f}<br>%{customdata} answers<extra></extra>",
            )
        )
    fig.update_layout(
        title=dict(
            text="Reliability: isotonic-calibrated P(correct) per bin (marker size = answers)"
        ),
        xaxis_title="mean predicted P(correct)",
        yaxis_title="fraction correct",
        height=420,
        margin=MARGIN,
    )
    fig.update_xaxes(range=[0, 1])
    fig.update_yaxes(range=[0, 1.02])
    return fig
