"""Batch scoring of question files: streaming, resumable, robust to bad input, shardable.

``batch_score("questions.csv", "scores.csv", config)`` scores every row of a
CSV or JSON Lines file; ``merge_outputs`` joins shards. The package is split
by job:

- :mod:`~invent_core.batch.input`: sniffing and inspecting a file
  (:func:`inspect_input`, :class:`InputInfo`, :class:`BatchInputError`);
- :mod:`~invent_core.batch.rows`: streaming rows through the question
  schema and the library's response checks (:class:`RowReader`);
- :mod:`~invent_core.batch.output`: the checkpoint, result files, sidecars,
  the output lock, evaluation;
- :mod:`~invent_core.batch.scorer`: one row with one run configuration;
- :mod:`~invent_core.batch.engine`: :func:`batch_score` (plan → loop → finish);
- :mod:`~invent_core.batch.merge`: :func:`merge_outputs`.
"""

from __future__ import annotations

from ..csv_safe import neutralize_cell, restore_cell
from ..provenance import package_versions  # re-exported: experiment.py imported it from here
from ..questions.files import BatchInputError
from ..questions.schema import FIELD_SIZE_LIMIT, MAX_QUESTION_CHARS
from .engine import (
    ABORT_AFTER_LLM_ERRORS,
    EMBED_CACHE_LIMIT,
    EMBED_WINDOW,
    BatchSummary,
    ProgressFn,
    batch_score,
    parse_shard,
    shard_of,
)
from .input import InputInfo, inspect_input
from .merge import MergeSummary, merge_outputs
from .output import (
    Checkpoint,
    OutputBusyError,
    OutputLock,
    evaluate_output,
    export_results,
    iter_records,
    output_format,
    read_columns,
    read_errors,
    sidecar_paths,
    write_records,
)
from .rows import InputRow, RowReader

__all__ = [
    "ABORT_AFTER_LLM_ERRORS",
    "EMBED_CACHE_LIMIT",
    "EMBED_WINDOW",
    "FIELD_SIZE_LIMIT",
    "MAX_QUESTION_CHARS",
    "BatchInputError",
    "BatchSummary",
    "Checkpoint",
    "InputInfo",
    "InputRow",
    "MergeSummary",
    "OutputBusyError",
    "OutputLock",
    "ProgressFn",
    "RowReader",
    "batch_score",
    "evaluate_output",
    "export_results",
    "inspect_input",
    "iter_records",
    "merge_outputs",
    "neutralize_cell",
    "output_format",
    "package_versions",
    "parse_shard",
    "read_columns",
    "read_errors",
    "restore_cell",
    "shard_of",
    "sidecar_paths",
    "write_records",
]
