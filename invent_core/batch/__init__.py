"""Batch scoring of question files: streaming, resumable, robust to bad input, shardable.

``batch_score("questions.csv", "scores.csv", config)`` scores every row of a
CSV or JSON Lines file; ``merge_outputs`` joins shards. The package is split
by job:

- :mod:`~invent_core.batch.input`: inspecting a file and its layout of
  pre-generated responses (:func:`inspect_input`, :class:`InputInfo`); the
  file itself is read by :mod:`invent_core.questions.files`
  (:class:`BatchInputError`);
- :mod:`~invent_core.batch.rows`: streaming rows through the question
  schema and the library's response checks (:class:`RowReader`);
- :mod:`~invent_core.batch.output`: output paths and sidecars, the output
  lock, the checkpoint, result files, export and evaluation;
- :mod:`~invent_core.batch.scorer`: one row with one run configuration;
- :mod:`~invent_core.batch.score_file`: :func:`batch_score`, from
  :mod:`~invent_core.batch.plan` (options) through
  :mod:`~invent_core.batch.session` (models, sidecar, checkpoint) and
  :mod:`~invent_core.batch.loop` (the rows) to the finish;
- :mod:`~invent_core.batch.shards`: ``--shard i/N``;
  :mod:`~invent_core.batch.config_diff`: what a resume or a merge must share;
- :mod:`~invent_core.batch.merge`: :func:`merge_outputs`.
"""

from __future__ import annotations

from ..questions.files import BatchInputError
from .input import LLM_LAYOUTS, InputInfo, inspect_input
from .merge import MergeSummary, merge_outputs
from .output import (
    OutputBusyError,
    evaluate_output,
    export_results,
    iter_records,
    read_errors,
    sidecar_paths,
    write_records,
)
from .rows import RowReader
from .score_file import batch_score
from .session import BatchSummary
from .shards import parse_shard, shard_of

__all__ = [
    "LLM_LAYOUTS",
    "BatchInputError",
    "BatchSummary",
    "InputInfo",
    "MergeSummary",
    "OutputBusyError",
    "RowReader",
    "batch_score",
    "evaluate_output",
    "export_results",
    "inspect_input",
    "iter_records",
    "merge_outputs",
    "parse_shard",
    "read_errors",
    "shard_of",
    "sidecar_paths",
    "write_records",
]
