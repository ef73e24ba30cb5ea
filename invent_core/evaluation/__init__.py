"""Evaluation of uncertainty scores: correctness judging, metrics, result tables.

Pure numpy/scipy/scikit-learn; importing it loads no model library.
"""

from __future__ import annotations

from .agreement import COINCIDE_RHO, RankCorrelation, rank_correlation
from .correctness import judge_correct, normalize_answer
from .metrics import (
    DEFAULT_METRICS,
    METRICS,
    Evaluation,
    MetricSummary,
    auprc_released_code_score,
    auroc_score,
    brier_isotonic_loss,
    confidence_from_uncertainty,
    ece_loss,
    evaluate_scores,
    isotonic_probabilities,
    paired_bootstrap,
    prr_score,
    rejection_curve,
    reliability_diagram,
    tsu_chain,
    tsu_label,
    tsu_pair,
    tsu_score,
    tsu_table,
)
from .tables import ResultsTable, results_table, tsu_results_table

__all__ = [
    "COINCIDE_RHO",
    "RankCorrelation",
    "rank_correlation",
    "DEFAULT_METRICS",
    "METRICS",
    "Evaluation",
    "MetricSummary",
    "ResultsTable",
    "auprc_released_code_score",
    "auroc_score",
    "brier_isotonic_loss",
    "confidence_from_uncertainty",
    "ece_loss",
    "evaluate_scores",
    "isotonic_probabilities",
    "judge_correct",
    "normalize_answer",
    "paired_bootstrap",
    "prr_score",
    "rejection_curve",
    "reliability_diagram",
    "results_table",
    "tsu_chain",
    "tsu_label",
    "tsu_pair",
    "tsu_results_table",
    "tsu_score",
    "tsu_table",
]
