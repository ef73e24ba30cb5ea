"""The one reader of an ``evaluate`` folder: every command and the Evaluation page read it so.

An evaluation folder holds ``config.json``, ``scores.csv`` (one row a
question), maybe ``results.json`` and the reviewer's ``relabels.jsonl``.
Several readers with rules of their own gave one folder several meanings (a
spreadsheet's byte-order mark read as part of the first column name, the
formula-safe apostrophe kept in a question, relabels applied by one command
and not by another); :func:`read_evaluation` is the rule, once:

- ``scores.csv`` is read as UTF-8 with or without a byte-order mark, each cell
  with its formula-safe escape undone (:func:`~invent_core.csv_safe.restore_cell`);
- its shape is checked: the columns ``id``, ``question`` and ``correct``, one
  unique id per row, ``correct`` 0, 1 or empty, each method cell a number or
  empty; a problem is refused naming the file, the row (and line) and the column;
- a row cut short by a torn write is left out and named (``torn``);
- the reviewer's layer is applied to the judged rows as :mod:`.relabel` says
  (a relabel of another answer than the row holds is counted as stale);
- ``config.json`` and ``results.json`` must be JSON objects, named when not.

Reading writes nothing.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..csv_safe import is_number, restore_cell
from ..questions.files import BatchInputError
from .relabel import RelabelSummary, apply_relabels, folder_relabels

__all__ = [
    "CONFIG",
    "REQUIRED_COLUMNS",
    "RESULTS",
    "SCORES",
    "SCORE_COLUMNS",
    "EvaluationFolder",
    "read_evaluation",
    "read_json_object",
]

CONFIG, SCORES, RESULTS = "config.json", "scores.csv", "results.json"

#: Columns every reader of scores.csv relies on.
REQUIRED_COLUMNS: tuple[str, ...] = ("id", "question", "correct")

#: ``scores.csv`` columns before the methods' (``error`` is empty for a judged question).
SCORE_COLUMNS: tuple[str, ...] = (
    "id",
    "dataset",
    "question",
    "response",
    "canonical",
    "reference",
    "correct",
    "judge_reason",
    "degenerate",
    "error",
)

#: Columns a reader of a relabelled row may find beside those of scores.csv.
_LAYER_COLUMNS = ("judge_correct", "relabel_reason")


@dataclass(frozen=True)
class EvaluationFolder:
    """An evaluate folder as read by :func:`read_evaluation`.

    Attributes
    ----------
    path : the folder.
    meta : ``config.json`` (an object; its ``config`` the evaluation's settings).
    rows : every complete row of ``scores.csv`` in order, cells restored, the
        reviewer's layer applied to the judged ones (``judge_correct`` keeps the judge's).
    methods : the method columns, in the file's order.
    results : ``results.json`` ({} when the folder has none).
    layer : what the reviewer's layer did (None: no layer, or not applied).
    torn : one note per row left out because a torn write cut it short.
    """

    path: Path
    meta: dict[str, Any]
    rows: tuple[dict[str, Any], ...]
    methods: tuple[str, ...]
    results: dict[str, Any]
    layer: RelabelSummary | None
    torn: tuple[str, ...] = ()

    @property
    def config(self) -> dict[str, Any]:
        """The evaluation's settings as ``config.json`` records them ({} when absent)."""
        cfg = self.meta.get("config")
        return cfg if isinstance(cfg, dict) else {}

    @property
    def judged(self) -> list[dict[str, Any]]:
        """The rows with an answer and a label (no error, ``correct`` 0 or 1)."""
        return [r for r in self.rows if not r.get("error") and r.get("correct") in (0, 1)]

    @property
    def failed(self) -> list[dict[str, Any]]:
        """The rows of questions that failed (their ``error`` says why)."""
        return [r for r in self.rows if r.get("error")]


def read_json_object(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``; ValueError naming the file when it is not valid JSON or no object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))  # a BOM is read, as everywhere
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not UTF-8 text") from None
    except json.JSONDecodeError as err:
        raise ValueError(
            f"{path}: not valid JSON ({err.msg}: line {err.lineno}, column {err.colno})"
        ) from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object, got {type(data).__name__}")
    return data


def _header(fieldnames: list[str] | None, path: Path) -> list[str]:
    """The column names, refused when a needed one is missing or a read one repeats."""
    names = [restore_cell(n).strip() for n in fieldnames or []]
    missing = [c for c in REQUIRED_COLUMNS if c not in names]
    if missing:
        raise BatchInputError(
            f"no column {missing[0]!r} (columns: {', '.join(names[:12]) or 'none'}); "
            "not a scores.csv written by evaluate",
            file=path,
            line=1,
        )
    seen: set[str] = set()
    for n in names:
        if n and n in seen:  # a blank trailing column of a spreadsheet may repeat
            raise BatchInputError("the column name appears twice", file=path, line=1, column=n)
        seen.add(n)
    return names


def _label(cell: str, path: Path, row: int, line: int) -> int | None:
    if cell.strip() == "":
        return None
    try:
        value = float(cell)
    except ValueError:
        value = -1.0
    if value not in (0.0, 1.0):
        raise BatchInputError(
            f"{cell[:40]!r} is not 0, 1 or empty", file=path, row=row, line=line, column="correct"
        )
    return int(value)


def _checked_row(
    cells: list[str], names: list[str], methods: list[str], where: tuple
) -> dict[str, Any]:
    """One data row as text cells restored, ``correct`` an int or None; BatchInputError if malformed."""
    path, row, line = where
    if any(c.strip() for c in cells[len(names) :]):  # more cells than the header names
        raise BatchInputError(
            f"{len(cells)} cells where the header names {len(names)}", file=path, row=row, line=line
        )
    out = {n: restore_cell(c) for n, c in zip(names, cells, strict=False) if n}
    if not out["id"].strip():
        raise BatchInputError("empty id", file=path, row=row, line=line, column="id")
    out["correct"] = _label(out["correct"], path, row, line)
    for m in methods:
        cell = out[m].strip()
        if cell and not is_number(cell) and cell.lower() not in ("nan", "inf", "-inf"):
            raise BatchInputError(
                f"{cell[:40]!r} is not a number", file=path, row=row, line=line, column=m
            )
    return out


def _torn(cells: list[str], names: list[str], path: Path, line: int) -> str | None:
    """The note of a row a torn write cut short (fewer cells than the header), else None.

    Worded as :func:`~invent_core.csv_safe.cut_short`: its last cell is cut and its scores
    are gone, not missing.
    """
    if len(cells) >= len(names):
        return None
    why = f"the row is cut short ({len(cells)} of {len(names)} cells)"
    return f"{path}: line {line} (id {cells[0] or '?'}): {why}"


def _read_scores(path: Path) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """(rows, method columns, torn-row notes) of ``scores.csv``; BatchInputError naming a problem."""
    rows, torn, ids = [], [], {}
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            reader = csv.reader(f)
            names = _header(next(reader, None), path)
            methods = [n for n in names if n and n not in SCORE_COLUMNS and n not in _LAYER_COLUMNS]
            line, i = 2, 0
            for cells in reader:
                if not cells:  # a blank line, as csv.DictReader skips it
                    line = reader.line_num + 1
                    continue
                i += 1
                note = _torn(cells, names, path, line)
                if note is not None:
                    torn.append(note)
                else:
                    row = _checked_row(cells, names, methods, (path, i, line))
                    if row["id"] in ids:
                        raise BatchInputError(
                            f"id {row['id']!r} again (first in row {ids[row['id']]})",
                            file=path, row=i, line=line, column="id",
                        )  # fmt: skip
                    ids[row["id"]] = i
                    rows.append(row)
                line = reader.line_num + 1
    except UnicodeDecodeError as err:
        raise BatchInputError(f"not UTF-8 text ({err.reason})", file=path) from None
    except csv.Error as err:
        raise BatchInputError(f"not a readable CSV ({err})", file=path) from None
    return rows, methods, torn


def _layered(
    folder: Path, rows: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], RelabelSummary | None]:
    """The rows with the reviewer's layer applied to the judged ones (the same rule everywhere)."""
    relabels = folder_relabels(folder)
    judged = [i for i, r in enumerate(rows) if not r.get("error") and r["correct"] is not None]
    if not relabels:
        return rows, None
    applied, summary = apply_relabels(
        [rows[i] for i in judged], relabels, source=str(folder / "relabels.jsonl")
    )
    out = list(rows)
    for i, new in zip(judged, applied, strict=True):
        out[i] = new
    return out, summary


def _check_results(results: Mapping[str, Any], path: Path) -> None:
    """Refuse a ``results.json`` whose table is not method → metric → cell, naming the key."""
    table = results.get("results", {})
    if not isinstance(table, dict):
        raise ValueError(f"{path}: 'results' is not an object of methods (not written by evaluate)")
    for method, cells in table.items():
        if not isinstance(cells, dict) or not all(isinstance(c, dict) for c in cells.values()):
            raise ValueError(f"{path}: 'results' → {method!r} is not an object of metric cells")
    if not isinstance(results.get("metrics", []), list):
        raise ValueError(f"{path}: 'metrics' is not a list")


def read_evaluation(folder: str | Path, *, relabels: bool = True) -> EvaluationFolder:
    """An evaluate folder read by the one rule (module docstring); writes nothing.

    ``relabels=False`` leaves the judge's labels (``layer`` is then None).

    Raises
    ------
    FileNotFoundError
        Naming ``config.json`` or ``scores.csv`` when the folder lacks it.
    ValueError
        (:class:`~invent_core.questions.files.BatchInputError` for the CSV) naming
        the file, and the row and column where one is at fault.
    """
    folder = Path(folder)
    for name in (SCORES, CONFIG):
        if not (folder / name).is_file():
            raise FileNotFoundError(f"{folder / name}: not found (not an evaluate folder)")
    meta = read_json_object(folder / CONFIG)
    if not isinstance(meta.get("config", {}), dict):
        raise ValueError(f"{folder / CONFIG}: 'config' is not an object (not written by evaluate)")
    rows, methods, torn = _read_scores(folder / SCORES)
    results = read_json_object(folder / RESULTS) if (folder / RESULTS).is_file() else {}
    _check_results(results, folder / RESULTS)
    rows, layer = _layered(folder, rows) if relabels else (rows, None)
    return EvaluationFolder(folder, meta, tuple(rows), tuple(methods), results, layer, tuple(torn))
