"""A reviewer's labels, kept as a layer beside an evaluation: the judge's are never overwritten.

``<folder>/relabels.jsonl`` holds one :class:`Relabel` a line: the question's
``id``, the canonical ``answer`` the judge labelled, the reviewer's ``label``
(true: right), ``reason``, ``when`` and ``who``. :func:`apply_relabels` gives
the rows of ``scores.csv`` with the layer applied — ``correct`` the reviewer's
label where there is one, ``judge_correct`` the judge's, kept — and a
:class:`RelabelSummary` (how many labels were changed by hand, how often the
judge agrees with the reviewer). A relabel made for another answer than the
row now holds (the question was answered again) is not applied and is
counted as stale. The last line for a question wins, so a reviewer who
changes their mind appends a line and loses nothing.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..csv_safe import atomic_file
from ..questions.files import BatchInputError

__all__ = [
    "RELABELS",
    "Relabel",
    "RelabelSummary",
    "apply_relabels",
    "append_relabel",
    "folder_relabels",
    "merged_layer",
    "noted",
    "with_layer",
    "read_relabels",
    "write_relabels",
]

#: The layer's file name inside an evaluation folder.
RELABELS = "relabels.jsonl"


@dataclass(frozen=True)
class Relabel:
    """One answer marked right or wrong by hand.

    ``answer`` is the canonical answer the reviewer saw ("" applies to whatever the
    question's row holds); ``when`` an ISO time in UTC; ``who`` whoever signed it.
    """

    id: str
    label: bool
    answer: str = ""
    reason: str = ""
    when: str = ""
    who: str = ""

    @classmethod
    def now(cls, id: str, label: bool, *, answer: str = "", reason: str = "", who: str = ""):
        """A relabel stamped with the current time."""
        when = datetime.now(UTC).isoformat(timespec="seconds")
        return cls(str(id), bool(label), answer, reason, when, who)


@dataclass(frozen=True)
class RelabelSummary:
    """What the layer did to an evaluation's labels.

    Attributes
    ----------
    n_questions : judged questions the layer was applied to.
    reviewed : ids of the questions the reviewer labelled (their answer still the one seen).
    changed : ids whose label the reviewer changed (judge said otherwise).
    stale : relabels left unapplied, each "id: why".
    source : the file the layer was read from ("" when none).
    """

    n_questions: int
    reviewed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    stale: tuple[str, ...] = field(default=())
    source: str = ""

    @property
    def agreement(self) -> float:
        """Share of reviewed answers where the judge and the reviewer agree (NaN: none reviewed)."""
        n = len(self.reviewed)
        return (n - len(self.changed)) / n if n else float("nan")

    def note(self) -> str:
        """The line a table prints under it: labels changed by hand, and the judge's agreement."""
        n, k = len(self.reviewed), len(self.changed)
        line = f"Labels: {k} of {self.n_questions} changed by hand ({Path(self.source).name})"
        if n:
            line += f"; the judge agrees with the reviewer on {n - k} of {n} reviewed answers"
            line += f" ({self.agreement:.0%})"
        if self.stale:
            line += f"; {len(self.stale)} relabel(s) not applied (the answer changed or is gone)"
        return line + "."

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with the agreement written out (None when nothing was reviewed)."""
        agree = self.agreement
        return {**asdict(self), "agreement": None if agree != agree else round(agree, 4)}


def _relabel(row: Any, path: Path, line: int) -> Relabel:
    """One line's :class:`Relabel`; a bad line is refused naming the file, the line and the field."""
    if not isinstance(row, dict):
        raise BatchInputError("not a JSON object", file=path, line=line)
    if not str(row.get("id") or "").strip():
        raise BatchInputError("missing or empty", file=path, line=line, column="id")
    label = row.get("label")
    if label in (0, 1) and not isinstance(label, float):
        label = bool(label)
    if not isinstance(label, bool):
        why = f"must be true or false, got {label!r}"
        raise BatchInputError(why, file=path, line=line, column="label")
    text = {k: row.get(k) or "" for k in ("answer", "reason", "when", "who")}
    bad = [k for k, v in text.items() if not isinstance(v, str)]
    if bad:
        raise BatchInputError("must be text", file=path, line=line, column=bad[0])
    return Relabel(str(row["id"]), label, **text)


def read_relabels(path: str | Path) -> list[Relabel]:
    """The relabels of a JSON Lines file, in order; a bad line is refused naming file and line.

    Raises
    ------
    FileNotFoundError
        Naming the file when it does not exist.
    BatchInputError
        Naming the file, the line and the field of the first bad line.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such relabel file")
    out = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as err:
            raise BatchInputError(f"not JSON ({err})", file=path, line=i) from None
        out.append(_relabel(row, path, i))
    return out


def folder_relabels(folder: str | Path) -> list[Relabel]:
    """The layer of an evaluation folder (none: an empty list)."""
    path = Path(folder) / RELABELS
    return read_relabels(path) if path.is_file() else []


def write_relabels(path: str | Path, relabels: Iterable[Relabel]) -> None:
    """Replace ``path`` with these relabels, one JSON line each (atomically: a crash keeps the old)."""
    with atomic_file(Path(path)) as f:
        for r in relabels:
            f.write(json.dumps(asdict(r), ensure_ascii=False) + "\n")


def merged_layer(folder: str | Path, extra: str | Path | None = None) -> tuple[list[Relabel], str]:
    """The folder's layer with ``extra``'s relabels added (and kept there); its path or "".

    ``extra`` is a relabel file given from outside (``evaluate --labels``): its
    lines not yet in the layer are appended to ``<folder>/relabels.jsonl``, so
    the dashboard and ``compare`` see the same labels as the results.
    """
    path = Path(folder) / RELABELS
    own = folder_relabels(folder)
    added = [] if extra is None or Path(extra).resolve() == path.resolve() else read_relabels(extra)
    new = [r for r in added if r not in own]
    if new:
        write_relabels(path, [*own, *new])
    return [*own, *new], str(path) if own or new else ""


def with_layer(
    folder: str | Path, rows: Sequence[Mapping[str, Any]], extra: str | Path | None = None
) -> tuple[list[dict[str, Any]], RelabelSummary | None]:
    """The judged rows of ``folder`` with its layer (and ``extra``'s) applied; None: no layer."""
    relabels, source = merged_layer(folder, extra)
    if not relabels:
        return [dict(r) for r in rows], None
    return apply_relabels(rows, relabels, source=source)


def noted(table: Any, summary: RelabelSummary | None) -> Any:
    """A results table (any dataclass with ``notes``) with the layer's line under it."""
    if summary is None:
        return table
    return dataclasses.replace(table, notes=(*table.notes, summary.note()))


def append_relabel(folder: str | Path, relabel: Relabel) -> Path:
    """Add one relabel to a folder's layer; returns the layer's path."""
    path = Path(folder) / RELABELS
    write_relabels(path, [*folder_relabels(folder), relabel])
    return path


def _judge_label(row: Mapping[str, Any]) -> int:
    """The judge's label of a row (a row the layer was applied to keeps it as ``judge_correct``)."""
    return int(float(row.get("judge_correct", row["correct"])))


def apply_relabels(
    rows: Sequence[Mapping[str, Any]], relabels: Sequence[Relabel], *, source: str = ""
) -> tuple[list[dict[str, Any]], RelabelSummary]:
    """The rows with the layer applied, and what it did (applying it twice changes nothing).

    Each row keeps the judge's label as ``judge_correct``; ``correct`` is the last
    relabel of its id whose ``answer`` is the row's canonical answer or response (or empty),
    else the judge's; ``relabel_reason`` says why when a reviewer spoke.
    """
    latest = {r.id: r for r in relabels}
    by_id = {str(r["id"]): r for r in rows}
    stale = [f"{i}: no such question" for i in latest if i not in by_id]
    out, reviewed, changed = [], [], []
    for row in rows:
        judge = _judge_label(row)
        new = {**row, "correct": judge, "judge_correct": judge, "relabel_reason": ""}
        r = latest.get(str(row["id"]))
        seen = {str(row.get(k) or "") for k in ("canonical", "response")} - {""}
        if r is not None and r.answer and r.answer not in seen:
            now = row.get("canonical") or row.get("response")
            stale.append(f"{r.id}: relabelled {r.answer!r}, the row now holds {now!r}")
        elif r is not None:
            new |= {"correct": int(r.label), "relabel_reason": r.reason or "(no reason given)"}
            reviewed.append(r.id)
            if int(r.label) != judge:
                changed.append(r.id)
        out.append(new)
    summary = RelabelSummary(len(rows), tuple(reviewed), tuple(changed), tuple(stale), source)
    return out, summary
