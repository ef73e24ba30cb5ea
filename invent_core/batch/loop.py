"""The row loop of a batch run: each row of this shard checked, scored and appended.

Rows are read one at a time and each finished question is appended to the
checkpoint with one write (flushed and fsynced). Pre-generated responses are
embedded :data:`EMBED_WINDOW` rows at a time; against a served LLM several
rows are generated at once (:func:`~invent_core.engine.inflight.units_in_flight`)
and written in input order. A row's failure is recorded in the errors sidecar
and the loop goes on, except a failure every row would hit (the disk, or the
first :data:`ABORT_AFTER_LLM_ERRORS` rows all failing in the LLM).
"""

from __future__ import annotations

import errno
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..engine.inflight import units_in_flight
from ..errors import LLMError, ModelLoadError
from ..questions.files import BatchInputError
from .output import question_hash
from .rows import InputRow
from .session import BatchRun, changed_question

__all__ = ["ABORT_AFTER_LLM_ERRORS", "EMBED_WINDOW", "score_rows"]

#: Rows whose texts are embedded together in one model call before scoring.
EMBED_WINDOW = 32

#: Stop when the first rows of a run all fail with an LLMError (bad key,
#: unknown model, unreachable server): every other row would fail alike. Once
#: a row has been scored, LLM failures (e.g. no usable paraphrase) are per row.
ABORT_AFTER_LLM_ERRORS = 3

#: Errors of the disk, not of a row: they stop the run (rows written stay).
_DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})


def _windows(
    rows: Iterator[InputRow], size: int
) -> Iterator[tuple[list[InputRow], BaseException | None]]:
    """Rows in groups of ``size``; a reader error ends the stream after the rows before it."""
    window: list[InputRow] = []
    while True:
        try:
            row = next(rows)
        except StopIteration:
            break
        except BatchInputError as err:
            yield window, err
            return
        window.append(row)
        if len(window) >= size:
            yield window, None
            window = []
    if window:
        yield window, None


def _score_row(run: BatchRun, row: InputRow) -> None:
    """Score one row now and record the outcome."""
    _record_outcome(run, row, *_try_score(run.scorer, row))


def _try_score(scorer: Any, row: InputRow) -> tuple[dict[str, Any] | None, BaseException | None]:
    """(record, None) or (None, the exception): safe to run on a worker thread."""
    try:
        return scorer.score(row), None
    except (KeyboardInterrupt, MemoryError):
        raise
    except Exception as exc:  # noqa: BLE001 - judged by _record_outcome, in input order
        return None, exc


def _record_outcome(
    run: BatchRun, row: InputRow, record: dict[str, Any] | None, exc: BaseException | None
) -> None:
    """Append a scored row, or record why it failed (re-raising what every row would hit)."""
    if exc is None:
        run.checkpoint.append(record)
        run.summary.n_scored += 1
        run.tick.scored += 1
        run.llm_failures = 0
        return
    if isinstance(exc, OSError) and exc.errno in _DISK_ERRNOS:
        raise exc  # the disk, not the row: every row would fail the same way
    if isinstance(exc, ModelLoadError):
        raise exc  # the model's files, not the row: every row would fail the same way
    run.llm_failures = run.llm_failures + 1 if isinstance(exc, LLMError) else 0
    if run.llm_failures >= ABORT_AFTER_LLM_ERRORS and run.summary.n_scored == 0:
        raise exc  # bad key, unknown model, dead server: every row fails the same way
    _row_failed(run, row, exc)


def _row_failed(run: BatchRun, row: InputRow, exc: BaseException) -> None:
    column = run.reader.name("responses") if row.responses is not None else None
    err = BatchInputError(
        f"could not score: {type(exc).__name__}: {exc}",
        file=run.plan.input,
        row=row.index,
        line=row.line,
        column=column,
    )
    run.record_error(err, row.id, "scoring")


def _handle_row(run: BatchRun, row: InputRow, *, score: bool = True) -> bool:
    """Record or skip one row of this shard; True when it is to be scored.

    With ``score`` (the default) a row to be scored is scored here and now;
    the pipelined loop passes False and scores it on its pool.
    """
    run.summary.n_rows += 1
    plan = run.plan
    if row.error is not None:
        run.record_error(row.error, row.id, "input")
    elif row.id in run.seen:
        err = BatchInputError(
            f"duplicate id {row.id!r} (first at row {run.seen[row.id]}); this row is skipped",
            file=plan.input,
            row=row.index,
            line=row.line,
            column=run.reader.name("id") if "id" in plan.info.col else None,
        )
        run.record_error(err, row.id, "duplicate")
    elif row.id in run.done:
        run.seen[row.id] = row.index
        if run.done[row.id] != question_hash(row.question):  # the input changed since start_run
            raise changed_question(plan, run.reader, row)
        run.summary.n_resumed += 1
    else:
        run.seen[row.id] = row.index
        if score:
            _score_row(run, row)
        return True
    return False


def _loop_pipelined(run: BatchRun, width: int) -> BaseException | None:
    """Generate ``width`` rows at once; write them in input order as the head finishes."""
    summary, reader = run.summary, run.reader
    pending: deque = deque()  # (row, future), in input order
    pool = ThreadPoolExecutor(max_workers=width, thread_name_prefix="batch-row")

    def drain(keep: int) -> None:
        while len(pending) > keep or (pending and pending[0][1].done()):
            row, fut = pending.popleft()
            _record_outcome(run, row, *fut.result())
            run.tick(summary.n_rows)

    try:
        for window, reader_error in _windows(iter(reader), 1):
            for row in window:
                if not run.mine(row):
                    summary.n_other_shards += 1
                elif _handle_row(run, row, score=False):
                    pending.append((row, pool.submit(_try_score, run.scorer, row)))
                drain(width - 1)
            if reader_error is not None:
                drain(0)
                return reader_error
        drain(0)
    finally:  # Ctrl-C or a fatal row: rows in flight are dropped; a resume scores them again
        pool.shutdown(wait=False, cancel_futures=True)
    return None


def score_rows(run: BatchRun) -> BaseException | None:
    """Score the file; return the reader error that stopped it early, if any."""
    plan, summary, reader = run.plan, run.summary, run.reader
    width = units_in_flight(run.scorer.llm) if plan.generated else 1
    if width > 1:
        error = _loop_pipelined(run, width)
        if error is None and summary.n_rows == 0 and summary.n_other_shards == 0:
            raise BatchInputError("no data rows", file=plan.input)
        return error
    total = run.tick.total
    for window, reader_error in _windows(iter(reader), 1 if plan.generated else EMBED_WINDOW):
        mine = [r for r in window if run.mine(r)]
        summary.n_other_shards += len(window) - len(mine)
        if not plan.generated:
            todo = [
                r for r in mine if r.error is None and r.id not in run.done and r.id not in run.seen
            ]
            run.scorer.prefetch(todo)
        for row in mine:
            _handle_row(run, row)
            if (
                plan.info.layout == "long" and reader.lines_read
            ):  # lines per question, learned so far
                run.tick.total = round(
                    total * (summary.n_rows + summary.n_other_shards) / reader.lines_read
                )
            run.tick(summary.n_rows)
        if reader_error is not None:
            return reader_error
    if summary.n_rows == 0 and summary.n_other_shards == 0:
        csv_note = " after the header" if plan.info.format == "csv" else ""
        raise BatchInputError(f"no data rows{csv_note}", file=plan.input)
    return None
