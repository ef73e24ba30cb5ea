"""A reference set: one measure's values over reference questions, with their labels.

:class:`ReferenceSet` holds (k,) values, (k,) 0/1 correctness or None, the
settings they were computed with and, optionally, the question texts, their
datasets and (k, d) question embeddings. It answers the percentile of a new
value and its isotonic-calibrated P(correct), and reads and writes JSON
(``invent.reference/1``; embeddings as base64 float16).
"""

from __future__ import annotations

import json
import math
from base64 import b64decode, b64encode
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ...csv_safe import atomic_file, cut_short, read_csv
from .calibration import MIN_NEAR, bagged_fits, jeffreys
from .placement import Placement

FORMAT = "invent.reference/1"


def encode_embeddings(emb: np.ndarray) -> dict[str, Any]:
    """(n, d) floats as ``{"dtype": "float16", "shape": [n, d], "base64": …}`` (compact JSON)."""
    e = np.ascontiguousarray(np.asarray(emb, dtype="<f2"))
    return {"dtype": "float16", "shape": list(e.shape), "base64": b64encode(e.tobytes()).decode()}


def decode_embeddings(data: Mapping[str, Any]) -> np.ndarray:
    """Inverse of :func:`encode_embeddings`: (n, d) float32 rows, re-normalised to unit length."""
    if data.get("dtype") != "float16":
        raise ValueError(f"unsupported embedding dtype {data.get('dtype')!r}")
    flat = np.frombuffer(b64decode(data["base64"]), dtype="<f2").astype(np.float32)
    e = flat.reshape([int(x) for x in data["shape"]])
    return e / np.maximum(np.linalg.norm(e, axis=1, keepdims=True), 1e-12)


@dataclass(frozen=True)
class ReferenceSet:
    """One measure's values over reference questions, with correctness where judged.

    Parameters
    ----------
    values : (k,) the measure (higher = more uncertain) of k reference questions.
    correct : (k,) 0/1 correctness of their answers, or None.
    settings : what the values were computed with (measure, dataset, model,
        n, r, kernel, embedder, seed …); shown next to every percentile.
    provenance : the code that built the set (:func:`invent_core.provenance.provenance`);
        None for sets saved before it was recorded.

    Raises
    ------
    ValueError
        For an empty or non-finite ``values``, or ``correct`` of another length
        or not 0/1.
    """

    values: np.ndarray
    correct: np.ndarray | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)
    questions: Sequence[str] | None = None
    sources: Sequence[str] | None = None
    embeddings: np.ndarray | None = None
    placement: Placement | None = None
    provenance: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        """Check shapes and labels; store sorted-ready float/int arrays."""
        v = np.asarray(self.values, dtype=np.float64).reshape(-1)
        if v.size == 0:
            raise ValueError("a reference set needs at least one value")
        if not np.all(np.isfinite(v)):
            raise ValueError("reference values must be finite (drop failed questions first)")
        object.__setattr__(self, "values", v)
        object.__setattr__(self, "settings", dict(self.settings))
        self._check_rows(v.size)
        if self.correct is None:
            return
        c = np.asarray(self.correct).reshape(-1)
        if c.shape != v.shape:
            raise ValueError(f"{c.size} correctness labels for {v.size} reference values")
        if not np.isin(c.astype(np.float64), (0.0, 1.0)).all():
            raise ValueError("correct must contain only 0/1 or True/False")
        object.__setattr__(self, "correct", c.astype(np.int64))

    def _check_rows(self, n: int) -> None:
        """Per-question texts, datasets and embeddings: n of each, or none."""
        for name in ("questions", "sources"):
            got = getattr(self, name)
            if got is not None:
                got = tuple(str(x) for x in got)
                if len(got) != n:
                    raise ValueError(f"{len(got)} {name} for {n} reference values")
                object.__setattr__(self, name, got)
        if self.embeddings is not None:
            e = np.asarray(self.embeddings, dtype=np.float32)
            if e.ndim != 2 or e.shape[0] != n:
                raise ValueError(f"embeddings of shape {e.shape} for {n} reference values")
            object.__setattr__(self, "embeddings", e)

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
        v = np.asarray(value, dtype=np.float64)
        out = self._bagged(v.reshape(-1))[0]  # fit 0: on the reference itself (the paper's map)
        return float(out[0]) if v.ndim == 0 else out.reshape(v.shape)

    def calibration(self, value: float) -> dict[str, Any]:
        """P(correct) at one value with its bootstrap interval and its support.

        Returns
        -------
        ``{"p_correct": mean of the bootstrap isotonic fits, or None when fewer
        than :data:`MIN_NEAR` reference questions lie within ``± bandwidth`` of the
        value; "interval": (5th, 95th percentile of the fits) or None; "n_near";
        "bandwidth"}``. The mean of monotone fits is monotone, and smoother than
        one isotonic staircase on a few points.
        """
        if self.correct is None:
            raise ValueError("this reference set has no correctness labels")
        fits = self._bagged(np.asarray([value], dtype=np.float64))[:, 0]
        h = self.bandwidth
        n_near = int(np.sum(np.abs(self.values - value) <= h))
        if n_near < MIN_NEAR:
            return {"p_correct": None, "interval": None, "n_near": n_near, "bandwidth": h}
        lo, hi = np.percentile(fits, [5, 95])
        # a bootstrap of an all-right end block has no width: widen by the Jeffreys
        # interval of the near questions' share right (0.99 from a few stays uncertain)
        near = self.correct[np.abs(self.values - value) <= h]
        j_lo, j_hi = jeffreys(int(near.sum()), int(near.size))
        lo, hi = min(lo, j_lo), max(hi, j_hi)
        return {
            "p_correct": float(fits.mean()),
            "interval": (float(lo), float(hi)),
            "n_near": n_near,
            "bandwidth": h,
        }

    @property
    def bandwidth(self) -> float:
        """Half-width of "near" a value: half the reference's interquartile range.

        A set placed by :func:`place` carries its own (``settings["bandwidth"]``):
        the whole interquartile range of the reference it was taken from. Its
        questions are already like the question, so a wider window of values
        counts as near; half a dozen neighbours' own spread would leave too few.
        """
        if self.settings.get("bandwidth"):
            return float(self.settings["bandwidth"])
        q1, q3 = np.percentile(self.values, [25, 75])
        return float(max(0.5 * (q3 - q1), 1e-9))

    def _bagged(self, values: np.ndarray) -> np.ndarray:
        """(B, len(values)) isotonic P(correct) fits on bootstrap resamples of the reference."""
        return bagged_fits(self.values, self.correct, values)

    def describe(self, value: float) -> dict[str, Any]:
        """Everything a UI shows next to one question's value.

        Returns
        -------
        ``{"value", "percentile", "p_correct" (None without labels), "p_interval",
        "n_near", "base_rate" (share of the reference answered right; None without
        labels), "datasets", "n_reference", "settings", "placement"}``. P(correct)
        carries the base rate of the questions it was fitted on: it transfers to
        questions like those only (the 0.5B model is right on 60–80 % of arithmetic
        questions and 2 % of TriviaQA), hence :func:`place`. ``placement`` is
        :meth:`Placement.to_dict` (None for a set not placed); when no reference
        question is like this one, percentile and P(correct) are None.
        """
        placed = self.placement.to_dict() if self.placement is not None else None
        if self.placement is not None and self.placement.mode == "none_like":
            return {
                "value": float(value),
                "percentile": None,
                "p_correct": None,
                "p_interval": None,
                "n_near": None,
                "base_rate": None,
                "datasets": [],
                "n_reference": 0,
                "settings": dict(self.settings),
                "placement": placed,
            }
        cal = self.calibration(value) if self.has_labels else {}
        return {
            "value": float(value),
            "percentile": self.percentile(value),
            "p_correct": cal.get("p_correct"),
            "p_interval": cal.get("interval"),
            "n_near": cal.get("n_near"),
            "base_rate": float(self.correct.mean()) if self.has_labels else None,
            "datasets": self.datasets,
            "n_reference": self.size,
            "settings": dict(self.settings),
            "placement": placed,
        }

    @property
    def datasets(self) -> list[str]:
        """Where the reference questions came from (``settings``' datasets, or its one dataset)."""
        found = self.settings.get("datasets") or [self.settings.get("dataset")]
        return [str(d) for d in found if d]

    # -- JSON -----------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Return the set as a JSON-ready dict (values, correct, settings, format).

        With question texts: ``questions`` and ``sources`` (each question's
        dataset) lists, and ``embeddings`` as ``{"dtype": "float16", "shape",
        "base64"}`` (about 1 KB a question for MiniLM's 384 dimensions).
        """
        out: dict[str, Any] = {
            "format": FORMAT,
            "values": self.values.tolist(),
            "correct": None if self.correct is None else self.correct.tolist(),
            "settings": dict(self.settings),
        }
        if self.questions is not None:
            out["questions"] = list(self.questions)
        if self.sources is not None:
            out["sources"] = list(self.sources)
        if self.embeddings is not None:
            out["embeddings"] = encode_embeddings(self.embeddings)
        if self.provenance is not None:
            out["provenance"] = dict(self.provenance)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ReferenceSet:
        """Inverse of :meth:`to_dict`; files without questions or embeddings load too."""
        if not isinstance(data, Mapping):  # valid JSON of another shape ([], "x", 5)
            raise ValueError(f"a JSON {type(data).__name__}, not an object")
        if data.get("format") not in (None, FORMAT):
            raise ValueError(f"unsupported reference format {data.get('format')!r}")
        if "values" not in data:
            raise ValueError("no 'values'")
        emb = data.get("embeddings")
        return cls(
            data["values"],
            data.get("correct"),
            data.get("settings") or {},
            questions=data.get("questions"),
            sources=data.get("sources"),
            embeddings=decode_embeddings(emb) if emb is not None else None,
            provenance=data.get("provenance"),
        )

    def save(self, path: str | Path) -> Path:
        """Write the set as JSON to ``path`` (folders created), atomically: a crash keeps the old."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_file(path) as f:
            f.write(json.dumps(self.to_dict(), indent=1))
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

        Rows whose ``measure`` is empty or NaN, and a row cut short (a torn write,
        :func:`~invent_core.csv_safe.cut_short`), are skipped; the ``correct``
        column, when present in every kept row, becomes the labels; the
        ``question`` and ``dataset`` columns, when present, the question texts and
        their sources (embed them with :meth:`with_embeddings`).
        """
        rows = list(read_csv(path))  # a BOM read, formula-safe escapes undone
        settings = {"source": str(path), **dict(settings)}
        return cls.from_rows(rows, measure=measure, settings=settings, where=str(path))

    @classmethod
    def from_rows(
        cls,
        rows: Sequence[Mapping[str, Any]],
        *,
        measure: str = "inv_entropy",
        settings: Mapping[str, Any] = (),
        where: str = "scores.csv",
    ) -> ReferenceSet:
        """A reference of the rows of a ``scores.csv`` that :func:`kept_row` keeps.

        ``correct`` (text or int) becomes the labels when every kept row has one;
        ``question`` and ``dataset`` the texts and their sources; ``where`` names
        the file in the error raised when no row has a finite ``measure``.
        """
        rows = [r for r in rows if kept_row(r, measure)]
        meta = {"measure": measure, **dict(settings)}
        if not rows:
            raise ValueError(f"{where}: no finite {measure!r} values")
        labels = [r.get("correct") for r in rows]
        correct = (
            [int(float(x)) for x in labels] if all(x not in (None, "") for x in labels) else None
        )
        questions = [str(r["question"]) for r in rows] if "question" in rows[0] else None
        dataset = meta.get("dataset")
        sources = [r.get("dataset") or dataset or "?" for r in rows] if questions else None
        return cls([float(r[measure]) for r in rows], correct, meta, questions, sources)

    def with_embeddings(self, embedder: Any) -> ReferenceSet:
        """The set with its questions embedded by ``embedder`` (its identity in settings).

        Raises
        ------
        ValueError
            Without question texts, or for a similarity that cannot embed (NLI).
        """
        if self.questions is None:
            raise ValueError("this reference set has no question texts to embed")
        if not hasattr(embedder, "encode"):
            raise ValueError(f"{embedder.name} gives no embeddings; questions cannot be placed")
        emb = np.asarray(embedder.encode(list(self.questions)), dtype=np.float32)
        settings = {**self.settings, "question_embedder": embedder.identity}
        return replace(self, embeddings=emb, settings=settings)


def kept_row(row: Mapping[str, Any], measure: str) -> bool:
    """Whether a ``scores.csv`` row joins a reference: a finite ``measure``, not cut short."""
    return _finite(row.get(measure)) and not cut_short(row)


def _finite(text: str | None) -> bool:
    try:
        return text not in (None, "") and math.isfinite(float(text))
    except ValueError:
        return False
