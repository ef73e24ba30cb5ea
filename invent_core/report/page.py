"""One self-contained HTML page: escaped text, tables, folded sections and inline plotly charts.

Nothing on the page is fetched: the style sheet is inline and plotly's JavaScript
is embedded once, in the first chart (``include_plotlyjs=True``), so the file
opens from a mail attachment or a USB stick with no network and no server.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Page", "details", "esc", "key_values", "table"]

_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:1100px;
color:#1f2933;padding:0 1rem}
h1{font-size:1.6rem}h2{border-bottom:1px solid #d9e2ec;padding-bottom:.3rem;margin-top:2rem}
table{border-collapse:collapse;margin:.5rem 0;font-size:.9rem}
td,th{border:1px solid #d9e2ec;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f0f4f8}details{margin:.3rem 0;border:1px solid #d9e2ec;border-radius:4px;
padding:.3rem .6rem}summary{cursor:pointer}.right{color:#127f3f}.wrong{color:#b42318}
.note{color:#52606d;font-size:.9rem}code{background:#f0f4f8;padding:0 .2rem}
"""


def esc(value: Any) -> str:
    """``value`` as HTML text (None: an en dash)."""
    return "–" if value is None else html.escape(str(value))


def table(header: Sequence[str], rows: Iterable[Sequence[Any]], *, raw: bool = False) -> str:
    """An HTML table; cells escaped unless ``raw`` (cells already HTML)."""
    cell = (lambda v: str(v)) if raw else esc
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def key_values(items: Mapping[str, Any]) -> str:
    """A two-column table of settings; nested values as compact JSON."""

    def show(v: Any) -> str:
        return json.dumps(v, default=str) if isinstance(v, (dict, list, tuple)) else str(v)

    return table(["setting", "value"], [(k, show(v)) for k, v in items.items()])


def details(summary_html: str, body_html: str, *, attrs: str = "") -> str:
    """A folded section: ``summary_html`` shown, ``body_html`` on a click (already HTML)."""
    return f"<details {attrs}><summary>{summary_html}</summary>{body_html}</details>"


@dataclass
class Page:
    """Sections in order; :meth:`html` writes the page with plotly's JS embedded once."""

    title: str
    sections: list[tuple[str, str, str]] = field(default_factory=list)  # (id, heading, html)
    _charts: int = 0

    def section(self, anchor: str, heading: str, body_html: str) -> None:
        """Add a section (``anchor``: its id, for links and the tests)."""
        self.sections.append((anchor, heading, body_html))

    def chart(self, fig: Any) -> str:
        """The figure as an inline ``<div>``; the first chart carries plotly's JavaScript."""
        self._charts += 1
        return fig.to_html(
            full_html=False,
            include_plotlyjs=self._charts == 1,  # embedded, never the CDN: opens offline
            config={"displaylogo": False},
            default_height=f"{fig.layout.height or 420}px",
        )

    def html(self) -> str:
        """The whole document."""
        toc = "".join(f'<li><a href="#{a}">{esc(h)}</a></li>' for a, h, _ in self.sections)
        body = "".join(
            f'<section id="{a}"><h2>{esc(h)}</h2>{b}</section>' for a, h, b in self.sections
        )
        return (
            "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>{esc(self.title)}</title><style>{_STYLE}</style></head><body>"
            f"<h1>{esc(self.title)}</h1><nav><ul>{toc}</ul></nav>{body}</body></html>"
        )
