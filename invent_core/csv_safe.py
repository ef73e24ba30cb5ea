"""Every CSV that invent writes: formula-safe cells, written atomically.

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` as a
formula (OWASP "CSV injection"); questions and LLM answers are untrusted
text, so every CSV cell goes through :func:`neutralize_cell`, and reading a
CSV back goes through :func:`restore_cell`. Batch outputs, merged shards,
``evaluate``'s ``scores.csv`` and the results tables all use this module.

Files are written to a temporary file beside the target, fsynced and renamed
(:func:`atomic_file`), so a crash or a full disk never leaves a half-written
file under the real name, nor a stray temporary file. A temporary file left by
a process that was killed (``kill -9``) names that process; the next write of
the same file removes it once that process is gone. Every output gets the mode
a plain ``open`` would give it (``0666`` less the umask), whichever command
writes it.
"""

from __future__ import annotations

import contextlib
import csv
import glob
import io
import math
import os
import re
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

__all__ = [
    "FORMULA_PREFIXES",
    "atomic_file",
    "csv_line",
    "cut_short",
    "is_number",
    "neutralize_cell",
    "read_csv",
    "remove_stale_temporaries",
    "restore_cell",
    "torn_rows",
    "write_csv",
]

#: First characters that make a spreadsheet read a cell as a formula
#: (OWASP "CSV injection"), plus the apostrophe so that escaping is reversible.
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r", "'")

_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def is_number(text: str) -> bool:
    """Whether the whole cell is a plain decimal number (``-0.5``, ``+3``, ``1e-9``)."""
    return bool(_NUMBER.fullmatch(text))


def neutralize_cell(value: Any) -> str:
    r"""A CSV cell that a spreadsheet will not run as a formula.

    Text starting with ``=``, ``+``, ``-``, ``@``, tab, CR or ``'`` gets a
    leading apostrophe, unless the whole cell is a plain number. Numbers are
    written at full precision (``repr``); ``None`` and NaN as an empty cell.

    >>> neutralize_cell('=HYPERLINK("x")'), neutralize_cell("-0.5"), neutralize_cell(-0.5)
    ('\'=HYPERLINK("x")', '-0.5', '-0.5')
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


def csv_line(values: Sequence[Any]) -> str:
    """One CSV record (with its line break) of neutralized cells."""
    buf = io.StringIO()
    # The csv module quotes a cell only when it holds a character of the line
    # terminator: with "\n" alone, a lone CR would be written bare and split the
    # record on reading. Quote as for "\r\n", then end the record with "\n".
    csv.writer(buf, lineterminator="\r\n").writerow([neutralize_cell(v) for v in values])
    return buf.getvalue()[:-2] + "\n"


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike, mode: str = "w") -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path``; on success fsync it and rename it to ``path``.

    On any error (a full disk included) the temporary file is removed and
    ``path`` is left as it was. ``mode`` is ``"w"`` (UTF-8 text, no newline
    translation) or ``"wb"``. The file gets ``0666`` less the umask, as
    ``open`` gives (``mkstemp`` alone would make it ``0600``); temporaries of
    ``path`` left by dead processes are removed first.
    """
    path = Path(path)
    remove_stale_temporaries(path)
    fd, tmp = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp"
    )
    try:
        os.fchmod(fd, 0o666 & ~current_umask())
        kwargs = {"encoding": "utf-8", "newline": ""} if "b" not in mode else {}
        with open(fd, mode, **kwargs) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def current_umask() -> int:
    """The process's umask (read by setting it and setting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process (EPERM): alive
        return True
    return True


def remove_stale_temporaries(path: str | os.PathLike) -> list[Path]:
    """Remove the temporaries of ``path`` that :func:`atomic_file` left in a killed process.

    Each is named ``.NAME.PID.XXXXXXXX.tmp``; one whose process no longer
    exists can never be completed. Those of live processes (a write in
    progress) are left alone. Returns the files removed.
    """
    path = Path(path)
    removed = []
    prefix = f".{path.name}."
    for tmp in path.parent.glob(f"{glob.escape(prefix)}*.tmp"):
        pid = tmp.name[len(prefix) :].split(".", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            with contextlib.suppress(OSError):
                tmp.unlink()
                removed.append(tmp)
    return removed


def write_csv(
    path: str | os.PathLike, rows: Iterable[Mapping[str, Any]], columns: Sequence[str]
) -> int:
    """Write ``rows`` (only ``columns``, in that order) as a formula-safe CSV; return the count."""
    n = 0
    with atomic_file(path) as f:
        f.write(csv_line(columns))
        for row in rows:
            f.write(csv_line([row.get(c) for c in columns]))
            n += 1
    return n


def read_csv(path: str | os.PathLike) -> Iterator[dict[str, str]]:
    """Rows of a CSV written by :func:`write_csv`, cells restored (strings, as ``csv.DictReader``).

    A byte-order mark (a spreadsheet's "CSV UTF-8") is read, not taken into the first name.
    """
    with open(path, newline="", encoding="utf-8-sig") as f:
        for row in csv.DictReader(f):
            yield {k: restore_cell(v) if isinstance(v, str) else v for k, v in row.items()}


def cut_short(row: Mapping[str, Any]) -> str | None:
    """``"the row is cut short (8 of 23 cells)"`` for a row torn mid-write, else None.

    ``csv.DictReader`` gives the cells a short row lacks as None, where a written
    empty cell (a NaN) is "": a crash, or a copy cut off mid-row, leaves such a last
    row, whose last cell is itself cut and whose scores are gone, not missing.
    """
    missing = sum(v is None for v in row.values())
    if not missing:
        return None
    return f"the row is cut short ({len(row) - missing} of {len(row)} cells)"


def torn_rows(path: str | os.PathLike) -> list[str]:
    """``"PATH: line 11 (id q9): the row is cut short (8 of 23 cells)"`` per such row of a CSV.

    For a warning that names the file and the line of rows a reader leaves out;
    a file that cannot be read gives none (the reader names it).
    """
    notes: list[str] = []
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            reader = csv.DictReader(f)
            line = 2  # the line the next row starts on (a quoted cell may span lines)
            for row in reader:
                why = cut_short(row)
                if why is not None:
                    notes.append(f"{path}: line {line} (id {row.get('id') or '?'}): {why}")
                line = reader.line_num + 1
    except (OSError, ValueError, csv.Error):
        pass
    return notes
