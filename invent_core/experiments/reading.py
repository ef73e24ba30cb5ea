"""How an evaluation is read: paired differences, the guess rate, and what each table measured.

:func:`best_baseline` is the baseline with the highest AUROC on the sample;
:func:`with_paired_block` adds, for Inv-Entropy and for that baseline, the
paired difference to every other method (``results.json``'s ``paired``).
:func:`sample_guess_rate` is a blind guess's accuracy on multiple-choice
questions (None for free text), which :func:`~invent_core.evaluation.sample_size.judgeable`
weighs. :func:`measured` says beside every table which rule labelled the
answers, which answer was scored, each method's orientation, and which
methods look inverted (AUROC below 0.5 beyond its interval).
"""

from __future__ import annotations

from typing import Any

from ..evaluation.correctness import FREE_TEXT_RULES, MATCHERS
from ..evaluation.metrics import Evaluation
from ..evaluation.sample_size import guess_rate
from ..methods.registry import get_method
from .config import ExperimentConfig

__all__ = [
    "INV",
    "best_baseline",
    "measured",
    "measured_notes",
    "possibly_inverted",
    "sample_guess_rate",
    "with_paired_block",
    "label_rule",
]

#: The method every evaluation is read against.
INV = "inv_entropy"

#: What each matching rule of ``evaluation.correctness.MATCHERS`` calls a right answer.
_RULES: dict[str, str] = {
    "alias": "right when the canonical answer equals one of the reference's aliases "
    "(normalised text)",
    "contains": "right when the canonical answer and the reference contain each other "
    "(normalised text)",
    "number": "right when the canonical answer's number equals the reference",
    "mmlu": "right when the chosen option is the reference's",
    "gsm8k": "right when the final number equals the reference's",
}


def best_baseline(evaluation: Evaluation, metric: str = "auroc") -> str | None:
    """The baseline with the highest ``metric`` on the sample (the first in order on a tie)."""
    best, value = None, float("-inf")
    for name, row in evaluation.results.items():
        if get_method(name).family == "baseline" and metric in row and row[metric].point > value:
            best, value = name, row[metric].point
    return best


def with_paired_block(evaluation: Evaluation) -> Evaluation:
    """The evaluation with the paired AUROC differences of Inv-Entropy and the best baseline."""
    refs = [m for m in (INV, best_baseline(evaluation)) if m is not None]
    return evaluation.with_paired(refs)


def sample_guess_rate(examples) -> float | None:
    """A blind guess's accuracy on these questions: mean 1/k over k choices; None for free text."""
    return guess_rate([len(ex.choices) if ex.choices else None for ex in examples])


def possibly_inverted(evaluation: Evaluation) -> list[str]:
    """Methods whose AUROC interval lies wholly below 0.5: ranked the wrong way round."""
    return [
        name
        for name, row in evaluation.results.items()
        if "auroc" in row and row["auroc"].ci95[1] < 0.5
    ]


def label_rule(cfg: ExperimentConfig) -> str:
    """The rule that labelled the answers, in words: the judge's, not only the dataset's.

    The paraphrase judges widen only the free-text rules (``FREE_TEXT_RULES``); on
    MMLU, GSM8K and the testbed they are the exact rule and are named as such.
    """
    if cfg.judge == "llm":
        return "right when the LLM judge (the paper's prompt) says the answer matches the reference"
    dataset = cfg.dataset or "custom"
    rule = MATCHERS.get(dataset)
    exact = _RULES.get(rule or "", f"the {dataset} rule of evaluation.correctness")
    if cfg.judge == "match" or rule not in FREE_TEXT_RULES:
        return exact
    widened = (f"the paraphrase judge: {exact}, or when it says the reference in other words "
               "(containment, numbers, WordNet lemmas; evaluation.paraphrase_judge)")  # fmt: skip
    if cfg.judge == "paraphrase-llm":
        widened += ", the undecided band asked of the LLM"
    return widened


def _answer_scored(cfg: ExperimentConfig) -> str:
    t = cfg.run.temperature
    how = "greedy (T = 0)" if t == 0 else f"sampled at T = {t}"
    return f"the first reply to the original question (replication 0), {how}"


def measured(cfg: ExperimentConfig, evaluation: Evaluation) -> dict[str, Any]:
    """What the table measured: label rule, answer scored, orientation, inverted methods."""
    return {
        "label_rule": label_rule(cfg),
        "answer_scored": _answer_scored(cfg),
        "orientation": {
            name: "higher = more uncertain; ranked by its negative"
            for name in (*evaluation.results, *evaluation.skipped)
        },
        "possibly_inverted": possibly_inverted(evaluation),
        "centre": (
            "the metric on the whole sample, ± std and [95 % percentile interval] over "
            f"{evaluation.n_bootstrap} paired resamples"
            if evaluation.centre == "sample"
            else f"the mean ± std over {evaluation.n_bootstrap} resamples (the paper's convention)"
        ),
    }


def measured_notes(block: dict[str, Any], labels: dict[str, str]) -> list[str]:
    """The lines printed beside a table from a :func:`measured` block."""
    lines = [
        f"Labels: {block['label_rule']}.",
        f"Scored answer: {block['answer_scored']}.",
        "Orientation: every method's value is an uncertainty (higher = less to be trusted); "
        "the metrics rank answers by its negative.",
        f"Cells: {block['centre']}.",
    ]
    for name in block.get("possibly_inverted", []):
        lines.append(
            f"{labels.get(name, name)}: AUROC below 0.5 beyond its interval — possibly inverted."
        )
    return lines
