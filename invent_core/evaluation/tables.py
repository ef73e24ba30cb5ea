"""Method × metric results tables as CSV, Markdown, LaTeX and plain text.

This is the edge where numbers become text.

Cells are ``centre ± std [95 % interval]`` (the centre is the metric on the sample, or
the bootstrap mean under the paper's convention); per column the best value is **bold** and the second best
underlined, as in the paper's tables, with the direction of each metric (AUROC, PRR,
AUPRC, TSU: higher is better; Brier, ECE: lower is better). Ranks are taken on the
values *as displayed* (rounded), so methods that print the same number share a mark.

A sample too small to judge (:func:`invent_core.evaluation.sample_size.judgeable`)
is shown greyed, with the reason, and nothing is marked best
(:meth:`ResultsTable.greyed`); a value that does not exist shows ``missing``
("n/a — all answers wrong"), never ``nan``. :meth:`ResultsTable.to_text` is the
terminal rendering (no HTML).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..csv_safe import csv_line
from .metrics import METRICS, Evaluation

__all__ = ["Column", "ResultsTable", "results_table", "tsu_results_table", "format_mean_std"]


@dataclass(frozen=True)
class Column:
    """A table column: a key, the header text and its direction."""

    key: str
    label: str
    higher_is_better: bool

    @property
    def header(self) -> str:
        """``"AUROC (↑)"``: the label and the direction."""
        return f"{self.label} ({'↑' if self.higher_is_better else '↓'})"


def format_mean_std(mean: float, std: float | None = None, *, digits: int = 3) -> str:
    """``"0.812 ± 0.020"``; ``"–"`` for a missing (NaN) mean; no ``±`` without a std."""
    if mean is None or math.isnan(mean):
        return "–"
    if std is None or math.isnan(std):
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {std:.{digits}f}"


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "≥": r"$\geq$",
    "≤": r"$\leq$",
    "—": "--",
}


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


@dataclass(frozen=True)
class ResultsTable:
    """Numbers of a method × column table and its renderings.

    Attributes
    ----------
    methods : row names.
    columns : the columns with their direction.
    mean : (n_methods, n_columns) array; NaN = not available.
    std : (n_methods, n_columns) array; NaN = no std shown.
    digits : decimals shown (paper: 3; TSU percentages: 2).
    scale : multiply values by this before display (100 for percentages).
    mark_best : bold the best and underline the second best per column; False
        for a sample too small to judge (``evaluation.sample_size.judgeable``),
        where a rank would be noise presented as a finding.
    missing : what a cell without a value shows ("–", or why: "n/a — all answers wrong").
    caveat : non-empty: every value is shown greyed and this reason beside the
        table ("too few to judge: 12 questions (< 20)"); see :meth:`greyed`.
    notes : lines shown under the table (Markdown, text) or as LaTeX comments.
    ci : optional (n_methods, n_columns, 2) array of 95 % interval ends; shown after
        the std in Markdown, text and CSV (NaN: none).
    """

    methods: tuple[str, ...]
    columns: tuple[Column, ...]
    mean: np.ndarray
    std: np.ndarray
    digits: int = 3
    scale: float = 1.0
    mark_best: bool = True
    missing: str = "–"
    caveat: str = ""
    notes: tuple[str, ...] = ()
    ci: np.ndarray | None = None

    def __post_init__(self) -> None:
        """Check that ``mean`` and ``std`` are (methods × columns) float arrays (``ci`` × 2)."""
        shape = (len(self.methods), len(self.columns))
        for name in ("mean", "std", "ci"):
            if getattr(self, name) is None:
                continue
            a = np.asarray(getattr(self, name), dtype=np.float64)
            want = (*shape, 2) if name == "ci" else shape
            if a.shape != want:
                raise ValueError(
                    f"{name} must have shape {want} (methods × columns); got {a.shape}"
                )
            object.__setattr__(self, name, a)

    def _interval(self, i: int, j: int) -> str:
        """`` [0.741, 0.862]`` after a cell's std, or "" without an interval."""
        if self.ci is None or np.isnan(self.ci[i, j]).any():
            return ""
        lo, hi = self.ci[i, j] * self.scale
        return f" [{lo:.{self.digits}f}, {hi:.{self.digits}f}]"

    def marks(self) -> np.ndarray:
        """(n_methods, n_columns) array of "best", "second" or "" per cell."""
        out = np.full(self.mean.shape, "", dtype=object)
        if not self.mark_best:
            return out
        shown = np.round(self.mean * self.scale, self.digits)
        for j, col in enumerate(self.columns):
            v = shown[:, j]
            ok = ~np.isnan(v)
            distinct = np.unique(v[ok])  # ascending
            if distinct.size == 0:
                continue
            if col.higher_is_better:
                distinct = distinct[::-1]
            out[ok & (v == distinct[0]), j] = "best"
            if distinct.size > 1:
                out[ok & (v == distinct[1]), j] = "second"
        return out

    def unmarked(self) -> ResultsTable:
        """Return the table without best / second best marks (a sample too small to judge)."""
        return dataclasses.replace(self, mark_best=False)

    def greyed(self, reason: str) -> ResultsTable:
        """Return the table greyed with ``reason`` shown beside it, nothing marked best."""
        return dataclasses.replace(self, mark_best=False, caveat=reason)

    def _cell(self, i: int, j: int) -> tuple[str, str | None]:
        """(mean text, std text or None); mean text :attr:`missing` when there is no value."""
        m, s = self.mean[i, j], self.std[i, j]
        if np.isnan(m):
            return self.missing, None
        mt = f"{m * self.scale:.{self.digits}f}"
        st = None if np.isnan(s) else f"{s * self.scale:.{self.digits}f}"
        return mt, st

    def to_csv(self) -> str:
        """CSV with full-precision numbers: ``method, <key>_mean, <key>_std, <key>_mark, …``.

        Cells go through :func:`invent_core.csv_safe.csv_line` like every CSV invent writes.
        """
        ends = ("ci_low", "ci_high") if self.ci is not None else ()
        header = ["method"]
        for c in self.columns:
            header += [f"{c.key}_{x}" for x in ("mean", "std", "mark", *ends)]
        lines = [csv_line(header)]
        marks = self.marks()
        for i, method in enumerate(self.methods):
            row: list[object] = [method]
            for j in range(len(self.columns)):
                row += [float(self.mean[i, j]), float(self.std[i, j]), marks[i, j]]
                row += [] if self.ci is None else [float(x) for x in self.ci[i, j]]
            lines.append(csv_line(row))
        return "".join(lines)

    def _footer(self, *, markdown: bool) -> list[str]:
        """Lines under the table: the caveat, then the notes."""
        lines = list(self.notes)
        if self.caveat:
            grey = "Greyed" if markdown else "Not judged"
            lines.insert(0, f"{grey}: {self.caveat}; no value is marked best.")
        return [f"*{ln}*" if markdown else ln for ln in lines]

    def to_markdown(self) -> str:
        """Render as Markdown: best ``**bold**``, second ``<ins>underlined</ins>``.

        HTML, as Markdown has no underline; a greyed table's values sit in a grey ``<span>``.
        """
        marks = self.marks()
        lines = [
            "| Method | " + " | ".join(c.header for c in self.columns) + " |",
            "|---|" + "---|" * len(self.columns),
        ]
        for i, method in enumerate(self.methods):
            cells = []
            for j in range(len(self.columns)):
                mt, st = self._cell(i, j)
                if marks[i, j] == "best":
                    mt = f"**{mt}**"
                elif marks[i, j] == "second":
                    mt = f"<ins>{mt}</ins>"
                cell = (mt if st is None else f"{mt} ± {st}") + self._interval(i, j)
                if self.caveat and not np.isnan(self.mean[i, j]):
                    cell = f'<span style="color:gray">{cell}</span>'
                cells.append(cell.replace("|", r"\|"))
            name = method.replace("|", r"\|")
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        footer = self._footer(markdown=True)
        return "\n".join(lines + ([""] + footer if footer else [])) + "\n"

    def to_text(self) -> str:
        """Plain-text table for a terminal: aligned columns, best marked ``*``, no HTML."""
        marks = self.marks()
        header = ["Method", *(c.header for c in self.columns)]
        body = []
        for i, method in enumerate(self.methods):
            cells = [method]
            for j in range(len(self.columns)):
                mt, st = self._cell(i, j)
                star = " *" if marks[i, j] == "best" else ""
                cells.append((mt if st is None else f"{mt} ± {st}") + self._interval(i, j) + star)
            body.append(cells)
        widths = [max(len(r[k]) for r in [header, *body]) for k in range(len(header))]

        def line(cells: list[str]) -> str:
            return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()

        out = [line(header), "  ".join("-" * w for w in widths), *map(line, body)]
        if marks.any():
            out.append("* best in its column")
        return "\n".join(out + self._footer(markdown=False)) + "\n"

    def to_latex(self, *, caption: str | None = None, label: str | None = None) -> str:
        r"""Render as a booktabs ``table`` in the paper's style.

        Best ``\textbf{0.788}\scriptsize{$\pm$0.054}``, second best ``\underline{…}``;
        a greyed table's values in ``\textcolor{gray}{…}`` (needs xcolor).
        """
        marks = self.marks()
        arrows = {True: r"($\uparrow$)", False: r"($\downarrow$)"}
        head = " & ".join(
            [r"\textbf{Method}"]
            + [rf"{_latex_escape(c.label)}~{arrows[c.higher_is_better]}" for c in self.columns]
        )
        lines = [r"\begin{table}[t]", r"\centering"]
        if self.caveat:
            lines.insert(0, r"% greyed values need \usepackage{xcolor}")
            caption = f"{caption} ({self.caveat})" if caption else self.caveat
        lines += [f"% {_latex_escape(note)}" for note in self.notes]
        if caption:
            lines.append(rf"\caption{{{_latex_escape(caption)}}}")
        if label:
            lines.append(rf"\label{{{label}}}")
        lines += [
            r"\begin{tabular}{l" + "c" * len(self.columns) + "}",
            r"\toprule",
            head + r" \\",
            r"\midrule",
        ]
        for i, method in enumerate(self.methods):
            cells = [_latex_escape(method)]
            for j in range(len(self.columns)):
                mt, st = self._cell(i, j)
                mt = "--" if mt == "–" else _latex_escape(mt)
                if marks[i, j] == "best":
                    mt = rf"\textbf{{{mt}}}"
                elif marks[i, j] == "second":
                    mt = rf"\underline{{{mt}}}"
                cell = mt if st is None else rf"{mt}\scriptsize{{$\pm${st}}}"
                if self.caveat and not np.isnan(self.mean[i, j]):
                    cell = rf"\textcolor{{gray}}{{{cell}}}"
                cells.append(cell)
            lines.append(" & ".join(cells) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
        return "\n".join(lines) + "\n"


def results_table(
    evaluation: Evaluation,
    *,
    metrics: Sequence[str] | None = None,
    methods: Sequence[str] | None = None,
    digits: int = 3,
    labels: Mapping[str, str] | None = None,
) -> ResultsTable:
    """Build the table of an :class:`~invent_core.evaluation.metrics.Evaluation`.

    Parameters
    ----------
    evaluation : from :func:`~invent_core.evaluation.metrics.evaluate_scores`; each cell
        shows its centre (the sample value, or the bootstrap mean under the paper's
        convention), the std and the 95 % interval.
    metrics : column order (default: the evaluation's metrics).
    methods : row order (default: evaluated methods, then skipped ones shown as "–").
    digits : decimals (paper: 3).
    labels : method name -> row label (e.g. ``"inv_entropy"`` -> ``"Inv-Entropy"``).
    """
    keys = tuple(metrics or evaluation.metrics)
    unknown = [k for k in keys if k not in evaluation.metrics]
    if unknown:
        raise ValueError(
            f"metric(s) {', '.join(unknown)} not in this evaluation ({', '.join(evaluation.metrics)})"
        )
    rows = tuple(methods or (*evaluation.results, *evaluation.skipped))
    mean = np.full((len(rows), len(keys)), np.nan)
    std = np.full_like(mean, np.nan)
    ci = np.full((*mean.shape, 2), np.nan)
    for i, meth in enumerate(rows):
        if meth not in evaluation.results and meth not in evaluation.skipped:
            raise ValueError(f"method {meth!r} is not in this evaluation")
        for j, k in enumerate(keys):
            cell = evaluation.results.get(meth, {}).get(k)
            if cell is not None:
                mean[i, j], std[i, j] = cell.centre(evaluation.centre), cell.std
                ci[i, j] = cell.ci95
    cols = tuple(Column(k, METRICS[k].label, METRICS[k].higher_is_better) for k in keys)
    shown = tuple((labels or {}).get(m, m) for m in rows)
    return ResultsTable(shown, cols, mean, std, digits=digits, ci=ci)


def tsu_results_table(
    tsu: Mapping[str, Mapping[str, float]],
    *,
    digits: int = 2,
    labels: Mapping[str, str] | None = None,
) -> ResultsTable:
    """TSU table (paper Table tsu_horizontal): method -> {label: fraction in [0, 1]}.

    Shown as percentages with ``digits`` decimals; higher is better; no std. Column
    order is that of the first method's mapping; use
    :func:`~invent_core.evaluation.metrics.tsu_label` for the labels. ``labels``
    maps method names to row labels.
    """
    if not tsu:
        raise ValueError("no TSU values to tabulate")
    methods = tuple(tsu)
    keys: list[str] = []
    for row in tsu.values():
        keys += [k for k in row if k not in keys]
    mean = np.array([[tsu[m].get(k, np.nan) for k in keys] for m in methods], dtype=np.float64)
    cols = tuple(Column(k, k, True) for k in keys)
    shown = tuple((labels or {}).get(m, m) for m in methods)
    return ResultsTable(shown, cols, mean, np.full_like(mean, np.nan), digits=digits, scale=100.0)
