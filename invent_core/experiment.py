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
import hashlib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .errors import InventError


@dataclass(frozen=True)
class ExperimentConfig:
    """What an experiment runs; defaults follow the paper's "Experimental setting"."""

    dataset: str | None = None  # one of invent_core.datasets.available_datasets()
    data: str | None = None  # or a user CSV/JSONL with question + answer
    limit: int | None = None
    sample_seed: int | None = None  # shuffle before --limit (None: file order)
    methods: tuple[str, ...] = ("all",)
    perturber: str = "paraphrase"  # paper Table 1: ChatGPT-based paraphrasing
    n_perturbations: int = 9  # paper, "Perturbation Configuration"
    n_replications: int = 5  # paper, "Replication and Bootstrapping" (r = 5)
    n_bootstrap: int = 30  # paper (S = 30)
    temperature: float = 0.7  # paper, "LLM Configuration"
    seed: int = 0
    embedder: str = "minilm"
    judge: str = "match"  # "match" (rules per dataset) or "llm" (paper's judge prompt)
    n_boot_metrics: int = 40  # paper, "Calculation of Mean and Variance"

    def __post_init__(self) -> None:
        if (self.dataset is None) == (self.data is None):
            raise ValueError("give exactly one of a dataset name (--dataset) or a file (--data)")
        if self.judge not in ("match", "llm"):
            raise ValueError(f"unknown judge {self.judge!r}: use 'match' or 'llm'")

    def run_key(self, temperature: float | None = None) -> dict[str, Any]:
        """The settings a saved run must share to be reused."""
        return {
            "perturber": self.perturber,
            "n_perturbations": self.n_perturbations,
            "n_replications": self.n_replications,
            "temperature": self.temperature if temperature is None else temperature,
            "seed": self.seed,
        }


def load_examples(cfg: ExperimentConfig):
    """The examples the config names (shipped sample or user file)."""
    from .datasets import load_dataset, load_examples_file

    if cfg.dataset:
        examples = load_dataset(cfg.dataset, limit=cfg.limit, seed=cfg.sample_seed)
    else:
        examples = load_examples_file(cfg.data, require_answers=True)
        if cfg.limit is not None:
            examples = examples[: cfg.limit]
    if not examples:
        raise InventError("no examples to evaluate")
    return examples


def _safe(name: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(name))[:60]
    return f"{slug}-{hashlib.sha1(str(name).encode()).hexdigest()[:8]}"


def get_run(
    example,
    cfg: ExperimentConfig,
    runs_dir: Path,
    llm: Any,
    *,
    temperature: float | None = None,
    progress: Callable | None = None,
):
    """The run of one example: loaded when saved with the same settings, else generated and saved."""
    from .pipeline import RunArtifact, run_question

    temp = cfg.temperature if temperature is None else temperature
    path = runs_dir / f"{_safe(example.id)}_T{temp:g}.json"
    key = cfg.run_key(temp)
    if path.is_file():
        run = RunArtifact.load(path)
        saved = {k: run.settings.get(k) for k in key}
        if saved == key:
            if (
                run.settings.get("n_bootstrap") != cfg.n_bootstrap
                or run.settings.get("embedder") != cfg.embedder
            ):
                run = run.rescore(embedder=cfg.embedder, n_bootstrap=cfg.n_bootstrap)
            return run
    run = run_question(
        example.question,
        perturber=cfg.perturber,
        llm=llm,
        embedder=cfg.embedder,
        n_perturbations=cfg.n_perturbations,
        n_replications=cfg.n_replications,
        temperature=temp,
        n_bootstrap=cfg.n_bootstrap,
        seed=cfg.seed,
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

    meta = {"config": asdict(cfg), **extra, "versions": package_versions()}
    (out / "config.json").write_text(json.dumps(meta, indent=2, default=str))


def evaluate(
    cfg: ExperimentConfig,
    out: str | Path,
    *,
    llm_factory: Callable[[], Any],
    progress: Callable[[int, int, str], None] | None = None,
) -> ExperimentResult:
    """Table 1 for one dataset: per-question scores, correctness, and metric means ± std.

    Parameters
    ----------
    cfg : the experiment.
    out : folder for ``runs/``, ``scores.csv``, ``results.{csv,md,tex}``, ``config.json``.
    llm_factory : builds the LLM backend; called only if something must be generated.
    progress : called after each question with (done, total, note).
    """
    from .evaluation.correctness import judge_correct
    from .evaluation.metrics import DEFAULT_METRICS, evaluate_scores
    from .evaluation.report import results_table
    from .llm import LazyLLM

    out = Path(out)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    examples = load_examples(cfg)
    methods = _method_names(cfg)
    llm = LazyLLM(llm_factory)
    saved = _read_scores(out / "scores.csv")
    rows: list[dict[str, Any]] = []
    columns = ["id", "dataset", "question", "response", "reference", "correct", *methods]
    for i, ex in enumerate(examples):
        prev = saved.get(ex.id)
        if (
            prev is not None
            and all(m in prev and prev[m] != "" for m in methods)
            and prev.get("correct") != ""
        ):
            row = {k: prev[k] for k in columns}
        else:
            run = get_run(ex, cfg, out / "runs", llm)
            values = score_run(run, methods, llm)
            run.save(
                out / "runs" / f"{_safe(ex.id)}_T{cfg.temperature:g}.json"
            )  # keeps extras (VU, P(True))
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
            row = {
                "id": ex.id,
                "dataset": ex.dataset,
                "question": ex.question,
                "response": response,
                "reference": " | ".join(ex.answers),
                "correct": int(bool(correct)),
                **values,
            }
        rows.append(row)
        _write_rows(out / "scores.csv", rows, columns)  # checkpoint after every question
        if progress:
            progress(i + 1, len(examples), ex.question)

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
    evaluation = evaluate_scores(
        table, correct, n_boot=cfg.n_boot_metrics, seed=cfg.seed, metrics=metrics
    )
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
    (out / "results.tex").write_text(
        rt.to_latex(caption=f"{cfg.dataset or cfg.data}: {len(rows)} questions") + "\n"
    )
    (out / "results.json").write_text(
        json.dumps({"labels": labels, **evaluation.to_dict()}, indent=2)
    )
    _write_config(out, cfg, {"n_questions": len(rows), "accuracy": float(correct.mean())})
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


def tsu(
    cfg: ExperimentConfig,
    temperatures: Sequence[float],
    out: str | Path,
    *,
    llm_factory: Callable[[], Any],
    progress: Callable[[int, int, str], None] | None = None,
) -> ExperimentResult:
    """TSU (Eq. tsudefinition) per method over ``temperatures`` on the config's questions.

    Writes ``uq.csv`` (question × temperature × method), ``tsu.{csv,md,tex,json}``.
    """
    from .evaluation.metrics import tsu_table
    from .evaluation.report import tsu_results_table
    from .llm import LazyLLM

    temps = [float(t) for t in temperatures]
    if len(temps) < 2 or any(b <= a for a, b in zip(temps, temps[1:])):
        raise ValueError(
            f"temperatures must be at least two strictly increasing values, got {temps}"
        )
    out = Path(out)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    examples = load_examples(cfg)
    methods = _method_names(cfg)
    llm = LazyLLM(llm_factory)
    uq = {m: np.full((len(examples), len(temps)), np.nan) for m in methods}
    rows: list[dict[str, Any]] = []
    total = len(examples) * len(temps)
    done = 0
    for i, ex in enumerate(examples):
        for j, t in enumerate(temps):
            run = get_run(ex, cfg, out / "runs", llm, temperature=t)
            values = score_run(run, methods, llm)
            run.save(out / "runs" / f"{_safe(ex.id)}_T{t:g}.json")
            for m in methods:
                uq[m][i, j] = values[m]
            rows.append({"id": ex.id, "question": ex.question, "temperature": t, **values})
            done += 1
            if progress:
                progress(done, total, f"T={t:g} {ex.question}")
    _write_rows(out / "uq.csv", rows, ["id", "question", "temperature", *methods])
    available = {m: v for m, v in uq.items() if not np.isnan(v).all()}
    pairs, chains = default_tsu_columns(temps)
    table = tsu_table(available, temps, pairs=pairs, chains=chains, nan_policy="omit")
    rt = tsu_results_table(table, labels=_labels(list(table)))
    (out / "tsu.csv").write_text(rt.to_csv())
    (out / "tsu.md").write_text(rt.to_markdown() + "\n")
    (out / "tsu.tex").write_text(rt.to_latex(caption="TSU (%)") + "\n")
    (out / "tsu.json").write_text(
        json.dumps(
            {"temperatures": temps, "tsu": table, "unavailable": sorted(set(uq) - set(available))},
            indent=2,
        )
    )
    _write_config(out, cfg, {"temperatures": temps})
    files = {k: str(out / f"tsu.{k}") for k in ("csv", "md", "tex", "json")} | {
        "uq": str(out / "uq.csv")
    }
    return ExperimentResult(rows, methods, tsu=table, files=files, llm_started=llm.started)
