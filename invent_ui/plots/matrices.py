"""Heatmaps of the dual random walk's matrices: P_x, P_y, P(X|Y) and their differences.

A matrix is an ``(m, m)`` (or ``(rows, cols)``) float array drawn as it is, row
0 at the top; the hover shows the texts behind the row and the column (the
perturbed questions, or replication 1's answers, which the shown P_y was built on).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from .style import MARGIN, state_labels, wrap_text


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
    fig.update_layout(title=dict(text=title), height=height, margin=MARGIN)
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


def same_matrix(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether ``b − a`` is zero everywhere (to float precision): a difference chart would be blank."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=0.0, atol=1e-12))


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
