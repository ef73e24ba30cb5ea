"""How many questions of a saved evaluation (runs of a TSU sweep) are degenerate, in words.

A degenerate run has every perturbation a copy of the question, so its
Inv-Entropy is ln(n + 1) whatever the answers. ``evaluate`` lists them under
``"degenerate"`` in ``results.json`` (``tsu`` in ``tsu.json``); a folder saved
before that list existed is read from its saved runs (each run says so itself,
:attr:`~invent_core.engine.artifact.RunArtifact.degenerate`), and one whose runs
are missing or cannot tell is "not recorded" — never counted as none.
"""

from __future__ import annotations

from dataclasses import dataclass

from .loading import Folder

#: The most ids named beside a count.
MAX_NAMED = 10


@dataclass(frozen=True)
class Degenerate:
    """``n`` of ``total`` degenerate (questions, or a sweep's runs); ``ids`` of the first few."""

    n: int
    total: int
    ids: tuple[str, ...]
    source: str  # the file or files it was read from


def degenerate_of(f: Folder) -> Degenerate | None:
    """The folder's count; None when it was not recorded and its runs cannot tell."""
    listed = f.results.get("degenerate")
    if isinstance(listed, list):
        total = f.results.get("n_questions") if f.kind == "evaluate" else len(f.scores)
        ids = tuple(_name(d) for d in listed if isinstance(d, dict))
        return Degenerate(len(listed), int(total or 0), ids, f"{_file(f)}.json")
    return _from_runs(f)


def _name(entry: dict) -> str:
    """``id`` (and ``T = …`` for a sweep's run)."""
    t = entry.get("temperature")
    return f"{entry.get('id')}" + (f" at T = {t}" if t is not None else "")


def _file(f: Folder) -> str:
    return "results" if f.kind == "evaluate" else "tsu"


def _from_runs(f: Folder) -> Degenerate | None:
    """Each judged question's saved run (evaluate), or every saved run (tsu), says whether."""
    source = f"its {len(f.run_degenerate)} saved runs"
    if f.kind == "evaluate" and f.scores and all("question" in r for r in f.scores):
        by_question = dict(f.run_degenerate)
        judged = [r for r in f.scores if not r.get("error")]
        why = [by_question.get(str(r["question"]).strip()) for r in judged]
        if not judged or any(w is None for w in why):
            return None  # a question without a readable run: the count is unknown
        ids = tuple(str(r.get("id")) for r, w in zip(judged, why, strict=True) if w)
        return Degenerate(len(ids), len(judged), ids, source)
    why = [w for _, w in f.run_degenerate]
    if f.kind == "evaluate" or not why or any(w is None for w in why):
        return None
    return Degenerate(sum(1 for w in why if w), len(why), (), source)


def count_cell(d: Degenerate | None) -> str:
    """The overview's cell: ``"8 of 100"``, or ``"not recorded"``."""
    return "not recorded" if d is None else f"{d.n} of {d.total}"


def degenerate_sentence(f: Folder, d: Degenerate | None) -> str:
    """The line under a folder's heading: how many, which, and where it was read."""
    what = "questions" if f.kind == "evaluate" else "runs"
    if d is None:
        return (
            f"Degenerate {what} (every perturbation a copy of the question): not recorded "
            f"(`{_file(f)}.json` was saved before the list existed, and its saved runs are not "
            "all here to read)."
        )
    if not d.n:
        return f"Degenerate {what} (every perturbation a copy of the question): none of {d.total} (from {d.source})."  # fmt: skip
    named = ", ".join(f"`{i}`" for i in d.ids[:MAX_NAMED])
    more = f" and {len(d.ids) - MAX_NAMED} more" if len(d.ids) > MAX_NAMED else ""
    which = f": {named}{more}" if named else ""
    return (
        f"**Degenerate {what}: {d.n} of {d.total}** (from {d.source}){which}. Every perturbation "
        "is a copy of the question, so their Inv-Entropy is ln(n + 1) whatever the answers; "
        "they are counted in the metrics as they are."
    )
