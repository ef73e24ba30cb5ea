"""A finished output converted to another format, or evaluated against its ``correct`` column."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from ...evaluation.metrics import point_metrics
from ...methods.registry import list_methods
from ...questions.files import BatchInputError
from .files import iter_records, read_columns, write_records

__all__ = ["evaluate_output", "export_results", "output_notes"]


def export_results(source: str | os.PathLike, dest: str | os.PathLike) -> int:
    """Convert a result file (checkpoint) to ``.csv``, ``.jsonl``, ``.json`` or ``.parquet``.

    Returns the number of rows written. CSV output is protected against
    formula injection (:func:`~invent_core.csv_safe.neutralize_cell`).
    """
    cols = read_columns(source)
    if cols is None:
        raise BatchInputError("no rows to export", file=source)
    return write_records(iter_records(source), dest, cols)


def output_notes(path: str | os.PathLike) -> tuple[int, dict[str, tuple[int, str]]]:
    """What a finished output's rows say in words, read in one pass.

    Returns (degenerate rows, method → (rows it gave no value on, the first reason)),
    from the ``degenerate`` and ``method_errors`` cells; an output written before a
    column existed counts none.
    """
    cols = read_columns(path) or []
    if "degenerate" not in cols and "method_errors" not in cols:
        return 0, {}
    degenerate, gaps = 0, {}
    for rec in iter_records(path):
        degenerate += bool(rec.get("degenerate"))
        for name, why in _method_errors(rec.get("method_errors")).items():
            n, first = gaps.get(name, (0, str(why)))
            gaps[name] = (n + 1, first)
    return degenerate, gaps


def _method_errors(cell: Any) -> dict[str, Any]:
    """The ``method_errors`` cell as a dict (a JSON object; {} when empty or unreadable)."""
    if isinstance(cell, dict):
        return cell
    if not cell:
        return {}
    try:
        value = json.loads(cell)
    except (TypeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def evaluate_output(
    path: str | os.PathLike, method_names: Sequence[str] | None = None
) -> dict[str, Any]:
    """AUROC and PRR of every method column against ``correct``, over a result file.

    Returns
    -------
    ``{"accuracy": float | None, "n_judged": int, "methods": {name: {"auroc", "prr", "n",
    "undefined"}}}`` from :func:`invent_core.evaluation.metrics.point_metrics`: a metric
    is None, with the reason under ``"undefined"``, when it cannot be computed
    (every answer right or wrong, too few rows).
    """
    cols = read_columns(path) or []
    if "correct" not in cols:
        return {"accuracy": None, "n_judged": 0, "methods": {}}
    if method_names is None:
        known = {m.name for m in list_methods()}
        method_names = [c for c in cols if c in known]
    correct: list[int] = []
    values: dict[str, list[float]] = {m: [] for m in method_names}
    for rec in iter_records(path):
        if rec.get("correct") is None:
            continue
        correct.append(int(rec["correct"]))
        for m in method_names:
            v = rec.get(m)
            values[m].append(float("nan") if v is None else float(v))
    return {
        "accuracy": sum(correct) / len(correct) if correct else None,
        "n_judged": len(correct),
        "methods": point_metrics(values, correct) if correct else {},
    }
