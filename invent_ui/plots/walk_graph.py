"""A random walk as a directed graph: states as nodes, transitions above a threshold as edges.

The node positions are networkx's spring layout of ``p + p.T`` with a fixed
seed, so the picture neither jumps between reruns nor moves with the
threshold slider; edge width grows with the transition probability.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .style import MARGIN, ORIGINAL_COLOUR, OTHER_COLOUR, wrap_text


def walk_graph_figure(
    p: np.ndarray,
    *,
    texts: Sequence[str],
    threshold: float,
    title: str,
    prefix: str = "x",
    seed: int = 0,
    height: int = 420,
) -> go.Figure:
    """A random walk as a directed graph: an edge i → j for every ``p[i, j] ≥ threshold``.

    The layout is networkx's spring layout weighted by ``p`` (fixed ``seed``, so the
    picture does not jump between reruns). Edge width grows with the transition
    probability; self-loops are not drawn, their probability is in the node hover.

    Parameters
    ----------
    p : (m, m) row-stochastic transition matrix.
    texts : the m texts behind the states (hover).
    threshold : smallest probability drawn as an edge.
    """
    p = np.asarray(p, dtype=np.float64)
    m = p.shape[0]
    edges = [
        (i, j, float(p[i, j]))
        for i in range(m)
        for j in range(m)
        if i != j and p[i, j] >= threshold
    ]
    pos = _walk_layout(p, seed=seed)
    fig = go.Figure()
    for trace in _edge_traces(edges, pos, prefix=prefix):
        fig.add_trace(trace)
    fig.add_trace(_state_trace(p, pos, texts=texts, prefix=prefix))
    fig.update_layout(
        title=dict(text=f"{title} — {len(edges)} edges with p ≥ {threshold:.3f}"),
        height=height,
        margin=MARGIN,
        plot_bgcolor="white",
    )
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False, scaleanchor="x")
    return fig


def _walk_layout(p: np.ndarray, *, seed: int) -> dict[int, np.ndarray]:
    """Spring layout of the m states weighted by ``p + p.T``.

    Every transition counts, not only the drawn ones: the picture is stable under the
    threshold slider.
    """
    import networkx as nx

    m = p.shape[0]
    full = nx.Graph()
    full.add_weighted_edges_from(
        (i, j, float(p[i, j] + p[j, i])) for i in range(m) for j in range(i + 1, m)
    )
    full.add_nodes_from(range(m))
    return nx.spring_layout(full, weight="weight", seed=seed)


def _edge_traces(
    edges: list[tuple[int, int, float]], pos: dict[int, np.ndarray], *, prefix: str
) -> list[go.Scatter]:
    """Line traces (one per width bin, keeping the figure light) and the arrow-head hovers."""
    if not edges:
        return []
    ws = np.array([w for _, _, w in edges])
    lo, hi = float(ws.min()), float(ws.max())
    n_bins = 6
    bins = (
        np.zeros(len(edges), dtype=int)
        if hi - lo < 1e-12
        else np.minimum(((ws - lo) / (hi - lo) * n_bins).astype(int), n_bins - 1)
    )
    traces = []
    for b in range(n_bins):
        xs: list[float | None] = []
        ys: list[float | None] = []
        for (i, j, _), eb in zip(edges, bins):
            if eb != b:
                continue
            xs += [pos[i][0], pos[j][0], None]
            ys += [pos[i][1], pos[j][1], None]
        if not xs:
            continue
        traces.append(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines",
                line=dict(width=0.8 + 1.6 * b, color="rgba(60,90,160,0.55)"),
                hoverinfo="skip",
                showlegend=False,
                name=f"edges {b}",
            )
        )
    # arrow heads and edge hovers at 80 % of each edge
    traces.append(
        go.Scatter(
            x=[pos[i][0] + 0.8 * (pos[j][0] - pos[i][0]) for i, j, _ in edges],
            y=[pos[i][1] + 0.8 * (pos[j][1] - pos[i][1]) for i, j, _ in edges],
            mode="markers",
            marker=dict(size=5, color="rgba(60,90,160,0.8)"),
            text=[f"{prefix}{i} → {prefix}{j}: p = {w:.4f}" for i, j, w in edges],
            hovertemplate="%{text}<extra></extra>",
            showlegend=False,
            name="edge",
        )
    )
    return traces


def _state_trace(
    p: np.ndarray, pos: dict[int, np.ndarray], *, texts: Sequence[str], prefix: str
) -> go.Scatter:
    """The m states as labelled markers; the stay probability ``p[i, i]`` in the hover."""
    m = p.shape[0]
    return go.Scatter(
        x=[pos[i][0] for i in range(m)],
        y=[pos[i][1] for i in range(m)],
        mode="markers+text",
        text=[f"{prefix}{i}" for i in range(m)],
        textposition="top center",
        marker=dict(
            size=18,
            color=[ORIGINAL_COLOUR if i == 0 else OTHER_COLOUR for i in range(m)],
            line=dict(width=1, color="white"),
        ),
        customdata=[[wrap_text(texts[i]), float(p[i, i])] for i in range(m)],
        hovertemplate="<b>%{text}</b>: %{customdata[0]}<br>stay p = %{customdata[1]:.4f}<extra></extra>",
        showlegend=False,
        name="states",
    )
