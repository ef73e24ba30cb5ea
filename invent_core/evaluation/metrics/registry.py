"""The metrics by name: :data:`METRICS` maps ``"auroc"`` … ``"ece"`` to a :class:`Metric`.

A :class:`Metric` is a function ``(correct, uncertainty) -> float`` with its
label, its direction and whether it needs both right and wrong answers; the
bootstrap and the evaluation tables look metrics up here by name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .calibration import brier_isotonic_loss, ece_loss
from .ranking import auprc_released_code_score, auroc_score, prr_score


@dataclass(frozen=True)
class Metric:
    """A metric of ``(correct, uncertainty) -> float`` with its direction.

    ``needs_both_classes``: undefined when every answer is correct or every one incorrect.
    ``cross_fit``: the function takes ``groups=`` (answers that share a fold), which the
    bootstrap sets to a resample's indices so that copies of one question share a fold.
    """

    name: str
    label: str
    func: Callable[[np.ndarray, np.ndarray], float]
    higher_is_better: bool
    needs_both_classes: bool = True
    cross_fit: bool = False


def _brier_cv(correct: ArrayLike, uncertainty: ArrayLike, groups: ArrayLike | None = None) -> float:
    return brier_isotonic_loss(correct, uncertainty, cross_fit=True, groups=groups)


METRICS: dict[str, Metric] = {
    m.name: m
    for m in (
        Metric("auroc", "AUROC", auroc_score, True),
        Metric("prr", "PRR", prr_score, True),
        Metric("auprc", "AUPRC (released-code PRR)", auprc_released_code_score, True),
        Metric("brier", "Brier", brier_isotonic_loss, False, needs_both_classes=False),
        Metric("brier_cv", "Brier (cross-fit)", _brier_cv, False, False, cross_fit=True),
        Metric("ece", "ECE (cross-fit)", ece_loss, False, False, cross_fit=True),
    )
}
DEFAULT_METRICS: tuple[str, ...] = tuple(METRICS)


def get_metric(metric: str | Metric) -> Metric:
    """The :class:`Metric` called ``metric`` (a Metric passes through); unknown names refused."""
    if isinstance(metric, Metric):
        return metric
    try:
        return METRICS[metric]
    except KeyError:
        raise ValueError(f"unknown metric {metric!r}; known: {', '.join(METRICS)}") from None
