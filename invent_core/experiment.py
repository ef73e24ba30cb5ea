"""Reproduce the paper's tables: every method on the same responses, then AUROC/PRR/Brier and TSU.

``evaluate`` (Table 1) and ``tsu`` (Table tsu_horizontal) share one loop:
generate a run per question (LLM calls go through the persistent cache), save
it under ``<out>/runs/``, score every registered method on that same run,
judge the response the scores were computed from, and aggregate.

Re-running with the same settings reads the saved runs and per-question
scores and makes no LLM call; methods that ask the LLM extra questions (VU,
P(True)) keep their answers in the run's ``extras``.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .config import RunConfig, ScoreConfig, check_temperatures, flat_values, iter_options
from .errors import InventError
from .progress import ProgressCallback, ProgressReporter

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
    dataset: str | None = None  # one of invent_core.datasets.available_datasets()
    data: str | None = None  # or a user CSV/JSONL with question + answer
    limit: int | None = None
    sample_seed: int | None = None  # shuffle before --limit (None: file order)
    methods: tuple[str, ...] = ("all",)
    judge: str = "match"  # one of JUDGES
    n_boot_metrics: int = 40  # paper, Appendix "Calculation of Mean and Variance"

    def __post_init__(self) -> None:
        """Check the question source and the judge; store ``methods`` as a tuple."""
        if (self.dataset is None) == (self.data is None):
            raise ValueError("give exactly one of a dataset name (--dataset) or a file (--data)")
        if self.judge not in JUDGES:
            raise ValueError(f"unknown judge {self.judge!r}: use one of {', '.join(JUDGES)}")
        object.__setattr__(self, "methods", tuple(self.methods))

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
        """Inverse of :meth:`to_dict`; configs saved with flat run options load too."""
        own = {f.name for f in dataclasses.fields(cls)} - {"run"}
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
    return {k: v for k, v in flat_values(config).items() if k not in scoring}


def load_examples(cfg: ExperimentConfig, *, require_answers: bool = True):
    """Load the examples the config names (shipped sample or user file)."""
    from .datasets import load_dataset, load_examples_file

    if cfg.dataset:
        examples = load_dataset(cfg.dataset, limit=cfg.limit, seed=cfg.sample_seed)
    else:
        examples = load_examples_file(cfg.data, require_answers=require_answers)
        if cfg.limit is not None:
            examples = examples[: cfg.limit]
    if not examples:
        raise InventError("no examples to evaluate")
    return examples


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
):
    """Return the run of one example: the saved one when it has the same generation options.

    A saved run whose scoring options differ is rescored (no LLM call); else
    the run is generated and saved under ``runs_dir``.
    """
    from .pipeline import RunArtifact, run_question

    config = cfg.run if temperature is None else cfg.run.replace(temperature=temperature)
    path = _run_path(runs_dir, example, config.temperature)
    if path.is_file():
        run = RunArtifact.load(path)
        same_question = run.question == example.question.strip()
        if same_question and generation_key(run.config) == cfg.run_key(config.temperature):
            return run if run.config.score == config.score else run.rescore(config.score)
    run = run_question(
        example.question,
        config,
        llm=llm,
        task=example.task,
        choices=list(example.choices) if example.choices else None,
        progress=progress,
    )
    run.save(path)
    return run


def score_run(run, method_names: Sequence[str], llm: Any) -> dict[str, float]:
    """Every requested method on one run (NaN where a method is unavailable)."""
    from .registry import ScoringContext, compute_methods

    ctx = ScoringContext.from_run(run, llm=llm)
    results = compute_methods(ctx, method_names)
    return {name: res.value for name, res in results.items()}


@dataclass
class ExperimentResult:
    """What ``evaluate`` / ``tsu`` return: the rows, and the evaluation or TSU table."""

    rows: list[dict[str, Any]]  # one per question: id, question, response, correct, <method>…
    methods: list[str]
    evaluation: Any = None  # invent_core.evaluation.metrics.Evaluation
    tsu: dict[str, dict[str, float]] | None = None
    files: dict[str, str] = field(default_factory=dict)
    llm_started: bool = False


def _method_names(cfg: ExperimentConfig) -> list[str]:
    from .registry import resolve_methods

    return [m.name for m in resolve_methods(list(cfg.methods))]


def _read_scores(path: Path) -> dict[str, dict[str, Any]]:
    if not path.is_file():
        return {}
    with open(path, newline="", encoding="utf-8") as fh:
        return {row["id"]: row for row in csv.DictReader(fh)}


def _write_rows(path: Path, rows: list[dict[str, Any]], columns: list[str]) -> None:
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=columns, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    tmp.replace(path)


def _write_config(out: Path, cfg: ExperimentConfig, extra: dict[str, Any]) -> None:
    from .batch import package_versions  # the same package list the batch sidecar records

    meta = {"config": cfg.to_dict(), **extra, "versions": package_versions()}
    (out / "config.json").write_text(json.dumps(meta, indent=2, default=str))


def _judged_row(ex, run, values: dict[str, float], cfg: ExperimentConfig, llm: Any) -> dict:
    """One row of ``scores.csv``: the response the scores were computed from, judged."""
    from .evaluation.correctness import judge_correct

    response = run.responses[0][0]
    correct = judge_correct(
        response,
        list(ex.answers),
        dataset=ex.dataset if ex.dataset != "custom" else ex.task,
        question=ex.question,
        choices=list(ex.choices) if ex.choices else None,
        method=cfg.judge,
        llm=llm if cfg.judge == "llm" else None,
    )
    return {
        "id": ex.id,
        "dataset": ex.dataset,
        "question": ex.question,
        "response": response,
        "reference": " | ".join(ex.answers),
        "correct": int(bool(correct)),
        **values,
    }


def _saved_row(prev: dict[str, Any] | None, methods: list[str], columns: list[str]) -> dict | None:
    """Return the row saved by an earlier call when it has every method and a judgement."""
    if prev is None or prev.get("correct") == "":
        return None
    if not all(m in prev and prev[m] != "" for m in methods):
        return None
    return {k: prev[k] for k in columns}


def _evaluation(rows: list[dict[str, Any]], methods: list[str], cfg: ExperimentConfig, out: Path):
    """AUROC / PRR / Brier / ECE of every method on the judged rows (paired bootstrap)."""
    from .evaluation.metrics import DEFAULT_METRICS, evaluate_scores

    correct = np.array([int(r["correct"]) for r in rows])
    table = {m: np.array([float(r[m]) for r in rows]) for m in methods}
    if correct.min() == correct.max():
        raise InventError(
            f"all {len(rows)} answers were judged {'correct' if correct[0] else 'incorrect'}: AUROC, PRR and "
            f"Brier need both; the per-question scores are kept in {out / 'scores.csv'} "
            "(add questions with --limit, or use a stronger --llm)"
        )
    metrics = list(DEFAULT_METRICS)
    if len(rows) < 10:  # 5-fold cross-fitting needs a few answers per fold
        metrics = [m for m in metrics if m not in ("brier_cv", "ece")]
    return evaluate_scores(
        table, correct, n_boot=cfg.n_boot_metrics, seed=cfg.run.seed, metrics=metrics
    )


def _write_evaluation(out: Path, cfg: ExperimentConfig, evaluation, methods: list[str]) -> dict:
    """``results.{csv,md,tex,json}`` of an evaluation; returns name → path."""
    from .evaluation.report import results_table

    labels = _labels(methods)
    rt = results_table(evaluation, labels=labels)
    files = {
        "scores": str(out / "scores.csv"),
        "csv": str(out / "results.csv"),
        "markdown": str(out / "results.md"),
        "latex": str(out / "results.tex"),
        "json": str(out / "results.json"),
    }
    (out / "results.csv").write_text(rt.to_csv())
    (out / "results.md").write_text(rt.to_markdown() + "\n")
    caption = f"{cfg.dataset or cfg.data}: {evaluation.n_questions} questions"
    (out / "results.tex").write_text(rt.to_latex(caption=caption) + "\n")
    (out / "results.json").write_text(
        json.dumps({"labels": labels, **evaluation.to_dict()}, indent=2)
    )
    return files


def evaluate(
    cfg: ExperimentConfig,
    out: str | Path,
    *,
    llm_factory: Callable[[], Any],
    progress: ProgressCallback | None = None,
) -> ExperimentResult:
    """Table 1 for one dataset: per-question scores, correctness, and metric means ± std.

    Parameters
    ----------
    cfg : the experiment.
    out : folder for ``runs/``, ``scores.csv``, ``results.{csv,md,tex,json}``, ``config.json``.
    llm_factory : builds the LLM backend; called only if something must be generated.
    progress : called with a :class:`~invent_core.progress.Progress` event
        (stage ``"questions"``, the question as note) after each question.

    Returns
    -------
    ExperimentResult whose ``evaluation`` is what the result files show.
    """
    from .llm import LazyLLM

    out = Path(out)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    examples = load_examples(cfg)
    methods = _method_names(cfg)
    llm = LazyLLM(llm_factory)
    report = ProgressReporter(progress)
    saved = _read_scores(out / "scores.csv")
    rows: list[dict[str, Any]] = []
    columns = ["id", "dataset", "question", "response", "reference", "correct", *methods]
    for i, ex in enumerate(examples):
        row = _saved_row(saved.get(ex.id), methods, columns)
        if row is None:
            run = get_run(ex, cfg, out / "runs", llm)
            values = score_run(run, methods, llm)
            run.save(_run_path(out / "runs", ex, cfg.run.temperature))  # keeps extras (VU, P(True))
            row = _judged_row(ex, run, values, cfg, llm)
        rows.append(row)
        _write_rows(out / "scores.csv", rows, columns)  # checkpoint after every question
        report("questions", i + 1, len(examples), ex.question)
    evaluation = _evaluation(rows, methods, cfg, out)
    files = _write_evaluation(out, cfg, evaluation, methods)
    _write_config(out, cfg, {"n_questions": len(rows), "accuracy": evaluation.accuracy})
    return ExperimentResult(
        rows, methods, evaluation=evaluation, files=files, llm_started=llm.started
    )


def _labels(methods: Sequence[str]) -> dict[str, str]:
    from .registry import get_method

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


def _write_tsu(out: Path, table: dict, temps: list[float], unavailable: list[str]) -> dict:
    """``tsu.{csv,md,tex,json}`` of a TSU table; returns name → path (``uq`` included)."""
    from .evaluation.report import tsu_results_table

    rt = tsu_results_table(table, labels=_labels(list(table)))
    (out / "tsu.csv").write_text(rt.to_csv())
    (out / "tsu.md").write_text(rt.to_markdown() + "\n")
    (out / "tsu.tex").write_text(rt.to_latex(caption="TSU (%)") + "\n")
    (out / "tsu.json").write_text(
        json.dumps({"temperatures": temps, "tsu": table, "unavailable": unavailable}, indent=2)
    )
    files = {k: str(out / f"tsu.{k}") for k in ("csv", "md", "tex", "json")}
    return files | {"uq": str(out / "uq.csv")}


def tsu(
    cfg: ExperimentConfig,
    temperatures: Sequence[float],
    out: str | Path,
    *,
    llm_factory: Callable[[], Any],
    progress: ProgressCallback | None = None,
) -> ExperimentResult:
    """TSU (Eq. tsudefinition) per method over ``temperatures`` on the config's questions.

    Writes ``uq.csv`` (question × temperature × method), ``tsu.{csv,md,tex,json}``.
    No correctness labels are needed: a ``--data`` file may have questions only.

    Parameters
    ----------
    cfg : the experiment; ``cfg.run.temperature`` is replaced by each temperature.
    temperatures : at least two, strictly increasing, each in [0, 2].
    progress : a :class:`~invent_core.progress.Progress` event (stage ``"runs"``)
        after each (question, temperature).
    """
    from .evaluation.metrics import tsu_table
    from .llm import LazyLLM

    temps = check_temperatures(temperatures)
    out = Path(out)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    examples = load_examples(cfg, require_answers=False)
    methods = _method_names(cfg)
    llm = LazyLLM(llm_factory)
    report = ProgressReporter(progress)
    uq = {m: np.full((len(examples), len(temps)), np.nan) for m in methods}
    rows: list[dict[str, Any]] = []
    for i, ex in enumerate(examples):
        for j, t in enumerate(temps):
            run = get_run(ex, cfg, out / "runs", llm, temperature=t)
            values = score_run(run, methods, llm)
            run.save(_run_path(out / "runs", ex, t))
            for m in methods:
                uq[m][i, j] = values[m]
            rows.append({"id": ex.id, "question": ex.question, "temperature": t, **values})
            report("runs", len(rows), len(examples) * len(temps), f"T={t:g} {ex.question}")
    _write_rows(out / "uq.csv", rows, ["id", "question", "temperature", *methods])
    available = {m: v for m, v in uq.items() if not np.isnan(v).all()}
    pairs, chains = default_tsu_columns(temps)
    table = tsu_table(available, temps, pairs=pairs, chains=chains, nan_policy="omit")
    files = _write_tsu(out, table, temps, sorted(set(uq) - set(available)))
    _write_config(out, cfg, {"temperatures": temps})
    return ExperimentResult(rows, methods, tsu=table, files=files, llm_started=llm.started)
