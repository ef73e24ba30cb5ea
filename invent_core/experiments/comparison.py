"""Two evaluations (or two methods of one) question by question: paired differences, disagreements.

:func:`read_side` reads an ``evaluate`` folder's judged rows with the
reviewer's layer applied (:mod:`.relabel`); :func:`pair_questions` pairs two
folders' questions by id (a question whose id differs is paired by its text)
and refuses folders over different questions — saying how many each holds
and how many are shared — unless the intersection is asked for.
:func:`compare_evaluations` and :func:`compare_methods` give an
:class:`EvaluationComparison`: for each method compared, each metric's
paired difference ``A − B`` over the same resamples of the paired questions
(:func:`invent_core.evaluation.compare.compare_sides`), and the questions
where the two sides disagree most, with both answers, labels, scores and
rewordings. Nothing here calls an LLM or writes a file.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..engine.artifact import RunArtifact
from ..errors import DifferentQuestions
from ..evaluation.compare import COMPARE_METRICS, MetricComparison, compare_sides, disagreement
from ..evaluation.metrics import N_BOOTSTRAP
from .folder import read_evaluation
from .reading import INV
from .relabel import RelabelSummary
from .runs import safe_name

__all__ = [
    "DifferentQuestions",
    "Disagreement",
    "EvaluationComparison",
    "Side",
    "compare_evaluations",
    "compare_methods",
    "pair_questions",
    "read_side",
]


@dataclass(frozen=True)
class Side:
    """One evaluation folder as compare reads it: judged rows (layer applied) and method columns."""

    folder: Path
    rows: list[dict[str, Any]]
    methods: list[str]
    temperature: float | None = None
    relabels: RelabelSummary | None = None

    @property
    def name(self) -> str:
        """What the side is called in a table: its folder's name."""
        return self.folder.name

    def run_path(self, row_id: str) -> Path | None:
        """The saved run of a question (``runs/<id>_T<t>.json``), None when there is none."""
        if self.temperature is None:
            return None
        path = self.folder / "runs" / f"{safe_name(row_id)}_T{self.temperature:g}.json"
        return path if path.is_file() else None


@dataclass(frozen=True)
class Disagreement:
    """One paired question where the two sides rank the uncertainty far apart.

    ``gap``: |percentile on A − percentile on B| (0 … 1); ``scores``: the uncertainty
    it was ranked on, on each side; ``rows``: the question's row on each side
    (answer, label, every score); ``runs``: each side's saved run path or None.
    """

    question: str
    gap: float
    scores: tuple[float, float]
    rows: tuple[dict[str, Any], dict[str, Any]]
    runs: tuple[Path | None, Path | None]

    def rewordings(self) -> tuple[list[str], list[str]]:
        """The perturbations each side asked (empty where the run is not saved or unreadable)."""
        out = []
        for path in self.runs:
            try:
                out.append(list(RunArtifact.load(path).perturbations) if path else [])
            except (OSError, ValueError, KeyError, TypeError):
                out.append([])
        return out[0], out[1]


@dataclass(frozen=True)
class EvaluationComparison:
    """What ``invent compare`` prints: per method, each metric's paired difference A − B.

    Attributes
    ----------
    names : what A and B are (folder names, or ``folder:method``).
    n_a, n_b, n_shared : questions in each and paired.
    results : method (``"a_method vs b_method"`` for two methods) → metric comparisons.
    skipped : method → why it was not compared.
    disagreements : the paired questions ranked furthest apart, most first.
    n_bootstrap, seed : the resamples the intervals rest on.
    """

    names: tuple[str, str]
    n_a: int
    n_b: int
    n_shared: int
    results: dict[str, list[MetricComparison]]
    skipped: dict[str, str] = field(default_factory=dict)
    disagreements: list[Disagreement] = field(default_factory=list)
    n_bootstrap: int = N_BOOTSTRAP
    seed: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the counts, every paired difference, the disagreements (ids and gaps)."""
        return {
            "names": list(self.names),
            "n_a": self.n_a,
            "n_b": self.n_b,
            "n_shared": self.n_shared,
            "n_bootstrap": self.n_bootstrap,
            "seed": self.seed,
            "results": {
                m: [
                    {"value_a": c.value_a, "value_b": c.value_b, **c.difference.to_dict()}
                    for c in rows
                ]
                for m, rows in self.results.items()
            },  # fmt: skip
            "skipped": dict(self.skipped),
            "disagreements": [
                {
                    "id": d.rows[0]["id"],
                    "question": d.question,
                    "gap": d.gap,
                    "scores": list(d.scores),
                    "correct": [int(r["correct"]) for r in d.rows],
                }
                for d in self.disagreements
            ],
        }


def _temperature(cfg: Mapping[str, Any]) -> float | None:
    try:
        return float(cfg["run"]["temperature"])
    except (ValueError, KeyError, TypeError):
        return None


def read_side(folder: str | Path) -> Side:
    """An evaluate folder's judged rows, the reviewer's layer applied, and its method columns.

    Raises
    ------
    FileNotFoundError
        Naming ``scores.csv`` when the folder has none (not an evaluate folder).
    """
    ev = read_evaluation(folder)
    folder = ev.path
    judged, methods, layer = ev.judged, list(ev.methods), ev.layer
    return Side(folder, judged, methods, _temperature(ev.config), layer)


def _text(row: Mapping[str, Any]) -> str:
    return " ".join(str(row.get("question", "")).split()).casefold()


def _refuse_reused_ids(
    a: Sequence[Mapping[str, Any]], b_id: Mapping[str, Mapping[str, Any]], names: tuple[str, str]
) -> None:
    """Refuse ids that stand for different question texts on the two sides.

    An id is only a name: two evaluations of different samples may both call
    their first question ``q0``. Pairing those would compare the uncertainty of
    unrelated questions, so any such id is refused with an example.
    """
    clash = [r for r in a if str(r["id"]) in b_id and _text(r) != _text(b_id[str(r["id"])])]
    if clash:
        first = clash[0]
        other = b_id[str(first["id"])]
        raise DifferentQuestions(
            f"{len(clash)} id(s) stand for different questions in {names[0]} and {names[1]}, "
            f"e.g. id {first['id']!r}: {str(first['question'])[:80]!r} in {names[0]}, "
            f"{str(other['question'])[:80]!r} in {names[1]}. Pairing by id would compare "
            "different questions; compare evaluations of the same sample"
        )


def pair_questions(
    a: Sequence[Mapping[str, Any]],
    b: Sequence[Mapping[str, Any]],
    *,
    names: tuple[str, str] = ("A", "B"),
    intersection: bool = False,
) -> list[tuple[Mapping[str, Any], Mapping[str, Any]]]:
    """Pairs (row of A, row of B) of the same question: by id, else by the question's text.

    Raises
    ------
    DifferentQuestions
        When a question of one side is not on the other and ``intersection`` is False:
        how many each holds and how many are shared.
    """
    b_id = {str(r["id"]): r for r in b}
    b_text = {_text(r): r for r in b}
    _refuse_reused_ids(a, b_id, names)
    pairs, used = [], set()
    for row in a:
        other = b_id.get(str(row["id"])) or b_text.get(_text(row))
        if other is not None and id(other) not in used:
            pairs.append((row, other))
            used.add(id(other))
    if len(pairs) == 0 or (not intersection and len(pairs) < max(len(a), len(b))):
        raise DifferentQuestions(
            f"{names[0]} holds {len(a)} judged questions, {names[1]} {len(b)}; {len(pairs)} "
            "are shared (by id or question text). "
            + (
                "Nothing to compare."
                if not pairs
                else f"Pass --intersection to compare them on the {len(pairs)} shared."
            )
        )
    return pairs


def _scores(rows: Sequence[Mapping[str, Any]], method: str) -> np.ndarray:
    out = []
    for r in rows:
        try:
            out.append(float(r.get(method)))
        except (TypeError, ValueError):
            out.append(math.nan)
    return np.asarray(out, dtype=np.float64)


def _labels(rows: Sequence[Mapping[str, Any]]) -> np.ndarray:
    return np.asarray([int(float(r["correct"])) for r in rows], dtype=np.int64)


def _compare_one(pairs, methods: tuple[str, str], names, opts: Mapping[str, Any]):
    """(comparisons, None) for one pair of method columns, or (None, why not)."""
    ra, rb = [p[0] for p in pairs], [p[1] for p in pairs]
    ua, ub = _scores(ra, methods[0]), _scores(rb, methods[1])
    keep = np.isfinite(ua) & np.isfinite(ub)
    if not keep.all():
        return None, f"no value on {int((~keep).sum())} of {keep.size} paired questions"
    try:
        side_a, side_b = (_labels(ra), ua), (_labels(rb), ub)
        return compare_sides(side_a, side_b, names=names, **opts), None
    except ValueError as err:  # one class on a side: no metric ranks its answers
        return None, str(err)


def _disagreements(pairs, sides, methods: tuple[str, str], top: int) -> list[Disagreement]:
    ra, rb = [p[0] for p in pairs], [p[1] for p in pairs]
    ua, ub = _scores(ra, methods[0]), _scores(rb, methods[1])
    if not (np.isfinite(ua).all() and np.isfinite(ub).all()):
        return []
    gap = disagreement(ua, ub)
    order = sorted(range(len(pairs)), key=lambda i: (-gap[i], str(ra[i]["id"])))[:top]
    return [
        Disagreement(
            str(ra[i]["question"]),
            float(gap[i]),
            (float(ua[i]), float(ub[i])),
            (dict(ra[i]), dict(rb[i])),
            (sides[0].run_path(str(ra[i]["id"])), sides[1].run_path(str(rb[i]["id"]))),
        )
        for i in order
    ]


def compare_evaluations(
    folder_a: str | Path,
    folder_b: str | Path,
    *,
    methods: Sequence[str] | None = None,
    metrics: Sequence[str] = COMPARE_METRICS,
    intersection: bool = False,
    n_bootstrap: int = N_BOOTSTRAP,
    seed: int = 0,
    top: int = 10,
) -> EvaluationComparison:
    """Each method's metrics on A minus on B over the paired questions, and the top disagreements.

    ``methods``: the method columns to compare (default every one both hold);
    the disagreements are ranked on the first (Inv-Entropy when compared).
    """
    a, b = read_side(folder_a), read_side(folder_b)
    names = (a.name, b.name) if a.name != b.name else (str(a.folder), str(b.folder))
    pairs = pair_questions(a.rows, b.rows, names=names, intersection=intersection)
    shared = [m for m in a.methods if m in b.methods]
    chosen = list(methods) if methods else shared
    missing = [m for m in chosen if m not in shared]
    if missing:
        raise ValueError(
            f"method {missing[0]!r} is not a column of both evaluations; both hold: "
            + ", ".join(shared)
        )
    chosen.sort(key=lambda m: m != INV)  # the disagreements are ranked on the first
    opts = {"metrics": metrics, "n_bootstrap": n_bootstrap, "seed": seed}
    results, skipped = {}, {}
    for m in chosen:
        got, why = _compare_one(pairs, (m, m), names, opts)
        results.update({m: got} if got else {})
        skipped.update({m: why} if why else {})
    top_rows = _disagreements(pairs, (a, b), (chosen[0], chosen[0]), top) if chosen else []
    return EvaluationComparison(
        names, len(a.rows), len(b.rows), len(pairs), results, skipped, top_rows, n_bootstrap, seed
    )


def compare_methods(
    folder: str | Path,
    method_a: str,
    method_b: str,
    *,
    metrics: Sequence[str] = COMPARE_METRICS,
    n_bootstrap: int = N_BOOTSTRAP,
    seed: int = 0,
    top: int = 10,
) -> EvaluationComparison:
    """Two methods of one evaluation: each metric of ``method_a`` minus ``method_b``, paired."""
    side = read_side(folder)
    for m in (method_a, method_b):
        if m not in side.methods:
            raise ValueError(
                f"method {m!r} is not a column of {side.folder / 'scores.csv'}; it holds: "
                + ", ".join(side.methods)
            )
    names = (method_a, method_b)
    pairs = [(r, r) for r in side.rows]
    opts = {"metrics": metrics, "n_bootstrap": n_bootstrap, "seed": seed}
    got, why = _compare_one(pairs, names, names, opts)
    key = f"{method_a} vs {method_b}"
    n = len(side.rows)
    return EvaluationComparison(
        names,
        n,
        n,
        n,
        {key: got} if got else {},
        {key: why} if why else {},
        _disagreements(pairs, (side, side), names, top),
        n_bootstrap,
        seed,
    )
