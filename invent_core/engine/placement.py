"""A run's Inv-Entropy among the shipped reference questions like it, computed by the pipeline.

Every run artefact carries its placement (percentile, P(correct) with its interval,
the reference questions it was placed among), whoever saves it: ``run --save``,
Explore's download, the history, an evaluation's saved runs. A re-ask or a
re-score places the new value again, so a stored placement always belongs to
the stored score.
"""

from __future__ import annotations

import math
from typing import Any

from ..evaluation.reference import for_run, placement_record

#: The measure a run is placed by (the one the shipped references hold).
PLACED_MEASURE = "inv_entropy"


def placement(run: Any) -> dict[str, Any] | None:
    """:func:`~invent_core.evaluation.reference.placement_record` of the run's Inv-Entropy, or None.

    None when the run has no score or no finite Inv-Entropy, or when no shipped
    reference was made with its settings (model, perturber, n, r, T, ψ, kernel).
    """
    score = getattr(run, "score", None)
    value = None if score is None else score.measures.get(PLACED_MEASURE)
    if value is None or not math.isfinite(float(value)):
        return None
    ref = for_run(run, measure=PLACED_MEASURE)
    return placement_record(float(value), ref, PLACED_MEASURE)
