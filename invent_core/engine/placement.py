"""A run's Inv-Entropy among the reference questions like it, computed by the pipeline.

Every run artefact carries its placement (percentile, P(correct) with its interval,
the reference questions it was placed among), whoever saves it: ``run --save``,
Explore's download, the history, an evaluation's saved runs. A re-ask or a
re-score places the new value again, so a stored placement always belongs to
the stored score. The printers (``run``, the batch output, the dashboard) read
that record; none places the run again.

Which reference questions is an argument, ``reference_path``: a folder of
reference files or one file of one's own; None, the shipped ones. The record
says which (``among``), so a reader can tell a placement among other references
than the ones it now uses.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ..evaluation.reference import for_run, placement_record

#: The measure a run is placed by (the one the shipped references hold).
PLACED_MEASURE = "inv_entropy"


def among(reference_path: str | Path | None) -> str | None:
    """How a record names the references it was placed among: None (shipped) or the path's name."""
    return None if reference_path is None else Path(reference_path).name


def placement(
    run: Any, *, embedder: Any = None, reference_path: str | Path | None = None
) -> dict[str, Any] | None:
    """:func:`~invent_core.evaluation.reference.placement_record` of the run's Inv-Entropy, or None.

    Parameters
    ----------
    run : a :class:`~invent_core.engine.artifact.RunArtifact` with its score.
    embedder : the run's ψ, already loaded (default: its config's, loaded here).
    reference_path : a folder of reference files or one file (``--reference``);
        None: the shipped references.

    None when the run has no score or no finite Inv-Entropy, or when no reference
    was made with its settings (model, perturber, n, r, T, ψ, kernel).
    """
    score = getattr(run, "score", None)
    value = None if score is None else score.measures.get(PLACED_MEASURE)
    if value is None or not math.isfinite(float(value)):
        return None
    ref = for_run(run, measure=PLACED_MEASURE, embedder=embedder, directory=reference_path)
    record = placement_record(float(value), ref, PLACED_MEASURE)
    if record is not None:
        record["among"] = among(reference_path)
    return record
