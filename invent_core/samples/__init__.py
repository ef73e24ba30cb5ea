"""Shared samples: export what invent scored in one JSON Lines schema, for any tool to read.

The schema and its readers (a samples file, UQLM's result frame) sit low, in
:mod:`invent_core.questions.samples`, so ``batch`` reads them too; this
package, above the experiments, reads every kind of invent output.
"""

from __future__ import annotations

from ..questions.samples import SCHEMA, Sample, read_samples, read_uqlm
from .export import check_output, read_source, source_kind, write_samples

__all__ = [
    "SCHEMA",
    "Sample",
    "check_output",
    "read_samples",
    "read_source",
    "read_uqlm",
    "source_kind",
    "write_samples",
]
