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

Shipped references live in ``assets/reference/*.json`` (``$INVENT_REFERENCE_DIR``
overrides), built by ``scripts/make_reference.py`` from ``evaluate`` runs.
:func:`for_settings` pools every shipped reference whose settings match a
run's (:data:`MATCH_KEYS`: what changes the measure's scale), across datasets;
:func:`reference_line` and :func:`columns` are what the CLI and the batch
output show.
"""

from __future__ import annotations

import csv
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._env import assets_dir
from .evaluation.metrics import confidence_from_uncertainty

__all__ = [
    "P_CORRECT_CLIP",
    "MIN_NEAR",
    "MATCH_KEYS",
    "ReferenceSet",
    "reference_dir",
    "reference_settings",
    "for_settings",
    "for_run",
    "reference_line",
    "reference_source",
    "calibration_note",
    "columns",
]

#: P(correct) is clipped to this range: a reference of a few dozen answers cannot
#: justify certainty either way (ours).
P_CORRECT_CLIP: tuple[float, float] = (0.01, 0.99)

FORMAT = "invent.reference/1"

#: bootstrap resamples of the reference for P(correct)'s interval (ours)
N_CALIBRATION_BOOTSTRAP = 200
#: no P(correct) from fewer reference questions than this near the value (ours, issue #24 §7)
MIN_NEAR = 10


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
        v = np.asarray(value, dtype=np.float64)
        out = self._bagged(v.reshape(-1))[0]  # fit 0: on the reference itself (the paper's map)
        return float(out[0]) if v.ndim == 0 else out.reshape(v.shape)

    def calibration(self, value: float) -> dict[str, Any]:
        """P(correct) at one value with its bootstrap interval and its support (issue #24 §7).

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
        j_lo, j_hi = _jeffreys(int(near.sum()), int(near.size))
        lo, hi = min(lo, j_lo), max(hi, j_hi)
        return {
            "p_correct": float(fits.mean()),
            "interval": (float(lo), float(hi)),
            "n_near": n_near,
            "bandwidth": h,
        }

    @property
    def bandwidth(self) -> float:
        """Half-width of "near" a value: half the reference's interquartile range."""
        q1, q3 = np.percentile(self.values, [25, 75])
        return float(max(0.5 * (q3 - q1), 1e-9))

    def _bagged(self, values: np.ndarray) -> np.ndarray:
        """(B, len(values)) isotonic P(correct) fits on bootstrap resamples of the reference."""
        return _bagged_fits(self.values, self.correct, values)

    def describe(self, value: float) -> dict[str, Any]:
        """Everything a UI shows next to one question's value.

        Returns
        -------
        ``{"value", "percentile", "p_correct" (None without labels), "base_rate"
        (share of the reference answered right; None without labels),
        "datasets", "n_reference", "settings"}``. P(correct) carries the base
        rate of the questions it was fitted on: it transfers to questions like
        those only (the 0.5B model is right on 60–80 % of arithmetic questions
        and 2 % of TriviaQA), so a UI shows it with ``datasets`` and ``base_rate``.
        """
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
        }

    @property
    def datasets(self) -> list[str]:
        """Where the reference questions came from (``settings``' datasets, or its one dataset)."""
        found = self.settings.get("datasets") or [self.settings.get("dataset")]
        return [str(d) for d in found if d]

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


# -- shipped references ------------------------------------------------------------

#: Run options a reference must share with a run to be compared with it: the
#: ones that change the measure's scale or its spread (flat option names of
#: :func:`invent_core.config.flat_values`), plus the measure and the packaged
#: LLM. The dataset is not one of them: references of several datasets pool.
MATCH_KEYS: tuple[str, ...] = (
    "measure",
    "llm",
    "perturber",
    "n_perturbations",
    "n_replications",
    "temperature",
    "embedder",
    "affinity",
    "kernel_tau",
)


def reference_dir() -> Path:
    """Return the folder of shipped references: ``$INVENT_REFERENCE_DIR`` or ``<repo>/assets/reference``."""
    env = os.environ.get("INVENT_REFERENCE_DIR")
    return Path(env) if env else assets_dir() / "reference"


def reference_settings(config: Any, llm_identity: str | None, measure: str) -> dict[str, Any]:
    """Return the :data:`MATCH_KEYS` values of a run: what a reference for it must share.

    Parameters
    ----------
    config : the run's :class:`~invent_core.config.RunConfig`.
    llm_identity : the LLM's identity or spec; a packaged model is named
        (``"qwen0.5b"``), any other LLM by its readable name.
    measure : the method name (``"inv_entropy"``).
    """
    from .config import flat_values
    from .llm.names import describe_llm, local_model

    flat = flat_values(config)
    llm = local_model(llm_identity or "") or describe_llm(llm_identity or "")
    out = {"measure": measure, "llm": llm}
    out.update({k: flat[k] for k in MATCH_KEYS if k in flat})
    if out.get("affinity") != "exp_cosine":
        out.pop("kernel_tau", None)  # τ only shapes the exp_cosine kernel
    return out


def _matches(settings: Mapping[str, Any], wanted: Mapping[str, Any]) -> bool:
    return all(settings.get(k) == v for k, v in wanted.items())


def for_settings(
    config: Any,
    *,
    llm_identity: str | None = "local",
    measure: str = "inv_entropy",
    directory: str | Path | None = None,
) -> ReferenceSet | None:
    """Return the shipped reference for a run's settings, or None when none matches.

    Every reference file whose settings equal the run's on :data:`MATCH_KEYS`
    (see :func:`reference_settings`) is pooled into one set; its ``settings``
    are the matched values plus ``datasets`` (where the questions came from)
    and ``files``. Labels are kept only when every pooled file has them.

    Examples
    --------
    >>> from invent_core.config import RunConfig
    >>> ref = for_settings(RunConfig(n_perturbations=2))  # doctest: +SKIP
    >>> ref is None or ref.settings["n_perturbations"] == 2  # doctest: +SKIP
    True
    """
    wanted = reference_settings(config, llm_identity, measure)
    folder = Path(directory) if directory is not None else reference_dir()
    found = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        try:
            ref = ReferenceSet.load(path)
        except (OSError, ValueError):
            continue  # a damaged file is no reference; the others still count
        if _matches(ref.settings, wanted):
            found.append((path, ref))
    if not found:
        return None
    return _pool(found, wanted)


def for_run(run: Any, *, measure: str = "inv_entropy") -> ReferenceSet | None:
    """The shipped reference for a :class:`~invent_core.pipeline.RunArtifact` (its config and LLM)."""
    return for_settings(run.config, llm_identity=run.identities.get("llm"), measure=measure)


def _pool(found: Sequence[tuple[Path, ReferenceSet]], wanted: Mapping[str, Any]) -> ReferenceSet:
    values = np.concatenate([ref.values for _, ref in found])
    labelled = all(ref.has_labels for _, ref in found)
    correct = np.concatenate([ref.correct for _, ref in found]) if labelled else None
    datasets = sorted({str(ref.settings.get("dataset", "?")) for _, ref in found})
    settings = {**wanted, "datasets": datasets, "files": [p.name for p, _ in found]}
    return ReferenceSet(values, correct, settings)


def _describe_settings(settings: Mapping[str, Any]) -> str:
    """``"paraphrase, n = 9, r = 5, T = 0.7, minilm, shifted_cosine, qwen0.5b; triviaqa, mmlu"``."""
    parts = [
        str(settings.get("perturber", "?")),
        f"n = {settings.get('n_perturbations', '?')}",
        f"r = {settings.get('n_replications', '?')}",
        f"T = {settings.get('temperature', '?')}",
        str(settings.get("embedder", "?")),
        str(settings.get("affinity", "?")),
        str(settings.get("llm", "?")),
    ]
    datasets = settings.get("datasets") or [settings.get("dataset")]
    return ", ".join(parts) + "; " + ", ".join(str(d) for d in datasets if d)


def reference_line(value: float, ref: ReferenceSet | None, *, measure: str = "inv_entropy") -> str:
    """Return the line shown next to a measure's value.

    ``"percentile 83 among 120 reference questions (settings: …); P(correct) ≈ 0.31"``,
    or a line saying that no shipped reference matches the settings.
    """
    if ref is None:
        return f"{measure}: no shipped reference for these settings (scripts/make_reference.py)"
    if not math.isfinite(value):
        return f"{measure}: no value, so no percentile"
    d = ref.describe(value)
    line = f"{measure}: percentile {d['percentile']:.0f} among {reference_source(ref)}"
    if d["p_correct"] is not None:
        lo, hi = d["p_interval"]
        line += (
            f"; P(correct) ≈ {d['p_correct']:.2f} [90 %: {lo:.2f}–{hi:.2f}], "
            f"{d['n_near']} reference questions near this value ({calibration_note(d)})"
        )
    elif d["n_near"] is not None:
        line += (
            f"; P(correct): not enough reference questions near this value "
            f"({d['n_near']} < {MIN_NEAR})"
        )
    return line


def reference_source(ref: ReferenceSet) -> str:
    """``"110 reference questions (settings: paraphrase, n = 9, …; arithmetic, mmlu)"``."""
    return f"{ref.size} reference questions (settings: {_describe_settings(ref.settings)})"


def calibration_note(described: Mapping[str, Any]) -> str:
    """``"calibrated on arithmetic, mmlu: right on 48 % of them"`` for :meth:`ReferenceSet.describe`'s dict."""
    where = ", ".join(described["datasets"]) or "the reference questions"
    return f"calibrated on {where}: right on {100 * described['base_rate']:.0f} % of them"


def columns(value: float, ref: ReferenceSet | None, *, measure: str = "inv_entropy") -> dict:
    """Return the two batch-output columns of one value: its percentile and P(correct).

    ``{"<measure>_percentile": 0–100 or None, "<measure>_p_correct": 0–1 or None}``;
    None (an empty cell) without a matching reference, a finite value or labels.
    """
    ok = ref is not None and value is not None and math.isfinite(value)
    pct = float(ref.percentile(value)) if ok else None
    p = ref.calibration(value)["p_correct"] if ok and ref.has_labels else None
    return {f"{measure}_percentile": pct, f"{measure}_p_correct": p}


def _bagged_fits(ref: np.ndarray, correct: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Fit :data:`N_CALIBRATION_BOOTSTRAP` isotonic maps on resamples (fixed seed) and evaluate them."""
    from sklearn.isotonic import IsotonicRegression

    lo, hi = P_CORRECT_CLIP
    key = (ref.tobytes(), correct.tobytes())
    fits = _FITS.get(key)
    if fits is None:
        rng = np.random.default_rng(0)
        fits = []
        conf, y = confidence_from_uncertainty(ref), correct.astype(np.float64)
        for b in range(N_CALIBRATION_BOOTSTRAP):
            idx = np.arange(ref.size) if b == 0 else rng.integers(0, ref.size, ref.size)
            iso = IsotonicRegression(increasing=True, y_min=lo, y_max=hi, out_of_bounds="clip")
            fits.append(iso.fit(conf[idx], y[idx]))
        _FITS.clear()  # one reference at a time is enough for a run, a batch or a page
        _FITS[key] = fits
    conf_v = confidence_from_uncertainty(values)
    return np.stack([f.predict(conf_v) for f in fits])


_FITS: dict[tuple[bytes, bytes], list] = {}


def _jeffreys(k: int, n: int) -> tuple[float, float]:
    """90 % Jeffreys interval of a share k / n (Beta(k + ½, n − k + ½) quantiles)."""
    from scipy.stats import beta

    return float(beta.ppf(0.05, k + 0.5, n - k + 0.5)), float(beta.ppf(0.95, k + 0.5, n - k + 0.5))
