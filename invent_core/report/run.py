"""The report of one run: the question, its rewordings and answers, its scores and placement.

A run artefact (``run --save``, the dashboard's download, an evaluation's
``runs/*.json``) carries everything: the m × r answers, the Inv measures with
their bootstrap values, the placement among reference questions, the settings
and the models' identities.
"""

from __future__ import annotations

from typing import Any

from ..engine.artifact import RunArtifact
from ..provenance import provenance
from . import figures
from .page import Page, key_values, table

__all__ = ["run_report"]


def _scores(run: RunArtifact) -> str:
    rows = []
    for name, value in run.score.measures.items():
        lo, hi = run.score.interval(name)
        rows.append((name, f"{value:.4f}", f"[{lo:.4f}, {hi:.4f}]"))
    return table(["measure (higher = more uncertain)", "value", "90 % bootstrap interval"], rows)


def _placement(run: RunArtifact) -> str:
    ref = run.reference
    if not ref:
        return "<p class='note'>Not placed: no reference set was made with these settings.</p>"
    shown = {k: ref.get(k) for k in ("percentile", "p_correct", "p_interval", "n_reference")}
    shown["reference files"] = ", ".join(ref.get("files") or [])
    return key_values(shown)


def run_report(run: RunArtifact, *, title: str | None = None) -> str:
    """The whole page of one run."""
    page = Page(title or f"Run: {run.question[:80]}")
    answers = [
        (i, q, " | ".join(a))
        for i, (q, a) in enumerate(zip(run.questions, run.responses, strict=False))
    ]
    head = key_values(
        {"question": run.question, "answer scored": run.responses[0][0], "task": run.task}
    )
    page.section(
        "summary",
        "Summary",
        head + _scores(run) + "<h3>Among reference questions</h3>" + _placement(run),
    )
    inv = {k: v for k, v in (run.score.values or {}).items() if len(v) > 1}
    charts = (
        page.chart(figures.bootstrap_histogram(inv, {})) if inv else "<p>No bootstrap values.</p>"
    )
    page.section("curves", "Bootstrap", charts)
    page.section(
        "questions",
        f"Rewordings and answers ({len(answers)})",
        table(["#", "rewording (0: the question)", "answers"], answers),
    )
    settings = key_values(run.config.to_dict()) + key_values(dict(run.identities))
    page.section(
        "settings",
        "Settings and provenance",
        f"{settings}<h3>This report</h3>{key_values(provenance())}",
    )
    return page.html()


def load_run(path: Any) -> RunArtifact:
    """A run artefact from ``path``; ValueError naming the file when it is none."""
    try:
        return RunArtifact.load(path)
    except (KeyError, TypeError, ValueError) as err:
        raise ValueError(f"{path}: not a run artefact ({str(err)[:160]})") from err
