"""Two evaluations compared: each paired difference A − B as a point with its 95 % interval.

One row per (method, metric); the points are the differences on the sample,
the bars their percentile intervals over the paired resamples, and a line at
0 marks no difference. Rows whose interval excludes 0 in the better direction
for A are coloured as A's, the others as B's or grey.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from .style import MARGIN, PALETTE

#: Colour of a difference the interval cannot tell from 0.
UNDECIDED = "#7f7f7f"


def paired_differences_figure(
    labels: Sequence[str],
    differences: Sequence[float],
    intervals: Sequence[tuple[float, float]],
    verdicts: Sequence[str],
    *,
    title: str = "A − B, paired, with its 95 % interval",
) -> go.Figure:
    """A dot plot: ``labels[i]`` at ``differences[i]`` with error bars to ``intervals[i]``.

    ``verdicts``: "ahead" (A better), "behind" (B better) or anything else (undecided).
    """
    colour = {"ahead": PALETTE[0], "behind": PALETTE[1]}
    fig = go.Figure(
        go.Scatter(
            x=list(differences),
            y=list(labels),
            mode="markers",
            marker=dict(size=10, color=[colour.get(v, UNDECIDED) for v in verdicts]),
            error_x=dict(
                type="data",
                symmetric=False,
                array=[hi - d for d, (_, hi) in zip(differences, intervals, strict=True)],
                arrayminus=[d - lo for d, (lo, _) in zip(differences, intervals, strict=True)],
            ),
            text=list(verdicts),
            hovertemplate="%{y}: %{x:+.3f} (%{text})<extra></extra>",
        )
    )
    fig.add_vline(x=0, line_dash="dot", line_color=UNDECIDED)
    fig.update_layout(
        title=title,
        margin=MARGIN,
        height=120 + 28 * len(labels),
        yaxis=dict(autorange="reversed"),
        xaxis_title="A − B",
    )
    return fig
