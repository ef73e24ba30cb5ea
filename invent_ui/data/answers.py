"""The answer a run gives to its own question: the most common of its r answers. Pure: no Streamlit."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from invent_core.evaluation import normalize_answer

__all__ = ["majority_answer"]


def majority_answer(answers: Sequence[str]) -> tuple[str, int]:
    """The most common of ``answers`` and how many of them agree with it.

    Answers are grouped when equal after :func:`invent_core.evaluation.normalize_answer`
    ("Paris." and "paris" agree); the group's first answer, as the model wrote it, is
    shown. A tie goes to the group seen first (replication 1 first).

    >>> majority_answer(["Paris.", "Lyon", "paris", "Paris"])
    ('Paris.', 3)
    >>> majority_answer([])
    ('', 0)
    """
    keys = [normalize_answer(a) for a in answers]
    if not keys:
        return "", 0
    counts = Counter(keys)
    best = max(counts.values())
    first = next(k for k in keys if counts[k] == best)  # the earliest of the largest groups
    return answers[keys.index(first)], best
