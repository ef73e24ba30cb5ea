"""GAAP evolution: every member's fitness per generation, and the fitness spread as boxes.

A generation is a list of member dicts (``text``, ``fitness``, ``kind`` — how it
was made — and ``in_per`` when it entered Per(S_x0)), as
:func:`invent_ui.render.tables.gaap_members` reads them from a
:class:`~invent_core.perturb.gaap.GaapResult`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from .style import MARGIN, ORIGINAL_COLOUR, OTHER_COLOUR, wrap_text

_ORIGIN_COLOURS = {
    "initial": "#1f77b4",
    "parent": "#7f7f7f",
    "crossover": "#2ca02c",
    "mutation": "#ff7f0e",
}


def gaap_generations_figure(
    generations: Sequence[Sequence[Mapping[str, Any]]],
    *,
    delta: float,
    upto: int,
    height: int = 420,
) -> go.Figure:
    """Every member's fitness, generation by generation, up to ``upto`` (inclusive).

    Parameters
    ----------
    generations : ``generations[t]`` is a list of member dicts with at least
        ``text``, ``fitness`` and ``kind`` (how it was made: initial, parent,
        crossover, mutation); ``in_per`` marks members that entered Per(S_x0)
        (see :func:`invent_ui.render.tables.gaap_members`).
    delta : the stopping threshold δ on fitness (drawn as a line).
    """
    fig = go.Figure()
    rng = np.random.default_rng(0)  # jitter only: a fixed pattern, never data
    shown = list(enumerate(generations[: upto + 1]))
    kinds = sorted({str(mm.get("kind", "member")) for _, gen in shown for mm in gen})
    for kind in kinds:
        xs, ys, hover = [], [], []
        for t, gen in shown:
            for mm in gen:
                if str(mm.get("kind", "member")) != kind:
                    continue
                xs.append(t + float(rng.uniform(-0.18, 0.18)))
                ys.append(float(mm["fitness"]))
                hover.append(wrap_text(mm["text"]))
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="markers",
                name=kind,
                marker=dict(size=8, color=_ORIGIN_COLOURS.get(kind, "#9467bd"), opacity=0.75),
                customdata=hover,
                hovertemplate="%{customdata}<br>fitness %{y:.4f}<extra>" + kind + "</extra>",
            )
        )
    px, py, ph = [], [], []
    for t, gen in shown:
        for mm in gen:
            if mm.get("in_per"):
                px.append(t)
                py.append(float(mm["fitness"]))
                ph.append(wrap_text(mm["text"]))
    fig.add_trace(
        go.Scatter(
            x=px,
            y=py,
            mode="markers",
            name="entered Per(S<sub>x0</sub>)",
            marker=dict(size=16, symbol="star", color="gold", line=dict(width=1, color="black")),
            customdata=ph,
            hovertemplate="%{customdata}<br>fitness %{y:.4f}<extra>in Per</extra>",
        )
    )
    fig.add_hline(
        y=delta, line=dict(color=ORIGINAL_COLOUR, dash="dash"), annotation_text=f"δ = {delta:g}"
    )
    fig.update_layout(
        title=dict(text=f"GAAP: fitness a(x0, ·) of every member, generations 0–{upto}"),
        xaxis_title="generation t",
        yaxis_title="fitness (affinity to x0)",
        height=height,
        margin=MARGIN,
    )
    fig.update_xaxes(range=[-0.5, max(len(generations) - 0.5, 0.5)], dtick=1)
    return fig


def gaap_fitness_box_figure(
    generations: Sequence[Sequence[Mapping[str, Any]]], *, delta: float, upto: int | None = None
) -> go.Figure:
    """The fitness distribution of each generation (box per generation) and δ."""
    upto = len(generations) - 1 if upto is None else upto
    fig = go.Figure()
    for t, gen in enumerate(generations[: upto + 1]):
        fig.add_trace(
            go.Box(
                y=[float(mm["fitness"]) for mm in gen],
                name=f"t={t}",
                marker_color=OTHER_COLOUR,
                boxpoints="all",
                jitter=0.4,
                pointpos=0,
                showlegend=False,
            )
        )
    fig.add_hline(
        y=delta, line=dict(color=ORIGINAL_COLOUR, dash="dash"), annotation_text=f"δ = {delta:g}"
    )
    fig.update_layout(
        title=dict(text="Fitness distribution per generation"),
        yaxis_title="fitness",
        height=340,
        margin=MARGIN,
    )
    return fig
