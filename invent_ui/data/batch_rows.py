"""Batch scoring's failed rows: read them from the errors sidecar, and retry them.

A batch run writes one JSON line per failed row next to its output
(``OUTPUT.errors.jsonl``: ``id``, ``row``, ``line``, ``kind``, ``message`` …).
The Batch page lists them and can score just those rows again with another
perturber: :func:`retry_input` copies them from the uploaded file into a small
input of their own (keeping their ids), and :func:`score_file` runs
``batch_score`` on it. Pure: no Streamlit.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from invent_core.batch import batch_score, read_errors

__all__ = ["failed_rows", "retry_input", "score_file", "public_message", "records_json"]

#: Cells the scores file keeps as JSON text (a CSV cell holds one string): in the JSON
#: download they are the lists and objects themselves, not strings of JSON.
JSON_CELLS = ("perturbations", "responses", "method_errors")


def _decoded(value: Any) -> Any:
    if not isinstance(value, str) or not value.strip():
        return value if value != "" else None
    try:
        return json.loads(value)
    except ValueError:  # a cell someone wrote by hand: kept as the text it is
        return value


def _finite(value: Any) -> Any:
    """A NaN or an infinity as JSON's null (json.dumps would write NaN, which JSON has not)."""
    return None if isinstance(value, float) and not math.isfinite(value) else value


def records_json(records: Sequence[Mapping[str, Any]]) -> bytes:
    """The scored rows as one JSON array, each JSON cell decoded in place (NaN as null).

    >>> rows = json.loads(records_json([{"responses": '[["a", "b"]]', "x": float("nan")}]))
    >>> rows[0]["responses"], rows[0]["x"]
    ([['a', 'b']], None)
    """
    rows = [
        {k: _decoded(v) if k in JSON_CELLS else _finite(v) for k, v in rec.items()}
        for rec in records
    ]
    return json.dumps(rows, ensure_ascii=False, indent=2, default=str).encode("utf-8")


def failed_rows(output: Path) -> list[dict[str, Any]]:
    """The errors sidecar of ``output``, one dict per failed row, the last word per id kept.

    Read with the core's reader (:func:`invent_core.batch.read_errors`).
    """
    return read_errors(output)


def public_message(entry: Mapping[str, Any], names: Mapping[str, str]) -> str:
    """The entry's message with stored paths replaced by what the user knows (the file's name)."""
    text = str(entry.get("message") or entry.get("error") or "")
    for old, new in names.items():
        text = text.replace(str(old), new)
    return text


def _read_records(path: Path, info: Any) -> tuple[list[str], list[dict[str, Any]]]:
    """(columns, rows) of a CSV/TSV or JSON Lines input, every cell as written."""
    if info.format == "csv":
        with open(path, newline="", encoding=info.encoding) as fh:
            reader = csv.DictReader(fh, delimiter=info.delimiter)
            return list(reader.fieldnames or []), list(reader)
    rows = []
    for line in path.read_text(encoding=info.encoding).splitlines():
        if line.strip():
            rows.append(json.loads(line))
    columns = list(dict.fromkeys(k for r in rows for k in r))
    return columns, rows


def retry_input(
    path: Path, info: Any, failed: Sequence[Mapping[str, Any]], dest: Path
) -> Path | None:
    """Write the ``failed`` rows of ``path`` (by their row number) to ``dest`` as CSV.

    Rows keep their ids (an ``id`` column is added when the file has none),
    so their scores join the original output by id. ``None`` when no failed
    row can be found (e.g. an unreadable line).
    """
    columns, records = _read_records(path, info)
    picked = []
    for entry in failed:
        row = entry.get("row")
        if isinstance(row, int) and 1 <= row <= len(records):
            rec = {k: _cell(v) for k, v in records[row - 1].items()}
            if not any(c.lower() == "id" for c in columns):
                rec["id"] = str(entry.get("id") or row)
            picked.append(rec)
    if not picked:
        return None
    fields = list(dict.fromkeys([*columns, *(k for r in picked for k in r)]))
    dest.parent.mkdir(parents=True, exist_ok=True)
    with open(dest, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        writer.writerows(picked)
    return dest


def _cell(value: Any) -> Any:
    """A JSON Lines value as a CSV cell (lists and objects as JSON)."""
    return json.dumps(value, ensure_ascii=False) if isinstance(value, list | dict) else value


def score_file(
    input: Path,
    output: Path,
    config: Any,
    *,
    llm: Any,
    methods: Sequence[str] | str,
    progress: Callable[[Any], None],
) -> Any:
    """``batch_score(input, output, config, llm=…, methods=…, progress=…)``: the page's one call.

    ``progress`` receives :class:`~invent_core.progress.Progress` events (stage ``"rows"``),
    the shape a :class:`~invent_ui.jobs.background.Job`'s ``progress`` takes as it is.
    """
    return batch_score(input, output, config, llm=llm, methods=methods, progress=progress)


def all_scored(info: Any, done: int) -> bool:
    """Whether every row of the input is in the output (nothing left to resume).

    A long layout (several rows per question) has no row count to compare, so never.
    """
    return info.layout != "long" and done > 0 and done >= info.estimated_rows()


def integers_as_integers(df: Any) -> Any:
    """``df`` with each float column whose values are all whole numbers as integers (n: 5, not 5.000000)."""
    import pandas as pd

    out = df.copy()
    for col in out.columns:
        values = out[col]
        if pd.api.types.is_float_dtype(values):
            known = values.dropna()
            if len(known) and (known == known.round()).all() and known.abs().max() < 2**53:
                out[col] = values.astype("Int64")
    return out
