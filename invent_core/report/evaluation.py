"""The report of an evaluation: its table, curves, every question, its settings and provenance.

:func:`evaluation_report` renders an evaluation given as the dashboard holds it
(``config``, ``methods``, ``labels``, ``rows``, ``evaluation``); :func:`read_folder`
makes that from an ``evaluate`` folder (``config.json``, ``scores.csv``,
``results.json``, ``runs/``), with the reviewer's relabels when the folder has
them (the judge's label stays beside the reviewer's in the drill-down).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..engine.artifact import RunArtifact
from ..experiments.folder import read_evaluation
from ..experiments.result import method_labels
from ..provenance import provenance
from . import figures
from .page import Page, details, esc, key_values, table

__all__ = ["evaluation_report", "read_folder"]


def _number(text: Any) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return math.nan


def _runs_by_question(runs_dir: Path) -> dict[str, dict[str, Any]]:
    """Question text → its saved run's rewordings and answers (runs cut short are left out)."""
    out: dict[str, dict[str, Any]] = {}
    for path in sorted(runs_dir.glob("*.json")) if runs_dir.is_dir() else []:
        try:
            run = RunArtifact.load(path)
        except (OSError, ValueError, KeyError, IndexError, TypeError):
            continue
        out[str(run.question).strip()] = {"questions": run.questions, "responses": run.responses}
    return out


def read_folder(folder: str | Path) -> dict[str, Any]:
    """An ``evaluate`` folder as the report's input, read by the one reader of such a folder.

    FileNotFoundError or ValueError naming the file (and row, column) at fault;
    a row cut short by a torn write is left out (the command names its line).
    """
    ev = read_evaluation(folder)
    meta, rows, methods = ev.meta, ev.judged, list(ev.methods)
    return {
        "title": f"Evaluation {ev.path.name}",
        "config": ev.config,
        "provenance": {
            **(meta.get("provenance") or {}),
            **(
                {"metrics recomputed by": meta["results_recomputed"]}
                if "results_recomputed" in meta
                else {}
            ),
        },
        "sample": meta.get("sample", ""),
        "methods": methods,
        "labels": ev.results.get("labels") or method_labels(methods),
        "rows": rows,
        "evaluation": ev.results or None,
        "relabelled": len(ev.layer.changed) if ev.layer is not None else 0,
        "runs": _runs_by_question(ev.path / "runs"),
    }


def _interval(cell: Mapping[str, Any]) -> str:
    point = cell.get("point")
    if point is None:
        return "n/a"
    ci = cell.get("ci95")
    return f"{point:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else f"{point:.3f}"


def _results_table(evaluation: Mapping[str, Any] | None, labels: Mapping) -> str:
    """Each method's metrics (the value on the sample and its 95 % interval)."""
    if not evaluation or not evaluation.get("results"):
        return "<p class='note'>No summary metrics were computed for this evaluation.</p>"
    metrics = list(evaluation.get("metrics") or next(iter(evaluation["results"].values())))
    rows = [
        [labels.get(m, m), *(_interval(cells.get(k) or {}) for k in metrics)]
        for m, cells in evaluation["results"].items()
    ]
    note = evaluation.get("judgement") or {}
    why = (
        f"<p class='note'>Not read as a ranking: {esc(note['reason'])}</p>"
        if note.get("reason")
        else ""
    )
    return table(["method", *metrics], rows) + why


def _question_body(row: Mapping[str, Any], methods: Sequence[str], labels, run) -> str:
    """One question's drill-down: answer, reference, labels, scores, rewordings and answers."""
    facts = {
        "question": row.get("question"),
        "answer scored": row.get("response"),
        "reference": row.get("reference"),
        "label": "right" if int(_number(row.get("correct"))) == 1 else "wrong",
    }
    if row.get("judge_correct") not in (None, "") and str(row["judge_correct"]) != str(
        row["correct"]
    ):
        facts["judge's label (relabelled by a reviewer)"] = row["judge_correct"]
    scores = table(["method", "uncertainty"], [(labels.get(m, m), row.get(m)) for m in methods])
    parts = [key_values(facts), scores]
    if run is not None:
        reworded = [
            (i, q, " | ".join(a))
            for i, (q, a) in enumerate(zip(run["questions"], run["responses"], strict=False))
        ]
        parts.append(table(["#", "rewording (0: the question)", "answers"], reworded))
    elif row.get("answers"):
        parts.append(f"<p>answers: {esc(row['answers'])}</p>")
    return "".join(parts)


def _questions(data: Mapping[str, Any]) -> str:
    """A folded ``<details>`` per question, its summary: label, Inv-Entropy, text."""
    runs = data.get("runs") or {}
    out = []
    for row in data["rows"]:
        ok = int(_number(row.get("correct"))) == 1
        mark = "<span class='right'>right</span>" if ok else "<span class='wrong'>wrong</span>"
        value = _number(row.get("inv_entropy"))
        shown = f"Inv-Entropy {value:.3f} · " if math.isfinite(value) else ""
        summary = f"{mark} · {shown}{esc(str(row.get('question'))[:140])}"
        body = _question_body(
            row, data["methods"], data["labels"], runs.get(str(row.get("question")).strip())
        )
        out.append(details(summary, body, attrs=f"class='question' data-id='{esc(row.get('id'))}'"))
    return "".join(out)


def evaluation_report(data: Mapping[str, Any]) -> str:
    """The whole page of one evaluation (see :func:`read_folder` for ``data``)."""
    page = Page(data.get("title") or "Evaluation")
    rows, labels = data["rows"], data["labels"]
    correct = [int(_number(r.get("correct"))) for r in rows]
    n_right = sum(correct)
    head = f"<p>{len(rows)} questions, {n_right} answered right ({n_right / max(len(rows), 1):.0%}). {esc(data.get('sample', ''))}</p>"
    if data.get("relabelled"):
        head += f"<p class='note'>{data['relabelled']} label(s) changed by hand (relabels.jsonl); the table above the curves is the judge's, the curves use the reviewer's labels.</p>"
    page.section("summary", "Summary", head + _results_table(data.get("evaluation"), labels))
    table_ = {m: [_number(r.get(m)) for r in rows] for m in data["methods"]}
    charts = [page.chart(figures.roc_chart(correct, table_, labels))]
    if data.get("evaluation") and data["evaluation"].get("results"):
        charts.append(page.chart(figures.auroc_bars(data["evaluation"]["results"], labels)))
    if "inv_entropy" in table_:
        charts.append(
            page.chart(figures.by_correctness(correct, table_["inv_entropy"], "Inv-Entropy"))
        )
    page.section("curves", "Curves", "".join(charts))
    page.section("questions", f"Per question ({len(rows)})", _questions(data))
    settings = key_values(dict(data.get("config") or {}))
    made = key_values(dict(data.get("provenance") or {"source": "not recorded"}))
    this = key_values(provenance())
    page.section(
        "settings",
        "Settings and provenance",
        f"{settings}<h3>The code that made the scores</h3>{made}<h3>This report</h3>{this}",
    )
    return page.html()
