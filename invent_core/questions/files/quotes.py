"""Unclosed quotes in a CSV: found in one pass before any row is read.

A quoted cell may hold line breaks, so a quote that is never closed swallows
the rest of the file into one cell. :func:`check_quotes` refuses a record that
runs to the end of the file inside a quote, that has more cells than the
header, or whose inner lines look like rows (as many cells as the header); and
a cell over the size limit, so that no row is scored before the refusal.
"""

from __future__ import annotations

import csv
import itertools
from pathlib import Path
from typing import IO

from ...errors import BatchInputError
from .. import schema as qs

__all__ = ["check_quotes", "oversized_cell"]


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


def oversized_cell(path: Path, row: int, line: int) -> BatchInputError:
    """A CSV cell over the size limit, at its row: the one message of the pre-scan and the reader."""
    return BatchInputError(
        f"a cell is larger than {qs.FIELD_SIZE_LIMIT:,} characters, the limit for one CSV "
        "cell (an unclosed quote can also cause this)",
        file=path,
        row=row,
        line=line,
    )


def check_quotes(path: Path, encoding: str, delimiter: str, width: int) -> int:
    """Find an unclosed quote or an oversized cell before any row is read.

    (See :mod:`invent_core.questions.files`.) Returns the number of data rows.
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
            # otherwise a genuinely large cell, refused here too, so no row is scored first
            if _open_at_line_end(path, encoding, delimiter, prev + 1):
                raise _unclosed_quote(
                    path, prev + 1, None, f" within {qs.FIELD_SIZE_LIMIT:,} characters"
                ) from None
            raise oversized_cell(path, n_records, prev + 1) from None
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
