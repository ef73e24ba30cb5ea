"""How often a correctness judge agrees with hand labels.

A labels file is JSON Lines, one judged answer a line (``tests/data/judge_labels/``,
rule in its README): ``id``, ``dataset``, ``question``, ``reference`` (the aliases),
``answer`` (the text the judge reads), ``label`` (true: right), ``why`` (for a
borderline one), ``split`` (``"dev"``: the rules were tuned looking at these;
``"heldout"``: measured only) and ``from`` (the saved runs it came from).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .correctness import judge_verdict

__all__ = ["LABEL_FIELDS", "Agreement", "read_labels", "agreement"]

#: The fields every labelled line must have.
LABEL_FIELDS = ("id", "dataset", "question", "reference", "answer", "label", "split")


@dataclass(frozen=True)
class Agreement:
    """A judge against hand labels: counts, and the share where both say the same."""

    n: int
    agree: int
    right_accepted: int  # labelled right, judged right
    right_rejected: int  # labelled right, judged wrong
    wrong_accepted: int  # labelled wrong, judged right
    wrong_rejected: int  # labelled wrong, judged wrong

    @property
    def rate(self) -> float:
        """``agree / n`` (NaN with no line)."""
        return self.agree / self.n if self.n else float("nan")

    def to_dict(self) -> dict[str, Any]:
        """The counts and the rate, rounded to 4 places."""
        return {**asdict(self), "agreement": round(self.rate, 4)}


def read_labels(path: str | Path) -> list[dict[str, Any]]:
    """The labelled lines of ``path``; a bad line is refused naming the file and line."""
    rows = []
    for i, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as err:
            raise ValueError(f"{path}, line {i}: not JSON ({err})") from None
        missing = [f for f in LABEL_FIELDS if f not in row]
        if missing:
            raise ValueError(f"{path}, line {i}: missing {', '.join(missing)}")
        if not isinstance(row["label"], bool):
            raise ValueError(f"{path}, line {i}: label must be true or false")
        rows.append(row)
    return rows


def agreement(
    rows: Iterable[Mapping[str, Any]], *, method: str, splits: Sequence[str] | None = None
) -> Agreement:
    """Judge every labelled answer with ``method`` (offline ones) and count the agreements."""
    cells = {(True, True): 0, (True, False): 0, (False, True): 0, (False, False): 0}
    for row in rows:
        if splits is not None and row["split"] not in splits:
            continue
        said = judge_verdict(
            row["answer"],
            row["reference"],
            dataset=row["dataset"],
            question=row["question"],
            method=method,
        ).correct
        cells[(bool(row["label"]), said)] += 1
    n = sum(cells.values())
    return Agreement(
        n=n,
        agree=cells[(True, True)] + cells[(False, False)],
        right_accepted=cells[(True, True)],
        right_rejected=cells[(True, False)],
        wrong_accepted=cells[(False, True)],
        wrong_rejected=cells[(False, False)],
    )
