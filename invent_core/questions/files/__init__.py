"""Reading a question file safely: one cheap pass over its bytes before any row is read.

``batch`` (:mod:`invent_core.batch.input`) and ``--data`` files
(:func:`invent_core.questions.datasets.load_examples_file`) go through this one
reader, so a file one of them refuses is refused by the other with the same message.
:func:`inspect_file` returns a :class:`QuestionFile` (format, encoding,
delimiter, header, line count, the question schema's columns); :func:`check_rows`
then reads the records once for unclosed quotes. Every refusal is a
:class:`BatchInputError` naming the file, row, line, byte and column it can.

Formats
-------
CSV (``.csv``; ``.tsv`` is tab-separated) or JSON Lines (``.jsonl`` /
``.ndjson``, one object per line); another extension is sniffed (a first
``{`` means JSON Lines). The question columns (``question``, ``answer`` /
``answers`` / ``value``, ``id``, ``choices``, ``task``) follow
:mod:`invent_core.questions.schema`.

Encodings
---------
UTF-8 (with or without BOM). A UTF-16 or UTF-32 file *with* a byte-order
mark is decoded as such (Excel's "Unicode text" export). Anything else —
a Latin-1 file, UTF-16 without a BOM — is refused before any row is read,
with the byte offset, line, row and column of the first bad byte; pass
``encoding="latin-1"`` (``--encoding latin-1``) to read a Latin-1 file.
Binary files (PNG, PDF, ZIP/xlsx, …) are refused by their magic bytes or a
NUL byte.

Quotes
------
A quoted CSV cell may hold line breaks. A quote that is never closed turns
the rest of the file into one cell; so a quoted cell that runs to the end of
the file without its closing quote, or whose inner lines look like rows (as
many cells as the header), is refused with the line where it starts.

Limits
------
:data:`invent_core.questions.schema.FIELD_SIZE_LIMIT` characters per CSV cell
and per JSON Lines line (refused at its row before any row is scored); :data:`~invent_core.questions.schema.MAX_QUESTION_CHARS` per
question (a per-row error).
"""

from __future__ import annotations

from ...errors import BatchInputError
from .pregenerated import LONG_COLUMNS, PREGENERATED_COLUMNS, pregenerated_columns
from .quotes import oversized_cell
from .reader import QuestionFile, check_rows, inspect_file, read_bounded_line, require_file

__all__ = [
    "LONG_COLUMNS",
    "PREGENERATED_COLUMNS",
    "BatchInputError",
    "QuestionFile",
    "check_rows",
    "inspect_file",
    "oversized_cell",
    "pregenerated_columns",
    "read_bounded_line",
    "require_file",
]
