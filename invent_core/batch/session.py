"""The state of one batch run: its summary, progress, models, sidecar and checkpoint.

:func:`start_run` (after the plan, under the output's lock) loads the
embedder and, for question-only files, the LLM; when resuming, compares the
configuration with the output's sidecar, the output's header with this run's
columns and the input's questions with the output's (a refusal leaves every
file as it was); then writes the new sidecar and opens the checkpoint. The :class:`BatchRun` it returns is what the row loop
(:mod:`invent_core.batch.loop`) and the finish (:mod:`invent_core.batch.score_file`)
share; :class:`BatchSummary` is what the caller gets back.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import IO, Any

from ..embedders import resolve_embedder
from ..errors import scrub
from ..llm import resolve_llm
from ..progress import Progress, ProgressCallback
from ..provenance import package_versions, provenance
from ..questions.files import BatchInputError
from .config_diff import config_diff
from .output import Checkpoint, question_hash, read_meta, sidecar_config, write_json_atomic
from .plan import Plan
from .rows import InputRow, RowReader
from .scorer import RowScorer, output_columns
from .shards import shard_of

__all__ = [
    "EMBED_CACHE_LIMIT",
    "BatchRun",
    "BatchSummary",
    "RowProgress",
    "changed_question",
    "start_run",
]

#: Cached vectors kept during a batch (≈ 15 MB for MiniLM): bounds memory.
EMBED_CACHE_LIMIT = 10_000


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
    n_degenerate : rows of the output whose ``degenerate`` cell says their scores
        measure nothing (every perturbation a copy of the question).
    method_gaps : method → [rows of the output it gave no value on, the first reason]
        (a baseline that needs an LLM on a file of pre-generated responses).
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
    n_degenerate: int = 0
    method_gaps: dict[str, tuple[int, str]] = field(default_factory=dict)
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


class RowProgress:
    """``progress(Progress("rows", done, total, eta_seconds))`` after each row of this shard.

    The one progress shape that run and evaluate report too
    (:class:`invent_core.progress.Progress`): rows of this shard passed
    so far, the estimated total (from the line count), and the estimated seconds
    left (None until a row has been scored).
    """

    def __init__(self, callback: ProgressCallback | None, total: int) -> None:
        self.callback = callback
        self.total = total
        self.t0 = time.perf_counter()
        self.scored = 0

    def __call__(self, done: int) -> None:
        """Report ``done`` rows passed (nothing without a callback)."""
        if self.callback is None:
            return
        total = max(self.total, done)
        eta = None
        if self.scored:
            rate = (time.perf_counter() - self.t0) / self.scored
            eta = max(0.0, (total - done) * rate)
        self.callback(Progress("rows", done, total, eta))


@dataclass
class BatchRun:
    """The state of one run over the file."""

    plan: Plan
    meta: dict[str, Any]
    checkpoint: Checkpoint
    done: dict[str, str]  # id -> question hash of the rows already in the output
    summary: BatchSummary
    scorer: RowScorer
    reader: RowReader
    tick: RowProgress
    errors_f: IO[str]
    t_start: float
    old_cache: int | None = None
    seen: dict[str, int] = field(default_factory=dict)  # id -> row where it was first seen
    llm_failures: int = 0  # consecutive rows failed by the LLM backend

    def mine(self, row: InputRow) -> bool:
        """Whether the row belongs to this shard."""
        return _mine(self.plan, row)

    def record_error(self, err: BatchInputError, row_id: str | None, kind: str) -> None:
        """One line in the errors sidecar (fsynced), and the count."""
        entry = {"id": row_id, **err.to_dict(), "kind": kind}
        entry = {k: scrub(v) if isinstance(v, str) else v for k, v in entry.items()}  # no key
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


def _mine(plan: Plan, row: InputRow) -> bool:
    shard = plan.shard
    return shard is None or shard_of(row.id, shard[1]) == shard[0]


def changed_question(plan: Plan, reader: RowReader, row: InputRow) -> BatchInputError:
    """The refusal of a row whose id the output already holds with another question."""
    return BatchInputError(
        f"the output already holds id {row.id!r} with a different question: it was made "
        "from another input file; use another output path or --no-resume",
        file=plan.input,
        row=row.index,
        line=row.line,
        column=reader.name("question"),
    )


def _check_resumed_questions(plan: Plan, reader: RowReader, done: dict[str, str]) -> None:
    """Refuse an input whose ids now name other questions, before any file is touched.

    The row loop would meet such a row only after the sidecar was rewritten and
    the rows before it scored; one read of the input now (only when the output
    already holds rows) keeps a refused resume from changing anything. The rows
    are taken as the loop takes them: this shard's, each id's first, no bad row.
    """
    if not done:
        return
    seen: set[str] = set()
    for row in reader:
        if row.error is not None or row.id in seen or not _mine(plan, row):
            continue
        seen.add(row.id)
        if row.id in done and done[row.id] != question_hash(row.question):
            raise changed_question(plan, reader, row)


def _batch_config(plan: Plan, sim: Any, llm: Any) -> dict[str, Any]:
    """What the sidecar records as this run's configuration (compared on resume and merge)."""
    shard = plan.shard
    return {
        "layout": plan.info.layout,
        "methods": plan.method_names,
        "embedder": sim.identity,
        "dataset": plan.dataset,
        "judge": plan.judge,
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


def _check_resume(plan: Plan, config: dict[str, Any], resume: bool) -> dict[str, Any] | None:
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
    old_config = sidecar_config(old, paths["meta"])
    try:
        diff = config_diff(old_config, config)
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


def now() -> str:
    """The time now, UTC, to the second (ISO 8601), as the sidecar records it."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def _new_meta(
    plan: Plan, config: dict[str, Any], sim: Any, old: dict[str, Any] | None
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
        "provenance": provenance(),
        "models": {
            "embedder": sim.identity,
            "embedder_sha256": getattr(getattr(sim, "spec", None), "weights_sha256", None),
            "llm": config["llm"],
            "paraphrase_llm": config.get("paraphrase_llm"),
        },
        "started": (old or {}).get("started") or now(),
        "resumed": now() if old is not None else None,
        "status": "running",
    }


def start_run(
    plan: Plan, *, llm: Any, embedder: Any, resume: bool, progress: ProgressCallback | None
) -> BatchRun:
    """Load the models, check a resumed output, write the sidecar and open the checkpoint."""
    t_start = time.perf_counter()
    total = plan.info.estimated_rows()
    if plan.shard:
        total = math.ceil(total / plan.shard[1])
    tick = RowProgress(progress, total)
    tick(0)  # the row counter shows at once, not after the models loaded and a row finished
    sim = resolve_embedder(embedder, plan.config)
    llm_obj = None
    if plan.generated:
        llm_obj = resolve_llm(llm)
    config = _batch_config(plan, sim, llm_obj)
    old = _check_resume(plan, config, resume)
    # everything that can refuse the resume is checked before the first write
    checkpoint = Checkpoint(plan.paths["checkpoint"], config["columns"])
    reader = RowReader(plan.info, max_question_chars=plan.max_question_chars)
    _check_resumed_questions(plan, reader, checkpoint.read_done(resume=resume))
    meta = _new_meta(plan, config, sim, old)
    write_json_atomic(plan.paths["meta"], meta)
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
    run = BatchRun(
        plan=plan,
        meta=meta,
        checkpoint=checkpoint,
        done=done,
        summary=summary,
        scorer=RowScorer(
            plan.config,
            method_names=plan.method_names,
            sim=sim,
            llm=llm_obj,
            dataset=plan.dataset,
            judge=plan.judge,
            reference_path=plan.reference_path,
        ),
        reader=reader,
        tick=tick,
        errors_f=open(plan.paths["errors"], "w", encoding="utf-8"),
        t_start=t_start,
        old_cache=getattr(sim, "max_cache", None),
    )
    if run.old_cache is not None:
        sim.max_cache = min(run.old_cache, EMBED_CACHE_LIMIT)
    return run
