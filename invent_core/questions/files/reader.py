"""Inspecting a question file: format, header, question column; then its records' quotes.

:func:`inspect_file` returns a :class:`QuestionFile` after checking the bytes
(:mod:`~invent_core.questions.files.encoding`) and the header;
:func:`check_rows` reads the records of a CSV once for unclosed quotes and
oversized cells (:mod:`~invent_core.questions.files.quotes`), or the lines of
a JSON Lines file for their length, and refuses a CSV without data rows.
"""

from __future__ import annotations

import csv
import dataclasses
import itertools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

from ...errors import BatchInputError
from .. import schema as qs
from .encoding import scan_lines, sniff_bytes
from .pregenerated import PREGENERATED_COLUMNS
from .quotes import check_quotes

__all__ = ["QuestionFile", "check_rows", "inspect_file", "read_bounded_line", "require_file"]


@dataclass(frozen=True, kw_only=True)
class QuestionFile:
    """What :func:`inspect_file` learned from one cheap pass over a file's bytes."""

    path: Path
    format: Literal["csv", "jsonl"]
    encoding: str  # Python codec name
    delimiter: str
    columns: tuple[str, ...]  # CSV header / keys of the first JSON object, as written
    n_lines: int  # physical lines, for the progress estimate
    size: int
    schema: qs.ColumnMap = field(default_factory=qs.ColumnMap)

    @property
    def has_answers(self) -> bool:
        """Whether the file has an answer column (turns on correctness and AUROC/PRR)."""
        return bool(self.schema.answers)

    def estimated_rows(self) -> int:
        """Data rows, estimated from the line count (exact without multi-line cells)."""
        return max(0, self.n_lines - (1 if self.format == "csv" else 0))

    def fields(self) -> dict[str, Any]:
        """The fields by name (shallow), to build a subclass that adds its own."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(QuestionFile)}


def read_bounded_line(f: IO[str], path: Path, line: int) -> str:
    """One line of a text file, refused when longer than the field size limit (never read whole)."""
    limit = qs.FIELD_SIZE_LIMIT
    text = f.readline(limit + 1)
    if len(text) > limit:
        raise BatchInputError(
            f"the line is longer than {limit:,} characters, the limit for one JSON Lines row",
            file=path,
            line=line,
        )
    return text


def _detect_format(path: Path, first_text: str) -> Literal["csv", "jsonl"]:
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    if suffix in (".csv", ".tsv", ".txt"):
        return "csv"
    if suffix == ".json" or first_text.startswith("["):
        if first_text.startswith("{"):
            return "jsonl"
        raise BatchInputError(
            "a JSON array cannot be streamed: write one JSON object per line (JSON Lines, .jsonl)",
            file=path,
        )
    return "jsonl" if first_text.startswith("{") else "csv"


def _csv_header(path: Path, encoding: str, delimiter: str) -> list[str]:
    csv.field_size_limit(qs.FIELD_SIZE_LIMIT)
    with open(path, encoding=encoding, newline="") as f:
        try:
            for fields in csv.reader(f, delimiter=delimiter):
                if fields and any(x.strip() for x in fields):
                    return [x.strip() for x in fields]
        except csv.Error as err:
            raise BatchInputError(f"not a readable CSV header: {err}", file=path, line=1) from None
    return []


def _jsonl_keys(path: Path, encoding: str) -> list[str]:
    with open(path, encoding=encoding, newline="") as f:
        for i in itertools.count(1):
            text = read_bounded_line(f, path, i)
            if not text:
                return []
            if not text.strip():
                continue
            try:
                obj = qs.parse_json(text)
            except ValueError as err:
                raise BatchInputError(f"not JSON Lines: {err}", file=path, line=i, row=1) from None
            if not isinstance(obj, dict):
                raise BatchInputError(
                    f"expected a JSON object per line, got {type(obj).__name__}",
                    file=path,
                    line=i,
                    row=1,
                )
            return [str(k).strip() for k in obj]
    return []  # pragma: no cover - itertools.count never ends


def _no_question_column(path: Path, fmt: str, columns: list[str]) -> BatchInputError:
    found = ", ".join(repr(c) for c in columns[:30]) + (" …" if len(columns) > 30 else "")
    if fmt == "csv" and len(columns) == 1 and ";" in columns[0]:
        found += " (semicolon-separated? use commas)"
    return BatchInputError(
        f"no question column; found {found}; expected one of {', '.join(qs.QUESTION_COLUMNS)}",
        file=path,
        line=1,
    )


#: The column names invent reads (as the schema matches them): only these must be unique.
_READ_COLUMNS = frozenset(
    (*qs.QUESTION_COLUMNS, *qs.ANSWER_COLUMNS, *qs.CHOICE_COLUMNS, *qs.TASK_COLUMNS,
     *qs.ID_COLUMNS, *PREGENERATED_COLUMNS)
)  # fmt: skip


def _check_unique_columns(path: Path, columns: list[str]) -> None:
    """Refuse a header that names a column invent reads twice: a row would keep one cell silently.

    Names are compared as the schema matches them (stripped, case-insensitive),
    so ``id,ID`` is as ambiguous as ``id,id``. Other columns may repeat (a
    spreadsheet's blank trailing columns, two ``notes``): nothing reads them.
    """
    first: dict[str, int] = {}
    for i, name in enumerate(columns, start=1):
        if name.strip().lower() not in _READ_COLUMNS:
            continue
        j = first.setdefault(name.strip().lower(), i)
        if j != i:
            what = (
                f"column {name!r} appears twice"
                if columns[j - 1] == name
                else f"columns {columns[j - 1]!r} and {name!r} are one name (case is ignored)"
            )
            raise BatchInputError(
                f"{what} (columns {j} and {i}); a row would keep only one of its cells: "
                "rename or remove one",
                file=path,
                line=1,
            )


def require_file(path: Path) -> None:
    """Raise :class:`BatchInputError` unless ``path`` is a regular file (a cheap first check)."""
    if not path.exists():
        raise BatchInputError("no such file", file=path)
    if not path.is_file():
        raise BatchInputError("not a regular file", file=path)


def _first_text(path: Path, encoding: str | None) -> tuple[str, str]:
    """(encoding, the decoded start of the file without BOM and blanks)."""
    require_file(path)
    with open(path, "rb") as f:
        head = f.read(1 << 16)
    if not head.strip():
        raise BatchInputError("the file is empty", file=path)
    enc = sniff_bytes(path, head, encoding)
    first = head.decode(enc, errors="replace").lstrip("\ufeff \t\r\n")
    if not first:
        raise BatchInputError("the file is empty", file=path)
    return enc, first


def inspect_file(path: str | os.PathLike, *, encoding: str | None = None) -> QuestionFile:
    """Check a file's bytes and header before any row is read: type, encoding, format, columns.

    The records themselves (quotes, data rows) are checked by :func:`check_rows`.

    Raises
    ------
    BatchInputError
        Missing or empty file, binary file, undecodable bytes (with offset,
        line, row and column), JSON array instead of JSON Lines, no header,
        no question column (listing the columns found).
    """
    path = Path(path)
    enc, first = _first_text(path, encoding)
    fmt = _detect_format(path, first)
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    n_lines = scan_lines(path, enc, fmt, delimiter)
    columns = _csv_header(path, enc, delimiter) if fmt == "csv" else _jsonl_keys(path, enc)
    if not columns:
        raise BatchInputError("the file is empty (no header row)", file=path)
    if len(columns) > qs.MAX_COLUMNS:
        raise BatchInputError(
            f"{len(columns):,} columns; a question file may have at most {qs.MAX_COLUMNS:,} "
            "(question, answer, id, task, choices, perturbations, responses …)",
            file=path,
            line=1,
        )
    _check_unique_columns(path, columns)
    schema = qs.resolve_columns(columns)
    if schema.question is None:
        raise _no_question_column(path, fmt, columns)
    return QuestionFile(
        path=path,
        format=fmt,
        encoding=enc,
        delimiter=delimiter,
        columns=tuple(columns),
        n_lines=n_lines,
        size=path.stat().st_size,
        schema=schema,
    )


def _check_line_lengths(file: QuestionFile) -> None:
    """Refuse a JSON Lines line over the limit now, not after the rows before it are scored."""
    with open(file.path, encoding=file.encoding, newline="") as f:
        for i in itertools.count(1):
            if not read_bounded_line(f, file.path, i):
                return


def check_rows(file: QuestionFile) -> None:
    """Refuse a record too large, an unclosed quote or a CSV with no data row (module docstring).

    A CSV cell or a JSON Lines line over the limit is refused here, before any
    row is scored. JSON Lines has no quotes that span lines: its rows are
    otherwise checked as they are read.
    """
    if file.format != "csv":
        _check_line_lengths(file)
        return
    if check_quotes(file.path, file.encoding, file.delimiter, len(file.columns)) == 0:
        raise BatchInputError("no data rows after the header", file=file.path)
