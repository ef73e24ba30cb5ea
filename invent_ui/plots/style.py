"""What every figure shares: the colours, the margins and the hover texts.

``PALETTE`` gives one colour per method or embedder, in the same order on every
page; ``ORIGINAL_COLOUR`` marks the original question (state ``x0``) and
``OTHER_COLOUR`` every other state. Hover texts are wrapped with ``<br>`` so a
long question stays readable in a tooltip.
"""

from __future__ import annotations

import html
import textwrap

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
#: Line dashes: after every colour is used once, the next lines reuse the colours dashed.
DASHES: tuple[str, ...] = ("solid", "dash", "dot", "dashdot")
ORIGINAL_COLOUR = "#d62728"
OTHER_COLOUR = "#1f77b4"
#: Figure margins (px): room for the title only.
MARGIN = dict(l=10, r=10, t=50, b=10)


def line_style(k: int, width: float = 2) -> dict:
    """The ``k``-th line's colour and dash: distinct for ``len(PALETTE) × len(DASHES)`` lines.

    Thirteen methods or more on one chart would otherwise repeat a colour with
    nothing to tell the two lines apart.
    """
    n = len(PALETTE)
    return dict(color=PALETTE[k % n], dash=DASHES[(k // n) % len(DASHES)], width=width)


def wrap_text(text: str, width: int = 60, max_lines: int = 4) -> str:
    """Hover-friendly text: wrapped with ``<br>``, at most ``max_lines`` lines.

    Plotly reads a few HTML tags in hover text (``<a href>`` among them): the text
    (a question, an answer) is HTML-escaped, so it shows as typed.
    """
    lines = textwrap.wrap(" ".join(str(text).split()), width=width) or [""]
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = lines[-1][: max(0, width - 1)] + "…"
    return "<br>".join(html.escape(line, quote=False) for line in lines)


def state_labels(m: int, prefix: str = "x") -> list[str]:
    """Axis labels of the m states: ``x0`` is the original question."""
    return [f"{prefix}{i}" for i in range(m)]
