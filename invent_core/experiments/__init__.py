"""Reproducing the paper's tables: ``evaluate`` (AUROC, PRR, Brier) and ``tsu`` over the same responses.

Both share one loop: a run per question (LLM calls through the persistent
cache), saved under ``<out>/runs/``, every registered method scored on that
same run, and, for ``evaluate``, the response the scores came from judged.

- :mod:`~invent_core.experiments.config`: :class:`ExperimentConfig`, :func:`generation_key`;
- :mod:`~invent_core.experiments.sample`: which questions (:func:`draw_examples`,
  :func:`select_examples`, difficulty levels);
- :mod:`~invent_core.experiments.runs`: the saved run of each question
  (:func:`get_run`) and its scores (:func:`score_run`);
- :mod:`~invent_core.experiments.result`: :class:`ExperimentResult` and the
  files an experiment writes;
- :mod:`~invent_core.experiments.evaluation`: :func:`evaluate` (Table 1);
- :mod:`~invent_core.experiments.tsu_sweep`: :func:`tsu` (the TSU table);
- :mod:`~invent_core.experiments.reading`: how an evaluation is read (paired block,
  guess rate, what each table measured);
- :mod:`~invent_core.experiments.recompute`: :func:`recompute_evaluation`, the metrics
  of a saved evaluation again from its ``scores.csv``.
"""

from __future__ import annotations

from .config import JUDGES, ExperimentConfig, generation_key
from .evaluation import MIN_CROSS_FIT, SCORE_COLUMNS, accuracy_line, evaluate, evaluation_table
from .recompute import recompute_evaluation
from .result import EVALUATE_FILES, TSU_FILES, ExperimentResult, FolderMismatch
from .runs import get_run, score_run
from .sample import difficulty_levels, draw_examples, keep_difficulty, select_examples
from .tsu_sweep import default_tsu_columns, tsu

__all__ = [
    "EVALUATE_FILES",
    "JUDGES",
    "MIN_CROSS_FIT",
    "SCORE_COLUMNS",
    "TSU_FILES",
    "ExperimentConfig",
    "ExperimentResult",
    "FolderMismatch",
    "accuracy_line",
    "default_tsu_columns",
    "difficulty_levels",
    "draw_examples",
    "evaluate",
    "evaluation_table",
    "generation_key",
    "get_run",
    "keep_difficulty",
    "recompute_evaluation",
    "score_run",
    "select_examples",
    "tsu",
]
