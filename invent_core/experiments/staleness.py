"""Whether a saved evaluation is stale: re-score its saved runs at this commit and compare.

A commit that touched the scoring code does not make an evaluation stale by
itself; a changed number does. :func:`rescore_drift` scores every saved run of
an ``evaluate`` folder again with this commit's code (no LLM call, nothing
written), judges it again, and compares each method's value and each label with
``scores.csv``. The evaluation is stale when and only when some value moves by
more than ``tolerance`` or some label changes. :func:`write_stale_check` saves
the verdict as ``stale_check.json`` beside the scores, with the commit that
checked, so the RESULTS generator reads it instead of guessing from git.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..csv_safe import read_csv
from ..evaluation.metrics import N_BOOTSTRAP
from ..provenance import provenance
from .evaluation import SCORE_COLUMNS
from .rescore import _check_folder, _config, _rescored_rows
from .result import write_text

__all__ = ["STALE_FILE", "TOLERANCE", "StaleCheck", "rescore_drift", "write_stale_check"]

#: Where the verdict is kept, inside the evaluate folder.
STALE_FILE = "stale_check.json"
#: A score that moves by no more than this is the same number (float noise of a re-run).
TOLERANCE = 1e-6


@dataclass(frozen=True)
class StaleCheck:
    """The outcome of re-scoring one folder: per method the largest change, and the verdict."""

    tolerance: float
    n_questions: int
    largest_change: dict[str, float]  # method -> max |new − saved| (inf: finite ↔ NaN)
    labels_changed: int
    provenance: dict[str, Any] = field(default_factory=dict)

    @property
    def moved(self) -> list[str]:
        """Methods with a value that moved by more than the tolerance."""
        return [m for m, d in self.largest_change.items() if d > self.tolerance]

    @property
    def stale(self) -> bool:
        """Re-scoring at this commit would change a number (a value or a label)."""
        return bool(self.moved) or self.labels_changed > 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with the verdict and the methods that moved written out."""
        d = asdict(self)
        d["largest_change"] = {
            m: (v if math.isfinite(v) else "inf") for m, v in d["largest_change"].items()
        }
        return d | {"stale": self.stale, "moved": self.moved}


def _value(text: Any) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return math.nan


def value_change(saved: Any, new: Any) -> float:
    """|new − saved|; 0 when both are missing, inf when only one is."""
    a, b = _value(saved), _value(new)
    if math.isnan(a) and math.isnan(b):
        return 0.0
    if math.isnan(a) or math.isnan(b):
        return math.inf
    return abs(a - b)


def drift(
    old: list[dict[str, Any]], new: list[dict[str, Any]], methods: list[str]
) -> dict[str, float]:
    """Per method, the largest change between two row lists in the same order."""
    return {m: max((value_change(o.get(m), n.get(m)) for o, n in zip(old, new, strict=True)), default=0.0)
            for m in methods}  # fmt: skip


def rescore_drift(folder: str | Path, *, tolerance: float = TOLERANCE) -> StaleCheck:
    """Score and judge the saved runs of ``folder`` again (in memory) and compare with scores.csv.

    Raises
    ------
    FileNotFoundError
        Naming ``config.json``, ``scores.csv``, ``runs`` or a run the folder lacks.
    ValueError
        For a folder judged by an LLM, or a run that holds another question.
    """
    if not tolerance >= 0:
        raise ValueError(f"tolerance must be at least 0, got {tolerance}")
    out = Path(folder)
    cfg = _config(_check_folder(out, None), None, N_BOOTSTRAP)
    old = [r for r in read_csv(out / "scores.csv") if not r.get("error")]
    methods = [c for c in (old[0] if old else {}) if c not in SCORE_COLUMNS]
    new, _ = _rescored_rows(out, cfg, old, methods)
    labels = sum(
        str(o.get("correct")) != str(n.get("correct")) for o, n in zip(old, new, strict=True)
    )
    return StaleCheck(tolerance, len(old), drift(old, new, methods), labels, provenance())


def write_stale_check(folder: str | Path, check: StaleCheck) -> Path:
    """Save ``check`` as ``stale_check.json`` in ``folder``."""
    path = Path(folder) / STALE_FILE
    write_text(path, json.dumps(check.to_dict(), indent=2))
    return path
