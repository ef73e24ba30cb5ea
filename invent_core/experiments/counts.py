"""The counts behind a saved evaluation's questions, and its headline set beside them.

:func:`question_counts` reads each question's saved run and counts, with no
model: the distinct rewordings the run was asked (texts other than the
original's, after case and spacing) and the distinct canonical answers among the
replies to the original question. :func:`folder_confound` sets a method's AUROC
(Inv-Entropy by default) beside each count's on the folder's judged questions
(:func:`~invent_core.evaluation.confound.count_confound`), with the
evaluation's own resamples, so the method's interval is the one its table shows.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..engine.artifact import RunArtifact
from ..evaluation.confound import COUNT_LABELS, CountCheck, count_confound, stratified_auroc
from ..responses.canonical import canonical_answer
from .config import ExperimentConfig
from .folder import read_evaluation
from .runs import run_path

__all__ = [
    "distinct_answers",
    "distinct_rewordings",
    "folder_confound",
    "folder_within_strata",
    "question_counts",
]


def _norm(text: str) -> str:
    return " ".join(str(text).split()).casefold()


def distinct_rewordings(questions: Sequence[str]) -> int:
    """How many different rewordings follow the original ``questions[0]`` (padding counted once)."""
    original = _norm(questions[0]) if questions else ""
    return len({_norm(q) for q in questions[1:]} - {original})


def distinct_answers(replies: Sequence[str], *, task: str, choices: Sequence[str] | None) -> int:
    """How many different canonical answers the replies hold (the reply itself where none)."""
    forms = set()
    for reply in replies:
        form = canonical_answer(reply, task=task, choices=choices).text or reply
        forms.add(_norm(form))
    return len(forms)


def _run_counts(run: RunArtifact) -> dict[str, int]:
    cleaned = getattr(run, "cleaned_responses", None) or run.responses
    choices = list(run.choices) if run.choices else None
    return {
        "distinct_rewordings": distinct_rewordings(run.questions),
        "distinct_answers": distinct_answers(cleaned[0], task=run.task, choices=choices),
    }


def question_counts(folder: str | Path, ids: Sequence[str]) -> dict[str, dict[str, int]]:
    """Per question id, {count name: value} from the saved runs of an evaluate ``folder``.

    Raises
    ------
    FileNotFoundError
        Naming the first run the folder lacks (an evaluation shipped without runs).
    """
    out = Path(folder)
    meta = json.loads((out / "config.json").read_text(encoding="utf-8"))
    temperature = ExperimentConfig.from_dict(meta["config"]).run.temperature
    counts = {}
    for i in ids:
        path = run_path(out / "runs", i, temperature)
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no saved run of {i!r}, so nothing to count")
        counts[i] = _run_counts(RunArtifact.load(path))
    return counts


def _judged_inputs(folder: str | Path, method: str):
    """(config, correct, the method's values, {count name: values}) on a folder's judged rows.

    The rows are those the evaluation's metrics read (no error, a label).
    """
    ev = read_evaluation(folder)  # the labels the metrics read: the reviewer's layer applied
    out, cfg, rows = ev.path, ExperimentConfig.from_dict(ev.config), ev.judged
    if method not in ev.methods:
        raise ValueError(f"{out / 'scores.csv'}: no column {method!r}")
    counts = question_counts(out, [str(r["id"]) for r in rows])
    return (
        cfg,
        np.array([int(r["correct"]) for r in rows]),
        np.array([float(r[method]) for r in rows]),
        {name: np.array([counts[str(r["id"])][name] for r in rows]) for name in COUNT_LABELS},
    )


def folder_within_strata(
    folder: str | Path, method: str = "inv_entropy", count: str = "distinct_rewordings"
) -> dict:
    """``method``'s AUROC within strata of ``count`` on a folder's judged questions.

    :func:`~invent_core.evaluation.confound.stratified_auroc` on the evaluation's resamples.
    """
    cfg, correct, values, counts = _judged_inputs(folder, method)
    return stratified_auroc(
        correct, values, counts[count], n_bootstrap=cfg.n_bootstrap_metrics, seed=cfg.run.seed
    )


def folder_confound(folder: str | Path, method: str = "inv_entropy") -> dict[str, CountCheck]:
    """``method`` against every count of :data:`COUNT_LABELS` on a folder's judged questions.

    The resamples are the evaluation's (its ``n_bootstrap_metrics`` and seed).
    """
    cfg, correct, values, counts = _judged_inputs(folder, method)
    return count_confound(
        correct,
        values,
        counts,
        method=method,
        n_bootstrap=cfg.n_bootstrap_metrics,
        seed=cfg.run.seed,
    )
