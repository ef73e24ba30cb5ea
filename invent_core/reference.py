"""Uncertainty against a reference set: a bare 2.3101 becomes "82nd percentile, P(correct) 0.31".

Inv-Entropy is unnormalised and its scale depends on n, the kernel and the
embedder, so one question's value means little on its own (issue #12 §3).
A :class:`ReferenceSet` holds the same measure for many questions scored with
the *same settings* (``settings`` records which) and, where they were judged,
whether each answer was correct. It answers two questions about a new value:

- :meth:`ReferenceSet.percentile` — the share of the reference at or below it
  (0–100; higher = more uncertain than most);
- :meth:`ReferenceSet.p_correct` — the isotonic-calibrated probability that
  the answer is right (Zadrozny & Elkan 2002, the paper's Brier-score mapping,
  §3 "Evaluation metrics"), non-increasing in the uncertainty.

Both are monotone in the measure. Pure numpy plus scikit-learn's isotonic
regression; JSON in and out.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .evaluation.metrics import confidence_from_uncertainty

__all__ = ["P_CORRECT_CLIP", "ReferenceSet"]

#: P(correct) is clipped to this range: a reference of a few dozen answers cannot
#: justify certainty either way (ours).
P_CORRECT_CLIP: tuple[float, float] = (0.01, 0.99)

FORMAT = "invent.reference/1"


@dataclass(frozen=True)
class ReferenceSet:
    """One measure's values over reference questions, with correctness where judged.

    Parameters
    ----------
    values : (k,) the measure (higher = more uncertain) of k reference questions.
    correct : (k,) 0/1 correctness of their answers, or None.
    settings : what the values were computed with (measure, dataset, model,
        n, r, kernel, embedder, seed …); shown next to every percentile.

    Raises
    ------
    ValueError
        For an empty or non-finite ``values``, or ``correct`` of another length
        or not 0/1.
    """

    values: np.ndarray
    correct: np.ndarray | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Check shapes and labels; store sorted-ready float/int arrays."""
        v = np.asarray(self.values, dtype=np.float64).reshape(-1)
        if v.size == 0:
            raise ValueError("a reference set needs at least one value")
        if not np.all(np.isfinite(v)):
            raise ValueError("reference values must be finite (drop failed questions first)")
        object.__setattr__(self, "values", v)
        object.__setattr__(self, "settings", dict(self.settings))
        if self.correct is None:
            return
        c = np.asarray(self.correct).reshape(-1)
        if c.shape != v.shape:
            raise ValueError(f"{c.size} correctness labels for {v.size} reference values")
        if not np.isin(c.astype(np.float64), (0.0, 1.0)).all():
            raise ValueError("correct must contain only 0/1 or True/False")
        object.__setattr__(self, "correct", c.astype(np.int64))

    @property
    def size(self) -> int:
        """Number of reference questions."""
        return int(self.values.size)

    @property
    def has_labels(self) -> bool:
        """Whether :meth:`p_correct` is available."""
        return self.correct is not None

    def percentile(self, value: ArrayLike) -> float | np.ndarray:
        """Share of the reference at or below ``value``, in percent (0–100).

        Parameters
        ----------
        value : a measure value, or an array of them.

        Returns
        -------
        float (or array of the shape of ``value``); non-decreasing in ``value``.
        100 means at least as uncertain as every reference question.
        """
        ref = np.sort(self.values)
        v = np.asarray(value, dtype=np.float64)
        out = 100.0 * np.searchsorted(ref, v, side="right") / ref.size
        return float(out) if out.ndim == 0 else out

    def p_correct(self, value: ArrayLike) -> float | np.ndarray:
        """Isotonic-calibrated P(answer correct) at ``value``.

        The map is fitted on the reference (confidence = −uncertainty, increasing),
        so it is non-increasing in the uncertainty; values outside the reference's
        range take the nearest end's probability. Clipped to :data:`P_CORRECT_CLIP`.

        Raises
        ------
        ValueError
            When the reference has no correctness labels.
        """
        if self.correct is None:
            raise ValueError(
                "this reference set has no correctness labels; only percentile() is available"
            )
        conf = confidence_from_uncertainty(np.asarray(value, dtype=np.float64).reshape(-1))
        out = self._isotonic().predict(conf)
        v = np.asarray(value)
        return float(out[0]) if v.ndim == 0 else out.reshape(v.shape)

    def _isotonic(self):
        # fitted on demand (cheap: k points) so the object stays a plain, frozen value
        from sklearn.isotonic import IsotonicRegression

        lo, hi = P_CORRECT_CLIP
        iso = IsotonicRegression(increasing=True, y_min=lo, y_max=hi, out_of_bounds="clip")
        return iso.fit(confidence_from_uncertainty(self.values), self.correct.astype(np.float64))

    def describe(self, value: float) -> dict[str, Any]:
        """Everything a UI shows next to one question's value.

        Returns
        -------
        ``{"value", "percentile", "p_correct" (None without labels), "n_reference",
        "settings"}``.
        """
        return {
            "value": float(value),
            "percentile": self.percentile(value),
            "p_correct": self.p_correct(value) if self.has_labels else None,
            "n_reference": self.size,
            "settings": dict(self.settings),
        }

    # -- JSON -----------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Return the set as a JSON-ready dict (values, correct, settings, format)."""
        return {
            "format": FORMAT,
            "values": self.values.tolist(),
            "correct": None if self.correct is None else self.correct.tolist(),
            "settings": dict(self.settings),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ReferenceSet:
        """Inverse of :meth:`to_dict`."""
        if data.get("format") not in (None, FORMAT):
            raise ValueError(f"unsupported reference format {data.get('format')!r}")
        if "values" not in data:
            raise ValueError("not a reference set: no 'values'")
        return cls(data["values"], data.get("correct"), data.get("settings") or {})

    def save(self, path: str | Path) -> Path:
        """Write the set as JSON to ``path`` (folders created)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), indent=1), encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path) -> ReferenceSet:
        """Read a set written by :meth:`save`."""
        return cls.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))

    @classmethod
    def from_scores_csv(
        cls, path: str | Path, *, measure: str = "inv_entropy", settings: Mapping[str, Any] = ()
    ) -> ReferenceSet:
        """Build a reference from the ``scores.csv`` an ``evaluate`` run writes.

        Rows whose ``measure`` is empty or NaN are skipped; the ``correct``
        column, when present in every kept row, becomes the labels.
        """
        with open(path, newline="", encoding="utf-8") as fh:
            rows = [r for r in csv.DictReader(fh) if _finite(r.get(measure))]
        if not rows:
            raise ValueError(f"{path}: no finite {measure!r} values")
        labels = [r.get("correct") for r in rows]
        correct = [int(x) for x in labels] if all(x not in (None, "") for x in labels) else None
        meta = {"measure": measure, "source": str(path), **dict(settings)}
        return cls([float(r[measure]) for r in rows], correct, meta)


def _finite(text: str | None) -> bool:
    try:
        return text not in (None, "") and math.isfinite(float(text))
    except ValueError:
        return False
