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
overrides), built by ``scripts/make_reference.py`` from ``evaluate`` runs, with
each reference question's text and its embedding by the run's embedder.
:func:`for_settings` pools every shipped reference whose settings match a
run's (:data:`MATCH_KEYS`: what changes the measure's scale), across datasets,
and with a question :func:`place` narrows the pool to the reference questions
like it (issue #24 §6): of its :data:`K_NEAREST` = 30 nearest by question-text
similarity (same answer format), those with similarity ≥ :data:`SIMILARITY_FLOOR`
= 0.10 and ≥ :data:`LOCAL_RATIO` = 0.7 × their own similarity to their 10th
nearest reference question; fewer than :data:`MIN_LIKE` = 10 gives no number.
Chosen on ``scripts/reference_placement_study.py`` (docs/reference_placement.md):
with 100 reference questions per shipped sample, 98 % of arithmetic and GSM8K,
94 % of TriviaQA, 95 % of SciQ, 86 % of NQ-open and 90 % of MMLU questions are
placed, their neighbours 88 %, 97 %, 55 %, 80 %, 55 % and 100 % from their own
dataset; 4 of 10 prompts unlike any benchmark question still get a number (10
of 10 with the floor alone); against the shipped 0.5B references (arithmetic,
MMLU), 0 of 300 GSM8K and almost no TriviaQA, SciQ or NQ-open questions do.
:func:`reference_line` and :func:`columns` are what the CLI and the batch
output show; :func:`placement_record` what a run artefact keeps.
"""

from __future__ import annotations

import csv
import json
import math
import os
from base64 import b64decode, b64encode
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._env import assets_dir
from .metrics import confidence_from_uncertainty

__all__ = [
    "P_CORRECT_CLIP",
    "MIN_NEAR",
    "MATCH_KEYS",
    "ReferenceSet",
    "reference_dir",
    "reference_settings",
    "for_settings",
    "for_run",
    "place",
    "Placement",
    "K_NEAREST",
    "SIMILARITY_FLOOR",
    "MIN_LIKE",
    "LOCAL_RATIO",
    "local_radii",
    "placement_record",
    "placed_among",
    "answer_format",
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


#: at most this many nearest reference questions place a question (issue #24 §6; see
#: docs/reference_placement.md for the leave-one-out figures that chose it)
K_NEAREST = 30
#: a reference question is "like" the question at this cosine similarity of their
#: question texts or more (MiniLM; docs/reference_placement.md)
SIMILARITY_FLOOR = 0.10
#: no percentile or P(correct) from fewer reference questions like the question than this
MIN_LIKE = 10
#: ... and a reference question is like the question only when their similarity is at least
#: this share of its similarity to its own MIN_LIKE-th nearest reference question: the
#: question must sit inside its neighbours' cluster, not merely near its edge (tight
#: clusters such as arithmetic otherwise take in any question with a number; see
#: docs/reference_placement.md)
LOCAL_RATIO = 0.7
#: how a dataset is named in "TriviaQA-like"
DATASET_NAMES = {
    "triviaqa": "TriviaQA",
    "sciq": "SciQ",
    "nq_open": "NQ-open",
    "gsm8k": "GSM8K",
    "mmlu": "MMLU",
    "arithmetic": "arithmetic",
}


@dataclass(frozen=True)
class Placement:
    """Where one question was placed among the reference questions (issue #24 §6).

    Attributes
    ----------
    mode : ``"nearest"`` (its k nearest at or above the floor), ``"none_like"``
        (fewer than :data:`MIN_LIKE` of them: no number) or ``"pooled"`` (the
        reference files carry no question embeddings: every question, as before).
    k, floor, ratio : the most neighbours taken, the similarity floor and the
        local ratio (:data:`LOCAL_RATIO`).
    n_candidates : reference questions it was compared with (same settings and
        answer format: with choices or free text).
    rows : the neighbours, most similar first (for ``none_like`` the five
        nearest): ``{"question", "dataset", "similarity", "value", "correct"}``.
    reason : why ``pooled`` or ``none_like``, in words.
    """

    mode: str
    k: int = K_NEAREST
    floor: float = SIMILARITY_FLOOR
    n_candidates: int = 0
    rows: tuple[dict[str, Any], ...] = ()
    reason: str = ""
    ratio: float = LOCAL_RATIO

    @property
    def similarity_min(self) -> float | None:
        """The least similar neighbour's similarity (None without neighbours)."""
        return min((r["similarity"] for r in self.rows), default=None)

    @property
    def counts(self) -> dict[str, int]:
        """Neighbours per dataset, most first."""
        out: dict[str, int] = {}
        for r in self.rows:
            out[r["dataset"]] = out.get(r["dataset"], 0) + 1
        return dict(sorted(out.items(), key=lambda kv: -kv[1]))

    @property
    def like(self) -> str:
        """How the neighbours are named: ``"TriviaQA-like reference questions"``.

        Named after one dataset when two thirds come from it, else
        ``"reference questions like this one (14 TriviaQA, 10 NQ-open)"``.
        """
        counts = self.counts
        if not counts:
            return "reference questions like this one"
        top, n_top = next(iter(counts.items()))
        if n_top * 3 >= 2 * len(self.rows):
            return f"{DATASET_NAMES.get(top, top)}-like reference questions"
        mix = ", ".join(f"{n} {DATASET_NAMES.get(d, d)}" for d, n in counts.items())
        return f"reference questions like this one ({mix})"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: mode, k, floor, n_like, similarity_min, like, counts, rows, reason."""
        n_like = len(self.rows) if self.mode == "nearest" else 0
        return {
            "mode": self.mode,
            "k": self.k,
            "floor": self.floor,
            "ratio": self.ratio,
            "n_candidates": self.n_candidates,
            "n_like": n_like,
            "similarity_min": self.similarity_min,
            "like": self.like if self.mode == "nearest" else None,
            "counts": self.counts if self.mode == "nearest" else {},
            "rows": [dict(r) for r in self.rows],
            "reason": self.reason,
        }


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
        return _bagged_fits(self.values, self.correct, values)

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
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ReferenceSet:
        """Inverse of :meth:`to_dict`; files without questions or embeddings load too."""
        if data.get("format") not in (None, FORMAT):
            raise ValueError(f"unsupported reference format {data.get('format')!r}")
        if "values" not in data:
            raise ValueError("not a reference set: no 'values'")
        emb = data.get("embeddings")
        return cls(
            data["values"],
            data.get("correct"),
            data.get("settings") or {},
            questions=data.get("questions"),
            sources=data.get("sources"),
            embeddings=decode_embeddings(emb) if emb is not None else None,
        )

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
        column, when present in every kept row, becomes the labels; the
        ``question`` and ``dataset`` columns, when present, the question texts and
        their sources (embed them with :meth:`with_embeddings`).
        """
        with open(path, newline="", encoding="utf-8") as fh:
            rows = [r for r in csv.DictReader(fh) if _finite(r.get(measure))]
        if not rows:
            raise ValueError(f"{path}: no finite {measure!r} values")
        labels = [r.get("correct") for r in rows]
        correct = [int(x) for x in labels] if all(x not in (None, "") for x in labels) else None
        meta = {"measure": measure, "source": str(path), **dict(settings)}
        questions = [r["question"] for r in rows] if "question" in rows[0] else None
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
    from ..config import flat_values
    from ..llm.names import describe_llm, local_model

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
    question: str | None = None,
    embedder: Any = None,
    task: str | None = None,
) -> ReferenceSet | None:
    """Return the shipped reference for a run's settings, or None when none matches.

    Every reference file whose settings equal the run's on :data:`MATCH_KEYS`
    (see :func:`reference_settings`) is pooled into one set; its ``settings``
    are the matched values plus ``datasets`` (where the questions came from)
    and ``files``. Labels are kept only when every pooled file has them.
    With ``question``, the pooled set is narrowed by :func:`place` to the
    reference questions like it (``embedder``: the run's, by default the
    config's packaged one; ``task``: the run's answer format).

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
    pooled = _pool(found, wanted)
    if question is None:
        return pooled
    if embedder is None:
        from ..embedders import get_embedder

        embedder = get_embedder(config.score.embedder)
    return place(pooled, question, embedder, task=task)


def for_run(run: Any, *, measure: str = "inv_entropy", embedder: Any = None) -> ReferenceSet | None:
    """The reference questions like a :class:`~invent_core.engine.pipeline.RunArtifact`'s question.

    Same settings (its config and LLM) and answer format (its task), narrowed to
    the question's nearest by :func:`place`.
    """
    return for_settings(
        run.config,
        llm_identity=run.identities.get("llm"),
        measure=measure,
        question=run.question,
        embedder=embedder,
        task=run.task,
    )


def _pool(found: Sequence[tuple[Path, ReferenceSet]], wanted: Mapping[str, Any]) -> ReferenceSet:
    """One set of every matched file; per-question texts and embeddings only when all have them."""
    refs = [ref for _, ref in found]
    values = np.concatenate([ref.values for ref in refs])
    labelled = all(ref.has_labels for ref in refs)
    correct = np.concatenate([ref.correct for ref in refs]) if labelled else None
    datasets = sorted({str(ref.settings.get("dataset", "?")) for ref in refs})
    settings = {**wanted, "datasets": datasets, "files": [p.name for p, _ in found]}
    embedded = all(r.embeddings is not None and r.questions is not None for r in refs)
    identities = {r.settings.get("question_embedder") for r in refs}
    if not embedded or len(identities) != 1:
        return ReferenceSet(values, correct, settings)
    settings["question_embedder"] = identities.pop()
    return ReferenceSet(
        values,
        correct,
        settings,
        questions=[q for r in refs for q in r.questions],
        sources=[s for r in refs for s in _sources(r)],
        embeddings=np.concatenate([r.embeddings for r in refs]),
    )


def _sources(ref: ReferenceSet) -> Sequence[str]:
    return ref.sources or [str(ref.settings.get("dataset", "?"))] * ref.size


def answer_format(task_or_dataset: str | None) -> str | None:
    """``"choices"`` (MMLU-style, a letter) or ``"free"`` text; None when unknown.

    A question with options is answered with a letter, so it is placed among
    reference questions with options only, and a free-text one among free-text
    ones. Arithmetic typed as ``qa`` and GSM8K are both free text: their
    similarity keeps them apart (docs/reference_placement.md).
    """
    from ..questions.datasets import DATASETS

    if task_or_dataset is None:
        return None
    task = DATASETS[task_or_dataset][1] if task_or_dataset in DATASETS else task_or_dataset
    return {"mmlu": "choices", "qa": "free", "gsm8k": "free"}.get(task)


def question_task(question: str) -> str:
    """The answer task of a question given without one: ``"mmlu"`` when it lists options, else ``"qa"``.

    >>> question_task("Which planet is red? A. Mars B. Venus")
    'mmlu'
    >>> question_task("Which golfer won the 1997 Masters at Augusta?")
    'qa'
    """
    from ..questions.mmlu import split_mmlu_stem

    return "mmlu" if split_mmlu_stem(question)[1] else "qa"


def place(
    ref: ReferenceSet,
    question: str,
    embedder: Any,
    *,
    task: str | None = None,
    k: int = K_NEAREST,
    floor: float = SIMILARITY_FLOOR,
    ratio: float = LOCAL_RATIO,
) -> ReferenceSet:
    """The reference questions like ``question``: those of its k nearest close enough.

    Similarity is the cosine of the question texts' embeddings by the run's
    embedder (the reference's were made by the same model: its identity is
    checked). Only reference questions of the same answer format
    (:func:`answer_format` of ``task``) are candidates. Of its k nearest, a
    reference question j is like it when their similarity is ≥ ``floor`` and ≥
    ``ratio`` (:data:`LOCAL_RATIO`) × ρ_j, ρ_j being j's similarity to its own
    :data:`MIN_LIKE`-th nearest reference question (:func:`local_radii`).

    Returns
    -------
    A :class:`ReferenceSet` with its :class:`Placement`: the neighbours (mode
    ``"nearest"``); the whole ``ref`` with mode ``"none_like"`` when fewer than
    :data:`MIN_LIKE` are close enough (:meth:`ReferenceSet.describe` then gives
    no number); the whole ``ref`` with mode ``"pooled"`` when it has no question
    embeddings, or ones made by another embedder.
    """
    why = _cannot_place(ref, embedder)
    if why:
        return replace(ref, placement=Placement("pooled", k, floor, ref.size, (), why, ratio))
    q = np.asarray(embedder.encode([question]), dtype=np.float32).reshape(-1)
    sims = ref.embeddings @ (q / max(float(np.linalg.norm(q)), 1e-12))
    fmt = answer_format(task)
    formats = {s: answer_format(s) for s in set(_sources(ref))}
    ok = [fmt is None or formats[s] in (None, fmt) for s in _sources(ref)]
    order = [int(i) for i in np.argsort(-sims, kind="stable") if ok[i]]
    bar = np.maximum(floor, ratio * local_radii(ref))
    near = [i for i in order[:k] if sims[i] >= bar[i]]
    if len(near) < MIN_LIKE:
        rows = tuple(_row(ref, i, sims[i]) for i in order[:5])
        why = (
            f"{len(near)} of {len(order)} reference questions are close enough: similarity "
            f"≥ {floor:.2f} and ≥ {ratio} × theirs to their own {MIN_LIKE}th nearest; "
            f"{MIN_LIKE} needed"
            if order
            else f"none of the {ref.size} reference questions is answered with {_FORMATS[fmt]}"
        )
        placed = Placement("none_like", k, floor, len(order), rows, why, ratio)
        return replace(ref, placement=placed)
    rows = _rows(ref, near, sims)
    return _subset(ref, near, Placement("nearest", k, floor, len(order), rows, "", ratio))


_FORMATS = {"choices": "a letter among options", "free": "free text"}


def local_radii(ref: ReferenceSet, m: int = MIN_LIKE) -> np.ndarray:
    """(n,) each reference question's similarity to its m-th nearest other one of its answer format.

    How tight the reference is around each question: arithmetic questions are
    near-copies of one another (median ρ 0.62 with 100 a sample), TriviaQA
    questions share little (0.21; docs/reference_placement.md). −inf where fewer than m others share the format. Cached
    for the last reference (a batch places every row among the same one).
    """
    key = (hash(ref.embeddings.tobytes()), tuple(_sources(ref)), m)
    last = _RADII.get("last")
    if last is not None and last[0] == key:
        return last[1]
    formats = {s: answer_format(s) for s in set(_sources(ref))}
    fmt = np.array([str(formats[s]) for s in _sources(ref)])
    sims = ref.embeddings @ ref.embeddings.T
    same = fmt[:, None] == fmt[None, :]
    sims = np.where(same & ~np.eye(ref.size, dtype=bool), sims, -np.inf)
    radii = -np.sort(-sims, axis=1)[:, m - 1] if ref.size > m else np.full(ref.size, -np.inf)
    _RADII["last"] = (key, radii)  # one assignment: a concurrent row sees old or new
    return radii


_RADII: dict[str, Any] = {}


def _cannot_place(ref: ReferenceSet, embedder: Any) -> str:
    """Why ``ref`` cannot be searched by question ("" when it can)."""
    if ref.embeddings is None or ref.questions is None:
        return (
            "the reference files carry no question embeddings (rebuild them with "
            "scripts/make_reference.py), so every reference question counts"
        )
    if not hasattr(embedder, "encode"):
        return f"{getattr(embedder, 'name', 'this similarity')} gives no embeddings"
    made_by = ref.settings.get("question_embedder")
    if made_by and made_by != getattr(embedder, "identity", made_by):
        return f"the reference questions were embedded by {made_by}, not this run's embedder"
    return ""


def _row(ref: ReferenceSet, i: int, similarity: float) -> dict[str, Any]:
    return {
        "question": ref.questions[i],
        "dataset": _sources(ref)[i],
        "similarity": round(float(similarity), 4),
        "value": float(ref.values[i]),
        "correct": None if ref.correct is None else int(ref.correct[i]),
    }


def _rows(ref: ReferenceSet, idx: Sequence[int], sims: np.ndarray) -> tuple[dict[str, Any], ...]:
    return tuple(_row(ref, i, sims[i]) for i in idx)


def _subset(ref: ReferenceSet, idx: Sequence[int], placement: Placement) -> ReferenceSet:
    """The rows ``idx`` of ``ref`` as a set of their own, with ``placement``."""
    sel = np.asarray(idx, dtype=np.int64)
    sources = [_sources(ref)[i] for i in idx]
    return ReferenceSet(
        ref.values[sel],
        None if ref.correct is None else ref.correct[sel],
        {**ref.settings, "datasets": sorted(set(sources)), "bandwidth": 2 * ref.bandwidth},
        questions=[ref.questions[i] for i in idx],
        sources=sources,
        embeddings=ref.embeddings[sel],
        placement=placement,
    )


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

    Placed (:func:`place`): ``"inv_entropy: P(correct) ≈ 0.02 [0.01, 0.08] among 30
    TriviaQA-like reference questions (k = 30, similarity ≥ 0.21); percentile 83
    among them; …"``; none like it: ``"inv_entropy: no reference questions like
    this one — … — so no percentile or P(correct)"``. A set not placed (or
    pooled: old files) reads ``"percentile 83 among 120 reference questions
    (settings: …); P(correct) ≈ 0.31 …"``; without a matching reference, a line
    says so.
    """
    if ref is None:
        return f"{measure}: no shipped reference for these settings (scripts/make_reference.py)"
    if not math.isfinite(value):
        return f"{measure}: no value, so no percentile"
    placement = ref.placement
    if placement is not None and placement.mode == "none_like":
        return (
            f"{measure}: no reference questions like this one — {placement.reason} — "
            "so no percentile or P(correct)"
        )
    d = ref.describe(value)
    if placement is not None and placement.mode == "nearest":
        return _placed_line(d, ref, measure)
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
    if placement is not None:  # pooled: old reference files
        line += f" [not placed among questions like this one: {placement.reason}]"
    return line


def _placed_line(d: Mapping[str, Any], ref: ReferenceSet, measure: str) -> str:
    """The line of a question placed among its nearest reference questions."""
    where = placed_source(ref)
    if d["p_correct"] is not None:
        lo, hi = d["p_interval"]
        head = f"{measure}: P(correct) ≈ {d['p_correct']:.2f} [{lo:.2f}, {hi:.2f}] among {where}"
        tail = (
            f"; percentile {d['percentile']:.0f} among them; {d['n_near']} near this value; "
            f"{100 * d['base_rate']:.0f} % of the {ref.size} answered right"
        )
    else:
        head = f"{measure}: percentile {d['percentile']:.0f} among {where}"
        tail = (
            "; P(correct): no labels"
            if d["n_near"] is None
            else f"; P(correct): not enough of them near this value ({d['n_near']} < {MIN_NEAR})"
        )
    return head + tail + f" (settings: {_describe_settings(ref.settings)})"


def placed_source(ref: ReferenceSet) -> str:
    """``"30 TriviaQA-like reference questions (k = 30, similarity ≥ 0.21)"``."""
    p = ref.placement
    return f"{ref.size} {p.like} (k = {p.k}, similarity ≥ {p.similarity_min:.2f})"


def reference_source(ref: ReferenceSet) -> str:
    """``"110 reference questions (settings: paraphrase, n = 9, …; arithmetic, mmlu)"``."""
    if ref.placement is not None and ref.placement.mode == "nearest":
        return f"{placed_source(ref)} (settings: {_describe_settings(ref.settings)})"
    return f"{ref.size} reference questions (settings: {_describe_settings(ref.settings)})"


def calibration_note(described: Mapping[str, Any]) -> str:
    """``"calibrated on arithmetic, mmlu: right on 48 % of them"`` for :meth:`ReferenceSet.describe`'s dict."""
    where = ", ".join(described["datasets"]) or "the reference questions"
    return f"calibrated on {where}: right on {100 * described['base_rate']:.0f} % of them"


def columns(value: float, ref: ReferenceSet | None, *, measure: str = "inv_entropy") -> dict:
    """Return the batch-output columns of one value: percentile, P(correct), placed among.

    ``{"<measure>_percentile": 0–100 or None, "<measure>_p_correct": 0–1 or None,
    "<measure>_placed_among": "30 TriviaQA-like (k = 30, similarity ≥ 0.21)" or a
    note or None}``. Percentile and P(correct) are None (an empty cell) without a
    matching reference, a finite value, labels, or reference questions like the
    row's (a :func:`place`-d set of mode ``"none_like"``). A placed set gives the
    value among the neighbours only.
    """
    ok = ref is not None and value is not None and math.isfinite(value)
    if ok and ref.placement is not None and ref.placement.mode == "none_like":
        ok = False
    pct = float(ref.percentile(value)) if ok else None
    p = ref.calibration(value)["p_correct"] if ok and ref.has_labels else None
    return {
        f"{measure}_percentile": pct,
        f"{measure}_p_correct": p,
        f"{measure}_placed_among": placed_among(ref),
    }


def placed_among(ref: ReferenceSet | None) -> str | None:
    """A short cell: which reference questions a value was placed among (None: no reference)."""
    if ref is None:
        return None
    p = ref.placement
    if p is None:
        return f"{ref.size} reference questions"
    if p.mode == "nearest":
        like = p.like.removesuffix(" reference questions")
        return f"{ref.size} {like} (k = {p.k}, similarity ≥ {p.similarity_min:.2f})"
    if p.mode == "none_like":
        return f"none like this one ({p.reason})"
    return f"{ref.size} reference questions, pooled (no question embeddings)"


def placement_record(value: float | None, ref: ReferenceSet | None, measure: str) -> dict | None:
    """What a run artefact keeps of its placement (issue #24 §6); None without a reference.

    ``{"measure", "value", "percentile", "p_correct", "p_interval", "n_near",
    "base_rate", "n_reference", "datasets", "files", "placement"}``:
    :meth:`ReferenceSet.describe` without the settings (the run has them), plus
    the reference files' names.
    """
    if ref is None or value is None or not math.isfinite(value):
        return None
    d = ref.describe(float(value))
    d.pop("settings", None)
    return {"measure": measure, **d, "files": list(ref.settings.get("files") or [])}


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
