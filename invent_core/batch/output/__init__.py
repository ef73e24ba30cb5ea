"""Batch output: paths and sidecars, the output lock, the checkpoint, result files, evaluation.

- :mod:`~invent_core.batch.output.paths`: an output's format and sidecars
  (``OUTPUT.meta.json``, ``OUTPUT.errors.jsonl``, ``OUTPUT.checkpoint.jsonl``,
  ``OUTPUT.lock``), the checks before anything is written, atomic sidecars;
- :mod:`~invent_core.batch.output.lock`: one run at a time per output
  (:class:`OutputLock`, ``flock``) and per output folder (:func:`output_folder`);
- :mod:`~invent_core.batch.output.checkpoint`: the streaming output file,
  appended and fsynced row by row, read back on resume (:class:`Checkpoint`);
- :mod:`~invent_core.batch.output.files`: typed rows read from and written to
  CSV, JSON Lines, JSON or Parquet (:func:`iter_records`, :func:`write_records`);
- :mod:`~invent_core.batch.output.results`: :func:`export_results`,
  :func:`evaluate_output`.
"""

from __future__ import annotations

from .checkpoint import Checkpoint, question_hash
from .files import (
    INT_COLUMNS,
    TEXT_COLUMNS,
    column_kind,
    iter_records,
    read_columns,
    read_errors,
    write_records,
)
from .lock import (
    OutputBusyError,
    OutputLock,
    check_output_file,
    input_files,
    output_file,
    output_folder,
)
from .paths import (
    check_output_folder,
    check_output_paths,
    lock_path,
    output_format,
    probe_space,
    read_meta,
    sidecar_config,
    sidecar_paths,
    write_json_atomic,
)
from .results import evaluate_output, export_results, output_notes

__all__ = [
    "INT_COLUMNS",
    "TEXT_COLUMNS",
    "Checkpoint",
    "OutputBusyError",
    "OutputLock",
    "check_output_folder",
    "check_output_paths",
    "column_kind",
    "output_notes",
    "evaluate_output",
    "export_results",
    "iter_records",
    "lock_path",
    "output_folder",
    "output_file",
    "check_output_file",
    "input_files",
    "output_format",
    "probe_space",
    "question_hash",
    "read_columns",
    "read_errors",
    "read_meta",
    "sidecar_config",
    "sidecar_paths",
    "write_json_atomic",
    "write_records",
]
