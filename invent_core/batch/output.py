"""Batch output: the checkpoint, result files, sidecars, the output lock, evaluation.

The checkpoint is CSV or JSON Lines, one row per question, appended and
fsynced as each question finishes. CSV cells go through
:mod:`invent_core.csv_safe` (formula injection: a cell starting with ``=``,
``+``, ``-``, ``@``, a tab, a carriage return or an apostrophe gets a leading
apostrophe unless the *whole* cell is a plain number), and reading a CSV
back (:func:`iter_records`) removes exactly that apostrophe. JSON Lines,
JSON and Parquet hold the text unchanged.

Resuming reads the checkpoint back (:meth:`Checkpoint.open`): a torn last row
(a crash in the middle of a write) is cut off; a corrupt row in the middle is
removed (the good rows after it are kept, byte for byte) and reported, and
its question is scored again; rows are put back in input order at the end.

One run at a time writes an output: :class:`OutputLock` holds an OS lock
(``flock``) on ``OUTPUT.lock`` that the kernel releases when the process
ends, however it ends, so ``kill -9`` leaves nothing to clean up.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import hashlib
import io
import json
import math
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..csv_safe import atomic_file, csv_line, is_number, neutralize_cell, restore_cell
from ..questions import schema as qs
from ..questions.files import BatchInputError

__all__ = [
    "INT_COLUMNS",
    "TEXT_COLUMNS",
    "Checkpoint",
    "OutputBusyError",
    "OutputLock",
    "check_output_folder",
    "check_output_paths",
    "csv_line",
    "evaluate_output",
    "export_results",
    "is_number",
    "iter_records",
    "lock_path",
    "neutralize_cell",
    "output_folder",
    "output_format",
    "probe_space",
    "question_hash",
    "read_columns",
    "read_errors",
    "read_meta",
    "restore_cell",
    "sidecar_paths",
    "write_json_atomic",
    "write_records",
]

#: Output columns holding text; every other column is numeric.
TEXT_COLUMNS = frozenset(
    {"id", "question", "answer", "response", "perturbations", "responses", "method_errors"}
)
INT_COLUMNS = frozenset({"row", "n_perturbations", "n_replications", "correct"})


class OutputBusyError(BatchInputError):
    """Another run holds the output's lock."""


# --------------------------------------------------------------------------
# Paths, formats, sidecars
# --------------------------------------------------------------------------


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


def sidecar_paths(output: str | os.PathLike) -> dict[str, Path]:
    """``meta``, ``errors``, ``checkpoint`` and ``lock`` paths that belong to an output file."""
    out = Path(output)
    fmt = output_format(out)
    checkpoint = out if fmt in ("csv", "jsonl") else out.with_name(out.name + ".checkpoint.jsonl")
    return {
        "meta": out.with_name(out.name + ".meta.json"),
        "errors": out.with_name(out.name + ".errors.jsonl"),
        "checkpoint": checkpoint,
        "lock": lock_path(out),
    }


def lock_path(output: str | os.PathLike) -> Path:
    """``OUTPUT.lock`` beside the file a name leads to: a symbolic link shares its target's lock."""
    real = Path(os.path.realpath(output))
    return real.with_name(real.name + ".lock")


def question_hash(question: str) -> str:
    """A short hash of a question: resuming checks that an id still names the same question."""
    return hashlib.blake2b(question.encode("utf-8"), digest_size=8).hexdigest()


def _same_file(a: Path, b: Path) -> str | None:
    """How ``a`` is ``b`` ("the same file", "a hard link", "a symbolic link"), or None."""
    try:
        if not os.path.samefile(a, b):  # same device and inode: hard and symbolic links too
            return None
    except OSError:  # one of them does not exist (yet): compare where the names lead
        return "the same file" if a.resolve() == b.resolve() else None
    if a.is_symlink() or b.is_symlink():
        return "a symbolic link to it"
    if a.resolve() != b.resolve():
        return "a hard link to it"
    return "the same file"


def _check_writable(out: Path) -> None:
    if out.is_dir():
        raise BatchInputError(
            "the output path is a folder; give a file name such as scores.csv", file=out
        )
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.exists():
        raise BatchInputError(f"cannot write the output: folder {parent} does not exist", file=out)
    if not parent.is_dir():
        raise BatchInputError(f"cannot write the output: {parent} is not a folder", file=out)
    existed = out.exists()
    try:
        with open(out, "ab"):
            pass
        if not existed:
            out.unlink()
    except OSError as err:
        raise BatchInputError(f"cannot write the output: {err.strerror or err}", file=out) from None


def check_output_paths(outputs: Iterable[Path], inputs: Iterable[Path] = ()) -> None:
    """Refuse an output that is an input (same inode: the path, a hard or a symbolic link) or unwritable.

    Runs before anything is written, whatever the flags (``--no-resume``
    included), so an input is never truncated.
    """
    inputs = [Path(p) for p in inputs]
    for out in map(Path, outputs):
        for inp in inputs:
            how = _same_file(out, inp)
            if how is not None:
                raise BatchInputError(
                    f"the output would overwrite the input ({how}: {inp}); choose another output path",
                    file=out,
                )
        _check_writable(out)


@contextlib.contextmanager
def output_folder(
    folder: str | os.PathLike, names: Iterable[str], inputs: Iterable[str | os.PathLike] = ()
) -> Iterator[Path]:
    """Check, create and lock a command's output folder (``evaluate``, ``tsu``, ``run --save``).

    Before any work: a path that is a file, a folder that cannot be created or
    written, or an input that one of ``names`` inside it would overwrite (the
    path, a hard or a symbolic link) is refused with :class:`BatchInputError`
    (exit 2). Then one run at a time holds ``FOLDER/.invent.lock`` (resolved
    path, as :class:`OutputLock`); a second is refused with
    :class:`OutputBusyError` (exit 4).
    """
    check_output_folder(folder, names, inputs)
    real = Path(os.path.realpath(folder))
    with OutputLock(real / ".invent.lock", Path(folder)):
        yield Path(folder)


def check_output_folder(
    folder: str | os.PathLike, names: Iterable[str], inputs: Iterable[str | os.PathLike] = ()
) -> None:
    """The checks of :func:`output_folder` (the folder is created), for a command to run early."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise BatchInputError("the output path is a file, not a folder; give a folder", file=folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        if err.errno in (errno.ENOSPC, errno.EDQUOT):
            raise  # the disk is full: exit 3, as any write
        raise BatchInputError(
            f"cannot create the output folder: {err.strerror or err}", file=folder
        ) from None
    check_output_paths([folder / n for n in names], [Path(p) for p in inputs])
    probe_space(folder)


def probe_space(folder: Path, size: int = 4096) -> None:
    """Write, fsync and remove ``size`` bytes in ``folder``.

    A full disk then shows at once (``OSError`` ENOSPC: exit 3), before the
    work whose result it could not hold.
    """
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".invent-space.", suffix=".tmp")
    try:
        os.write(fd, b"\0" * size)
        os.fsync(fd)
    finally:
        os.close(fd)
        os.unlink(tmp)


def write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    """Write a sidecar atomically (a crash or a full disk leaves the old one, and no temp file)."""
    with atomic_file(path) as f:
        json.dump(data, f, indent=1, ensure_ascii=False, default=str)
        f.write("\n")


def read_meta(path: Path) -> dict[str, Any] | None:
    """A ``.meta.json`` sidecar (None when absent), read with the input size limit."""
    if not path.exists():
        return None
    limit = qs.FIELD_SIZE_LIMIT
    hint = "delete it with the output to start over"
    if path.stat().st_size > limit:
        raise BatchInputError(f"the sidecar is larger than {limit:,} bytes; {hint}", file=path)
    try:
        with open(path, encoding="utf-8") as f:
            data = qs.parse_json(f.read(limit + 1))
    except (ValueError, UnicodeDecodeError) as err:
        raise BatchInputError(f"the sidecar is not valid JSON ({err}); {hint}", file=path) from None
    if not isinstance(data, dict):
        raise BatchInputError(f"the sidecar is not a JSON object; {hint}", file=path)
    return data


# --------------------------------------------------------------------------
# The lock
# --------------------------------------------------------------------------


class OutputLock:
    """Exclusive lock of one output for one run: ``flock`` on ``OUTPUT.lock``.

    The kernel drops an ``flock`` when its process ends (``kill -9``
    included), so a stale lock cannot exist; the lock file is removed on a
    clean exit. A second run is refused at once with :class:`OutputBusyError`.
    """

    def __init__(self, path: Path, output: Path) -> None:
        self.path, self.output = Path(path), Path(output)
        self._fd: int | None = None

    def __enter__(self) -> OutputLock:
        """Take the lock, or raise OutputBusyError naming the process that holds it."""
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: no flock, no lock
            return self
        while self._fd is None:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.read(fd, 64).decode("ascii", "replace").strip()
                os.close(fd)
                raise OutputBusyError(
                    f"another run (process {holder or '?'}) is writing this output; wait for it "
                    "to finish, or stop it (its rows are kept and the next run resumes)",
                    file=self.output,
                ) from None
            if _still_named(fd, self.path):  # not unlinked by the previous holder meanwhile
                self._fd = fd
            else:
                os.close(fd)
        os.ftruncate(self._fd, 0)
        os.write(self._fd, f"{os.getpid()}\n".encode())
        return self

    def __exit__(self, *exc: object) -> None:
        """Remove the lock file and release the lock."""
        if self._fd is not None:
            with contextlib.suppress(OSError):
                self.path.unlink()  # while still holding it: a waiter re-checks the name
            os.close(self._fd)
            self._fd = None


def _still_named(fd: int, path: Path) -> bool:
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except FileNotFoundError:
        return False


# --------------------------------------------------------------------------
# The checkpoint
# --------------------------------------------------------------------------


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

    The file itself is the checkpoint. :meth:`open` reads the ids already in
    it so that the run skips them; :meth:`append` writes one row with one
    ``write`` and fsyncs it; :meth:`put_in_order` (after :meth:`close`) puts
    rows back in input order if a re-scored row was appended after later ones.
    """

    def __init__(self, path: str | os.PathLike, columns: Sequence[str]) -> None:
        self.path = Path(path)
        self.format = output_format(self.path)
        if self.format not in ("csv", "jsonl"):
            raise ValueError(f"the checkpoint must be .csv or .jsonl, got {self.path.name}")
        self.columns = list(columns)
        self._f: Any = None
        self.truncated_bytes = 0
        self.dropped: list[str] = []  # what was removed from the middle, for the user
        self._last_row = 0
        self._out_of_order = False

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
        if tail and self._tail_has_rows(good_end):  # not a torn write: an unclosed quote
            self.dropped.append(
                f"lines {self._line_at(good_end)}-end are not complete rows (an unbalanced "
                "quote?); they are removed and their questions scored again"
            )
        else:
            self.truncated_bytes = tail
        bad = [r for r in records if r.id is None]
        for r in bad:
            self.dropped.append(
                f"line {r.line} is not a valid row ({r.problem}); it is removed and its question "
                "scored again"
            )
        good = [r for r in records if r.id is not None]
        if bad or tail:
            self._rewrite(header_end, good)
        self._last_row = max((r.row for r in good), default=0)
        self._out_of_order = any(a.row > b.row for a, b in zip(good, good[1:], strict=False))
        return {r.id: question_hash(r.question) for r in good if r.id is not None}

    def _tail_has_rows(self, start: int) -> bool:
        """Whether the bytes after the last complete record hold whole rows (so not a torn write)."""
        with open(self.path, "rb") as f:
            f.seek(start)
            lines = f.read().decode("utf-8", "replace").split("\n")[1:-1]
        width = len(self.columns)
        return any(len(next(csv.reader([t]), [])) == width for t in lines)

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
            row = {c: _json_ready(record.get(c)) for c in self.columns}
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


# --------------------------------------------------------------------------
# Result files
# --------------------------------------------------------------------------


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


def _json_ready(value: Any) -> Any:
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
                    yield {c: _typed(c, v) for c, v in zip(header, fields, strict=False)}
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

    if name in TEXT_COLUMNS:
        return pa.string()
    if name in INT_COLUMNS:
        return pa.int64()
    return pa.float64()


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
            batch.append({c: _json_ready(rec.get(c)) for c in columns})
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
            obj = json.dumps({c: _json_ready(rec.get(c)) for c in columns}, ensure_ascii=False)
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


def export_results(source: str | os.PathLike, dest: str | os.PathLike) -> int:
    """Convert a result file (checkpoint) to ``.csv``, ``.jsonl``, ``.json`` or ``.parquet``.

    Returns the number of rows written. CSV output is protected against
    formula injection (:func:`~invent_core.csv_safe.neutralize_cell`).
    """
    cols = read_columns(source)
    if cols is None:
        raise BatchInputError("no rows to export", file=source)
    return write_records(iter_records(source), dest, cols)


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
    from ..evaluation.metrics import point_metrics

    cols = read_columns(path) or []
    if "correct" not in cols:
        return {"accuracy": None, "n_judged": 0, "methods": {}}
    if method_names is None:
        from ..methods.registry import list_methods

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
