"""Plotly figure builders for the dashboard: pure functions of arrays and texts.

No Streamlit here, and no paper math: every quantity drawn was computed by
``invent_core`` (the run's :class:`~invent_core.paper.random_walk.RandomWalk`, its
bootstrap values, the metrics' confidence, rejection and reliability data).
What is computed here is only how to draw it: ROC points (scikit-learn's
``roc_curve`` of :func:`~invent_core.evaluation.metrics.confidence_from_uncertainty`),
the walk graphs' node positions (a seeded networkx spring layout), colour ranges
and wrapped hover texts. Testable by reading the figure's data back.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

#: One colour per method / embedder, stable across pages.
PALETTE: tuple[str, ...] = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#ff7f0e",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
    "#393b79",
    "#637939",
    "#843c39",
)
ORIGINAL_COLOUR = "#d62728"
OTHER_COLOUR = "#1f77b4"
_MARGIN = dict(l=10, r=10, t=50, b=10)


def wrap_text(text: str, width: int = 60, max_lines: int = 4) -> str:
    """Hover-friendly text: wrapped with ``<br>``, at most ``max_lines`` lines."""
    lines = textwrap.wrap(" ".join(str(text).split()), width=width) or [""]
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = lines[-1][: max(0, width - 1)] + "…"
    return "<br>".join(lines)


def state_labels(m: int, prefix: str = "x") -> list[str]:
    """Axis labels of the m states: ``x0`` is the original question."""
    return [f"{prefix}{i}" for i in range(m)]


# ---------------------------------------------------------------------------
# Matrices of the dual random walk
# ---------------------------------------------------------------------------


def heatmap_figure(
    matrix: np.ndarray,
    *,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    row_texts: Sequence[str],
    col_texts: Sequence[str],
    title: str,
    row_title: str = "from",
    col_title: str = "to",
    value_name: str = "p",
    colorscale: str = "Blues",
    zmin: float | None = None,
    zmax: float | None = None,
    height: int = 420,
) -> go.Figure:
    """A matrix as a heatmap whose hover shows the row's and the column's texts.

    Parameters
    ----------
    matrix : (rows, cols) array, drawn as is (row 0 at the top).
    row_texts, col_texts : the text behind each row / column (question or answer).
    """
    z = np.asarray(matrix, dtype=np.float64)
    if z.ndim != 2 or z.shape != (len(row_labels), len(col_labels)):
        raise ValueError(
            f"matrix of shape {z.shape} does not match {len(row_labels)} row and "
            f"{len(col_labels)} column labels"
        )
    rt = [wrap_text(t) for t in row_texts]
    ct = [wrap_text(t) for t in col_texts]
    custom = [[[rt[i], ct[j]] for j in range(z.shape[1])] for i in range(z.shape[0])]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=list(col_labels),
            y=list(row_labels),
            customdata=custom,
            colorscale=colorscale,
            zmin=zmin,
            zmax=zmax,
            hovertemplate=(
                f"<b>{row_title} %{{y}}</b>: %{{customdata[0]}}<br>"
                f"<b>{col_title} %{{x}}</b>: %{{customdata[1]}}<br>"
                f"{value_name} = %{{z:.4f}}<extra></extra>"
            ),
            colorbar=dict(thickness=12),
        )
    )
    fig.update_layout(title=dict(text=title), height=height, margin=_MARGIN)
    fig.update_yaxes(autorange="reversed", title_text=row_title, type="category")
    fig.update_xaxes(title_text=col_title, type="category", side="bottom")
    return fig


def walk_heatmaps(
    walk: Any,
    questions: Sequence[str],
    answers: Sequence[str],
    *,
    colorscale: str = "Blues",
    zrange: tuple[float, float] | None = None,
) -> dict[str, go.Figure]:
    """The three heatmaps of a run: ``P_x``, ``P_y`` and ``P(X|Y)``.

    Parameters
    ----------
    walk : a :class:`invent_core.paper.random_walk.RandomWalk` (m states).
    questions : the m questions (original first).
    answers : the m answers the walk's ``P_y`` was built on (one per state).
    zrange : fixed colour range (to compare several runs); default: each matrix's own.

    Returns
    -------
    dict with keys ``"p_x"``, ``"p_y"``, ``"p_x_given_y"``.
    """
    m = len(questions)
    xs, ys = state_labels(m, "x"), state_labels(m, "y")
    zmin, zmax = zrange if zrange is not None else (None, None)
    common = dict(colorscale=colorscale, zmin=zmin, zmax=zmax)
    return {
        "p_x": heatmap_figure(
            walk.p_x,
            row_labels=xs,
            col_labels=xs,
            row_texts=questions,
            col_texts=questions,
            title="P<sub>x</sub>: input walk x<sub>i</sub> → x<sub>j</sub>",
            **common,
        ),
        "p_y": heatmap_figure(
            walk.p_y,
            row_labels=ys,
            col_labels=ys,
            row_texts=answers,
            col_texts=answers,
            title="P<sub>y</sub>: output walk y<sub>i</sub> → y<sub>j</sub>",
            **common,
        ),
        "p_x_given_y": heatmap_figure(
            walk.p_x_given_y,
            row_labels=ys,
            col_labels=xs,
            row_texts=answers,
            col_texts=questions,
            title="P(X | Y): row y<sub>j</sub> is P(x<sub>i</sub> | y<sub>j</sub>)",
            row_title="given",
            col_title="input",
            **common,
        ),
    }


def shared_range(matrices: Sequence[np.ndarray]) -> tuple[float, float]:
    """(min, max) over several matrices: one colour scale for side-by-side heatmaps."""
    return float(min(np.min(a) for a in matrices)), float(max(np.max(a) for a in matrices))


def difference_heatmap(
    a: np.ndarray,
    b: np.ndarray,
    *,
    labels: Sequence[str],
    row_texts: Sequence[str],
    col_texts: Sequence[str],
    title: str,
    col_labels: Sequence[str] | None = None,
) -> go.Figure:
    """``b − a`` on a diverging colour scale centred on 0 (embedder comparison)."""
    d = np.asarray(b, dtype=np.float64) - np.asarray(a, dtype=np.float64)
    lim = float(np.max(np.abs(d))) or 1e-12
    return heatmap_figure(
        d,
        row_labels=labels,
        col_labels=col_labels or labels,
        row_texts=row_texts,
        col_texts=col_texts,
        title=title,
        value_name="Δp",
        colorscale="RdBu_r",
        zmin=-lim,
        zmax=lim,
    )


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
        margin=_MARGIN,
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


# ---------------------------------------------------------------------------
# Bootstrap distributions
# ---------------------------------------------------------------------------


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
        margin=_MARGIN,
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
        f"this question ({percentile:.0f}th percentile)"
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
        margin=_MARGIN,
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
    fig.update_layout(height=height, margin=_MARGIN, showlegend=False, bargap=0.05)
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
    fig.update_layout(barmode="group", title=dict(text=title), height=height, margin=_MARGIN)
    return fig


def measures_comparison_figure(
    table: Mapping[str, Mapping[str, float]],
    *,
    labels: Mapping[str, str] | None = None,
    title: str = "Measures per embedder",
) -> go.Figure:
    """Grouped bars: ``table[column][measure]`` (e.g. embedder → measure → value)."""
    return grouped_bar_figure(table, labels=labels, title=title)


# ---------------------------------------------------------------------------
# GAAP
# ---------------------------------------------------------------------------

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
        (see :func:`invent_ui.tables.gaap_members`).
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
        margin=_MARGIN,
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
        margin=_MARGIN,
    )
    return fig


# ---------------------------------------------------------------------------
# TSU
# ---------------------------------------------------------------------------


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
        colour = PALETTE[k % len(PALETTE)]
        fig.add_trace(
            go.Scatter(
                x=t,
                y=mean,
                mode="lines+markers",
                name=labels.get(name, name),
                line=dict(color=colour, width=2),
                hovertemplate="T=%{x}<br>%{y:.4f}<extra>" + labels.get(name, name) + "</extra>",
            )
        )
    fig.update_layout(
        title=dict(text=title),
        xaxis_title="temperature T",
        yaxis_title="uncertainty (min–max scaled)" if normalize else "uncertainty",
        height=400,
        margin=_MARGIN,
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


# ---------------------------------------------------------------------------
# Evaluation
# ---------------------------------------------------------------------------


def roc_figure(
    correct: np.ndarray,
    uncertainties: Mapping[str, np.ndarray],
    *,
    labels: Mapping[str, str] | None = None,
) -> go.Figure:
    """ROC curves of confidence (−uncertainty, via invent_core) for correctness."""
    from sklearn.metrics import roc_curve

    from invent_core.evaluation.metrics import auroc_score, confidence_from_uncertainty

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
                line=dict(color=PALETTE[k % len(PALETTE)], width=2),
            )
        )
    fig.update_layout(
        # short enough for half a page: the legend says what the numbers are
        title=dict(text="ROC: confidence vs. correct answer"),
        legend=dict(title=dict(text="method (AUROC)")),
        xaxis_title="false positive rate",
        yaxis_title="true positive rate",
        height=420,
        margin=_MARGIN,
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
                line=dict(color=PALETTE[k % len(PALETTE)], width=2),
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
        margin=_MARGIN,
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
                line=dict(color=PALETTE[k % len(PALETTE)]),
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
        margin=_MARGIN,
    )
    fig.update_xaxes(range=[0, 1])
    fig.update_yaxes(range=[0, 1.02])
    return fig
