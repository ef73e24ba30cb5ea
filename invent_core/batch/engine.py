"""Batch scoring of question files: streaming, resumable, robust to bad input, shardable.

``batch_score("questions.csv", "scores.csv", config)`` scores every row of a
CSV or JSON Lines file and appends one output row per question as soon as it
is done. The dashboard's batch page and ``python -m invent_core batch`` both
call it. The accepted input columns, layouts, encodings and limits are in
:mod:`invent_core.batch.input`; the run settings (n, r, temperature, ψ, B,
seed, affinity, perturber, GAAP and paraphrase options) are one
:class:`~invent_core.config.RunConfig`.

Plan → loop → finish
--------------------
*Plan* validates every option and inspects the input before any file is
touched (a bad ``-r``, ``--dataset`` or output path never wipes an old
output). The run then takes the output's lock (:class:`OutputLock`: a second
run on the same output is refused), compares its configuration with the
output's sidecar, and *loops*: rows are read one at a time and each finished
question is appended with one write, flushed and fsynced. *Finish* writes
the final format, the evaluation and the sidecar's summary.

Streaming and resuming
----------------------
The output file *is* the checkpoint: on start, the ids already in it are read
and skipped, a torn last row (a crash in the middle of a write) is cut off,
and a corrupt row in the middle is removed and scored again (the rows after
it are kept). After ``kill -9`` the same command resumes where it stopped,
with no duplicate and no lost row. A resumed run must use the same
configuration: it is compared with the sidecar ``OUTPUT.meta.json`` and a
difference is refused with the differing options. ``resume=False``
(``--no-resume``) starts the output over.

Output
------
``.csv`` or ``.jsonl``: the checkpoint is the output. ``.json`` or
``.parquet``: the checkpoint is ``OUTPUT.checkpoint.jsonl`` (kept, so a
re-run resumes) and the final file is written from it at the end. Columns:
``id, row, question, [answer], response, n_perturbations, distinct_states, n_replications``,
the five Inv measures, the chosen baselines, ``inv_entropy_percentile``,
``inv_entropy_p_correct`` and ``inv_entropy_placed_among`` (among the shipped
reference questions like the row's, for these settings and this LLM,
:func:`invent_core.evaluation.reference.place`; empty when none matches or none is like it,
and for pre-generated responses, whose LLM is unknown), ``[correct]`` (when the input
has answers: the response to the original question, replication 0, judged
with :func:`invent_core.evaluation.correctness.judge_correct`),
``[perturbations, responses]`` (JSON, when the LLM generated them, so the
output can be re-scored without an LLM), ``method_errors`` (JSON: why a
baseline has no value) and ``seconds``. Rows are in input order.

Sidecars: ``OUTPUT.meta.json`` (the batch settings and ``config.to_dict()``,
package versions, embedder and LLM identities with their sha256, and the
summary when finished), ``OUTPUT.errors.jsonl`` (one JSON object per failed
row: file, row, line, column, error; rewritten as a run passes over the
file) and, while a run holds it, ``OUTPUT.lock``.

Failures
--------
Whole-file problems (missing, empty, binary, undecodable, no question
column, an unclosed quote, an oversized cell, an unwritable output, an
output that is the input, a configuration that differs from the output's)
raise :class:`BatchInputError`; rows scored before stay in the output.
Per-row problems (a blank question, a repeated id, a question over the
length limit, a value of the wrong type, a ragged or malformed pre-generated
response set, invalid JSON on one line, a scoring failure — including an
LLM failure, unless the first :data:`ABORT_AFTER_LLM_ERRORS` rows all fail
that way) are recorded in the errors sidecar and the run continues;
:attr:`BatchSummary.ok` is False.

Sharding
--------
``shard="i/N"`` (1 ≤ i ≤ N) keeps the rows whose id hashes to part i:
``int(sha256(id)[:8]) % N == i - 1``. The id (not the row position) decides,
so the split is stable when rows are appended, and each machine can point at
the same OpenAI-compatible server (e.g. vLLM). :func:`~invent_core.batch.merge_outputs`
joins the parts.
"""

from __future__ import annotations

import dataclasses
import errno
import hashlib
import json
import math
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from ..config import RunConfig, ScoreConfig, flat_values
from ..engine.inflight import units_in_flight
from ..progress import Progress, ProgressCallback
from ..provenance import package_versions
from ..questions import schema as qs
from .input import BatchInputError, InputInfo, inspect_input
from .output import (
    Checkpoint,
    OutputLock,
    check_output_paths,
    evaluate_output,
    export_results,
    output_format,
    question_hash,
    read_meta,
    sidecar_paths,
    write_json_atomic,
)
from .rows import InputRow, RowReader
from .scorer import RowScorer, output_columns

__all__ = [
    "ABORT_AFTER_LLM_ERRORS",
    "EMBED_CACHE_LIMIT",
    "EMBED_WINDOW",
    "BatchSummary",
    "ProgressFn",
    "batch_score",
    "comparable_config",
    "config_diff",
    "parse_shard",
    "shard_of",
]

#: ``progress(Progress("rows", done, total, eta_seconds))``, the one progress shape that
#: run and evaluate report too (:class:`invent_core.progress.Progress`): rows of this
#: shard passed so far, the estimated total (from the line count), and the estimated
#: seconds left (None until a row has been scored).
ProgressFn = ProgressCallback

#: Rows whose texts are embedded together in one model call before scoring.
EMBED_WINDOW = 32
#: Cached vectors kept during a batch (≈ 15 MB for MiniLM): bounds memory.
EMBED_CACHE_LIMIT = 10_000

#: Stop when the first rows of a run all fail with an LLMError (bad key,
#: unknown model, unreachable server): every other row would fail alike. Once
#: a row has been scored, LLM failures (e.g. no usable paraphrase) are per row.
ABORT_AFTER_LLM_ERRORS = 3

#: Errors of the disk, not of a row: they stop the run (rows written stay).
_DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
#: Options that matter for pre-generated responses (no generation settings).
_SCORE_OPTIONS = frozenset(f.name for f in dataclasses.fields(ScoreConfig))


# --------------------------------------------------------------------------
# Shards and configurations
# --------------------------------------------------------------------------


def parse_shard(shard: str | tuple[int, int] | None) -> tuple[int, int] | None:
    """``"2/4"`` or ``(2, 4)`` → ``(2, 4)``; parts are numbered 1 … N.

    Raises
    ------
    ValueError
        A malformed spec or an index outside 1 … N.
    """
    if shard is None or shard == "":
        return None
    if isinstance(shard, str):
        i_s, sep, n_s = shard.partition("/")
        try:
            i, n = int(i_s), int(n_s)
        except ValueError:
            raise ValueError(f"shard must look like 'i/N' (e.g. 1/4), got {shard!r}") from None
        if not sep:
            raise ValueError(f"shard must look like 'i/N' (e.g. 1/4), got {shard!r}")
    else:
        i, n = (int(x) for x in shard)
    if n < 1 or not 1 <= i <= n:
        raise ValueError(f"shard {i}/{n}: need 1 <= i <= N (parts are numbered from 1)")
    return i, n


def shard_of(row_id: str, n_shards: int) -> int:
    """The part (1 … N) that the row with this id belongs to: a stable hash of the id."""
    digest = hashlib.sha256(str(row_id).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % n_shards + 1


def comparable_config(batch_config: dict[str, Any]) -> dict[str, Any]:
    """The settings two outputs must share to be resumed or merged, as flat option names.

    The run config is flattened (``n_bootstrap``, ``gaap_delta`` …, the names
    of the CLI options); for pre-generated responses only the scoring options
    count. ψ is compared by its identity (name and weights hash).
    """
    out = {k: v for k, v in batch_config.items() if k != "run"}
    run = batch_config.get("run")
    if isinstance(run, dict):
        try:
            flat = flat_values(RunConfig.from_dict(run))
        except (ValueError, TypeError) as err:
            raise ValueError(f"the sidecar's run configuration cannot be read: {err}") from None
        generated = batch_config.get("layout") == "questions"
        out.update(
            (k, v)
            for k, v in flat.items()
            if k != "embedder" and (generated or k in _SCORE_OPTIONS)
        )
    return out


def config_diff(
    old: dict[str, Any], new: dict[str, Any], *, ignore: Iterable[str] = ()
) -> list[str]:
    """``["n_bootstrap: 8 → 9", …]``: the comparable settings that differ."""
    a, b = comparable_config(old), comparable_config(new)
    keys = sorted((set(a) | set(b)) - set(ignore))
    return [f"{k}: {a.get(k)!r} → {b.get(k)!r}" for k in keys if a.get(k) != b.get(k)]


# --------------------------------------------------------------------------
# The summary and the progress
# --------------------------------------------------------------------------


@dataclass
class BatchSummary:
    """What a batch run did.

    Attributes
    ----------
    n_rows : rows of this shard seen in the input (scored, resumed or failed).
    n_scored : rows scored by this run.
    n_resumed : rows already in the output (skipped).
    n_failed : rows that failed (see ``errors_path``).
    n_other_shards : rows left to other shards.
    evaluation : when the input has answers: method → ``{"auroc", "prr", "n",
        "undefined"}`` over every row of the output (a metric is None, with the
        reason, when every answer is right or wrong or too few rows have values).
    accuracy, n_judged : share of correct responses and how many were judged.
    dropped : what resuming removed from the output (corrupt rows), one message each.
    """

    input: str
    output: str
    meta_path: str
    errors_path: str
    checkpoint: str
    config: dict[str, Any]
    n_rows: int = 0
    n_scored: int = 0
    n_resumed: int = 0
    n_failed: int = 0
    n_other_shards: int = 0
    seconds: float = 0.0
    truncated_bytes: int = 0
    dropped: list[str] = field(default_factory=list)
    evaluation: dict[str, dict[str, Any]] = field(default_factory=dict)
    accuracy: float | None = None
    n_judged: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)  # the first few, for display

    @property
    def ok(self) -> bool:
        """True when no row failed."""
        return self.n_failed == 0

    @property
    def questions_per_second(self) -> float | None:
        """Rows scored per second by this run (None when it scored none)."""
        return self.n_scored / self.seconds if self.seconds > 0 and self.n_scored else None

    def to_dict(self) -> dict[str, Any]:
        """Every field, with ``ok`` and ``questions_per_second``."""
        d = asdict(self)
        d["ok"] = self.ok
        d["questions_per_second"] = self.questions_per_second
        return d


class _Progress:
    def __init__(self, callback: ProgressFn | None, total: int) -> None:
        self.callback = callback
        self.total = total
        self.t0 = time.perf_counter()
        self.scored = 0

    def __call__(self, done: int) -> None:
        if self.callback is None:
            return
        total = max(self.total, done)
        eta = None
        if self.scored:
            rate = (time.perf_counter() - self.t0) / self.scored
            eta = max(0.0, (total - done) * rate)
        self.callback(Progress("rows", done, total, eta))


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


# --------------------------------------------------------------------------
# Plan: every option checked and the input inspected, no file touched
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Plan:
    input: Path
    output: Path
    paths: dict[str, Path]
    info: InputInfo
    config: RunConfig
    method_names: list[str]
    shard: tuple[int, int] | None
    dataset: str | None
    max_question_chars: int

    @property
    def generated(self) -> bool:
        """Whether the LLM generates perturbations and responses (a question-only file)."""
        return self.info.layout == "questions"


def _check_options(config: Any, dataset: str | None, max_question_chars: Any) -> RunConfig:
    from ..evaluation.correctness import MATCHERS
    from ..perturb.base import get_perturber

    config = RunConfig() if config is None else config
    if not isinstance(config, RunConfig):
        raise TypeError(f"config must be a RunConfig, got {type(config).__name__}")
    get_perturber(config.perturber)  # "unknown perturber 'x': choose one of …"
    if dataset is not None and dataset not in MATCHERS:
        raise ValueError(
            f"dataset {dataset!r} is not a correctness rule; known: {', '.join(MATCHERS)}"
        )
    if isinstance(max_question_chars, bool) or not isinstance(max_question_chars, int):
        raise ValueError(f"max_question_chars must be an integer, got {max_question_chars!r}")
    if max_question_chars < 1:
        raise ValueError(f"max_question_chars must be at least 1, got {max_question_chars}")
    return config


def _plan(
    input: str | os.PathLike,
    output: str | os.PathLike,
    config: RunConfig | None,
    *,
    methods: str | Iterable[str] | None,
    shard: str | tuple[int, int] | None,
    dataset: str | None,
    encoding: str | None,
    max_question_chars: int,
) -> _Plan:
    """Validate every option, inspect the input, check the output paths; write nothing."""
    from ..methods.registry import list_methods, resolve_methods

    config = _check_options(config, dataset, max_question_chars)
    shard_t = parse_shard(shard)
    inv_names = [m.name for m in list_methods("inv")]
    method_names = list(
        dict.fromkeys(inv_names + [m.name for m in resolve_methods(methods or "inv")])
    )
    in_path, out_path = Path(input), Path(output)
    output_format(out_path)
    paths = sidecar_paths(out_path)
    info = inspect_input(in_path, encoding=encoding)
    check_output_paths([out_path, *paths.values()], [in_path])
    return _Plan(
        in_path, out_path, paths, info, config, method_names, shard_t, dataset, max_question_chars
    )


# --------------------------------------------------------------------------
# Start: models, the resume check, the sidecar, the checkpoint
# --------------------------------------------------------------------------


@dataclass
class _Run:
    """The state of one run over the file."""

    plan: _Plan
    meta: dict[str, Any]
    checkpoint: Checkpoint
    done: dict[str, str]  # id -> question hash of the rows already in the output
    summary: BatchSummary
    scorer: RowScorer
    reader: RowReader
    tick: _Progress
    errors_f: IO[str]
    t_start: float
    old_cache: int | None = None
    seen: dict[str, int] = field(default_factory=dict)  # id -> row where it was first seen
    llm_failures: int = 0  # consecutive rows failed by the LLM backend

    def mine(self, row: InputRow) -> bool:
        """Whether the row belongs to this shard."""
        shard = self.plan.shard
        return shard is None or shard_of(row.id, shard[1]) == shard[0]

    def record_error(self, err: BatchInputError, row_id: str | None, kind: str) -> None:
        """One line in the errors sidecar (fsynced), and the count."""
        entry = {"id": row_id, **err.to_dict(), "kind": kind}
        self.errors_f.write(json.dumps(entry, ensure_ascii=False) + "\n")
        self.errors_f.flush()
        os.fsync(self.errors_f.fileno())
        self.summary.n_failed += 1
        if len(self.summary.errors) < 20:
            self.summary.errors.append(entry)

    def close(self) -> None:
        """Close the files and restore the embedder's cache size."""
        if self.old_cache is not None:
            self.scorer.sim.max_cache = self.old_cache
        self.checkpoint.close()
        self.errors_f.close()
        self.summary.seconds = time.perf_counter() - self.t_start


def _batch_config(plan: _Plan, sim: Any, llm: Any) -> dict[str, Any]:
    """What the sidecar records as this run's configuration (compared on resume and merge)."""
    shard = plan.shard
    return {
        "layout": plan.info.layout,
        "methods": plan.method_names,
        "embedder": sim.identity,
        "dataset": plan.dataset,
        "max_question_chars": plan.max_question_chars,
        "shard": f"{shard[0]}/{shard[1]}" if shard else None,
        "llm": llm.identity if llm is not None else None,
        "paraphrase_llm": _paraphraser_identity(llm),
        "columns": output_columns(
            plan.method_names, has_answers=plan.info.has_answers, generated=plan.generated
        ),
        "run": plan.config.to_dict(),
    }


def _paraphraser_identity(llm: Any) -> str | None:
    """A separate paraphrasing model's identity (``--paraphrase-llm``), else ``None``."""
    para = getattr(llm, "paraphraser", None) if llm is not None else None
    return None if para is None else str(para.identity)


def _check_resume(plan: _Plan, config: dict[str, Any], resume: bool) -> dict[str, Any] | None:
    """The output's old sidecar when this run resumes it; refuse one made differently."""
    paths = plan.paths
    checkpoint = paths["checkpoint"]
    if not (resume and checkpoint.exists() and checkpoint.stat().st_size > 0):
        return None
    old = read_meta(paths["meta"])
    if old is None:
        raise BatchInputError(
            f"{checkpoint.name} already holds rows but its sidecar {paths['meta'].name} is missing, "
            "so the configuration cannot be checked; restore the sidecar, use another output path or --no-resume",
            file=checkpoint,
        )
    try:
        diff = config_diff(old.get("config") or {}, config)
    except ValueError as err:
        raise BatchInputError(str(err), file=paths["meta"]) from None
    if diff:
        raise BatchInputError(
            "the output was made with a different configuration ("
            + "; ".join(diff)
            + "); use the same options to resume, another output path, or --no-resume to start over",
            file=checkpoint,
        )
    return old


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _new_meta(
    plan: _Plan, config: dict[str, Any], sim: Any, old: dict[str, Any] | None
) -> dict[str, Any]:
    info = plan.info
    return {
        "config": config,
        "input": {
            "path": str(plan.input),
            "format": info.format,
            "encoding": info.encoding,
            "size": info.size,
        },
        "output": str(plan.output),
        "versions": package_versions(),
        "models": {
            "embedder": sim.identity,
            "embedder_sha256": getattr(getattr(sim, "spec", None), "weights_sha256", None),
            "llm": config["llm"],
            "paraphrase_llm": config.get("paraphrase_llm"),
        },
        "started": (old or {}).get("started") or _now(),
        "resumed": _now() if old is not None else None,
        "status": "running",
    }


def _start(
    plan: _Plan, *, llm: Any, embedder: Any, resume: bool, progress: ProgressFn | None
) -> _Run:
    from ..embedders import get_embedder

    t_start = time.perf_counter()
    total = plan.info.estimated_rows()
    if plan.shard:
        total = math.ceil(total / plan.shard[1])
    tick = _Progress(progress, total)
    tick(0)  # the row counter shows at once, not after the models loaded and a row finished
    sim = get_embedder(embedder if embedder is not None else plan.config.embedder)
    llm_obj = None
    if plan.generated:
        from ..llm import get_llm

        llm_obj = get_llm(llm if llm is not None else "local")
    config = _batch_config(plan, sim, llm_obj)
    meta = _new_meta(plan, config, sim, _check_resume(plan, config, resume))
    write_json_atomic(plan.paths["meta"], meta)
    checkpoint = Checkpoint(plan.paths["checkpoint"], config["columns"])
    done = checkpoint.open(resume=resume)
    summary = BatchSummary(
        input=str(plan.input),
        output=str(plan.output),
        meta_path=str(plan.paths["meta"]),
        errors_path=str(plan.paths["errors"]),
        checkpoint=str(plan.paths["checkpoint"]),
        config=config,
        truncated_bytes=checkpoint.truncated_bytes,
        dropped=list(checkpoint.dropped),
    )
    run = _Run(
        plan=plan,
        meta=meta,
        checkpoint=checkpoint,
        done=done,
        summary=summary,
        scorer=RowScorer(
            plan.config, method_names=plan.method_names, sim=sim, llm=llm_obj, dataset=plan.dataset
        ),
        reader=RowReader(plan.info, max_question_chars=plan.max_question_chars),
        tick=tick,
        errors_f=open(plan.paths["errors"], "w", encoding="utf-8"),
        t_start=t_start,
        old_cache=getattr(sim, "max_cache", None),
    )
    if run.old_cache is not None:
        sim.max_cache = min(run.old_cache, EMBED_CACHE_LIMIT)
    return run


# --------------------------------------------------------------------------
# Loop: one row at a time
# --------------------------------------------------------------------------


def _score_row(run: _Run, row: InputRow) -> None:
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
    run: _Run, row: InputRow, record: dict[str, Any] | None, exc: BaseException | None
) -> None:
    """Append a scored row, or record why it failed (re-raising what every row would hit)."""
    from ..errors import LLMError, ModelLoadError

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


def _row_failed(run: _Run, row: InputRow, exc: BaseException) -> None:
    column = run.reader.name("responses") if row.responses is not None else None
    err = BatchInputError(
        f"could not score: {type(exc).__name__}: {exc}",
        file=run.plan.input,
        row=row.index,
        line=row.line,
        column=column,
    )
    run.record_error(err, row.id, "scoring")


def _handle_row(run: _Run, row: InputRow, *, score: bool = True) -> bool:
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
        if run.done[row.id] != question_hash(row.question):
            raise BatchInputError(
                f"the output already holds id {row.id!r} with a different question: it was made "
                "from another input file; use another output path or --no-resume",
                file=plan.input,
                row=row.index,
                line=row.line,
                column=run.reader.name("question"),
            )
        run.summary.n_resumed += 1
    else:
        run.seen[row.id] = row.index
        if score:
            _score_row(run, row)
        return True
    return False


def _loop_pipelined(run: _Run, width: int) -> BaseException | None:
    """Generate ``width`` rows at once; write them in input order as the head finishes."""
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

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


def _loop(run: _Run) -> BaseException | None:
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


# --------------------------------------------------------------------------
# Finish: the final file, the evaluation, the sidecar
# --------------------------------------------------------------------------


def _finish(run: _Run) -> BatchSummary:
    plan, summary, meta = run.plan, run.summary, run.meta
    run.checkpoint.put_in_order()
    if plan.paths["checkpoint"] != plan.output:
        export_results(plan.paths["checkpoint"], plan.output)
    if plan.info.has_answers:
        ev = evaluate_output(plan.paths["checkpoint"], plan.method_names)
        summary.evaluation, summary.accuracy, summary.n_judged = (
            ev["methods"],
            ev["accuracy"],
            ev["n_judged"],
        )
    summary.seconds = time.perf_counter() - run.t_start
    meta["status"] = "finished" if summary.ok else "finished with errors"
    meta["finished"] = _now()
    meta["summary"] = {k: v for k, v in summary.to_dict().items() if k not in ("config", "errors")}
    write_json_atomic(plan.paths["meta"], meta)
    return summary


def batch_score(
    input: str | os.PathLike,
    output: str | os.PathLike,
    config: RunConfig | None = None,
    *,
    llm: Any = None,
    embedder: Any = None,
    methods: str | Iterable[str] | None = "inv",
    shard: str | tuple[int, int] | None = None,
    progress: ProgressFn | None = None,
    resume: bool = True,
    dataset: str | None = None,
    encoding: str | None = None,
    max_question_chars: int = qs.MAX_QUESTION_CHARS,
) -> BatchSummary:
    """Score every question of a CSV/JSON Lines file into ``output``, resumably.

    Parameters
    ----------
    input : CSV or JSON Lines file (columns: :mod:`invent_core.batch.input`).
    output : ``.csv``, ``.jsonl``, ``.json`` or ``.parquet``; sidecars
        ``OUTPUT.meta.json`` and ``OUTPUT.errors.jsonl`` are written next to it.
    config : the run settings (default ``RunConfig()``, the paper's). For
        pre-generated responses only its scoring part (ψ, B, seed, affinity,
        WD ground, MAX variant) is used.
    llm : for rows without pre-generated responses: ``None`` (the local
        packaged model), a spec for :func:`invent_core.llm.get_llm` or an LLM
        object (its own bounded concurrency is used). Ignored — and never
        called — when the file carries pre-generated responses.
    embedder : an already-loaded Similarity object to use instead of
        ``config.embedder`` (e.g. the test suite's MiniLM).
    methods : baselines to add to the five Inv measures (always computed):
        ``"inv"`` (none), ``"all"``, ``"baselines"`` or names
        (see :func:`invent_core.methods.registry.resolve_methods`).
    shard : ``"i/N"``: score only the rows whose id hashes to part i (1 … N).
    progress : called with a :class:`~invent_core.progress.Progress` (stage ``"rows"``,
        ``done``, ``total``, ``eta_seconds``) after each row.
    resume : skip the rows already in ``output`` (default); False starts over.
    dataset : matching rule for correctness (``judge_correct``'s ``dataset``);
        default: each row's task ("qa" alias match, "mmlu", "gsm8k").
    encoding : force an input encoding (e.g. ``"latin-1"``); default UTF-8
        or what a byte-order mark says.
    max_question_chars : longer questions are per-row errors.

    Returns
    -------
    BatchSummary (``ok`` is False when some rows failed; see ``errors_path``).

    Raises
    ------
    ValueError
        An invalid option (before any file is touched).
    BatchInputError
        A whole-file problem, naming the file, row, line and column;
        :class:`~invent_core.batch.output.OutputBusyError` when another run
        holds the output.
    OSError
        The disk failed (full, read-only); the rows written so far stay.
    """
    plan = _plan(
        input,
        output,
        config,
        methods=methods,
        shard=shard,
        dataset=dataset,
        encoding=encoding,
        max_question_chars=max_question_chars,
    )
    with OutputLock(plan.paths["lock"], plan.output):
        run = _start(plan, llm=llm, embedder=embedder, resume=resume, progress=progress)
        try:
            fatal = _loop(run)
        finally:
            run.close()
        if fatal is not None:
            run.meta["status"] = f"stopped: {fatal}"
            write_json_atomic(plan.paths["meta"], run.meta)
            raise fatal
        return _finish(run)
