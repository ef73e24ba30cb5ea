"""Which ψ_y and which padding? Saved evaluations re-scored under each, no new generation.

For every question of an ``evaluate`` folder with saved runs, Inv-Entropy is
scored again from the stored replies under each option (``answer_similarity`` ×
``padding``, :data:`OPTIONS`); the judge option asks its judge only for the answer
pairs the rules leave undecided, through the LLM cache. Per option and folder:

- Inv-Entropy's AUROC on the tuning half, the report half and all questions
  (halves by :func:`half`, a hash of the question id: defaults are chosen on
  ``tune`` and read on ``report``);
- its paired difference to the best baseline of the folder's ``scores.csv``
  (best by AUROC on all questions, as the results report names it), on the same
  resamples;
- its paired difference to today's default option (:data:`DEFAULT`, the
  ``ScoreConfig`` defaults) on all questions, same resamples, Holm-adjusted over the
  options of the folder, so a choice between options rests on an interval and not on
  two point values;
- the count-only AUROC (distinct rewordings the run was asked) and Inv-Entropy's
  AUROC within strata of that count (:func:`~invent_core.evaluation.confound.stratified_auroc`).

:func:`study_folder` returns a JSON-ready dict; ``scripts/answer_similarity_study.py``
writes it and ``scripts/make_results.py`` renders it in RESULTS.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..config import ScoreConfig
from ..engine.artifact import RunArtifact
from ..evaluation.confound import stratified_auroc
from ..evaluation.metrics import evaluate_scores
from ..evaluation.metrics.paired import PairedDifference, holm_adjusted, paired_difference
from ..evaluation.metrics.ranking import auroc_score
from ..methods.registry import list_methods
from ..responses.equivalence import rule_verdict
from .config import ExperimentConfig
from .counts import distinct_rewordings
from .folder import read_evaluation
from .rescore import NoLLM
from .runs import run_path, score_run

__all__ = ["DEFAULT", "OPTIONS", "baselines", "half", "study_folder"]

#: (answer_similarity, padding) pairs compared; the first is the paper's (the reference).
OPTIONS: tuple[tuple[str, str], ...] = (
    ("embedding", "paper"),
    ("embedding", "distinct"),
    ("rules", "paper"),
    ("rules", "distinct"),
    ("judge", "paper"),
    ("judge", "distinct"),
    ("canonical", "distinct"),
    ("lexical", "distinct"),
)


#: today's default (answer_similarity, padding): each option is set against it, paired.
DEFAULT: tuple[str, str] = (ScoreConfig().answer_similarity, ScoreConfig().padding)


def baselines() -> list[str]:
    """The registered baselines, the columns of scores.csv a folder's best is chosen among."""
    return [m.name for m in list_methods("baseline")]


def half(question_id: str) -> str:
    """``"tune"`` or ``"report"``: sha256 of the id, even → tune (stable across runs)."""
    return (
        "tune" if int(hashlib.sha256(question_id.encode()).hexdigest(), 16) % 2 == 0 else "report"
    )


def _label(option: tuple[str, str]) -> str:
    return f"{option[0]}+{option[1]}"


def _rows(folder: Path) -> list[dict[str, Any]]:
    return read_evaluation(folder).judged  # the labels the metrics read (relabels applied)


def _runs(folder: Path, rows: list[dict[str, Any]]) -> list[RunArtifact]:
    meta = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    temperature = ExperimentConfig.from_dict(meta["config"]).run.temperature
    out = []
    for row in rows:
        path = run_path(folder / "runs", str(row["id"]), temperature)
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no saved run of {row['id']!r}")
        out.append(RunArtifact.load(path))
    return out


def undecided_pairs(runs: Sequence[RunArtifact]) -> int:
    """How many distinct answer pairs the rules leave to the judge, over all ``runs``."""
    total = 0
    for run in runs:
        answers = sorted({t for reps in run.responses for t in reps})
        choices = list(run.choices) if run.choices else None
        total += sum(
            rule_verdict(run.question, a, b, choices=choices) is None
            for i, a in enumerate(answers)
            for b in answers[i + 1 :]
        )
    return total


def rescored_inv(
    runs: Sequence[RunArtifact],
    options: Sequence[tuple[str, str]],
    *,
    judge: str = "local",
    progress: Callable[[str], None] | None = None,
) -> dict[str, np.ndarray]:
    """Inv-Entropy per run under every option, from the stored replies."""
    llm, out = NoLLM(), {}
    for option in options:
        t0 = time.perf_counter()
        values = []
        for run in runs:
            again = run.rescore(answer_similarity=option[0], padding=option[1], answer_judge=judge)
            values.append(score_run(again, ["inv_entropy"], llm)["inv_entropy"])
        out[_label(option)] = np.asarray(values, dtype=np.float64)
        if progress:
            progress(f"{_label(option)}: {len(runs)} runs in {time.perf_counter() - t0:.0f} s")
    return out


def _best_baseline(rows: list[dict[str, Any]], correct: np.ndarray) -> str | None:
    best, best_auroc = None, -1.0
    for name in baselines():
        if name not in rows[0] or any(r.get(name) in ("", None) for r in rows):
            continue
        values = np.array([float(r[name]) for r in rows])
        if np.isnan(values).any():
            continue
        a = auroc_score(correct, values)
        if a > best_auroc:
            best, best_auroc = name, a
    return best


def _summary(s: Any) -> dict[str, Any]:
    return {"value": s.point, "ci95": list(s.ci95)}


def _paired(results: dict[str, Any], label: str, other: str, n: int) -> PairedDifference:
    """``label`` − ``other`` (AUROC) over the resamples both were scored on."""
    mine, theirs = results[label], results[other]
    return paired_difference(
        label,
        other,
        "auroc",
        (mine.point, theirs.point),
        (mine.values, theirs.values),
        n_questions=n,
    )


def _vs_default(results: dict[str, Any], labels: Sequence[str], n: int) -> dict[str, Any]:
    """Every option − the default, Holm-adjusted as one family per folder (JSON-ready)."""
    default = _label(DEFAULT)
    if default not in results:
        return {}
    row = {
        label: _paired(results, label, default, n)
        for label in labels
        if label != default and label in results
    }
    return {label: d.to_dict() for label, d in holm_adjusted(row).items()}


def _part(
    table: dict[str, np.ndarray], correct: np.ndarray, n_bootstrap: int, seed: int
) -> dict[str, Any]:
    """AUROC of every column of ``table`` on one set of questions (NaN-free), same resamples."""
    if not 0 < int(correct.sum()) < len(correct):
        return {}
    ev = evaluate_scores(table, correct, n_bootstrap=n_bootstrap, seed=seed, metrics=("auroc",))
    return {name: ev.results[name]["auroc"] for name in ev.results}


def study_folder(
    folder: str | Path,
    *,
    options: Sequence[tuple[str, str]] = OPTIONS,
    judge: str = "local",
    n_bootstrap: int = 1000,
    seed: int = 0,
    judge_limit: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Every option's Inv-Entropy AUROC on one evaluation folder (see the module docstring).

    ``judge_limit``: leave the judge options out (saying why) where the rules leave more
    distinct answer pairs than this to the judge (each is one LLM request).
    """
    folder = Path(folder)
    rows = _rows(folder)
    runs = _runs(folder, rows)
    skipped = {}
    if any(o[0] == "judge" for o in options):
        todo = undecided_pairs(runs)
        if judge_limit is not None and todo > judge_limit:
            note = f"{todo} answer pairs for the judge (limit {judge_limit}): not asked"
            skipped = {_label(o): note for o in options if o[0] == "judge"}
            options = [o for o in options if o[0] != "judge"]
    correct = np.array([int(r["correct"]) for r in rows])
    halves = np.array([half(str(r["id"])) for r in rows])
    table = rescored_inv(runs, options, judge=judge, progress=progress)
    best = _best_baseline(rows, correct)
    count = np.array([distinct_rewordings(run.questions) for run in runs], dtype=np.float64)
    extra = {"count": count}
    if best:
        extra[best] = np.array([float(r[best]) for r in rows])
    parts: dict[str, dict[str, Any]] = {}
    for name, keep in (("all", None), ("tune", "tune"), ("report", "report")):
        idx = np.arange(len(rows)) if keep is None else np.flatnonzero(halves == keep)
        sub = {k: v[idx] for k, v in {**table, **extra}.items()}
        parts[name] = _part(sub, correct[idx], n_bootstrap, seed)
    out_options = {}
    vs_default = _vs_default(parts["all"], [_label(o) for o in options], len(rows))
    for option in options:
        label = _label(option)
        cell: dict[str, Any] = {}
        for name, res in parts.items():
            if label in res:
                cell[name] = _summary(res[label])
        if best and label in parts["all"]:
            cell["vs_best_baseline"] = _paired(parts["all"], label, best, len(rows)).to_dict()
        if label in vs_default:
            cell["vs_default"] = vs_default[label]
        strat = stratified_auroc(correct, table[label], count, n_bootstrap=n_bootstrap, seed=seed)
        cell["within_count_strata"] = strat
        out_options[label] = cell
    return {
        "folder": folder.name,
        "n": len(rows),
        "n_right": int(correct.sum()),
        "judge": judge,
        "best_baseline": best,
        "best_baseline_auroc": _summary(parts["all"][best]) if best in parts["all"] else None,
        "count_auroc": _summary(parts["all"]["count"]) if "count" in parts["all"] else None,
        "halves": {
            "tune": int((halves == "tune").sum()),
            "report": int((halves == "report").sum()),
        },
        "options": out_options,
        "skipped": skipped,
    }
