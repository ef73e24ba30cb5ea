"""Downloads for every table and chart: CSV, JSON, LaTeX, HTML and PNG bytes, and their buttons.

Pure helpers turn a table (a pandas DataFrame, a list of row dicts, or an
:class:`~invent_core.evaluation.tables.ResultsTable`) or a plotly figure into
file bytes; :func:`download_buttons` is the one thin Streamlit renderer.

- CSV cells go through the batch writer's ``neutralize_cell``, so every cell
  is escaped the same way against spreadsheet formula injection: text
  starting with ``=``, ``+``, ``-``, ``@``, tab or CR gets a leading apostrophe
  unless it is a plain number. Rows end in CRLF (RFC 4180), which also makes
  the csv module quote a cell holding a lone CR.
- LaTeX is the paper-style table of ``ResultsTable.to_latex`` (leaderboards,
  TSU tables); other tables have none.
- HTML embeds plotly.js, so the file opens offline. PNG needs the optional
  ``kaleido`` package (and a Chrome or Chromium it drives); without it the
  renderer says so instead of offering a button.
"""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from invent_core.csv_safe import neutralize_cell
from invent_core.errors import InventError
from invent_core.evaluation.tables import ResultsTable
from invent_ui.text import untrusted

__all__ = [
    "FORMATS",
    "ExportUnavailable",
    "table_csv",
    "table_json",
    "table_latex",
    "figure_html",
    "figure_png",
    "png_available",
    "download_buttons",
]

#: format → (file extension, MIME type, button label).
FORMATS: dict[str, tuple[str, str, str]] = {
    "csv": ("csv", "text/csv", "CSV"),
    "json": ("json", "application/json", "JSON"),
    "latex": ("tex", "application/x-tex", "LaTeX"),
    "html": ("html", "text/html", "Chart (HTML)"),
    "png": ("png", "image/png", "Chart (PNG)"),
}
PNG_MISSING = (
    "PNG download needs the optional kaleido package and Chrome or Chromium "
    "(pip install kaleido); the HTML chart has the same content."
)

Table = pd.DataFrame | ResultsTable | Sequence[Mapping[str, Any]]


class ExportUnavailable(InventError):
    """A format cannot be produced here (e.g. PNG without kaleido)."""


def _plain(value: Any) -> Any:
    """Turn a numpy / pandas scalar into a Python one; missing values into ``None``."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or value is pd.NaT or value is pd.NA:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _frame(table: pd.DataFrame | Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Return rows as a DataFrame with a plain 0..n-1 index (a named index becomes a column)."""
    if isinstance(table, pd.DataFrame):
        frame = table
    elif isinstance(table, Sequence) and all(isinstance(r, Mapping) for r in table):
        frame = pd.DataFrame(list(table))
    else:
        raise TypeError(f"not a table: {type(table).__name__}")
    if not isinstance(frame.index, pd.RangeIndex) or frame.index.name is not None:
        frame = frame.reset_index()
    return frame


def table_csv(table: Table) -> bytes:
    """UTF-8 CSV of a table, every cell escaped against formula injection.

    A :class:`ResultsTable` gives its full-precision CSV
    (``method, <metric>_mean, <metric>_std, <metric>_mark``).
    """
    if isinstance(table, ResultsTable):  # its own layout, already escaped by csv_safe
        return table.to_csv().encode("utf-8")
    else:
        frame = _frame(table)
        rows = [[str(c) for c in frame.columns]]
        rows += [[_plain(v) for v in row] for row in frame.itertuples(index=False, name=None)]
    buf = io.StringIO()
    # "\r\n": the csv module quotes cells containing any lineterminator character,
    # so with "\n" alone a cell holding a lone CR would be written bare.
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerows([neutralize_cell(v) for v in row] for row in rows)
    return buf.getvalue().encode("utf-8")


def _results_json(table: ResultsTable) -> dict[str, Any]:
    marks = table.marks()
    rows = []
    for i, method in enumerate(table.methods):
        row: dict[str, Any] = {"method": method}
        for j, col in enumerate(table.columns):
            row[col.key] = {
                "mean": _plain(float(table.mean[i, j])),
                "std": _plain(float(table.std[i, j])),
                "mark": marks[i, j] or None,
            }
        rows.append(row)
    columns = [
        {"key": c.key, "label": c.label, "higher_is_better": c.higher_is_better}
        for c in table.columns
    ]
    return {"columns": columns, "rows": rows, "scale": table.scale}


def table_json(table: Table) -> bytes:
    """UTF-8 JSON of a table: a list of row objects (missing values as ``null``).

    A :class:`ResultsTable` gives ``{"columns": […], "rows": [{"method", <key>:
    {"mean", "std", "mark"}}], "scale"}`` with unscaled full-precision numbers.
    """
    if isinstance(table, ResultsTable):
        data: Any = _results_json(table)
    else:
        frame = _frame(table)
        data = [
            {str(k): _plain(v) for k, v in zip(frame.columns, row)}
            for row in frame.itertuples(index=False, name=None)
        ]
    return json.dumps(data, ensure_ascii=False, indent=2, default=str).encode("utf-8")


def table_latex(
    table: Table, *, caption: str | None = None, label: str | None = None
) -> bytes | None:
    """Return the paper-style LaTeX of a :class:`ResultsTable`; ``None`` for other tables."""
    if not isinstance(table, ResultsTable):
        return None
    return table.to_latex(caption=caption, label=label).encode("utf-8")


def figure_html(figure: Any) -> bytes:
    """Return a stand-alone HTML file of a plotly figure (plotly.js inside: opens offline)."""
    return figure.to_html(full_html=True, include_plotlyjs=True).encode("utf-8")


def png_available() -> bool:
    """Whether plotly can write PNG here (the optional ``kaleido`` package is installed)."""
    return importlib.util.find_spec("kaleido") is not None


def figure_png(figure: Any, *, scale: float = 2.0) -> bytes:
    """PNG bytes of a plotly figure (``scale`` 2: sharp on a slide).

    Raises
    ------
    ExportUnavailable
        Without kaleido, or when kaleido finds no Chrome / Chromium.
    """
    if not png_available():
        raise ExportUnavailable(PNG_MISSING)
    try:
        return figure.to_image(format="png", scale=scale)
    except Exception as err:  # kaleido's errors vary by version: missing Chrome, timeouts …
        raise ExportUnavailable(f"PNG export failed ({err}); {PNG_MISSING}") from err


def _slug(name: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")
    return slug or "download"


def _payloads(
    table: Table | None, figure: Any, latex_caption: str | None
) -> dict[str, bytes | Callable[[], bytes]]:
    """Format → bytes (tables: small, made now) or a callable (charts: made on click)."""
    out: dict[str, bytes | Callable[[], bytes]] = {}
    if table is not None:
        out["csv"] = table_csv(table)
        out["json"] = table_json(table)
        latex = table_latex(table, caption=latex_caption)
        if latex is not None:
            out["latex"] = latex
    if figure is not None:
        out["html"] = lambda: figure_html(figure)
        if png_available():
            out["png"] = lambda: figure_png(figure)
    return out


def download_buttons(
    st: Any,
    name: str,
    table: Table | None = None,
    figure: Any = None,
    *,
    key: str | None = None,
    latex_caption: str | None = None,
    png_note: bool = True,
) -> list[str]:
    """Render one download button per available format, side by side.

    Parameters
    ----------
    st : ``streamlit`` or a container (``st.sidebar``, a column, an expander).
    name : what is downloaded, for the file name and the tooltip ("TSU table").
    table : a DataFrame, a list of row dicts or a ResultsTable: CSV, JSON
        (and LaTeX for a ResultsTable).
    figure : a plotly figure: HTML, and PNG when kaleido is installed (made
        only when clicked; the page never waits for it).
    key : widget-key prefix (default from ``name``); keys are
        ``download_<key>_<format>``, stable across reruns.
    latex_caption : caption of the LaTeX table.
    png_note : say in a caption why there is no PNG button (without kaleido);
        ``False`` says it in the HTML button's tooltip only (pages with many charts).

    Returns
    -------
    list of str
        The formats rendered, in order.
    """
    payloads = _payloads(table, figure, latex_caption)
    if not payloads:
        return []
    slug, prefix = _slug(name), _slug(key or name)
    columns = st.columns(len(payloads))
    for col, (fmt, data) in zip(columns, payloads.items()):
        ext, mime, label = FORMATS[fmt]
        tip = f"Download {untrusted(name)} as {FORMATS[fmt][2]}"
        if fmt == "html" and "png" not in payloads:
            tip += f". {PNG_MISSING}"
        col.download_button(
            label,
            data,
            file_name=f"{slug}.{ext}",
            mime=mime,
            key=f"download_{prefix}_{fmt}",
            help=tip,
            icon=":material/download:",
            on_click="ignore",  # a download changes nothing on the page: no rerun
        )
    if figure is not None and "png" not in payloads and png_note:
        st.caption(PNG_MISSING)
    return list(payloads)
