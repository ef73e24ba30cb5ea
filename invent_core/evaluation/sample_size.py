"""Honest small samples: when a metric can be judged, and seeded sample drawing.

AUROC, PRR, AUPRC, Brier and ECE rank correct against wrong answers. On a
dozen questions, or with three correct answers, they swing between 0 and 1
from one question to the next, and with one class only they are undefined.
:func:`judgeable` says whether a sample is big enough, and why not, in words
the dashboard and the CLI show next to the greyed value; :func:`best_methods`
then marks no method best. :func:`draw_sample` replaces "the first N of the
file" (fifteen MMLU "moral scenarios" in a row) by a seeded shuffled draw.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any, NamedTuple, TypeVar

import numpy as np

from .tables import ResultsTable

__all__ = [
    "GUESS_ALPHA",
    "above_guessing",
    "guess_rate",
    "MIN_QUESTIONS",
    "MIN_PER_CLASS",
    "Judgement",
    "judgeable",
    "best_methods",
    "SeededDraw",
    "draw_sample",
]

T = TypeVar("T")

#: Fewest questions a metric is judged on (ours: with fewer, one
#: question moves AUROC by 0.05 or more).
MIN_QUESTIONS = 20
#: Fewest correct and fewest wrong answers (ours: AUROC over fewer
#: than 5 × 5 pairs takes a handful of values).
MIN_PER_CLASS = 5


#: One-sided level of the binomial test against guessing (ours: the usual 5 %).
GUESS_ALPHA = 0.05


def guess_rate(n_choices: Sequence[int | None]) -> float | None:
    """Expected accuracy of a blind guess: the mean of 1/k over questions with k choices.

    None when any question has no choices (free text: there is no guess rate).
    """
    ks = list(n_choices)
    if not ks or any(not k or k < 2 for k in ks):
        return None
    return float(np.mean([1.0 / k for k in ks]))


def above_guessing(
    n: int, n_correct: int, rate: float, *, alpha: float = GUESS_ALPHA
) -> tuple[bool, float]:
    """Whether ``n_correct`` of ``n`` is clearly above the guess ``rate``: (yes, one-sided p).

    Exact binomial test, P(X ≥ n_correct | n, rate) < ``alpha``.
    """
    from scipy.stats import binom

    p = float(binom.sf(n_correct - 1, n, rate)) if n else 1.0
    return p < alpha, p


class Judgement(NamedTuple):
    """Whether a sample's metrics can be judged; unpacks as ``(ok, reason)``.

    ``reason`` is what to print beside the value: the sample's size when
    ``ok`` (``"n = 50 (31 correct, 19 wrong)"``), else why it cannot be judged
    (``"too few to judge: 12 questions (< 20)"``).
    """

    ok: bool
    reason: str


def _count(k: int, unit: str) -> str:
    return f"{k} {unit}" if k == 1 else f"{k} {unit}s"


def judgeable(
    n: int,
    n_pos: int | None = None,
    n_neg: int | None = None,
    *,
    min_n: int = MIN_QUESTIONS,
    min_class: int = MIN_PER_CLASS,
    unit: str = "question",
    guess: float | None = None,
) -> Judgement:
    """Whether metrics on ``n`` questions (``n_pos`` correct, ``n_neg`` wrong) mean anything.

    Parameters
    ----------
    n : questions (or sweeps) the metric rests on.
    n_pos, n_neg : correct and wrong answers. ``n_neg`` defaults to
        ``n - n_pos``; ``n_pos=None`` checks the size only (TSU, which needs
        no correctness).
    min_n, min_class : the thresholds (default :data:`MIN_QUESTIONS`,
        :data:`MIN_PER_CLASS`).
    unit : what ``n`` counts, singular (``"question"``, ``"run"``).
    guess : the accuracy of a blind guess on these questions (:func:`guess_rate`;
        None for free text); an accuracy not clearly above it is not judgeable.

    Returns
    -------
    Judgement
        ``(ok, reason)``. One class only is undefined, not merely small, and
        is said first: ``"n/a — all answers wrong"``.

    Examples
    --------
    >>> judgeable(12, 6)
    Judgement(ok=False, reason='too few to judge: 12 questions (< 20)')
    >>> judgeable(40, 3)
    Judgement(ok=False, reason='only 3 correct answers (< 5)')
    >>> judgeable(3, 0).reason
    'n/a — all answers wrong'
    """
    if n_pos is not None and n_neg is None:
        n_neg = n - n_pos
    if n <= 0:
        return Judgement(False, f"n/a — no {unit}s")
    if n_pos is not None and n_pos <= 0:
        return Judgement(False, "n/a — all answers wrong")
    if n_neg is not None and n_neg <= 0:
        return Judgement(False, "n/a — all answers correct")
    if n < min_n:
        return Judgement(False, f"too few to judge: {_count(n, unit)} (< {min_n})")
    for k, what in ((n_pos, "correct"), (n_neg, "wrong")):
        if k is not None and k < min_class:
            return Judgement(False, f"only {_count(k, what + ' answer')} (< {min_class})")
    if guess is not None and n_pos is not None:
        clear, p = above_guessing(n, n_pos, guess)
        if not clear:
            return Judgement(
                False,
                f"accuracy {n_pos / n:.0%} is not clearly above the {guess:.0%} of guessing "
                f"(one-sided binomial p = {p:.2f}); the ranking is not read",
            )
    size = f"n = {n}"
    if n_pos is not None:
        size += f" ({n_pos} correct, {n_neg} wrong)"
    return Judgement(True, size)


def best_methods(table: ResultsTable, judgement: Judgement | tuple[bool, str]) -> dict[str, tuple]:
    """Column key → the methods shown best in it; empty when not judgeable.

    Parameters
    ----------
    table : a :class:`~invent_core.evaluation.tables.ResultsTable`.
    judgement : from :func:`judgeable` (or any ``(ok, reason)`` pair).

    Returns
    -------
    dict
        ``{column key: (method, …)}`` for the cells
        :meth:`~invent_core.evaluation.tables.ResultsTable.marks` calls best;
        ``{}`` when ``judgement`` is not ok, so nothing gets bold. For the
        renderings (Markdown, LaTeX, CSV marks) use
        ``table.unmarked()`` in that case.
    """
    ok, _ = judgement
    if not ok:
        return {}
    marks = table.marks()
    out: dict[str, tuple] = {}
    for j, col in enumerate(table.columns):
        best = tuple(m for i, m in enumerate(table.methods) if marks[i, j] == "best")
        if best:
            out[col.key] = best
    return out


class SeededDraw(NamedTuple):
    """A seeded draw from a list.

    Attributes
    ----------
    items : the drawn items, in drawn (shuffled) order.
    indices : their positions in the original list.
    seed : the seed that reproduces the draw (show it; let the user set it).
    population : length of the original list.
    """

    items: list[Any]
    indices: tuple[int, ...]
    seed: int
    population: int

    def describe(self, unit: str = "question") -> str:
        """``"15 of 300 questions, drawn with seed 0"``."""
        return f"{len(self.items)} of {_count(self.population, unit)}, drawn with seed {self.seed}"


def draw_sample(items: Sequence[T], limit: int | None, seed: int | None) -> SeededDraw:
    """Draw a shuffled, reproducible sample of at most ``limit`` items.

    The draw is ``np.random.default_rng(seed).permutation(len(items))[:limit]``,
    the same order as ``datasets.load_dataset(…, seed=seed)`` gives, so a
    sample drawn here and one loaded with the same seed are the same questions.

    Parameters
    ----------
    items : the population (e.g. a dataset's examples, in file order).
    limit : how many to draw; ``None`` (or ≥ ``len(items)``) shuffles them all.
    seed : the seed; ``None`` draws a fresh one, returned in :attr:`SeededDraw.seed`.

    Returns
    -------
    SeededDraw

    Raises
    ------
    ValueError
        If ``limit`` is not a positive integer or ``seed`` is negative.
    """
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ValueError(f"limit must be a positive integer or None, got {limit!r}")
    if seed is None:
        seed = secrets.randbelow(2**31)
    elif isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
    order = np.random.default_rng(seed).permutation(len(items))[:limit]
    indices = tuple(int(i) for i in order)
    return SeededDraw([items[i] for i in indices], indices, seed, len(items))
