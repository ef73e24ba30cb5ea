"""Streaming input and output of batch scoring: reading question files, the checkpoint, exports.

Nothing here scores anything; :mod:`invent_core.batch` drives it. Every
problem with an input file becomes a :class:`BatchInputError` that names the
file, the row, the line and the column.

Input files
-----------
CSV (``.csv``; ``.tsv`` is tab-separated) or JSON Lines (``.jsonl`` /
``.ndjson``, one object per line); another extension is sniffed (a first
``{`` means JSON Lines). Column names are matched case-insensitively:

``question`` (required; also ``questions``, ``query``, ``prompt``)
    The original question. A blank question is a per-row error (recorded,
    skipped); a question longer than :data:`MAX_QUESTION_CHARS` characters too.
``id`` (optional)
    Identifies the row for resuming, sharding, duplicates and merging.
    Default: the 1-based data-row number (``"1"``, ``"2"``, …), so without an
    id column the file must not be reordered between runs. A repeated id is a
    per-row error (the first occurrence is scored); the same question text
    under different ids is allowed.
``answer`` (optional; also ``answers``, ``value`` as in the paper's released
    tool's ``question,value`` CSVs, ``reference``, ``references``)
    A plain string, a JSON list of aliases or ``"a|b"``. Turns on the
    correctness column and AUROC/PRR at the end.
``choices`` / ``task`` (optional)
    As in :func:`invent_core.datasets.load_examples_file` (MMLU options; task
    "qa", "mmlu", "gsm8k").

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

A file is in one layout: with a ``responses`` column every row must carry
its responses. Responses whose replication counts differ within one
question ("ragged"), or a ``responses`` list whose length is not
``len(perturbations) + 1``, are per-row errors.

Encodings
---------
UTF-8 (with or without BOM). A UTF-16 or UTF-32 file *with* a byte-order
mark is decoded as such (Excel's "Unicode text" export). Anything else —
a Latin-1 file, UTF-16 without a BOM — is refused before any row is scored,
with the byte offset, line, row and column of the first bad byte; pass
``encoding="latin-1"`` (``--encoding latin-1``) to read a Latin-1 file.
Binary files (PNG, PDF, ZIP/xlsx, …) are refused by their magic bytes or a
NUL byte.

Limits
------
One CSV cell may hold at most :data:`FIELD_SIZE_LIMIT` characters (a larger
cell stops the run with its row; rows before it stay scored). A question may
hold at most :data:`MAX_QUESTION_CHARS` characters (per-row error).

Output
------
The checkpoint is CSV or JSON Lines, one row per question, appended and
fsynced as each question finishes. CSV cells are protected against
spreadsheet formula injection (:func:`neutralize_cell`): a cell starting with
``=``, ``+``, ``-``, ``@``, a tab, a carriage return or an apostrophe gets a
leading apostrophe, unless the *whole* cell is a plain number (``-0.5``
stays numeric). Reading the CSV back (:func:`iter_records`) removes exactly
that apostrophe. JSON Lines, JSON and Parquet hold the text unchanged.
"""

from __future__ import annotations

import codecs
import csv
import hashlib
import io
import json
import math
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .datasets import ANSWER_COLUMNS, QUESTION_COLUMNS
from .datasets import _parse_list as _parse_aliases
from .errors import InventError

#: Longest question accepted, in characters (longer: per-row error). The
#: paper's questions are a few hundred characters; a GSM8K problem ~1,000.
MAX_QUESTION_CHARS = 20_000
#: Largest CSV cell, in characters (``csv.field_size_limit``); a wide-layout
#: ``responses`` cell with n = 9, r = 5 long answers is ~100 kB.
FIELD_SIZE_LIMIT = 16 * 1024 * 1024
#: First characters that make a spreadsheet read a cell as a formula
#: (OWASP "CSV injection"), plus the apostrophe so that escaping is reversible.
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r", "'")

LONG_COLUMNS: tuple[str, ...] = ("perturbation_index", "replication_index", "response")

Layout = Literal["questions", "wide", "long"]

_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
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
        return {
            "file": self.file,
            "row": self.row,
            "line": self.line,
            "column": self.column,
            "byte": self.byte,
            "error": self.reason,
            "message": str(self),
        }


# --------------------------------------------------------------------------
# Inspecting an input file
# --------------------------------------------------------------------------


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
    col: dict[str, str] = field(default_factory=dict)  # role -> lower-case column name

    @property
    def has_answers(self) -> bool:
        return "answer" in self.col

    def estimated_rows(self) -> int:
        """Data rows, estimated from the line count (exact without multi-line cells)."""
        return max(0, self.n_lines - (1 if self.format == "csv" else 0))


def _sniff_bytes(path: Path, head: bytes, encoding: str | None) -> tuple[str, int]:
    """Encoding and the number of BOM bytes, or a BatchInputError for binary files."""
    if encoding is not None:
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise BatchInputError(f"unknown encoding {encoding!r}", file=path) from None
        return encoding, 0
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name, len(bom)
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
    return "utf-8", 0


def _locate_bad_byte(
    path: Path, offset: int, line: int, fmt: str, delimiter: str
) -> tuple[int | None, str | None]:
    """Row and column that hold the undecodable byte at ``offset`` (line ``line``).

    The file is re-read as Latin-1, where every byte is one character, so the
    CSV structure (ASCII) is the same as in the intended encoding; the first
    field whose Latin-1 text is not valid UTF-8 is the column.
    """

    def bad(value: Any) -> bool:
        try:
            str(value).encode("latin-1").decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            return True
        return False

    try:
        with open(path, encoding="latin-1", newline="") as f:
            if fmt == "jsonl":
                row = 0
                for i, text in enumerate(f, start=1):
                    if text.strip():
                        row += 1
                    if i == line:
                        try:
                            obj = json.loads(text)
                        except json.JSONDecodeError:
                            return row, None
                        if isinstance(obj, dict):
                            return row, next(
                                (str(k) for k, v in obj.items() if bad(k) or bad(v)), None
                            )
                        return row, None
                return None, None
            reader = csv.reader(f, delimiter=delimiter)
            header: list[str] | None = None
            for i, fields in enumerate(reader):
                if header is None:
                    header = fields
                if reader.line_num >= line:
                    col = next((j for j, v in enumerate(fields) if bad(v)), None)
                    name = None
                    if col is not None and header is not None:
                        name = header[col] if col < len(header) else f"#{col + 1}"
                    return (i if i > 0 else None), name
    except (csv.Error, OSError):
        pass
    return None, None


def _scan_lines(path: Path, encoding: str, fmt: str, delimiter: str) -> int:
    """Count lines while checking that the whole file decodes; never holds it whole."""
    dec = codecs.getincrementaldecoder(encoding)(errors="strict")
    lines = 0
    offset = 0
    last = ""
    with open(path, "rb") as f:
        while True:
            chunk = f.read(1 << 20)
            final = not chunk
            pending = len(dec.getstate()[0])
            try:
                text = dec.decode(chunk, final=final)
            except UnicodeDecodeError as err:
                start = offset - pending  # the decoder's data = pending bytes + chunk
                bad = start + err.start
                line = lines + 1 + chunk[: max(0, bad - offset)].count(b"\n")
                row, column = _locate_bad_byte(path, bad, line, fmt, delimiter)
                name = {"utf-8-sig": "UTF-8"}.get(encoding, encoding.upper())
                got = err.object[err.start : err.start + 4].hex(" ")
                hint = (
                    "save the file as UTF-8, or pass encoding='latin-1' (--encoding latin-1) "
                    "if it is Latin-1/Windows-1252"
                    if encoding in ("utf-8", "utf-8-sig")
                    else "check the --encoding"
                )
                raise BatchInputError(
                    f"not valid {name} text (bytes {got}: {err.reason}); {hint}",
                    file=path,
                    row=row,
                    line=line,
                    byte=bad,
                    column=column,
                ) from None
            if final:
                break
            lines += text.count("\n")
            if text:
                last = text[-1]
            offset += len(chunk)
    return lines + (1 if last not in ("\n", "") else 0)


def _resolve_columns(names: Iterable[str]) -> dict[str, str]:
    """Role -> lower-case column name, first match wins."""
    lower = [str(n).strip().lower() for n in names if n is not None]
    col: dict[str, str] = {}

    def pick(role: str, candidates: Sequence[str]) -> None:
        for c in candidates:
            if c in lower:
                col[role] = c
                return

    pick("question", QUESTION_COLUMNS)
    pick("answer", ANSWER_COLUMNS)
    pick("id", ("id",))
    pick("choices", ("choices", "options"))
    pick("task", ("task",))
    for role in ("perturbations", "responses", "perturbation", *LONG_COLUMNS):
        pick(role, (role,))
    return col


def inspect_input(path: str | os.PathLike, *, encoding: str | None = None) -> InputInfo:
    """Check an input file before any work: type, encoding, header, layout, line count.

    Raises
    ------
    BatchInputError
        Missing or empty file, binary file, undecodable bytes (with offset,
        line, row and column), JSON array instead of JSON Lines, no header,
        no question column (listing the columns found), a partial
        pre-generated layout.
    """
    path = Path(path)
    if not path.exists():
        raise BatchInputError("no such file", file=path)
    if not path.is_file():
        raise BatchInputError("not a regular file", file=path)
    size = path.stat().st_size
    with open(path, "rb") as f:
        head = f.read(1 << 16)
    if not head.strip():
        raise BatchInputError("the file is empty", file=path)
    enc, _ = _sniff_bytes(path, head, encoding)
    first_text = head.decode(enc, errors="replace").lstrip("\ufeff \t\r\n")
    if not first_text:
        raise BatchInputError("the file is empty", file=path)
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        fmt = "jsonl"
    elif suffix in (".csv", ".tsv", ".txt"):
        fmt = "csv"
    elif suffix == ".json" or first_text.startswith("["):
        if first_text.startswith("{"):
            fmt = "jsonl"
        else:
            raise BatchInputError(
                "a JSON array cannot be streamed: write one JSON object per line (JSON Lines, .jsonl)",
                file=path,
            )
    else:
        fmt = "jsonl" if first_text.startswith("{") else "csv"
    delimiter = "\t" if suffix == ".tsv" else ","
    n_lines = _scan_lines(path, enc, fmt, delimiter)

    columns: list[str] = []
    with open(path, encoding=enc, newline="") as f:
        if fmt == "csv":
            csv.field_size_limit(FIELD_SIZE_LIMIT)
            try:
                for fields in csv.reader(f, delimiter=delimiter):
                    if fields and any(x.strip() for x in fields):
                        columns = [x.strip() for x in fields]
                        break
            except csv.Error as err:
                raise BatchInputError(
                    f"not a readable CSV header: {err}", file=path, line=1
                ) from None
        else:
            for i, text in enumerate(f, start=1):
                if not text.strip():
                    continue
                try:
                    obj = json.loads(text)
                except json.JSONDecodeError as err:
                    raise BatchInputError(
                        f"not JSON Lines: invalid JSON ({err.msg} at character {err.colno})",
                        file=path,
                        line=i,
                        row=1,
                    ) from None
                if not isinstance(obj, dict):
                    raise BatchInputError(
                        f"expected a JSON object per line, got {type(obj).__name__}",
                        file=path,
                        line=i,
                        row=1,
                    )
                columns = [str(k) for k in obj]
                break
    if not columns:
        raise BatchInputError("the file is empty (no header row)", file=path)
    col = _resolve_columns(columns)
    if "question" not in col:
        found = ", ".join(repr(c) for c in columns[:30]) + (" …" if len(columns) > 30 else "")
        if fmt == "csv" and len(columns) == 1 and ";" in columns[0]:
            found += " (semicolon-separated? use commas)"
        raise BatchInputError(
            f"no question column; found {found}; expected one of {', '.join(QUESTION_COLUMNS)}",
            file=path,
            line=1,
        )
    if "responses" in col:
        if "perturbations" not in col:
            raise BatchInputError(
                "a 'responses' column needs a 'perturbations' column (JSON list of the n perturbed "
                "questions; responses holds n + 1 lists, the original question's first)",
                file=path,
                column="perturbations",
            )
        layout: Layout = "wide"
    elif any(c in col for c in LONG_COLUMNS):
        missing = [c for c in (*LONG_COLUMNS, "perturbation") if c not in col]
        if missing:
            raise BatchInputError(
                f"long layout of pre-generated responses is missing column(s) {', '.join(missing)}; "
                f"found {', '.join(repr(c) for c in columns)}",
                file=path,
                column=missing[0],
            )
        layout = "long"
    else:
        layout = "questions"
    return InputInfo(
        path=path,
        format=fmt,
        encoding=enc,
        delimiter=delimiter,
        columns=tuple(columns),
        layout=layout,
        n_lines=n_lines,
        size=size,
        col=col,
    )


# --------------------------------------------------------------------------
# Streaming rows
# --------------------------------------------------------------------------


@dataclass
class InputRow:
    """One question of the input, parsed and checked (or why it cannot be scored).

    ``index`` is the 1-based data row (for the long layout: the question's
    ordinal), ``line`` the physical line where it starts.
    """

    index: int
    line: int
    id: str
    question: str = ""
    answers: tuple[str, ...] = ()
    task: str = "qa"
    choices: tuple[str, ...] | None = None
    perturbations: list[str] | None = None
    responses: list[list[str]] | None = None
    error: BatchInputError | None = None


def _json_value(value: Any) -> Any:
    """A list given as a real list (JSON Lines) or as a JSON string (CSV)."""
    if isinstance(value, list):
        return value
    s = "" if value is None else str(value).strip()
    if not s:
        raise ValueError("is empty")
    try:
        return json.loads(s)
    except json.JSONDecodeError as err:
        raise ValueError(f"is not valid JSON ({err.msg} at character {err.colno})") from None


def _check_wide(
    perturbations: Any, responses: Any
) -> tuple[list[str], list[list[str]], str | None]:
    """Shape-check the wide layout; returns the lists or (…, message naming the column)."""
    if not isinstance(perturbations, list) or not all(isinstance(p, str) for p in perturbations):
        return [], [], "perturbations: expected a JSON list of strings (the n perturbed questions)"
    if not isinstance(responses, list) or not responses:
        return [], [], "responses: expected a JSON list of n + 1 lists of r strings"
    reps: list[list[str]] = []
    for i, r in enumerate(responses):
        if isinstance(r, str):
            r = [r]
        if not isinstance(r, list) or not all(isinstance(t, str) for t in r):
            return [], [], f"responses: item {i} is not a list of strings"
        reps.append(r)
    m = len(perturbations) + 1
    if len(reps) != m:
        return (
            [],
            [],
            (
                f"responses: {len(reps)} lists for {len(perturbations)} perturbations; expected {m} "
                "(the original question's responses first, then one list per perturbation)"
            ),
        )
    r0 = len(reps[0])
    for i, r in enumerate(reps):
        if not r:
            return [], [], f"responses: list {i} is empty"
        if len(r) != r0:
            return (
                [],
                [],
                (
                    f"responses: ragged replications: list 0 has {r0} responses but list {i} has {len(r)}; "
                    "every question needs the same number r"
                ),
            )
    return list(perturbations), reps, None


class RowReader:
    """Iterates the :class:`InputRow` s of a file inspected by :func:`inspect_input`.

    Holds at most one row (one question's group in the long layout) in
    memory. A per-row problem sets ``InputRow.error``; a problem that stops
    the file from being read further raises :class:`BatchInputError`.
    """

    def __init__(self, info: InputInfo, *, max_question_chars: int = MAX_QUESTION_CHARS) -> None:
        self.info = info
        self.max_question_chars = int(max_question_chars)
        self.lines_read = 0  # physical lines consumed so far (progress for the long layout)
        self._orig = {c.strip().lower(): c.strip() for c in info.columns}

    def name(self, role: str) -> str:
        """The column's name as written in the file."""
        key = self.info.col.get(role, role)
        return self._orig.get(key, key)

    def _error(self, index: int, line: int, id_: str, reason: str, role: str | None) -> InputRow:
        err = BatchInputError(
            reason,
            file=self.info.path,
            row=index,
            line=line,
            column=self.name(role) if role else None,
        )
        return InputRow(index=index, line=line, id=id_, error=err)

    # -- raw records: (line, {lower-case column: value}) or (line, error text)
    def _records(self) -> Iterator[tuple[int, dict[str, Any] | str]]:
        info = self.info
        with open(info.path, encoding=info.encoding, newline="") as f:
            if info.format == "jsonl":
                for i, text in enumerate(f, start=1):
                    self.lines_read = i
                    if not text.strip():
                        continue
                    try:
                        obj = json.loads(text)
                    except json.JSONDecodeError as err:
                        yield i, f"invalid JSON ({err.msg} at character {err.colno})"
                        continue
                    if not isinstance(obj, dict):
                        yield i, f"expected a JSON object, got {type(obj).__name__}"
                        continue
                    yield i, {str(k).strip().lower(): v for k, v in obj.items()}
                return
            csv.field_size_limit(FIELD_SIZE_LIMIT)
            reader = csv.reader(f, delimiter=info.delimiter)
            header: list[str] | None = None
            prev = 0
            n_rows = 0
            while True:
                try:
                    fields = next(reader)
                except StopIteration:
                    return
                except csv.Error as err:
                    msg = str(err)
                    if "field larger than field limit" in msg:
                        msg = (
                            f"a cell is larger than {FIELD_SIZE_LIMIT:,} characters, the limit for one CSV cell "
                            "(an unclosed quote can also cause this)"
                        )
                    raise BatchInputError(
                        msg, file=info.path, row=n_rows + 1, line=prev + 1
                    ) from None
                start, prev = prev + 1, reader.line_num
                self.lines_read = prev
                if not fields or not any(x.strip() for x in fields):
                    continue  # blank line
                if header is None:
                    header = [x.strip().lower() for x in fields]
                    continue
                n_rows += 1
                if len(fields) > len(header):
                    yield (
                        start,
                        (
                            f"the row has {len(fields)} cells but the header has {len(header)} columns "
                            "(an unquoted comma?)"
                        ),
                    )
                    continue
                yield start, dict(zip(header, fields, strict=False))

    def _base(self, index: int, line: int, rec: dict[str, Any]) -> InputRow:
        """id, question, answers, task, choices of one record (errors set on the row)."""
        col = self.info.col
        raw_id = rec.get(col["id"]) if "id" in col else None
        id_ = "" if raw_id is None else str(raw_id).strip()
        id_ = id_ or str(index)
        q = rec.get(col["question"])
        question = "" if q is None else str(q).strip()
        if not question:
            return self._error(index, line, id_, "blank question (row skipped)", "question")
        if len(question) > self.max_question_chars:
            return self._error(
                index,
                line,
                id_,
                f"question is {len(question):,} characters; the limit is {self.max_question_chars:,}",
                "question",
            )
        answers = _parse_aliases(rec.get(col["answer"])) if "answer" in col else ()
        choices = _parse_aliases(rec.get(col["choices"])) if "choices" in col else ()
        task = str(rec.get(col["task"]) or "").strip().lower() if "task" in col else ""
        task = task or ("mmlu" if choices else "qa")
        from .prompts import TASKS

        if task not in TASKS:
            return self._error(
                index, line, id_, f"task {task!r} is not one of {', '.join(TASKS)}", "task"
            )
        if task == "mmlu" and not choices:
            return self._error(index, line, id_, "task 'mmlu' needs a choices column", "choices")
        return InputRow(
            index=index,
            line=line,
            id=id_,
            question=question,
            answers=answers,
            task=task,
            choices=choices or None,
        )

    def __iter__(self) -> Iterator[InputRow]:
        if self.info.layout == "long":
            yield from self._iter_long()
            return
        col = self.info.col
        index = 0
        for line, rec in self._records():
            index += 1
            if isinstance(rec, str):
                yield self._error(index, line, str(index), rec, None)
                continue
            row = self._base(index, line, rec)
            if row.error is None and self.info.layout == "wide":
                try:
                    perts = _json_value(rec.get(col["perturbations"]))
                except ValueError as err:
                    yield self._error(index, line, row.id, f"perturbations {err}", "perturbations")
                    continue
                try:
                    reps = _json_value(rec.get(col["responses"]))
                except ValueError as err:
                    yield self._error(index, line, row.id, f"responses {err}", "responses")
                    continue
                row.perturbations, row.responses, problem = _check_wide(perts, reps)
                if problem is not None:
                    role, _, reason = problem.partition(": ")
                    yield self._error(index, line, row.id, reason, role)
                    continue
            yield row

    def _iter_long(self) -> Iterator[InputRow]:
        col = self.info.col
        key_col = col.get("id", col["question"])
        group: list[tuple[int, dict[str, Any]]] = []
        key: str | None = None
        index = 0
        for line, rec in self._records():
            if isinstance(rec, str):
                if group:
                    index += 1
                    yield self._long_row(index, group)
                    group, key = [], None
                index += 1
                yield self._error(index, line, str(index), rec, None)
                continue
            k = str(rec.get(key_col) or "").strip()
            if group and k and k != key:
                index += 1
                yield self._long_row(index, group)
                group = []
            if not group:
                key = k
            group.append((line, rec))
        if group:
            index += 1
            yield self._long_row(index, group)

    def _long_row(self, index: int, group: list[tuple[int, dict[str, Any]]]) -> InputRow:
        col = self.info.col
        line0, first = group[0]
        # question/answer/id may be given on the group's first line only
        merged = dict(first)
        for _, rec in group[1:]:
            for k, v in rec.items():
                if merged.get(k) in (None, "") and v not in (None, ""):
                    merged[k] = v
        row = self._base(index, line0, merged)
        if row.error is not None:
            return row
        texts: dict[int, str] = {}
        cells: dict[int, dict[int, str]] = {}
        for line, rec in group:
            try:
                p = int(str(rec.get(col["perturbation_index"])).strip())
            except ValueError:
                return self._error(
                    index,
                    line,
                    row.id,
                    "perturbation_index is not an integer",
                    "perturbation_index",
                )
            try:
                k = int(str(rec.get(col["replication_index"])).strip())
            except ValueError:
                return self._error(
                    index, line, row.id, "replication_index is not an integer", "replication_index"
                )
            if p < 0 or k < 0:
                return self._error(
                    index, line, row.id, "indices must be >= 0", "perturbation_index"
                )
            text = rec.get(col["perturbation"])
            text = "" if text is None else str(text).strip()
            if text and p not in texts:
                texts[p] = text
            resp = rec.get(col["response"])
            if k in cells.setdefault(p, {}):
                return self._error(
                    index,
                    line,
                    row.id,
                    f"perturbation {p}, replication {k} is given twice",
                    "replication_index",
                )
            cells[p][k] = "" if resp is None else str(resp)
        n = max(cells)
        missing = [p for p in range(n + 1) if p not in cells]
        if missing:
            return self._error(
                index,
                line0,
                row.id,
                f"perturbation index(es) {missing} missing (expected 0 … {n})",
                "perturbation_index",
            )
        r0 = len(cells[0])
        for p in range(n + 1):
            ks = sorted(cells[p])
            if ks != list(range(len(ks))) or len(ks) != r0:
                return self._error(
                    index,
                    line0,
                    row.id,
                    f"ragged responses: perturbation 0 has {r0} replications but perturbation {p} has "
                    f"replication indices {ks}; every perturbation needs 0 … r-1",
                    "replication_index",
                )
        for p in range(1, n + 1):
            if p not in texts:
                return self._error(
                    index, line0, row.id, f"perturbation {p} has no text", "perturbation"
                )
        row.perturbations = [texts[p] for p in range(1, n + 1)]
        row.responses = [[cells[p][k] for k in range(r0)] for p in range(n + 1)]
        return row


# --------------------------------------------------------------------------
# Cells, records and the checkpoint
# --------------------------------------------------------------------------

#: Output columns holding text; every other column is numeric.
TEXT_COLUMNS = frozenset(
    {"id", "question", "answer", "response", "perturbations", "responses", "method_errors"}
)
INT_COLUMNS = frozenset({"row", "n_perturbations", "n_replications", "correct"})


def is_number(text: str) -> bool:
    """Whether the whole cell is a plain decimal number (``-0.5``, ``+3``, ``1e-9``)."""
    return bool(_NUMBER.fullmatch(text))


def neutralize_cell(value: Any) -> str:
    """A CSV cell that a spreadsheet will not run as a formula.

    Text starting with ``=``, ``+``, ``-``, ``@``, tab, CR or ``'`` gets a
    leading apostrophe, unless the whole cell is a plain number. Numbers are
    written at full precision (``repr``); ``None`` and NaN as an empty cell.

    >>> neutralize_cell("=HYPERLINK(\\"x\\")"), neutralize_cell("-0.5"), neutralize_cell(-0.5)
    ('\\'=HYPERLINK("x")', '-0.5', '-0.5')
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(value)
    s = str(value)
    if s.startswith(FORMULA_PREFIXES) and not is_number(s):
        return "'" + s
    return s


def restore_cell(text: str) -> str:
    """Undo :func:`neutralize_cell` on text (every stored cell starting with ``'`` was escaped)."""
    return text[1:] if text.startswith("'") else text


def _typed(name: str, text: str) -> Any:
    if name in TEXT_COLUMNS:
        return restore_cell(text)
    if text == "":
        return None
    text = restore_cell(text)
    try:
        return int(text) if name in INT_COLUMNS else float(text)
    except ValueError:
        return text


def csv_line(values: Sequence[Any]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow([neutralize_cell(v) for v in values])
    return buf.getvalue()


def _json_ready(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def output_format(path: str | os.PathLike) -> str:
    """``csv``, ``jsonl``, ``json`` or ``parquet`` from the extension."""
    suffix = Path(path).suffix.lower()
    fmt = {
        ".csv": "csv",
        ".jsonl": "jsonl",
        ".ndjson": "jsonl",
        ".json": "json",
        ".parquet": "parquet",
    }.get(suffix)
    if fmt is None:
        raise BatchInputError(
            f"unsupported output extension {suffix or '(none)'!r}; use .csv, .jsonl, .json or .parquet",
            file=path,
        )
    return fmt


def question_hash(question: str) -> str:
    return hashlib.blake2b(question.encode("utf-8"), digest_size=8).hexdigest()


def _complete_csv_records(f, start: int) -> Iterator[tuple[int, bytes]]:
    """(end offset, bytes) of each complete CSV record from ``start``.

    A record is complete when it ends with a newline and holds an even number
    of double quotes (RFC 4180 doubles quotes inside quoted cells), so a
    record torn inside a multi-line cell is not taken for a whole one.
    """
    f.seek(start)
    pos = start
    buf = b""
    for chunk in f:
        buf += chunk
        pos += len(chunk)
        if buf.endswith(b"\n") and buf.count(b'"') % 2 == 0:
            yield pos, buf
            buf = b""


class Checkpoint:
    """The streaming output file: one row per question, appended and fsynced.

    The file itself is the checkpoint. :meth:`open` reads the ids already in
    it (truncating a torn last row left by a crash) so that the run skips
    them; :meth:`append` writes one row with one ``write`` and fsyncs it.
    """

    def __init__(self, path: str | os.PathLike, columns: Sequence[str]) -> None:
        self.path = Path(path)
        self.format = output_format(self.path)
        if self.format not in ("csv", "jsonl"):
            raise ValueError(f"the checkpoint must be .csv or .jsonl, got {self.path.name}")
        self.columns = list(columns)
        self._f: Any = None
        self.truncated_bytes = 0

    def open(self, *, resume: bool = True) -> dict[str, str]:
        """Prepare the file; return ``{id: question_hash}`` of the rows already in it."""
        done: dict[str, str] = {}
        if not resume:
            self.path.write_bytes(b"")
        elif self.path.exists() and self.path.stat().st_size:
            done = self._read_done()
        self._f = open(self.path, "ab")
        if self.format == "csv" and self.path.stat().st_size == 0:
            self._write(csv_line(self.columns).encode("utf-8"))
        return done

    def _read_done(self) -> dict[str, str]:
        done: dict[str, str] = {}
        good = 0
        with open(self.path, "rb") as f:
            if self.format == "jsonl":
                for raw in f:
                    if not raw.endswith(b"\n"):
                        break
                    if raw.strip():
                        try:
                            rec = json.loads(raw)
                        except json.JSONDecodeError:
                            break
                        done[str(rec["id"])] = question_hash(rec.get("question") or "")
                    good += len(raw)
            else:
                records = _complete_csv_records(f, 0)
                first = next(records, None)
                if first is not None:
                    header = next(csv.reader(io.StringIO(first[1].decode("utf-8"))))
                    if header != self.columns:
                        raise BatchInputError(
                            f"the output's columns {header} differ from this run's {self.columns}; "
                            "use another output path or --no-resume",
                            file=self.path,
                        )
                    good = first[0]
                    for end, raw in records:
                        fields = next(csv.reader(io.StringIO(raw.decode("utf-8"))))
                        if len(fields) != len(self.columns):
                            break
                        rec = dict(zip(self.columns, fields, strict=True))
                        done[restore_cell(rec["id"])] = question_hash(restore_cell(rec["question"]))
                        good = end
        size = self.path.stat().st_size
        if good < size:  # a torn last row after a crash
            self.truncated_bytes = size - good
            with open(self.path, "r+b") as f:
                f.truncate(good)
                f.flush()
                os.fsync(f.fileno())
        return done

    def _write(self, data: bytes) -> None:
        self._f.write(data)
        self._f.flush()
        os.fsync(self._f.fileno())

    def append(self, record: dict[str, Any]) -> None:
        if self.format == "csv":
            data = csv_line([record.get(c) for c in self.columns])
        else:
            data = (
                json.dumps(
                    {c: _json_ready(record.get(c)) for c in self.columns}, ensure_ascii=False
                )
                + "\n"
            )
        self._write(data.encode("utf-8"))

    def close(self) -> None:
        if self._f is not None:
            self._f.close()
            self._f = None


def iter_records(path: str | os.PathLike) -> Iterator[dict[str, Any]]:
    """Typed rows of a result file (.csv, .jsonl, .json, .parquet), in file order.

    CSV cells are un-escaped (:func:`restore_cell`) and numeric columns
    parsed; an empty cell is ``None``.
    """
    path = Path(path)
    fmt = output_format(path)
    if fmt == "parquet":
        import pyarrow.parquet as pq

        pf = pq.ParquetFile(path)
        for batch in pf.iter_batches(batch_size=1024):
            yield from batch.to_pylist()
        return
    if fmt == "json":
        with open(path, encoding="utf-8") as f:
            yield from json.load(f)
        return
    with open(path, encoding="utf-8", newline="") as f:
        if fmt == "jsonl":
            for line in f:
                if line.strip():
                    yield json.loads(line)
            return
        csv.field_size_limit(FIELD_SIZE_LIMIT)
        reader = csv.reader(f)
        header = next(reader, None)
        if header is None:
            return
        for fields in reader:
            if fields:
                yield {c: _typed(c, v) for c, v in zip(header, fields, strict=False)}


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

    if name in TEXT_COLUMNS:
        return pa.string()
    if name in INT_COLUMNS:
        return pa.int64()
    return pa.float64()


def write_records(
    records: Iterable[dict[str, Any]],
    dest: str | os.PathLike,
    columns: Sequence[str],
    *,
    on_row: Callable[[], None] | None = None,
) -> int:
    """Write rows to ``dest`` in the format its extension names; return the count.

    Streams: Parquet is written in row groups of 1,024, JSON as one array
    written object by object. Written to a temporary file first and renamed.
    """
    dest = Path(dest)
    fmt = output_format(dest)
    tmp = dest.with_name(dest.name + ".tmp")
    n = 0
    columns = list(columns)
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema = pa.schema([(c, _arrow_type(c)) for c in columns])
        writer = pq.ParquetWriter(tmp, schema)
        batch: list[dict[str, Any]] = []

        def flush() -> None:
            if batch:
                writer.write_table(
                    pa.Table.from_pylist(
                        [{c: _json_ready(r.get(c)) for c in columns} for r in batch], schema
                    )
                )
                batch.clear()

        try:
            for rec in records:
                batch.append(rec)
                n += 1
                if len(batch) >= 1024:
                    flush()
            flush()
        finally:
            writer.close()
    else:
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            if fmt == "csv":
                f.write(csv_line(columns))
            elif fmt == "json":
                f.write("[")
            for rec in records:
                if fmt == "csv":
                    f.write(csv_line([rec.get(c) for c in columns]))
                else:
                    obj = json.dumps(
                        {c: _json_ready(rec.get(c)) for c in columns}, ensure_ascii=False
                    )
                    if fmt == "json":
                        f.write(("\n" if n == 0 else ",\n") + obj)
                    else:
                        f.write(obj + "\n")
                n += 1
                if on_row is not None:
                    on_row()
            if fmt == "json":
                f.write("\n]\n")
            f.flush()
            os.fsync(f.fileno())
    os.replace(tmp, dest)
    return n
