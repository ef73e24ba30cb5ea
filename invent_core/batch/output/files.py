"""Result files: typed rows read from, and streamed to, CSV, JSON Lines, JSON or Parquet.

CSV cells are un-escaped on reading (:func:`~invent_core.csv_safe.restore_cell`)
and neutralised on writing (formula injection); JSON Lines, JSON and Parquet
hold the text unchanged. :func:`column_kind` types every column by its name:
:data:`TEXT_COLUMNS` and names ending in one of :data:`TEXT_SUFFIXES` are text,
:data:`INT_COLUMNS` integers, every other column a float (an empty cell is
``None``), so each format reads back the types it was given.
"""

from __future__ import annotations

import csv
import json
import math
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ...csv_safe import atomic_file, csv_line, restore_cell
from ...questions import schema as qs
from ...questions.files import BatchInputError
from .paths import output_format, sidecar_paths

__all__ = [
    "INT_COLUMNS",
    "TEXT_COLUMNS",
    "TEXT_SUFFIXES",
    "column_kind",
    "iter_records",
    "json_cell",
    "read_columns",
    "read_errors",
    "typed_row",
    "write_records",
]

#: Output columns holding text; every other column is numeric.
TEXT_COLUMNS = frozenset(
    {
        "id",
        "question",
        "answer",
        "response",
        "perturbations",
        "responses",
        "method_errors",
        "judge_reason",
        "degenerate",
    }
)
#: Suffixes of text columns named after a measure (``inv_entropy_placed_among``).
TEXT_SUFFIXES = ("_placed_among",)
INT_COLUMNS = frozenset({"row", "n_perturbations", "distinct_states", "n_replications", "correct"})


def column_kind(name: str) -> str:
    """``"text"``, ``"int"`` or ``"float"``: the type of an output column, by its name."""
    if name in TEXT_COLUMNS or name.endswith(TEXT_SUFFIXES):
        return "text"
    return "int" if name in INT_COLUMNS else "float"


def _typed(name: str, text: str) -> Any:
    kind = column_kind(name)
    if kind == "text":
        return restore_cell(text)
    if text == "":
        return None
    text = restore_cell(text)
    try:
        return _int(text) if kind == "int" else float(text)
    except ValueError:
        return text


def _int(text: str) -> int:
    """An integer cell; ``2.0`` too, as a merge before integer ``distinct_states`` wrote it."""
    try:
        return int(text)
    except ValueError:
        number = float(text)
        if not number.is_integer():
            raise
        return int(number)


def typed_row(header: Sequence[str], fields: Sequence[str]) -> dict[str, Any]:
    """One CSV row's cells, un-escaped and typed by their column names."""
    return {c: _typed(c, v) for c, v in zip(header, fields, strict=False)}


def json_cell(value: Any) -> Any:
    """A value as JSON holds it: a NaN or an infinity becomes None (null)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _jsonl_rows(path: Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8", newline="") as f:
        for i, line in enumerate(f, start=1):
            if line.strip():
                try:
                    yield qs.parse_json(line)
                except ValueError as err:
                    raise BatchInputError(str(err), file=path, line=i) from None


def _csv_rows(path: Path) -> Iterator[dict[str, Any]]:
    csv.field_size_limit(qs.FIELD_SIZE_LIMIT)
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.reader(f)
        try:
            header = next(reader, None)
            for fields in reader if header is not None else ():
                if fields:
                    yield typed_row(header, fields)
        except csv.Error as err:
            raise BatchInputError(
                f"not a readable CSV ({err})", file=path, line=reader.line_num
            ) from None


def iter_records(path: str | os.PathLike) -> Iterator[dict[str, Any]]:
    """Typed rows of a result file (.csv, .jsonl, .json, .parquet), in file order.

    CSV cells are un-escaped (:func:`~invent_core.csv_safe.restore_cell`) and
    numeric columns parsed; an empty cell is ``None``.
    """
    path = Path(path)
    fmt = output_format(path)
    if fmt == "parquet":
        import pyarrow.parquet as pq

        for batch in pq.ParquetFile(path).iter_batches(batch_size=1024):
            yield from batch.to_pylist()
    elif fmt == "json":
        with open(path, encoding="utf-8") as f:
            yield from json.load(f)
    elif fmt == "jsonl":
        yield from _jsonl_rows(path)
    else:
        yield from _csv_rows(path)


def read_errors(output: str | os.PathLike) -> list[dict[str, Any]]:
    """The failed rows of ``output`` from its errors sidecar, the last word per row id.

    One dict per failed row, as the run wrote it (``id``, ``row``, ``line``,
    ``kind``, ``message`` …); a row that failed, was retried and failed again
    appears once, with its latest error. A line cut short by a crash is skipped.
    ``[]`` when there is no sidecar.
    """
    path = sidecar_paths(Path(output))["errors"]
    if not path.is_file():
        return []
    by_id: dict[str, dict[str, Any]] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # a line cut short by a crash
        if isinstance(entry, dict):
            by_id[str(entry.get("id") or entry.get("row"))] = entry
    return list(by_id.values())


def read_columns(path: str | os.PathLike) -> list[str] | None:
    """The column names of a result file, or None when it is empty."""
    path = Path(path)
    if output_format(path) == "csv":
        with open(path, encoding="utf-8", newline="") as f:
            return next(csv.reader(f), None)
    first = next(iter_records(path), None)
    return None if first is None else list(first)


def _arrow_type(name: str):
    import pyarrow as pa

    return {"text": pa.string, "int": pa.int64, "float": pa.float64}[column_kind(name)]()


def _parquet_cell(name: str, value: Any, n: int) -> Any:
    """A cell as its column's Arrow type holds it; a value of another type is named, not guessed."""
    value = json_cell(value)
    if value is None:
        return None
    if column_kind(name) == "text":
        return str(value)  # an id read back from JSON as a number stays the id it was
    if isinstance(value, int | float):
        return value
    raise ValueError(
        f"row {n + 1}, column {name!r}: {str(value)[:60]!r} is not a number "
        "(a numeric column in Parquet)"
    )


def _write_parquet(records: Iterable[dict[str, Any]], f: Any, columns: list[str]) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([(c, _arrow_type(c)) for c in columns])
    n = 0
    batch: list[dict[str, Any]] = []
    with pq.ParquetWriter(f, schema) as writer:

        def flush() -> None:
            if batch:
                writer.write_table(pa.Table.from_pylist(batch, schema))
                batch.clear()

        for rec in records:
            batch.append({c: _parquet_cell(c, rec.get(c), n) for c in columns})
            n += 1
            if len(batch) >= 1024:
                flush()
        flush()
    return n


def _write_text(
    records: Iterable[dict[str, Any]],
    f: Any,
    fmt: str,
    columns: list[str],
    on_row: Callable[[], None] | None,
) -> int:
    n = 0
    if fmt == "csv":
        f.write(csv_line(columns))
    elif fmt == "json":
        f.write("[")
    for rec in records:
        if fmt == "csv":
            f.write(csv_line([rec.get(c) for c in columns]))
        else:
            obj = json.dumps({c: json_cell(rec.get(c)) for c in columns}, ensure_ascii=False)
            f.write((("\n" if n == 0 else ",\n") + obj) if fmt == "json" else obj + "\n")
        n += 1
        if on_row is not None:
            on_row()
    if fmt == "json":
        f.write("\n]\n")
    return n


def write_records(
    records: Iterable[dict[str, Any]],
    dest: str | os.PathLike,
    columns: Sequence[str],
    *,
    on_row: Callable[[], None] | None = None,
) -> int:
    """Write rows to ``dest`` in the format its extension names; return the count.

    Streams: Parquet is written in row groups of 1,024, JSON as one array
    written object by object. Written to a temporary file that replaces
    ``dest`` only when complete (:func:`~invent_core.csv_safe.atomic_file`).
    """
    dest = Path(dest)
    fmt = output_format(dest)
    columns = list(columns)
    with atomic_file(dest, "wb" if fmt == "parquet" else "w") as f:
        if fmt == "parquet":
            return _write_parquet(records, f, columns)
        return _write_text(records, f, fmt, columns, on_row)
