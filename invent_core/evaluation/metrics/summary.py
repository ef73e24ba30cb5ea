"""Every metric for every method: the bootstrap table and the full-sample values.

:func:`evaluate_scores` takes ``{method: (n,) uncertainty}`` and (n,)
correctness and returns an :class:`Evaluation` (method -> metric ->
:class:`MetricSummary`: the full-sample value, bootstrap mean/std, the 95 %
percentile interval, the resample values), JSON round-trippable as
``results.json`` holds it. :meth:`Evaluation.with_paired` adds the paired
differences of chosen methods to every other (:mod:`.paired`).
:func:`point_metrics` gives full-sample values only, each method on its finite
rows, with :func:`undefined_reason` saying why a metric has no value.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .bootstrap import N_BOOTSTRAP, Centre, bootstrap_indices, paired_bootstrap, percentile_interval
from .inputs import OnSingleClass, check_inputs
from .paired import PairedDifference, holm_adjusted, paired_difference
from .registry import DEFAULT_METRICS, get_metric


@dataclass(frozen=True)
class MetricSummary:
    """One method × metric cell: bootstrap mean/std, the resample values, full-sample value.

    ``point`` is the metric on the whole sample, the centre a table shows (ours);
    ``mean`` the bootstrap mean (the paper's centre); ``ci95`` the 95 %
    percentile interval over the resamples.
    """

    mean: float
    std: float
    point: float
    values: np.ndarray = field(repr=False)

    @property
    def ci95(self) -> tuple[float, float]:
        """The 95 % percentile interval over the resamples."""
        return percentile_interval(self.values)

    def centre(self, kind: Centre = "sample") -> float:
        """The value a table shows: the sample value (ours) or the bootstrap mean (the paper's)."""
        return self.point if kind == "sample" else self.mean

    def to_dict(self) -> dict[str, Any]:
        """Return the cell as a JSON-ready dict (the resample values as a list)."""
        return {
            "point": self.point,
            "ci95": list(self.ci95),
            "std": self.std,
            "mean": self.mean,
            "values": [float(v) for v in self.values],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MetricSummary:
        """Inverse of :meth:`to_dict`."""
        values = np.asarray(data["values"], dtype=np.float64)
        return cls(float(data["mean"]), float(data["std"]), float(data["point"]), values)


@dataclass(frozen=True)
class Evaluation:
    """Result of :func:`evaluate_scores`.

    Attributes
    ----------
    results : method -> metric name -> MetricSummary.
    metrics : the metric names, in column order.
    n_questions, n_correct, n_bootstrap, seed : what the figures rest on.
    skipped : method -> reason, for methods with no finite uncertainty at all.
    centre : what a table shows as a cell's value: "sample" (ours) or
        "bootstrap_mean" (the paper's convention).
    paired : reference method -> other method -> :class:`PairedDifference`
        (see :meth:`with_paired`).
    """

    results: dict[str, dict[str, MetricSummary]]
    metrics: tuple[str, ...]
    n_questions: int
    n_correct: int
    n_bootstrap: int
    seed: int | None
    skipped: dict[str, str] = field(default_factory=dict)
    centre: Centre = "sample"
    paired: dict[str, dict[str, PairedDifference]] = field(default_factory=dict)

    @property
    def accuracy(self) -> float:
        """Share of correct answers (NaN with no question: say so, never print it)."""
        return self.n_correct / self.n_questions if self.n_questions else float("nan")

    def to_dict(self) -> dict[str, Any]:
        """Return the evaluation as a JSON-ready dict (what ``results.json`` holds)."""
        return {
            "metrics": list(self.metrics),
            "n_questions": self.n_questions,
            "n_correct": self.n_correct,
            "n_bootstrap": self.n_bootstrap,
            "seed": self.seed,
            "centre": self.centre,
            "skipped": dict(self.skipped),
            "results": {
                meth: {k: s.to_dict() for k, s in row.items()} for meth, row in self.results.items()
            },
            "paired": {
                ref: {o: d.to_dict() for o, d in row.items()} for ref, row in self.paired.items()
            },
        }

    def with_paired(self, references: Sequence[str], metric: str = "auroc") -> Evaluation:
        """Return the evaluation with each reference's paired difference to every other method.

        References that were not evaluated are left out; the differences use the
        resample values already stored, so they are paired with no new draw. Each
        reference's row is one family: its verdicts are Holm-corrected over the
        methods it is compared with (:func:`~.paired.holm_adjusted`).
        """
        spec = get_metric(metric)
        paired: dict[str, dict[str, PairedDifference]] = {}
        for ref in dict.fromkeys(references):
            if metric not in self.results.get(ref, {}):
                continue
            a = self.results[ref][metric]
            paired[ref] = holm_adjusted(
                {
                    other: paired_difference(
                        ref,
                        other,
                        metric,
                        (a.point, row[metric].point),
                        (a.values, row[metric].values),
                        n_questions=self.n_questions,
                        higher_is_better=spec.higher_is_better,
                    )
                    for other, row in self.results.items()
                    if other != ref and metric in row
                }
            )
        return dataclasses.replace(self, paired=paired)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Evaluation:
        """Inverse of :meth:`to_dict` (e.g. an evaluation read back from ``results.json``).

        Evaluations saved before the bootstrap count was named ``n_bootstrap`` (their key
        was ``"n_boot"``) load too.
        """
        results = {
            meth: {k: MetricSummary.from_dict(v) for k, v in row.items()}
            for meth, row in data["results"].items()
        }
        return cls(
            results=results,
            metrics=tuple(data["metrics"]),
            n_questions=int(data["n_questions"]),
            n_correct=int(data["n_correct"]),
            n_bootstrap=int(data["n_bootstrap"] if "n_bootstrap" in data else data["n_boot"]),
            seed=data.get("seed"),
            skipped=dict(data.get("skipped") or {}),
            centre=data.get("centre", "bootstrap_mean"),  # saved before the sample centre
            paired={
                ref: {o: PairedDifference.from_dict(d) for o, d in row.items()}
                for ref, row in (data.get("paired") or {}).items()
            },
        )


def evaluate_scores(
    table: Mapping[str, ArrayLike],
    correct: ArrayLike,
    *,
    n_bootstrap: int = N_BOOTSTRAP,
    seed: int = 0,
    metrics: Sequence[str] = DEFAULT_METRICS,
    on_single_class: OnSingleClass = "redraw",
    centre: Centre = "sample",
) -> Evaluation:
    """Every metric for every method: its sample value, paired-bootstrap std and 95 % interval.

    All methods and metrics are evaluated on the *same* resamples (drawn once from
    ``seed``), so differences between methods are paired too.

    Parameters
    ----------
    table : method name -> uncertainty array of shape (n,), higher = more uncertain.
        A method whose values are all NaN (unavailable) is listed in ``skipped``;
        a partly-NaN method raises ValueError naming it.
    correct : array of shape (n,), 0/1 or bool — judgements of the same responses.
    n_bootstrap : int, default :data:`N_BOOTSTRAP` (1,000; the paper's 40 is ``PAPER_N_BOOTSTRAP``)
    seed : int, default 0
    metrics : names from :data:`METRICS`, default all.
    on_single_class : {"redraw", "skip"}, see :func:`bootstrap_indices`.
    centre : what the tables show, "sample" (ours) or "bootstrap_mean" (the paper's).

    Returns
    -------
    Evaluation
    """
    specs = [get_metric(m) for m in metrics]
    c = np.asarray(correct)
    results: dict[str, dict[str, MetricSummary]] = {}
    skipped: dict[str, str] = {}
    need_both = any(spec.needs_both_classes for spec in specs)
    indices = None  # drawn once: every method and metric sees the same resamples
    for method, values in table.items():
        u = np.asarray(values, dtype=np.float64)
        if u.shape != c.shape:
            raise ValueError(
                f"method {method!r}: {u.size} uncertainties for {c.size} correctness labels"
            )
        nan = np.isnan(u)
        if nan.all():
            skipped[method] = "no finite uncertainty (method unavailable)"
            continue
        if nan.any():
            raise ValueError(
                f"method {method!r}: {int(nan.sum())} of {u.size} uncertainties are NaN "
                f"(first at index {int(np.flatnonzero(nan)[0])})"
            )
        c, u = check_inputs(c, u)
        if indices is None:
            indices = bootstrap_indices(
                c,
                n_bootstrap=n_bootstrap,
                seed=seed,
                require_both_classes=need_both,
                on_single_class=on_single_class,
            )
        row = {}
        for spec in specs:
            boot = paired_bootstrap(spec, c, u, indices=indices)
            row[spec.name] = MetricSummary(boot.mean, boot.std, spec.func(c, u), boot.values)
        results[method] = row
    c_int = np.asarray(correct).astype(np.int64)
    return Evaluation(
        results=results,
        metrics=tuple(s.name for s in specs),
        n_questions=int(c_int.size),
        n_correct=int(c_int.sum()),
        n_bootstrap=n_bootstrap,
        seed=seed,
        skipped=skipped,
        centre=centre,
    )


def undefined_reason(correct: ArrayLike, *, needs_both_classes: bool = True) -> str | None:
    """Why a metric cannot be computed on these judgements, or None when it can.

    Parameters
    ----------
    correct : array of shape (n,), 0/1 or bool.
    needs_both_classes : the metric needs correct and incorrect answers (AUROC, PRR).

    Returns
    -------
    ``"no values"`` (n = 0), ``"too few rows"`` (n = 1), ``"all answers right"``,
    ``"all answers wrong"`` or None.
    """
    c = np.asarray(correct, dtype=np.float64).ravel()
    if c.size == 0:
        return "no values"
    if c.size < 2:
        return "too few rows"
    if needs_both_classes and c.min() == c.max():
        return "all answers right" if c[0] else "all answers wrong"
    return None


def point_metrics(
    table: Mapping[str, ArrayLike],
    correct: ArrayLike,
    *,
    metrics: Sequence[str] = ("auroc", "prr"),
) -> dict[str, dict[str, Any]]:
    """Full-sample value of each metric for each method, without bootstrap.

    Each method is evaluated on the questions where its uncertainty is finite
    (a method may fail on some questions), so ``n`` can differ between methods.

    Parameters
    ----------
    table : method name -> uncertainty array of shape (n,), higher = more uncertain;
        NaN where the method has no value.
    correct : array of shape (n,), 0/1 or bool.
    metrics : names from :data:`METRICS`.

    Returns
    -------
    method -> ``{metric: float | None, …, "n": int, "undefined": str | None}``; a
    metric is None when :func:`undefined_reason` gives a reason, stored under
    ``"undefined"`` (e.g. "all answers right").
    """
    specs = [get_metric(m) for m in metrics]
    c_all = np.asarray(correct)
    out: dict[str, dict[str, Any]] = {}
    for method, values in table.items():
        u = np.asarray(values, dtype=np.float64)
        keep = np.isfinite(u)
        c, u = c_all[keep], u[keep]
        row: dict[str, Any] = {"n": int(keep.sum()), "undefined": None}
        for spec in specs:
            reason = undefined_reason(c, needs_both_classes=spec.needs_both_classes)
            row[spec.name] = None if reason else float(spec.func(c, u))
            row["undefined"] = row["undefined"] or reason
        out[method] = row
    return out
