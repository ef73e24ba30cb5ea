"""Sniffing and inspecting a batch input file: one cheap pass before any row is scored.

Input files
-----------
CSV (``.csv``; ``.tsv`` is tab-separated) or JSON Lines (``.jsonl`` /
``.ndjson``, one object per line); another extension is sniffed (a first
``{`` means JSON Lines). The question columns (``question``, ``answer`` /
``answers`` / ``value``, ``id``, ``choices``, ``task``) follow
:mod:`invent_core.questions.schema`, as :func:`invent_core.questions.datasets.load_examples_file`
does. Without an ``id`` column a row's id is its 1-based data-row number, so
the file must not be reordered between runs.

Pre-generated perturbations and responses (no LLM call at all), two layouts:

Wide (one row per question)
    ``perturbations``: JSON list of the n perturbed questions;
    ``responses``: JSON list of m = n + 1 lists of r responses, the answers
    to the original question first. In JSON Lines the values may be real
    lists instead of JSON strings.
Long (one row per response)
    Columns ``id`` and/or ``question``, ``perturbation_index`` (0 = the
    original question, 1 … n the perturbations), ``replication_index``
    (0 … r-1), ``perturbation`` (the perturbed question; may be blank for
    index 0) and ``response``. The rows of one question must be contiguous;
    they are grouped by ``id`` (or by the question text without an id column).

Encodings
---------
UTF-8 (with or without BOM). A UTF-16 or UTF-32 file *with* a byte-order
mark is decoded as such (Excel's "Unicode text" export). Anything else —
a Latin-1 file, UTF-16 without a BOM — is refused before any row is scored,
with the byte offset, line, row and column of the first bad byte; pass
``encoding="latin-1"`` (``--encoding latin-1``) to read a Latin-1 file.
Binary files (PNG, PDF, ZIP/xlsx, …) are refused by their magic bytes or a
NUL byte.

Quotes
------
A quoted CSV cell may hold line breaks. A quote that is never closed turns
the rest of the file into one cell; so a quoted cell that runs to the end of
the file without its closing quote, or whose inner lines look like rows (as
many cells as the header), is refused here with the line where it starts.

Limits
------
:data:`invent_core.questions.schema.FIELD_SIZE_LIMIT` characters per CSV cell
and per JSON Lines line (a larger one stops the run at its row; rows before
it stay scored); :data:`~invent_core.questions.schema.MAX_QUESTION_CHARS` per
question (a per-row error).
"""

from __future__ import annotations

import codecs
import csv
import itertools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

from ..errors import InventError
from ..questions import schema as qs

__all__ = [
    "LONG_COLUMNS",
    "BatchInputError",
    "InputInfo",
    "Layout",
    "inspect_input",
    "read_bounded_line",
    "role_columns",
]

#: Columns of the long layout (one row per response).
LONG_COLUMNS: tuple[str, ...] = ("perturbation_index", "replication_index", "response")
#: Columns of pre-generated responses, wide and long, besides the question schema's.
PREGENERATED_COLUMNS: tuple[str, ...] = (
    "perturbations",
    "responses",
    "perturbation",
    *LONG_COLUMNS,
)

Layout = Literal["questions", "wide", "long"]

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive (an Excel .xlsx workbook is one: save it as CSV UTF-8)"),
    (b"\xd0\xcf\x11\xe0", "an old Office file (.xls/.doc: save it as CSV UTF-8)"),
    (b"\x1f\x8b", "a gzip archive (decompress it first)"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"PAR1", "a Parquet file (convert it to CSV or JSON Lines)"),
)
#: Longest first: the UTF-32-LE BOM starts with the UTF-16-LE one.
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


class BatchInputError(InventError, ValueError):
    """A batch input or output file cannot be used; the message names where.

    Attributes
    ----------
    file, row, column, line, byte : where the problem is (``None`` when not
        known). ``row`` is the 1-based data row (the header is not a row),
        ``line`` the 1-based physical line, ``byte`` a 0-based byte offset.
    reason : the message without the location.
    """

    def __init__(
        self,
        reason: str,
        *,
        file: str | os.PathLike | None = None,
        row: int | None = None,
        column: str | None = None,
        line: int | None = None,
        byte: int | None = None,
    ) -> None:
        self.reason = reason
        self.file = str(file) if file is not None else None
        self.row, self.column, self.line, self.byte = row, column, line, byte
        super().__init__(f"{self.where}: {reason}" if self.where else reason)

    @property
    def where(self) -> str:
        """``file, row R (line L), byte B, column 'c'`` with the parts that are known."""
        parts = [self.file] if self.file else []
        if self.row is not None:
            parts.append(
                f"row {self.row}" + (f" (line {self.line})" if self.line is not None else "")
            )
        elif self.line is not None:
            parts.append(f"line {self.line}")
        if self.byte is not None:
            parts.append(f"byte {self.byte}")
        if self.column is not None:
            parts.append(f"column {self.column!r}")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """The location and the reason, as one line of the errors sidecar."""
        return {
            "file": self.file,
            "row": self.row,
            "line": self.line,
            "column": self.column,
            "byte": self.byte,
            "error": self.reason,
            "message": str(self),
        }


@dataclass(frozen=True)
class InputInfo:
    """What :func:`inspect_input` learned from one cheap pass over the bytes."""

    path: Path
    format: Literal["csv", "jsonl"]
    encoding: str  # Python codec name
    delimiter: str
    columns: tuple[str, ...]  # CSV header / keys of the first JSON object, as written
    layout: Layout
    n_lines: int  # physical lines, for the progress estimate
    size: int
    col: dict[str, str] = field(default_factory=dict)  # role -> column name as written
    schema: qs.ColumnMap = field(default_factory=qs.ColumnMap)

    @property
    def has_answers(self) -> bool:
        """Whether the file has an answer column (turns on correctness and AUROC/PRR)."""
        return bool(self.schema.answers)

    def estimated_rows(self) -> int:
        """Data rows, estimated from the line count (exact without multi-line cells)."""
        return max(0, self.n_lines - (1 if self.format == "csv" else 0))


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


# --------------------------------------------------------------------------
# Bytes: binary files, encodings, line count
# --------------------------------------------------------------------------


def _sniff_bytes(path: Path, head: bytes, encoding: str | None) -> str:
    """The encoding (a BOM's, or UTF-8), or a BatchInputError for binary files."""
    if encoding is not None:
        try:
            text_codec = codecs.lookup(encoding)._is_text_encoding
        except LookupError:
            text_codec = False
        if not text_codec:  # "rot13", "base64": codecs, but not text encodings
            raise BatchInputError(f"unknown text encoding {encoding!r}", file=path)
        if head.startswith(codecs.BOM_UTF8) and codecs.lookup(encoding).name == "utf-8":
            return "utf-8-sig"  # Excel's "CSV UTF-8": the BOM is not part of the first header
        return encoding
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name
    for magic, what in _MAGIC:
        if head.startswith(magic):
            raise BatchInputError(f"this is {what}, not a CSV or JSON Lines text file", file=path)
    nul = head.find(b"\x00")
    if nul >= 0:
        # ASCII text in UTF-16 has a NUL in every other byte.
        odd = head[1::2].count(0) > 0.4 * len(head) / 2 or head[0::2].count(0) > 0.4 * len(head) / 2
        what = (
            "UTF-16 text without a byte-order mark: save it as UTF-8 (or UTF-16 with BOM)"
            if odd
            else "a binary file, not a CSV or JSON Lines text file"
        )
        raise BatchInputError(f"looks like {what} (NUL byte at offset {nul})", file=path, byte=nul)
    return "utf-8"


def _not_utf8(value: Any) -> bool:
    """Whether a Latin-1-decoded value holds bytes that are not valid UTF-8."""
    try:
        str(value).encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return True
    return False


def _bad_jsonl_cell(f: IO[str], line: int) -> tuple[int | None, str | None]:
    row = 0
    for i, text in enumerate(f, start=1):
        row += bool(text.strip())
        if i == line:
            try:
                obj = qs.parse_json(text)
            except ValueError:
                return row, None
            if isinstance(obj, dict):
                return row, next(
                    (str(k) for k, v in obj.items() if _not_utf8(k) or _not_utf8(v)), None
                )
            return row, None
    return None, None


def _bad_csv_cell(f: IO[str], line: int, delimiter: str) -> tuple[int | None, str | None]:
    reader = csv.reader(f, delimiter=delimiter)
    header: list[str] | None = None
    for i, fields in enumerate(reader):
        header = fields if header is None else header
        if reader.line_num >= line:
            col = next((j for j, v in enumerate(fields) if _not_utf8(v)), None)
            name = None
            if col is not None:
                name = header[col] if col < len(header) else f"#{col + 1}"
            return (i if i > 0 else None), name
    return None, None


def _locate_bad_byte(
    path: Path, line: int, fmt: str, delimiter: str
) -> tuple[int | None, str | None]:
    """Row and column that hold an undecodable byte on line ``line``.

    The file is re-read as Latin-1, where every byte is one character, so the
    CSV structure (ASCII) is the same as in the intended encoding; the first
    field whose Latin-1 text is not valid UTF-8 is the column.
    """
    try:
        with open(path, encoding="latin-1", newline="") as f:
            if fmt == "jsonl":
                return _bad_jsonl_cell(f, line)
            return _bad_csv_cell(f, line, delimiter)
    except (csv.Error, OSError):
        return None, None


def _decode_error(
    path: Path,
    err: UnicodeDecodeError,
    bad: int,
    line: int,
    encoding: str,
    fmt: str,
    delimiter: str,
) -> BatchInputError:
    row, column = _locate_bad_byte(path, line, fmt, delimiter)
    name = {"utf-8-sig": "UTF-8"}.get(encoding, encoding.upper())
    got = err.object[err.start : err.start + 4].hex(" ")
    hint = (
        "save the file as UTF-8, or pass encoding='latin-1' (--encoding latin-1) "
        "if it is Latin-1/Windows-1252"
        if encoding in ("utf-8", "utf-8-sig")
        else "check the --encoding"
    )
    return BatchInputError(
        f"not valid {name} text (bytes {got}: {err.reason}); {hint}",
        file=path,
        row=row,
        line=line,
        byte=bad,
        column=column,
    )


def _scan_lines(path: Path, encoding: str, fmt: str, delimiter: str) -> int:
    """Count lines while checking that the whole file decodes; never holds it whole."""
    dec = codecs.getincrementaldecoder(encoding)(errors="strict")
    lines = offset = 0
    last = ""
    with open(path, "rb") as f:
        while True:
            chunk = f.read(1 << 20)
            final = not chunk
            pending = len(dec.getstate()[0])
            try:
                text = dec.decode(chunk, final=final)
            except UnicodeDecodeError as err:
                bad = offset - pending + err.start  # the decoder's data = pending bytes + chunk
                line = lines + 1 + chunk[: max(0, bad - offset)].count(b"\n")
                raise _decode_error(path, err, bad, line, encoding, fmt, delimiter) from None
            if final:
                break
            lines += text.count("\n")
            last = text[-1] if text else last
            offset += len(chunk)
    return lines + (1 if last not in ("\n", "") else 0)


# --------------------------------------------------------------------------
# Structure: format, header, quotes, layout
# --------------------------------------------------------------------------


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


def _looks_like_row(text: str, delimiter: str, width: int) -> bool:
    """Whether one line, read alone, has as many cells as the header (and the header has 2+)."""
    if width < 2 or not text.strip():
        return False
    return len(next(csv.reader([text], delimiter=delimiter), [])) == width


def _unclosed_quote(path: Path, start: int, end: int | None, where: str) -> BatchInputError:
    span = f"runs on to line {end}" if end else "is never closed"
    return BatchInputError(
        f"a quoted cell opened on this line {span}{where}; close the quote, or double a quote "
        'that is part of the text ("")',
        file=path,
        line=start,
    )


class _RecordLines:
    """An iterator over a file's lines that keeps the lines of the CSV record being read."""

    def __init__(self, f: IO[str]) -> None:
        self.f, self.lines = f, []

    def __iter__(self) -> _RecordLines:
        return self

    def __next__(self) -> str:
        line = next(self.f)
        self.lines.append(line)
        return line


def _check_multiline_record(
    path: Path, lines: list[str], n_fields: int, start: int, delimiter: str, width: int
) -> None:
    """Refuse a record over several lines that swallowed rows.

    A closed multi-line cell leaves the record with as many cells as the
    header and inner lines that are text; an unclosed quote shows as a record
    with more cells than the header, or as inner lines that look like rows
    (the last line is not judged: it holds the cells after the closing quote).
    """
    end = start + len(lines) - 1
    if width >= 2 and n_fields > width:
        raise _unclosed_quote(path, start, end, f" ({n_fields} cells for {width} columns)")
    for k, text in enumerate(lines[1:-1], start=1):
        if _looks_like_row(text.rstrip("\r\n"), delimiter, width):
            where = f", swallowing line {start + k} ({text.strip()[:60]!r}), which looks like a row"
            raise _unclosed_quote(path, start, end, where)


def _open_at_line_end(path: Path, encoding: str, delimiter: str, line: int) -> bool:
    """Whether a quoted cell is still open at the end of ``line`` (read alone, strictly)."""
    with open(path, encoding=encoding, newline="") as f:
        text = next(itertools.islice(f, line - 1, None), "")
    try:
        for _ in csv.reader([text], delimiter=delimiter, strict=True):
            pass
    except csv.Error as err:
        return "unexpected end of data" in str(err)
    return False


def _check_quotes(path: Path, encoding: str, delimiter: str, width: int) -> int | None:
    """Find an unclosed quote before any row is scored (see the module docstring).

    Returns the number of data rows, or None when an oversized cell stopped the count.
    """
    csv.field_size_limit(qs.FIELD_SIZE_LIMIT)
    last_start: int | None = None  # the last record's first line: it may end the file open
    n_records = 0
    with open(path, encoding=encoding, newline="") as f:
        lines = _RecordLines(f)
        reader = csv.reader(lines, delimiter=delimiter)
        prev = 0
        try:
            for fields in reader:
                start, prev = prev + 1, reader.line_num
                n_records += any(x.strip() for x in fields)
                last_start = start
                if prev > start:
                    _check_multiline_record(path, lines.lines, len(fields), start, delimiter, width)
                lines.lines = []
        except csv.Error:
            # an oversized cell: an unclosed quote when its first line ends inside the quote;
            # otherwise a genuinely large cell, which the reader reports at its row
            if _open_at_line_end(path, encoding, delimiter, prev + 1):
                raise _unclosed_quote(
                    path, prev + 1, None, f" within {qs.FIELD_SIZE_LIMIT:,} characters"
                ) from None
            return None
    if last_start is not None and _open_at_line_end_of_file(path, encoding, delimiter, last_start):
        raise _unclosed_quote(path, last_start, None, " before the end of the file")
    return n_records - 1  # the header is not a row


def _open_at_line_end_of_file(path: Path, encoding: str, delimiter: str, line: int) -> bool:
    """Whether the record starting on ``line`` ends the file inside a quoted cell."""
    with open(path, encoding=encoding, newline="") as f:
        try:
            for _ in csv.reader(
                itertools.islice(f, line - 1, None), delimiter=delimiter, strict=True
            ):
                pass
        except csv.Error as err:
            return "unexpected end of data" in str(err)
    return False


def role_columns(columns: list[str]) -> tuple[qs.ColumnMap, dict[str, str]]:
    """The question schema's columns and the pre-generated ones: role → name as written."""
    schema = qs.resolve_columns(columns)
    col = schema.roles()
    by_lower = {c.strip().lower(): c for c in reversed(columns)}
    col.update({role: by_lower[role] for role in PREGENERATED_COLUMNS if role in by_lower})
    return schema, col


def _layout(path: Path, columns: list[str], col: dict[str, str]) -> Layout:
    if "responses" in col:
        if "perturbations" not in col:
            raise BatchInputError(
                "a 'responses' column needs a 'perturbations' column (JSON list of the n perturbed "
                "questions; responses holds n + 1 lists, the original question's first)",
                file=path,
                column="perturbations",
            )
        return "wide"
    if any(c in col for c in LONG_COLUMNS):
        missing = [c for c in (*LONG_COLUMNS, "perturbation") if c not in col]
        if missing:
            raise BatchInputError(
                f"long layout of pre-generated responses is missing column(s) {', '.join(missing)}; "
                f"found {', '.join(repr(c) for c in columns)}",
                file=path,
                column=missing[0],
            )
        return "long"
    return "questions"


def _no_question_column(path: Path, fmt: str, columns: list[str]) -> BatchInputError:
    found = ", ".join(repr(c) for c in columns[:30]) + (" …" if len(columns) > 30 else "")
    if fmt == "csv" and len(columns) == 1 and ";" in columns[0]:
        found += " (semicolon-separated? use commas)"
    return BatchInputError(
        f"no question column; found {found}; expected one of {', '.join(qs.QUESTION_COLUMNS)}",
        file=path,
        line=1,
    )


def _first_text(path: Path, encoding: str | None) -> tuple[str, str]:
    """(encoding, the decoded start of the file without BOM and blanks)."""
    if not path.exists():
        raise BatchInputError("no such file", file=path)
    if not path.is_file():
        raise BatchInputError("not a regular file", file=path)
    with open(path, "rb") as f:
        head = f.read(1 << 16)
    if not head.strip():
        raise BatchInputError("the file is empty", file=path)
    enc = _sniff_bytes(path, head, encoding)
    first = head.decode(enc, errors="replace").lstrip("\ufeff \t\r\n")
    if not first:
        raise BatchInputError("the file is empty", file=path)
    return enc, first


def inspect_input(path: str | os.PathLike, *, encoding: str | None = None) -> InputInfo:
    """Check an input file before any work: type, encoding, header, quotes, layout, line count.

    Raises
    ------
    BatchInputError
        Missing or empty file, binary file, undecodable bytes (with offset,
        line, row and column), JSON array instead of JSON Lines, no header,
        no question column (listing the columns found), an unclosed quote
        (with the line where it opens), a partial pre-generated layout.
    """
    path = Path(path)
    enc, first = _first_text(path, encoding)
    fmt = _detect_format(path, first)
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    n_lines = _scan_lines(path, enc, fmt, delimiter)
    columns = _csv_header(path, enc, delimiter) if fmt == "csv" else _jsonl_keys(path, enc)
    if not columns:
        raise BatchInputError("the file is empty (no header row)", file=path)
    schema, col = role_columns(columns)
    if schema.question is None:
        raise _no_question_column(path, fmt, columns)
    layout = _layout(path, columns, col)
    if fmt == "csv" and _check_quotes(path, enc, delimiter, len(columns)) == 0:
        raise BatchInputError("no data rows after the header", file=path)
    return InputInfo(
        path=path,
        format=fmt,
        encoding=enc,
        delimiter=delimiter,
        columns=tuple(columns),
        layout=layout,
        n_lines=n_lines,
        size=path.stat().st_size,
        col=col,
        schema=schema,
    )
