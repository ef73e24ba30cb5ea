"""Evaluation metrics for uncertainty scores.

Paper §3 "Evaluation metrics" and Appendix "Calculation of Mean and Variance".

Every metric takes ``(correct, uncertainty)``: ``correct`` is a 1-D array of 0/1 (or bool)
judgements of the answers, ``uncertainty`` a 1-D float array of the same length,
"higher = more uncertain". The turn into confidence happens in exactly one place,
:func:`confidence_from_uncertainty` (paper: "Confidence is taken as the negative of the
UQ measure"). Names follow scikit-learn: ``*_score`` is higher-is-better, ``*_loss``
lower-is-better. Nothing here formats numbers; see :mod:`invent_core.evaluation.tables`.

Modules
-------
- :mod:`.inputs` — the checks every metric makes, and :func:`confidence_from_uncertainty`.
- :mod:`.ranking` — :func:`auroc_score`; :func:`prr_score`, the prediction-rejection
  ratio of Malinin et al. (2021), with the curve data in :func:`rejection_curve`;
  :func:`auprc_released_code_score`, what the paper's released code reports as "PRR":
  ``AP(correct, confidence) / AP(correct, correct)``, i.e. the AUPRC.
- :mod:`.calibration` — :func:`brier_isotonic_loss`, the Brier score after isotonic
  mapping of uncertainty to P(correct), in-sample (the paper) or cross-fitted;
  :func:`ece_loss` / :func:`reliability_diagram`, the expected calibration error of
  the isotonic-calibrated probabilities.
- :mod:`.registry` — :data:`METRICS`, the metrics by name.
- :mod:`.bootstrap` — :func:`bootstrap_indices` / :func:`paired_bootstrap`: std and
  95 % percentile interval over 1,000 resamples (:data:`CONVENTIONS`: ours, and the
  paper's mean ± std over 40).
- :mod:`.paired` — :func:`paired_difference`: one method minus another over the same
  resamples, with its interval, verdict and the questions a difference would need.
- :mod:`.summary` — :func:`evaluate_scores`, every metric for every method on the same
  resamples; :func:`point_metrics`, full-sample values per method, with the reason
  when a metric is undefined (:func:`undefined_reason`); batch summaries use it.
- :mod:`.tsu` — :func:`tsu_score`, :func:`tsu_pair`, :func:`tsu_chain`,
  :func:`tsu_table`: Temperature Sensitivity of Uncertainty, Eq. (tsudefinition).
"""

from __future__ import annotations

from .bootstrap import (
    CI_LEVEL,
    CONVENTIONS,
    N_BOOTSTRAP,
    PAPER_N_BOOTSTRAP,
    BootstrapResult,
    Convention,
    bootstrap_indices,
    paired_bootstrap,
    percentile_interval,
)
from .calibration import (
    ReliabilityDiagram,
    brier_isotonic_loss,
    ece_loss,
    isotonic_probabilities,
    reliability_diagram,
)
from .inputs import confidence_from_uncertainty
from .paired import AHEAD, BEHIND, NOT_DISTINGUISHABLE, PairedDifference, paired_difference
from .ranking import (
    RejectionCurve,
    auprc_released_code_score,
    auroc_score,
    prr_score,
    rejection_curve,
)
from .registry import DEFAULT_METRICS, METRICS, Metric
from .summary import Evaluation, MetricSummary, evaluate_scores, point_metrics, undefined_reason
from .tsu import (
    PAPER_TSU_CHAINS,
    PAPER_TSU_PAIRS,
    tsu_chain,
    tsu_label,
    tsu_pair,
    tsu_score,
    tsu_table,
)

__all__ = [
    "METRICS",
    "DEFAULT_METRICS",
    "N_BOOTSTRAP",
    "PAPER_N_BOOTSTRAP",
    "CI_LEVEL",
    "CONVENTIONS",
    "Convention",
    "percentile_interval",
    "PairedDifference",
    "paired_difference",
    "AHEAD",
    "BEHIND",
    "NOT_DISTINGUISHABLE",
    "Metric",
    "RejectionCurve",
    "ReliabilityDiagram",
    "BootstrapResult",
    "MetricSummary",
    "Evaluation",
    "confidence_from_uncertainty",
    "auroc_score",
    "rejection_curve",
    "prr_score",
    "auprc_released_code_score",
    "isotonic_probabilities",
    "brier_isotonic_loss",
    "reliability_diagram",
    "ece_loss",
    "bootstrap_indices",
    "paired_bootstrap",
    "evaluate_scores",
    "point_metrics",
    "undefined_reason",
    "tsu_score",
    "tsu_pair",
    "tsu_chain",
    "tsu_label",
    "tsu_table",
    "PAPER_TSU_PAIRS",
    "PAPER_TSU_CHAINS",
]
