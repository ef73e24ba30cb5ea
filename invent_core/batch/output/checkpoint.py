"""The checkpoint: the streaming output file, one row per question, appended and fsynced.

The checkpoint is CSV or JSON Lines, one row per question, appended and
fsynced as each question finishes. CSV cells go through
:mod:`invent_core.csv_safe` (formula injection: a cell starting with ``=``,
``+``, ``-``, ``@``, a tab, a carriage return or an apostrophe gets a leading
apostrophe unless the *whole* cell is a plain number), and reading a CSV
back removes exactly that apostrophe.

Resuming reads the checkpoint back (:meth:`Checkpoint.open`): a torn last row
(a crash in the middle of a write) is cut off; a corrupt row in the middle is
removed (the good rows after it are kept, byte for byte) and reported, and
its question is scored again; rows are put back in input order at the end.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...csv_safe import atomic_file, csv_line, restore_cell
from ...questions import schema as qs
from ...questions.files import BatchInputError
from .files import json_cell, typed_row
from .paths import output_format

__all__ = ["Checkpoint", "question_hash"]


def question_hash(question: str) -> str:
    """A short hash of a question: resuming checks that an id still names the same question."""
    return hashlib.blake2b(question.encode("utf-8"), digest_size=8).hexdigest()


@dataclass
class _Record:
    """One row of a checkpoint: its bytes, where they are, and what they say."""

    start: int
    end: int
    line: int  # 1-based first line
    id: str | None  # None: corrupt
    row: int
    question: str
    problem: str = ""


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


def _json_record(raw: bytes) -> tuple[str | None, int, str, str]:
    """(id, row, question, problem) of one JSON Lines checkpoint line."""
    try:
        rec = json.loads(raw)
    except (ValueError, RecursionError):
        return None, 0, "", "invalid JSON"
    try:
        return str(rec["id"]), int(rec["row"]), str(rec.get("question") or ""), ""
    except (KeyError, TypeError, ValueError):
        return None, 0, "", "no id or row number"


def _csv_record(raw: bytes, columns: list[str]) -> tuple[str | None, int, str, str]:
    try:
        fields = next(csv.reader(io.StringIO(raw.decode("utf-8"))))
    except (UnicodeDecodeError, csv.Error, StopIteration) as err:
        return None, 0, "", type(err).__name__
    if len(fields) != len(columns):
        return None, 0, "", f"{len(fields)} cells for {len(columns)} columns"
    rec = dict(zip(columns, fields, strict=True))
    try:
        row = int(restore_cell(rec["row"]))
    except ValueError:
        return None, 0, "", "the row number is not an integer"
    return restore_cell(rec["id"]), row, restore_cell(rec["question"]), ""


class Checkpoint:
    """The streaming output file: one row per question, appended and fsynced.

    The file itself is the checkpoint. :meth:`read_done` reads the ids already
    in it so that the run skips them (writing nothing, so a refused resume
    leaves the file as it was); :meth:`open` repairs a torn or corrupt row; :meth:`append` writes one row with one
    ``write`` and fsyncs it; :meth:`put_in_order` (after :meth:`close`) puts
    rows back in input order if a re-scored row was appended after later ones.
    """

    def __init__(self, path: str | os.PathLike, columns: Sequence[str]) -> None:
        self.path = Path(path)
        self.format = output_format(self.path)
        if self.format not in ("csv", "jsonl"):
            raise ValueError(f"the checkpoint must be .csv or .jsonl, got {self.path.name}")
        self.columns = list(columns)
        csv.field_size_limit(qs.FIELD_SIZE_LIMIT)  # a long responses cell is a row, in any process
        self._f: Any = None
        self.truncated_bytes = 0
        self.dropped: list[str] = []  # what was removed from the middle, for the user
        self._last_row = 0
        self._out_of_order = False
        self._done: dict[str, str] | None = None  # read once, by read_done()
        self._kept: list[_Record] = []  # the complete, valid rows read_done() found
        self.bad: list[_Record] = []  # the corrupt rows it found (line, problem)
        self.tail_line: int | None = None  # where an incomplete end (a torn row) starts
        self._repair: tuple[int, list[_Record]] | None = None  # (header end, rows to keep)

    def read_done(self, *, resume: bool = True) -> dict[str, str]:
        """``{id: question_hash}`` of the rows already in the file; writes nothing.

        A changed header is refused here, so a run that is refused leaves the
        file as it was; the repair of a torn or corrupt row waits for :meth:`open`.
        """
        if self._done is None:
            self._done = {}
            if resume and self.path.exists() and self.path.stat().st_size:
                self._done = self._read_done()
        return self._done

    def open(self, *, resume: bool = True) -> dict[str, str]:
        """Prepare the file; return ``{id: question_hash}`` of the rows already in it."""
        done = self.read_done(resume=resume)
        if not resume:
            self.path.write_bytes(b"")
        elif self._repair is not None:
            self._rewrite(*self._repair)
        self._f = open(self.path, "ab")
        if self.format == "csv" and self.path.stat().st_size == 0:
            self._write(csv_line(self.columns).encode("utf-8"))
        return done

    def _scan(self) -> tuple[int, list[_Record], int]:
        """(end of the header, the records, end of the last complete record)."""
        records: list[_Record] = []
        with open(self.path, "rb") as f:
            if self.format == "jsonl":
                pos = 0
                for line, raw in enumerate(f, start=1):
                    if not raw.endswith(b"\n"):
                        break  # torn last line
                    if raw.strip():
                        rid, row, q, problem = _json_record(raw)
                        records.append(_Record(pos, pos + len(raw), line, rid, row, q, problem))
                    pos += len(raw)
                return 0, records, pos
            chunks = _complete_csv_records(f, 0)
            first = next(chunks, None)
            if first is None:
                return 0, [], 0
            self._check_header(first[1])
            pos, line = first[0], 1 + first[1].count(b"\n")
            for end, raw in chunks:
                if raw.strip():  # a blank line is dropped silently
                    rid, row, q, problem = _csv_record(raw, self.columns)
                    records.append(_Record(pos, end, line, rid, row, q, problem))
                pos, line = end, line + raw.count(b"\n")
            return first[0], records, pos

    def _check_header(self, raw: bytes) -> None:
        header = next(csv.reader(io.StringIO(raw.decode("utf-8", "replace"))), [])
        if header != self.columns:
            raise BatchInputError(
                f"the output's columns {header} differ from this run's {self.columns}; "
                "use another output path or --no-resume",
                file=self.path,
            )

    def _read_done(self) -> dict[str, str]:
        header_end, records, good_end = self._scan()
        tail = self.path.stat().st_size - good_end
        if tail:
            self.tail_line = self._line_at(good_end)
        if tail and self._tail_has_rows(good_end):  # not a torn write: an unclosed quote
            self.dropped.append(
                f"lines {self.tail_line}-end are not complete rows (an unbalanced "
                "quote?); they are removed and their questions scored again"
            )
        else:
            self.truncated_bytes = tail
        self.bad = [r for r in records if r.id is None]
        for r in self.bad:
            self.dropped.append(
                f"line {r.line} is not a valid row ({r.problem}); it is removed and its question "
                "scored again"
            )
        good = self._kept = [r for r in records if r.id is not None]
        if self.bad or tail:
            self._repair = (header_end, good)  # done by open(), once the run is accepted
        self._last_row = max((r.row for r in good), default=0)
        self._out_of_order = any(a.row > b.row for a, b in zip(good, good[1:], strict=False))
        return {r.id: question_hash(r.question) for r in good if r.id is not None}

    def kept_rows(self) -> Iterator[dict[str, Any]]:
        """The typed rows :meth:`read_done` kept, in file order: no torn or corrupt row.

        ``merge`` reads a part through this, so a row cut short by a crash is
        left out (it names it) rather than joined with empty cells.
        """
        with open(self.path, "rb") as f:
            for r in self._kept:
                f.seek(r.start)
                raw = f.read(r.end - r.start)
                if self.format == "jsonl":
                    yield json.loads(raw)
                else:
                    yield typed_row(self.columns, next(csv.reader(io.StringIO(raw.decode()))))

    def _tail_has_rows(self, start: int) -> bool:
        """Whether the bytes after the last complete record hold whole rows (so not a torn write)."""
        with open(self.path, "rb") as f:
            f.seek(start)
            lines = f.read().decode("utf-8", "replace").split("\n")[1:-1]
        width = len(self.columns)
        return any(_width(t) == width for t in lines)

    def _line_at(self, offset: int) -> int:
        with open(self.path, "rb") as f:
            return f.read(offset).count(b"\n") + 1

    def _rewrite(self, header_end: int, keep: list[_Record]) -> None:
        """Keep the header and ``keep`` (byte for byte, in this order); drop everything else."""
        with open(self.path, "rb") as src, atomic_file(self.path, "wb") as dst:
            dst.write(src.read(header_end))
            for r in keep:
                src.seek(r.start)
                dst.write(src.read(r.end - r.start))

    def _write(self, data: bytes) -> None:
        self._f.write(data)
        self._f.flush()
        os.fsync(self._f.fileno())

    def append(self, record: dict[str, Any]) -> None:
        """Write one row (one ``write``, then fsync)."""
        if self.format == "csv":
            data = csv_line([record.get(c) for c in self.columns])
        else:
            row = {c: json_cell(record.get(c)) for c in self.columns}
            data = json.dumps(row, ensure_ascii=False) + "\n"
        self._write(data.encode("utf-8"))
        row_no = int(record.get("row") or 0)
        self._out_of_order |= row_no < self._last_row
        self._last_row = max(self._last_row, row_no)

    def close(self) -> None:
        """Close the file."""
        if self._f is not None:
            self._f.close()
            self._f = None

    def put_in_order(self) -> None:
        """Rewrite the closed file in input order when a re-scored row was appended late."""
        if self._out_of_order:
            header_end, records, _ = self._scan()
            self._rewrite(header_end, sorted(records, key=lambda r: r.row))
            self._out_of_order = False


def _width(line: str) -> int:
    """Cells of one CSV line; 0 when csv cannot read it (an over-long or broken cell)."""
    try:
        return len(next(csv.reader([line]), []))
    except csv.Error:
        return 0
