"""Whether a saved evaluation is stale: re-score its saved runs at this commit and compare.

A commit that touched the scoring code does not make an evaluation stale by
itself; a changed number does. :func:`rescore_drift` scores every saved run of
an ``evaluate`` folder again with this commit's code (no LLM call, nothing
written), judges it again, and compares each method's value and each label with
``scores.csv``; and it recomputes the metrics from ``scores.csv`` in a temporary
copy and compares them with ``results.json``. The evaluation is stale when and
only when some value or metric moves by more than ``tolerance``, some label
changes, or today's rewording rules would choose other perturbations for some
question (:func:`~.replay.rewording_drift` replays the gate's verdicts on the
candidates each run saved; re-scoring alone cannot see the perturbations).
:func:`write_stale_check` saves
the verdict as ``stale_check.json`` beside the scores, with the commit that
checked, so the RESULTS generator reads it instead of guessing from git.
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..evaluation.metrics import N_BOOTSTRAP
from ..provenance import provenance
from .folder import read_evaluation
from .recompute import recompute_evaluation
from .replay import rewording_drift
from .rescore import check_rescore_folder, rescore_config, rescored_rows
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
    metrics_change: float = 0.0  # max |recomputed − saved| over results.json's cells
    unavailable: str | None = None  # why the runs could not be re-scored (None: they were)
    provenance: dict[str, Any] = field(default_factory=dict)
    rewordings: dict[str, Any] | None = None  # RewordingDrift.to_dict(); None: not replayed

    @property
    def moved(self) -> list[str]:
        """Methods with a value that moved by more than the tolerance."""
        return [m for m, d in self.largest_change.items() if d > self.tolerance]

    @property
    def stale(self) -> bool:
        """Whether this commit would change a number: a value, a label, a metric or the perturbations."""
        reworded = bool((self.rewordings or {}).get("stale"))  # RewordingDrift's own verdict
        return (
            bool(self.moved)
            or self.labels_changed > 0
            or self.metrics_change > self.tolerance
            or reworded
        )

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


def _cells(res: dict[str, Any]) -> dict[tuple[str, str, str], float]:
    """Every number of results.json's ``results`` block: (method, metric, field) -> value."""
    out = {}
    for m, row in (res.get("results") or {}).items():
        for metric, cell in row.items():
            for k in ("point", "mean", "std"):
                out[(m, metric, k)] = float(cell.get(k, math.nan))
            for i, v in enumerate(cell.get("ci95") or ()):
                out[(m, metric, f"ci{i}")] = float(v)
    return out


def metrics_drift(folder: str | Path) -> float:
    """The largest change of results.json when its metrics are recomputed at this commit.

    The folder's config, scores and relabel layer are copied to a temporary folder and
    :func:`recompute_evaluation` runs there (the folder itself is not touched), with the
    resample count the saved results used.
    """
    out = Path(folder)
    saved = json.loads((out / "results.json").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("config.json", "scores.csv", "relabels.jsonl"):
            if (out / name).is_file():
                shutil.copy2(out / name, Path(tmp) / name)
        n_boot = int(saved.get("n_bootstrap", saved.get("n_boot", N_BOOTSTRAP)))
        recompute_evaluation(tmp, n_bootstrap=n_boot)
        again = json.loads((Path(tmp) / "results.json").read_text(encoding="utf-8"))
    a, b = _cells(saved), _cells(again)
    if set(a) != set(b):
        return math.inf
    return max((value_change(a[k], b[k]) for k in a), default=0.0)


def rescore_drift(folder: str | Path, *, tolerance: float = TOLERANCE) -> StaleCheck:
    """Score and judge the saved runs of ``folder`` again (in memory) and compare with scores.csv.

    The metrics are recomputed from scores.csv too (:func:`metrics_drift`), and the
    runs' rewording verdicts are replayed with today's rules (:func:`~.replay.rewording_drift`).
    A folder shipped without its runs is checked on its metrics alone and says why.

    Raises
    ------
    FileNotFoundError
        Naming ``config.json`` or ``scores.csv`` when the folder lacks it, or a run
        that ``runs/`` lacks.
    ValueError
        For a folder judged by an LLM, or a run that holds another question.
    """
    if not tolerance >= 0:
        raise ValueError(f"tolerance must be at least 0, got {tolerance}")
    out = Path(folder)
    metrics = metrics_drift(out)
    saved = read_evaluation(out, relabels=False)  # the one reader; the judge's labels
    old = [r for r in saved.rows if not r.get("error")]
    if not (out / "runs").is_dir():
        why = "the folder was shipped without its saved runs, so its scores cannot be re-scored"
        return StaleCheck(tolerance, len(old), {}, 0, metrics, why, provenance())
    cfg = rescore_config(check_rescore_folder(out, None), None, N_BOOTSTRAP)
    methods = list(saved.methods)
    new, _ = rescored_rows(out, cfg, old, methods)
    labels = sum(
        str(o.get("correct")) != str(n.get("correct")) for o, n in zip(old, new, strict=True)
    )
    reworded = rewording_drift(out).to_dict()
    changes = drift(old, new, methods)
    return StaleCheck(tolerance, len(old), changes, labels, metrics, None, provenance(), reworded)


def write_stale_check(folder: str | Path, check: StaleCheck) -> Path:
    """Save ``check`` as ``stale_check.json`` in ``folder``."""
    path = Path(folder) / STALE_FILE
    write_text(path, json.dumps(check.to_dict(), indent=2))
    return path
