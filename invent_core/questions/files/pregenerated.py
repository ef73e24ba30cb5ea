"""The columns that carry pre-generated perturbations and responses, and who reads them.

``batch`` scores them without an LLM (the wide and long layouts of
:mod:`invent_core.batch.input`). ``evaluate`` and ``tsu`` reword and answer
every question themselves, so a ``--data`` file holding such a column is
refused rather than read with those cells quietly dropped
(:func:`invent_core.questions.datasets.load_examples_file`).
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["LONG_COLUMNS", "PREGENERATED_COLUMNS", "pregenerated_columns"]

#: Columns of the long layout (one row per response).
LONG_COLUMNS: tuple[str, ...] = ("perturbation_index", "replication_index", "response")
#: Columns of pre-generated responses, wide and long, besides the question schema's.
PREGENERATED_COLUMNS: tuple[str, ...] = (
    "perturbations",
    "responses",
    "perturbation",
    "sampled_responses",  # UQLM's result frame
    *LONG_COLUMNS,
)


def pregenerated_columns(columns: Iterable[str | None]) -> list[str]:
    """The columns of ``columns`` (as written) that hold pre-generated perturbations or responses."""
    return [c for c in columns if c is not None and c.strip().lower() in PREGENERATED_COLUMNS]
