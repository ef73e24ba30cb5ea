"""Reproduce the paper's tables: every method on the same responses, then AUROC/PRR/Brier and TSU.

``evaluate`` (Table 1) and ``tsu`` (Table tsu_horizontal) share one loop:
generate a run per question (LLM calls go through the persistent cache), save
it under ``<out>/runs/``, score every registered method on that same run,
judge the response the scores were computed from, and aggregate.

Re-running with the same settings reads the saved runs and per-question
scores and makes no LLM call; methods that ask the LLM extra questions (VU,
P(True)) keep their answers in the run's ``extras``.

Nothing is thrown away: a question whose generation fails (an LLM error or
timeout) is kept in ``scores.csv`` with its ``error`` and the loop goes on; a
cancel (``cancel=``, or Ctrl-C) keeps every finished question, and the same
call resumes from them. With one class of answers only, or too few questions
(:func:`invent_core.evaluation.sample_size.judgeable`), the table is still
written: accuracy, and each metric "n/a — all answers wrong" or greyed "too
few to judge", never a best value. Correctness is judged on the canonical
answer (:mod:`invent_core.responses.canonical`).
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import json
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np

from ..batch.output import output_folder
from ..config import RunConfig, ScoreConfig, check_temperatures, flat_values, iter_options
from ..errors import Cancelled, InventError, LLMError, ModelLoadError
from ..evaluation.metrics import N_BOOTSTRAP
from ..progress import CancelToken, ProgressCallback, ProgressReporter

#: How correctness is judged: "match" (rules per dataset) or "llm" (the paper's judge prompt).
JUDGES: tuple[str, ...] = ("match", "llm")


@dataclass(frozen=True)
class ExperimentConfig:
    """What an experiment runs: which questions, which methods, and one run config for all.

    ``run`` holds every generation and scoring option (paper defaults, see
    :class:`~invent_core.config.RunConfig`); ``tsu`` overrides only its
    temperature.
    """

    run: RunConfig = field(default_factory=RunConfig)
    dataset: str | None = None  # one of invent_core.questions.datasets.available_datasets()
    data: str | None = None  # or a user CSV/JSONL with question + answer
    limit: int | None = None
    sample_seed: int | None = 0  # with a limit: a seeded shuffled draw (None: file order; issue 14)
    # keep only rows whose ``extra["difficulty"]`` is one of these (the testbed's 1 … 5), before the draw
    difficulty: tuple[int, ...] | None = None
    methods: tuple[str, ...] = ("all",)
    judge: str = "match"  # one of JUDGES
    n_bootstrap_metrics: int = N_BOOTSTRAP  # 40, paper, Appendix "Calculation of Mean and Variance"

    def __post_init__(self) -> None:
        """Check the question source and the judge; store ``methods`` as a tuple."""
        if (self.dataset is None) == (self.data is None):
            raise ValueError("give exactly one of a dataset name (--dataset) or a file (--data)")
        if self.judge not in JUDGES:
            raise ValueError(f"unknown judge {self.judge!r}: use one of {', '.join(JUDGES)}")
        if self.limit is not None and (isinstance(self.limit, bool) or self.limit < 1):
            raise ValueError(f"--limit must be a positive number of questions, got {self.limit!r}")
        if self.sample_seed is not None and self.sample_seed < 0:
            raise ValueError(f"--sample-seed must be >= 0 (or none), got {self.sample_seed!r}")
        object.__setattr__(self, "methods", tuple(self.methods))
        if self.difficulty is not None:
            levels = tuple(sorted(set(self.difficulty)))
            if not levels or any(isinstance(d, bool) or not isinstance(d, int) for d in levels):
                raise ValueError(f"--difficulty must name whole levels, got {self.difficulty!r}")
            object.__setattr__(self, "difficulty", levels)

    def run_key(self, temperature: float | None = None) -> dict[str, Any]:
        """Return the options a saved run must share to be reused (see :func:`generation_key`)."""
        run = self.run if temperature is None else self.run.replace(temperature=temperature)
        return generation_key(run)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict, the run config nested under ``"run"``."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return {**out, "run": self.run.to_dict(), "methods": list(self.methods)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ExperimentConfig:
        """Inverse of :meth:`to_dict`; configs saved with flat run options load too.

        So do configs saved before the metrics' bootstrap count was named
        ``n_bootstrap_metrics`` (their key was ``"n_boot_metrics"``).
        """
        own = {f.name for f in dataclasses.fields(cls)} - {"run"}
        if "n_boot_metrics" in data and "n_bootstrap_metrics" not in data:
            data = {**data, "n_bootstrap_metrics": data["n_boot_metrics"]}
        if "run" in data:
            run = RunConfig.from_dict(data["run"])
        else:  # saved before RunConfig: perturber, n, r, B, temperature … sat at the top
            run = RunConfig.from_settings(data)
        return cls(run=run, **{k: v for k, v in data.items() if k in own})


def generation_key(config: RunConfig) -> dict[str, Any]:
    """Return the options that change a run's texts: every option but the scoring ones (seed stays).

    Two runs with the same key have the same perturbations and answers; a
    saved run that differs only in scoring options is rescored, not regenerated.
    """
    scoring = {opt.name for opt in iter_options(ScoreConfig)} - {"seed"}
    key = {k: v for k, v in flat_values(config).items() if k not in scoring}
    if not config.adaptive.enabled:  # the budget's settings change nothing while it is off
        key = {k: v for k, v in key.items() if not k.startswith("adaptive_")}
    return key


def load_examples(cfg: ExperimentConfig, *, require_answers: bool = True):
    """Load the examples the config names (shipped sample or user file), drawn as :func:`draw_examples`."""
    return draw_examples(cfg, require_answers=require_answers)[0]


def draw_examples(cfg: ExperimentConfig, *, require_answers: bool = True) -> tuple[list, str]:
    """Return the config's examples and a line saying how they were drawn.

    Loads the shipped sample or the user file the config names, then
    :func:`select_examples`.

    Returns
    -------
    (examples, description): ``"15 of 300 questions, drawn with seed 0"``,
    ``"the first 15 of 300 questions (file order)"`` or ``"all 300 questions"``.
    """
    from ..questions.datasets import load_dataset, load_examples_file

    if cfg.dataset:
        examples = load_dataset(cfg.dataset)
    else:
        examples = load_examples_file(cfg.data, require_answers=require_answers)
    return select_examples(examples, cfg)


def select_examples(examples: list, cfg: ExperimentConfig) -> tuple[list, str]:
    """Draw the config's sample from loaded examples; the line says how (see :func:`draw_examples`).

    With ``cfg.difficulty`` only the rows of those levels are kept first (the
    draw is then over them), and the line ends with ``" (difficulty 4, 5)"``.
    With ``cfg.limit``, ``cfg.sample_seed`` (default 0) draws a shuffled
    sample (:func:`invent_core.evaluation.sample_size.draw_sample`, the same
    questions ``load_dataset(limit=, seed=)`` gives); ``sample_seed=None``
    takes the first ``limit`` in file order. Without a limit every question is
    taken, in file order.
    """
    from ..evaluation.sample_size import draw_sample

    if not examples:
        raise InventError("no examples to evaluate")
    levels = ""
    if cfg.difficulty is not None:
        examples = keep_difficulty(examples, cfg.difficulty, source=cfg.dataset or cfg.data)
        levels = f" (difficulty {', '.join(map(str, cfg.difficulty))})"
    total = len(examples)
    if cfg.limit is None or cfg.limit >= total:
        return examples, f"all {total} questions{levels}"
    if cfg.sample_seed is None:
        first = f"the first {cfg.limit} of {total} questions{levels} (file order)"
        return examples[: cfg.limit], first
    sample = draw_sample(examples, cfg.limit, cfg.sample_seed)
    return sample.items, sample.describe() + levels


def difficulty_levels(examples: list) -> list[int]:
    """The difficulty levels the examples carry (``extra["difficulty"]``), sorted; [] for none."""
    return sorted({ex.extra["difficulty"] for ex in examples if "difficulty" in ex.extra})


def keep_difficulty(examples: list, levels: tuple[int, ...], *, source: str) -> list:
    """The examples whose ``extra["difficulty"]`` is one of ``levels``, in file order.

    Only the arithmetic testbed's rows carry a difficulty; naming levels for a
    source without one, or levels no row has, is refused (naming --difficulty).
    """
    have = difficulty_levels(examples)
    if not have:
        raise InventError(f"--difficulty: the questions of {source} carry no difficulty level")
    kept = [ex for ex in examples if ex.extra.get("difficulty") in levels]
    if not kept:
        known, asked = (", ".join(map(str, x)) for x in (have, levels))
        raise InventError(
            f"--difficulty: no question of {source} has level {asked}; levels: {known}"
        )
    return kept


def _safe(name: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(name))[:60]
    return f"{slug}-{hashlib.sha1(str(name).encode()).hexdigest()[:8]}"


def _run_path(runs_dir: Path, example: Any, temperature: float) -> Path:
    return runs_dir / f"{_safe(example.id)}_T{temperature:g}.json"


def get_run(
    example,
    cfg: ExperimentConfig,
    runs_dir: Path,
    llm: Any,
    *,
    temperature: float | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
):
    """Return the run of one example: the saved one when it has the same generation options.

    A saved run whose scoring options differ is rescored (no LLM call); else
    the run is generated (its throughput recorded for :mod:`invent_core.workbench.estimate`)
    and saved under ``runs_dir``.
    """
    config = cfg.run if temperature is None else cfg.run.replace(temperature=temperature)
    run = _saved_run(example, cfg, runs_dir, config.temperature)
    if run is not None:
        return run if run.config.score == config.score else run.rescore(config.score)
    run = _generate(example, config, llm, progress, cancel)
    run.save(_run_path(runs_dir, example, config.temperature))
    from ..workbench.estimate import record_artifact

    record_artifact(run)
    return run


def _saved_run(example, cfg: ExperimentConfig, runs_dir: Path, temperature: float):
    """The saved run of ``example`` at ``temperature`` made with the same generation options, or None."""
    from ..engine.artifact import RunArtifact

    path = _run_path(runs_dir, example, temperature)
    if not path.is_file():
        return None
    try:
        run = RunArtifact.load(path)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None  # a torn or foreign file (``[]`` included): generated again
    same_question = run.question == example.question.strip()
    if same_question and generation_key(run.config) == cfg.run_key(temperature):
        return run
    return None


def _generate(example, config: RunConfig, llm: Any, progress, cancel):
    """``run_question`` for one example; ``cancel`` is passed when the pipeline takes it."""
    import inspect

    from ..engine.pipeline import run_question

    kwargs: dict[str, Any] = {
        "llm": llm,
        "task": example.task,
        "choices": list(example.choices) if example.choices else None,
        "progress": progress,
    }
    if cancel is not None and "cancel" in inspect.signature(run_question).parameters:
        kwargs["cancel"] = cancel
    return run_question(example.question, config, **kwargs)


def score_run(run, method_names: Sequence[str], llm: Any) -> dict[str, float]:
    """Every requested method on one run (NaN where a method is unavailable)."""
    from ..methods.registry import ScoringContext, compute_methods

    ctx = ScoringContext.from_run(run, llm=llm)
    results = compute_methods(ctx, method_names)
    return {name: res.value for name, res in results.items()}


@dataclass
class ExperimentResult:
    """What ``evaluate`` / ``tsu`` return: the rows, and the evaluation or TSU table.

    Attributes
    ----------
    rows : one per judged question (evaluate) or per (question, temperature)
        run (tsu): id, question, response, canonical, correct, <method>…
    methods : the method names, in column order.
    evaluation : the :class:`~invent_core.evaluation.metrics.Evaluation` (evaluate).
    tsu : method → {column label: fraction} (tsu).
    files : name → path of every file written.
    llm_started : whether the LLM had to be started (False: all from saved runs).
    judgement : :func:`~invent_core.evaluation.sample_size.judgeable` of the sample:
        ``(ok, reason)``; when not ok the tables are greyed / "n/a" and nothing is best.
    table : the :class:`~invent_core.evaluation.report.ResultsTable` written.
    failed : rows of questions (runs) whose generation failed, with their ``error``.
    sample : how the questions were drawn ("15 of 300 questions, drawn with seed 0").
    """

    rows: list[dict[str, Any]]
    methods: list[str]
    evaluation: Any = None  # invent_core.evaluation.metrics.Evaluation
    tsu: dict[str, dict[str, float]] | None = None
    files: dict[str, str] = field(default_factory=dict)
    llm_started: bool = False
    judgement: Any = None  # invent_core.evaluation.sample_size.Judgement
    table: Any = None  # invent_core.evaluation.report.ResultsTable
    failed: list[dict[str, Any]] = field(default_factory=list)
    sample: str = ""

    @property
    def warnings(self) -> list[str]:
        """One line per thing a reader must know: failed questions, metrics not judged."""
        out = []
        if self.failed:
            first = self.failed[0].get("error", "")
            out.append(
                f"{len(self.failed)} question(s) failed and are left out (first: {first}); "
                "they are listed with their error in scores.csv and retried on the next run"
            )
        if self.judgement is not None and not self.judgement.ok:
            out.append(f"metrics not judged: {self.judgement.reason}")
        return out


def _check_perturber(cfg: ExperimentConfig) -> None:
    """Raise ValueError for an unregistered perturber before any file is touched.

    Checked here, where runs are generated, not in the config: a saved experiment
    reopens and rescores without the plug-in that perturbed it.
    """
    from ..perturb.base import get_perturber

    get_perturber(cfg.run.perturber)


def _method_names(cfg: ExperimentConfig) -> list[str]:
    from ..methods.registry import resolve_methods

    return [m.name for m in resolve_methods(list(cfg.methods))]


def _read_scores(path: Path) -> dict[str, dict[str, Any]]:
    """Rows of an earlier ``scores.csv`` by id (cells restored by :mod:`invent_core.csv_safe`)."""
    from ..csv_safe import read_csv

    if not path.is_file():
        return {}
    try:
        return {row["id"]: row for row in read_csv(path) if row.get("id")}
    except (ValueError, csv.Error, UnicodeDecodeError):
        return {}  # a damaged file: every question is scored again (its runs are reused)


def _write_rows(path: Path, rows: list[dict[str, Any]], columns: list[str]) -> None:
    """Write ``rows`` atomically through the one formula-safe CSV writer (issue #13 item 7)."""
    from ..csv_safe import write_csv

    write_csv(path, rows, columns)


def _scores_reusable(out: Path, cfg: ExperimentConfig) -> bool:
    """Whether ``out/scores.csv`` was made with this run config and judge (its rows may be reused).

    A folder evaluated before with another kernel, embedder, B, n … keeps its
    saved runs (re-scored without an LLM call) but not its scores: reusing them
    would mix settings under the new ``config.json``. A folder with no
    ``config.json`` (an evaluation cut short before this check existed) is reused.
    """
    path = out / "config.json"
    if not path.is_file():
        return True
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))["config"]
        before = RunConfig.from_dict(saved["run"])
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return before == cfg.run and saved.get("judge", "match") == cfg.judge


def _write_config(out: Path, cfg: ExperimentConfig, extra: dict[str, Any]) -> None:
    from ..provenance import package_versions  # the same package list the batch sidecar records

    meta = {"config": cfg.to_dict(), **extra, "versions": package_versions()}
    _write_text(out / "config.json", json.dumps(meta, indent=2, default=str))


def _write_text(path: Path, text: str) -> None:
    """Replace ``path`` atomically (a symbolic link there is replaced, never followed).

    A crash or a full disk leaves the old file and no temporary file.
    """
    from ..csv_safe import atomic_file

    with atomic_file(path) as f:
        f.write(text)


#: What ``evaluate`` and ``tsu`` write in their folder (an input may be none of them).
EVALUATE_FILES = (
    "scores.csv",
    "config.json",
    *(f"results.{x}" for x in ("csv", "md", "tex", "json")),
)
TSU_FILES = ("uq.csv", "config.json", *(f"tsu.{x}" for x in ("csv", "md", "tex", "json")))


def _inputs(cfg: ExperimentConfig) -> list[Path]:
    """The files an experiment reads (``--data``), which its outputs must not overwrite."""
    return [Path(cfg.data)] if cfg.data else []


#: ``scores.csv`` columns before the methods' (``error`` is empty for a judged question).
SCORE_COLUMNS: tuple[str, ...] = (
    "id",
    "dataset",
    "question",
    "response",
    "canonical",
    "reference",
    "correct",
    "error",
)


def _answer_of(run, ex) -> tuple[str, str]:
    """Return (cleaned response, canonical answer) of the original question's replication 0.

    The scores were computed from this response; a run that stores its cleaned
    responses separately (``cleaned_responses``) embeds the canonical ones, so the
    canonical step is idempotent here.
    """
    from ..responses.canonical import canonical_answer

    cleaned = getattr(run, "cleaned_responses", None) or run.responses
    response = cleaned[0][0]
    choices = list(ex.choices) if ex.choices else None
    return response, canonical_answer(response, task=ex.task, choices=choices).text


def _judged_row(ex, run, values: dict[str, float], cfg: ExperimentConfig, llm: Any) -> dict:
    """One row of ``scores.csv``: the response the scores were computed from, judged on its canonical form."""
    from ..evaluation.correctness import judge_correct

    response, canonical = _answer_of(run, ex)
    correct = judge_correct(
        canonical,
        list(ex.answers),
        dataset=ex.dataset if ex.dataset != "custom" else ex.task,
        question=ex.question,
        choices=list(ex.choices) if ex.choices else None,
        method=cfg.judge,
        llm=llm if cfg.judge == "llm" else None,
    )
    return {
        **_base_row(ex),
        "response": response,
        "canonical": canonical,
        "correct": int(bool(correct)),
        "error": "",
        **values,
    }


def _base_row(ex) -> dict[str, Any]:
    return {
        "id": ex.id,
        "dataset": ex.dataset,
        "question": ex.question,
        "reference": " | ".join(ex.answers),
    }


def _failed_row(ex, err: Exception) -> dict[str, Any]:
    """Return the row of a question whose generation failed: its error, no judgement or scores."""
    message = " ".join(str(err).split())[:300]
    return {**_base_row(ex), "correct": "", "error": f"{type(err).__name__}: {message}"}


def _saved_row(ex, prev: dict[str, Any] | None, methods, columns: list[str]) -> dict | None:
    """Return the row saved by an earlier call for ``ex``: the same question, every method, judged."""
    if prev is None or prev.get("correct") in ("", None) or prev.get("error"):
        return None
    if prev.get("question") != ex.question:  # the id now names another question: score it again
        return None
    if not all(m in prev for m in methods):  # "" is a saved NaN (the method had no value)
        return None
    return {k: prev.get(k, "") for k in columns}


def _question_row(ex, cfg, out: Path, methods, llm, progress, cancel) -> dict[str, Any]:
    """Generate (or read), score and judge one question; a failed generation gives a failed row."""
    try:
        run = get_run(ex, cfg, out / "runs", llm, progress=progress, cancel=cancel)
        values = score_run(run, methods, llm)
        run.save(_run_path(out / "runs", ex, cfg.run.temperature))  # keeps extras (VU, P(True))
        return _judged_row(ex, run, values, cfg, llm)
    except ModelLoadError:
        raise  # the model cannot load: every question would fail (and retry the load) alike
    except LLMError as err:  # LLMTimeout included: this question only
        return _failed_row(ex, err)


def _width(llm: Any, needs_generation: Iterable[bool]) -> int:
    """Units to keep in flight: 1 unless at least two runs must be generated.

    ``needs_generation`` is read lazily and only up to the second True, so a
    fresh folder costs a file check per unit, and the LLM (possibly a
    :class:`~invent_core.llm.LazyLLM`) is not touched when nothing is generated.
    """
    from ..engine.inflight import units_in_flight

    return units_in_flight(llm) if sum(islice(filter(None, needs_generation), 2)) > 1 else 1


def _cancelled(done: int, total: int, where: Path) -> Cancelled:
    return Cancelled(
        f"cancelled after {done} of {total} questions; the {done} finished are kept in "
        f"{where} and the LLM cache (the same command resumes from them)"
    )


def _evaluate_rows(examples, cfg, out: Path, methods, llm, report, cancel) -> list[dict]:
    """Run the per-question loop: saved rows reused, the rest generated; checkpoint after each.

    Questions to generate run :func:`~invent_core.engine.inflight.units_in_flight` at
    a time (several against a served model, so that its slots stay full) and
    are written in input order. With one in flight, the pipeline's own stages
    (perturbations, answers) are reported too; with several, only questions.
    """
    from ..engine.inflight import in_order

    scores = out / "scores.csv"
    saved = _read_scores(scores) if _scores_reusable(out, cfg) else {}
    _write_config(out, cfg, {"status": "running"})  # what the rows below are made with
    columns = [*SCORE_COLUMNS, *methods]
    known = [_saved_row(ex, saved.get(ex.id), methods, columns) for ex in examples]
    todo = [ex for ex, row in zip(examples, known, strict=True) if row is None]
    runs = out / "runs"
    t = cfg.run.temperature
    width = _width(llm, (_saved_run(ex, cfg, runs, t) is None for ex in todo))
    inner = report.callback if width == 1 else None

    def one(ex) -> dict[str, Any]:
        return _question_row(ex, cfg, out, methods, llm, inner, cancel)

    generated = in_order(one, todo, width, name="invent-question")
    rows: list[dict[str, Any]] = []
    total = len(examples)
    report("questions", 0, total)
    try:
        for i, (ex, row) in enumerate(zip(examples, known, strict=True)):
            if cancel is not None and cancel.cancelled:
                raise _cancelled(i, total, scores)
            if row is None:
                try:
                    row = next(generated).result()
                except (Cancelled, KeyboardInterrupt) as err:
                    raise _cancelled(i, total, scores) from err
            rows.append(row)
            _write_rows(scores, rows, columns)  # checkpoint after every question
            report("questions", i + 1, total, ex.question)
    finally:
        generated.close()
    return rows


#: Metrics cross-fitted over 5 folds: left out (shown "–") below this many questions.
MIN_CROSS_FIT = 10


def _evaluation(rows: list[dict[str, Any]], methods: list[str], cfg: ExperimentConfig):
    """Return (Evaluation, Judgement) of the judged rows: every metric, paired bootstrap.

    With one class (or no row), no metric exists: the evaluation has no
    results and every method is ``skipped`` with the reason. A method with no
    value on some questions (it failed there) is skipped with that reason.
    """
    from ..evaluation.metrics import (
        DEFAULT_METRICS,
        Evaluation,
        evaluate_scores,
        undefined_reason,
    )
    from ..evaluation.sample_size import judgeable

    correct = np.array([int(r["correct"]) for r in rows], dtype=np.int64)
    n, n_pos = int(correct.size), int(correct.sum())
    judgement = judgeable(n, n_pos)
    boot = {"n_bootstrap": cfg.n_bootstrap_metrics, "seed": cfg.run.seed}
    if undefined_reason(correct) is not None:  # no row, or every answer judged the same
        skipped = {m: judgement.reason for m in methods}
        return Evaluation({}, DEFAULT_METRICS, n, n_pos, skipped=skipped, **boot), judgement
    table, skipped = {}, {}
    for m in methods:
        u = np.array([_number(r.get(m)) for r in rows])
        missing = int(np.isnan(u).sum())
        if 0 < missing < n:
            skipped[m] = f"no value on {missing} of {n} questions (see scores.csv)"
        else:
            table[m] = u  # all-NaN: evaluate_scores lists it as unavailable
    metrics = [k for k in DEFAULT_METRICS if n >= MIN_CROSS_FIT or k not in ("brier_cv", "ece")]
    ev = evaluate_scores(table, correct, metrics=metrics, **boot)
    ev = dataclasses.replace(ev, metrics=DEFAULT_METRICS, skipped={**ev.skipped, **skipped})
    return ev, judgement


def _number(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def evaluation_table(evaluation, judgement, methods: Sequence[str]):
    """Build the :class:`~invent_core.evaluation.report.ResultsTable` of an evaluation, honest about its sample.

    Not judgeable: greyed with the reason (or every cell "n/a — all answers
    wrong" when a class is missing), nothing marked best. Cross-fitted
    metrics left out on a small sample show "–" with a note.
    """
    from ..evaluation.report import results_table

    rt = results_table(evaluation, labels=_labels(methods))
    notes = []
    if evaluation.results and evaluation.n_questions < MIN_CROSS_FIT:
        notes.append(f"Brier (cross-fit) and ECE need at least {MIN_CROSS_FIT} questions.")
    notes += [f"{_labels([m])[m]}: {why}" for m, why in evaluation.skipped.items()]
    if not evaluation.results:
        notes = []
        rt = dataclasses.replace(rt, missing=judgement.reason)
    rt = dataclasses.replace(rt, notes=tuple(notes))
    return rt if judgement.ok else rt.greyed(judgement.reason)


def accuracy_line(evaluation) -> str:
    """``"12 questions, accuracy 0.250 (3 correct)"``; never a bare NaN."""
    n, k = evaluation.n_questions, evaluation.n_correct
    if n == 0:
        return "no question could be judged"
    return f"{n} questions, accuracy {k / n:.3f} ({k} correct)"


def _write_evaluation(out: Path, cfg: ExperimentConfig, result: ExperimentResult) -> dict:
    """``results.{csv,md,tex,json}`` of an evaluation; returns name → path."""
    ev, rt, judgement = result.evaluation, result.table, result.judgement
    files = {
        "scores": str(out / "scores.csv"),
        "csv": str(out / "results.csv"),
        "markdown": str(out / "results.md"),
        "latex": str(out / "results.tex"),
        "json": str(out / "results.json"),
    }
    _write_text(out / "results.csv", rt.to_csv())
    _write_text(out / "results.md", f"{accuracy_line(ev)}\n\n{rt.to_markdown()}")
    caption = f"{cfg.dataset or cfg.data}: {accuracy_line(ev)}"
    _write_text(out / "results.tex", rt.to_latex(caption=caption) + "\n")
    payload = {
        "labels": _labels(result.methods),
        **ev.to_dict(),
        "judgement": {"ok": judgement.ok, "reason": judgement.reason},
        "failed": [{"id": r["id"], "error": r["error"]} for r in result.failed],
        "sample": result.sample,
    }
    _write_text(out / "results.json", json.dumps(payload, indent=2))
    return files


def evaluate(
    cfg: ExperimentConfig,
    out: str | Path,
    *,
    llm_factory: Callable[[], Any],
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> ExperimentResult:
    """Table 1 for one dataset: per-question scores, correctness, and metric means ± std.

    Parameters
    ----------
    cfg : the experiment.
    out : folder for ``runs/``, ``scores.csv``, ``results.{csv,md,tex,json}``, ``config.json``.
    llm_factory : builds the LLM backend; called only if something must be generated.
    progress : called with :class:`~invent_core.progress.Progress` events: stage
        ``"questions"`` (the question as note) after each question, and the
        pipeline's ``"perturb"`` / ``"generate"`` / ``"score"`` within one.
    cancel : a :class:`~invent_core.progress.CancelToken`; once cancelled no new
        question starts and :class:`~invent_core.errors.Cancelled` says how many
        finished (they are kept in ``scores.csv``; the same call resumes).

    Returns
    -------
    ExperimentResult whose ``evaluation`` and ``table`` are what the result files
    show; ``judgement`` says whether the metrics can be judged, ``failed`` lists
    questions whose generation failed.
    """
    from ..llm import LazyLLM

    t0 = time.perf_counter()
    _check_perturber(cfg)
    out = Path(out)
    examples, sample = draw_examples(cfg)
    methods = _method_names(cfg)
    with output_folder(out, EVALUATE_FILES, _inputs(cfg)):
        (out / "runs").mkdir(exist_ok=True)
        llm = LazyLLM(llm_factory)
        report = ProgressReporter(progress)
        rows = _evaluate_rows(examples, cfg, out, methods, llm, report, cancel)
        return _finish_evaluation(out, cfg, rows, methods, sample, llm, t0)


def _finish_evaluation(out: Path, cfg, rows, methods, sample, llm, t0) -> ExperimentResult:
    """Judge the rows, write ``results.*`` and ``config.json``; the :class:`ExperimentResult`."""
    judged = [r for r in rows if not r.get("error")]
    evaluation, judgement = _evaluation(judged, methods, cfg)
    result = ExperimentResult(
        judged,
        methods,
        evaluation=evaluation,
        llm_started=llm.started,
        judgement=judgement,
        table=evaluation_table(evaluation, judgement, methods),
        failed=[r for r in rows if r.get("error")],
        sample=sample,
    )
    result.files = _write_evaluation(out, cfg, result)
    accuracy = evaluation.accuracy if evaluation.n_questions else None
    wall = time.perf_counter() - t0  # this call only: a resumed evaluation reads saved rows fast
    meta = {"n_questions": len(judged), "accuracy": accuracy, "sample": sample}
    _write_config(out, cfg, meta | {"wall_seconds": wall})
    return result


def _labels(methods: Sequence[str]) -> dict[str, str]:
    from ..methods.registry import get_method

    return {m: get_method(m).label for m in methods}


def default_tsu_columns(
    temperatures: Sequence[float],
) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """Pairs (T_i, T_max) for every lower T_i and chains T_i … T_max spanning ≥ 3 temperatures.

    For the paper's 0.3, 0.7, 1.0, 1.4 this gives its four columns (and TSU(0.3,1.4)).
    """
    ts = list(temperatures)
    top = ts[-1]
    pairs = [(t, top) for t in ts[:-1]][::-1]
    chains = [(t, top) for t in ts[:-2]][::-1]
    return pairs, chains


def _write_tsu(out: Path, rt, table: dict, temps: list[float], extra: dict[str, Any]) -> dict:
    """``tsu.{csv,md,tex,json}`` of a TSU table; returns name → path (``uq`` included)."""
    _write_text(out / "tsu.csv", rt.to_csv())
    _write_text(out / "tsu.md", rt.to_markdown() + "\n")
    _write_text(out / "tsu.tex", rt.to_latex(caption="TSU (%)") + "\n")
    _write_text(
        out / "tsu.json", json.dumps({"temperatures": temps, "tsu": table, **extra}, indent=2)
    )
    files = {k: str(out / f"tsu.{k}") for k in ("csv", "md", "tex", "json")}
    return files | {"uq": str(out / "uq.csv")}


def _tsu_run(ex, t: float, cfg, out: Path, methods, llm, cancel) -> dict[str, Any]:
    """One (question, temperature) run scored: its uq row, or its failed row (``error``)."""
    try:
        run = get_run(ex, cfg, out / "runs", llm, temperature=t, cancel=cancel)
        values = score_run(run, methods, llm)
        run.save(_run_path(out / "runs", ex, t))
    except ModelLoadError:
        raise  # the model cannot load: every run would fail alike
    except LLMError as err:  # this run only; the sweep goes on
        return {**_failed_row(ex, err), "temperature": t}
    return {"id": ex.id, "question": ex.question, "temperature": t, **values}


def _tsu_runs(examples, temps, cfg, out: Path, methods, llm, report, cancel):
    """Every (question, temperature) run scored, several in flight; (rows, failed rows, uq arrays)."""
    from ..engine.inflight import in_order

    uq = {m: np.full((len(examples), len(temps)), np.nan) for m in methods}
    rows: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    units = [(i, ex, j, t) for i, ex in enumerate(examples) for j, t in enumerate(temps)]
    total = len(units)
    width = _width(llm, (_saved_run(ex, cfg, out / "runs", t) is None for _, ex, _, t in units))

    def one(unit) -> dict[str, Any]:
        _, ex, _, t = unit
        return _tsu_run(ex, t, cfg, out, methods, llm, cancel)

    generated = in_order(one, units, width, name="invent-tsu")
    report("runs", 0, total)
    try:
        for done, (i, ex, j, t) in enumerate(units):
            if cancel is not None and cancel.cancelled:
                raise _cancelled_runs(done, total, out)
            try:
                row = next(generated).result()
            except (Cancelled, KeyboardInterrupt) as err:
                raise _cancelled_runs(done, total, out) from err
            if row.get("error"):
                failed.append(row)
            else:
                for m in methods:
                    uq[m][i, j] = row[m]
                rows.append(row)
            report("runs", done + 1, total, f"T={t:g} {ex.question}")
    finally:
        generated.close()
    return rows, failed, uq


def _cancelled_runs(done: int, total: int, out: Path) -> Cancelled:
    return Cancelled(
        f"cancelled after {done} of {total} runs; the {done} finished are kept in "
        f"{out / 'runs'} and the LLM cache (the same command resumes from them)"
    )


def tsu(
    cfg: ExperimentConfig,
    temperatures: Sequence[float],
    out: str | Path,
    *,
    llm_factory: Callable[[], Any],
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> ExperimentResult:
    """TSU per method over ``temperatures`` on the config's questions.

    TSU is the paper's Temperature Sensitivity of Uncertainty (§3 "Evaluation
    metrics", the TSU definition): the share of questions whose uncertainty
    rises with the temperature. Writes ``uq.csv`` (question × temperature ×
    method), ``tsu.{csv,md,tex,json}``. No correctness labels are needed: a
    ``--data`` file may have questions only. A run whose generation fails is
    left out (its question counts for the other temperatures' pairs only) and
    listed in ``failed``; fewer than 20 questions grey the table.

    Parameters
    ----------
    cfg : the experiment; ``cfg.run.temperature`` is replaced by each temperature.
    temperatures : at least two, strictly increasing, each in [0, 2].
    progress : a :class:`~invent_core.progress.Progress` event (stage ``"runs"``)
        after each (question, temperature).
    cancel : stop before the next run; finished runs are kept (see :func:`evaluate`).
    """
    from ..llm import LazyLLM

    t0 = time.perf_counter()
    temps = check_temperatures(temperatures)
    _check_perturber(cfg)
    out = Path(out)
    examples, sample = draw_examples(cfg, require_answers=False)
    methods = _method_names(cfg)
    with output_folder(out, TSU_FILES, _inputs(cfg)):
        (out / "runs").mkdir(exist_ok=True)
        _write_config(out, cfg, {"status": "running", "temperatures": temps})
        llm = LazyLLM(llm_factory)
        report = ProgressReporter(progress)
        rows, failed, uq = _tsu_runs(examples, temps, cfg, out, methods, llm, report, cancel)
        return _finish_tsu(out, cfg, temps, rows, failed, uq, sample, methods, llm, t0)


def _finish_tsu(
    out: Path, cfg, temps, rows, failed, uq, sample, methods, llm, t0
) -> ExperimentResult:
    """Write ``uq.csv``, ``tsu.*`` and ``config.json``; the :class:`ExperimentResult`."""
    from ..evaluation.metrics import tsu_table
    from ..evaluation.report import tsu_results_table
    from ..evaluation.sample_size import judgeable

    _write_rows(out / "uq.csv", rows, ["id", "question", "temperature", *methods])
    available = {m: v for m, v in uq.items() if not np.isnan(v).all()}
    if not available:
        raise InventError(
            f"no run gave a score ({len(failed)} failed; first: "
            f"{failed[0]['error'] if failed else 'every method unavailable'})"
        )
    pairs, chains = default_tsu_columns(temps)
    table = tsu_table(available, temps, pairs=pairs, chains=chains, nan_policy="omit")
    judgement = judgeable(len({r["id"] for r in rows}), None)
    rt = tsu_results_table(table, labels=_labels(list(table)))
    rt = rt if judgement.ok else rt.greyed(judgement.reason)
    extra = {
        "unavailable": sorted(set(uq) - set(available)),
        "judgement": {"ok": judgement.ok, "reason": judgement.reason},
        "failed": [
            {"id": r["id"], "temperature": r["temperature"], "error": r["error"]} for r in failed
        ],
        "sample": sample,
    }
    files = _write_tsu(out, rt, table, temps, extra)
    wall = time.perf_counter() - t0
    _write_config(out, cfg, {"temperatures": temps, "sample": sample, "wall_seconds": wall})
    return ExperimentResult(
        rows,
        methods,
        tsu=table,
        files=files,
        llm_started=llm.started,
        judgement=judgement,
        table=rt,
        failed=failed,
        sample=sample,
    )
