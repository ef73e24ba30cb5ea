"""One section of RESULTS.md per saved folder: the overview, each dataset, TSU, the testbed.

Each function returns the section's Markdown lines (and writes its PNG beside
RESULTS.md in ``docs``); the numbers come from the folder's files.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from invent_core.experiments.relabel import with_layer
from invent_core.questions.datasets import load_dataset

from .confound import count_table
from .degenerate import count_cell, degenerate_of, degenerate_sentence
from .loading import Folder
from .paper import PAPER_DATASETS, PAPER_TABLE1, PAPER_TSU, TSU_COLUMNS
from .plots import plot_auroc, plot_difficulty
from .reading import code_line, paired_lines, seed_flips
from .text import (
    LABELS,
    METRICS,
    PAPER_COLUMNS,
    accuracy_text,
    best_baseline,
    centre_words,
    folder_stem,
    folder_title,
    md_table,
    method_label,
    metric_cell,
    metric_text,
    older_settings,
    pm,
    pm_ci,
    reported_methods,
    settings_line,
    verdict,
)


def overview(folders: list[Folder]) -> list[str]:
    """One row per evaluated dataset: n, model, accuracy, Inv-Entropy vs the best baseline."""
    rows = []
    for f in (f for f in folders if f.kind == "evaluate"):
        res = f.results
        best, names = best_baseline(res)
        judged = (res.get("judgement") or {}).get("ok", True)
        rows.append([folder_title(f), str(res.get("n_questions")), f.llm, accuracy_text(res).removeprefix("accuracy "),
                     pm_ci(res, "inv_entropy", "auroc"),
                     f"{names} {pm(best)}" if best is not None else "–",
                     "yes" if judged else "no", count_cell(degenerate_of(f))])  # fmt: skip
    header = [
        "dataset",
        "n",
        "model",
        "accuracy",
        "Inv-Entropy AUROC",
        "best baseline AUROC",
        "judgeable",
        "degenerate",
    ]
    return md_table(header, rows)


def measured_lines(res: dict[str, Any]) -> list[str]:
    """What the table measured (``results.json``'s ``measured`` block), as a list under it."""
    block = res.get("measured")
    if not block:
        return []
    labels = res.get("labels", {})
    lines = [f"- Labels: {block['label_rule']}.", f"- Scored answer: {block['answer_scored']}.",
             "- Orientation: every method's value is an uncertainty (higher = less to be trusted); "
             "the metrics rank answers by its negative."]  # fmt: skip
    lines += [f"- **{labels.get(m, m)}: possibly inverted** (AUROC below 0.5 beyond its interval)."
              for m in block.get("possibly_inverted", [])]  # fmt: skip
    return ["", *lines]


def evaluate_section(f: Folder, docs: Path, last_scoring: str | None = None) -> list[str]:
    """Accuracy, every method's metrics with ± next to the paper's, a verdict and an AUROC plot.

    Then what the table measured, the paired differences in words, and the code behind it.
    """
    res = f.results
    labels = res.get("labels", {})
    paper = f.dataset if f.dataset in PAPER_DATASETS else None
    header = ["Method", *(LABELS[m] for m in METRICS)]
    header += [label for _, label in PAPER_COLUMNS] if paper else []
    rows = []
    for method in reported_methods(res):
        row = [labels.get(method, method)] + [metric_text(res, method, m) for m in METRICS]
        if paper:
            row += [
                pm(*PAPER_TABLE1[m].get(method, {}).get(paper, (None, None)))
                for m, _ in PAPER_COLUMNS
            ]
        rows.append(row)
    lines = [f"### {folder_title(f)}", "", settings_line(f), ""]
    lines += [*older_settings(f), f"{accuracy_text(res)}; {centre_words(res)}.", "",
              degenerate_sentence(f, degenerate_of(f)), ""]  # fmt: skip
    lines += md_table(header, rows)
    lines += measured_lines(res)
    judged = (res.get("judgement") or {}).get("ok", True)
    for method, why in res.get("skipped", {}).items() if judged else ():
        lines.append(f"\n{labels.get(method, method)}: {why}.")
    if res.get("failed"):
        lines.append(f"\n{len(res['failed'])} question(s) failed and are left out.")
    png = docs / f"results_{folder_stem(f)}_auroc.png"
    if plot_auroc(png, res, paper):
        lines += ["", f"![AUROC per method, {folder_title(f)}]({png.name})"]
    lines += ["", verdict(res), "", *count_table(f), *paired_lines(res, _flips(f))]
    return lines + [code_line(f.meta, f.stale_check, last_scoring), ""]


def _flips(f: Folder) -> dict[str, dict[str, list[str]]]:
    """The paired verdicts under other bootstrap seeds (judged rows of scores.csv, relabels applied)."""
    rows = [r for r in f.scores if not r.get("error") and r.get("correct") in ("0", "1")]
    rows, _ = with_layer(f.path, rows)
    return seed_flips(rows, f.results)


def tsu_section(f: Folder) -> list[str]:
    """Our TSU (%) per method beside the paper's for the same dataset (or TriviaQA's)."""
    table = f.results.get("tsu", {})
    paper_name = f.dataset if f.dataset in PAPER_TSU else "triviaqa"
    paper = PAPER_TSU[paper_name]
    cols = list(dict.fromkeys(c for row in table.values() for c in row))
    shared = [c for c in cols if c in TSU_COLUMNS]
    header = ["Method", *cols, *(f"paper {c}" for c in shared)]
    rows = [
        [method_label(m), *(pm(100 * row[c], digits=2) if c in row else "–" for c in cols),
         *(pm(paper.get(m, {}).get(c), digits=2) for c in shared)]
        for m, row in table.items()
    ]  # fmt: skip
    judgement = f.results.get("judgement") or {}
    lines = [f"### TSU, {f.dataset}", "", settings_line(f), ""]
    lines += [*older_settings(f), degenerate_sentence(f, degenerate_of(f)), ""]
    lines += [f"Temperatures {f.results.get('temperatures')}; paper columns: {paper_name}.", ""]
    lines += md_table(header, rows)
    if judgement and not judgement.get("ok", True):
        lines += ["", f"**Not judgeable: {judgement.get('reason')}.**"]
    return lines + [""]


def difficulty_rows(f: Folder) -> list[dict[str, Any]]:
    """Per difficulty level of the testbed: n, accuracy and each method's mean uncertainty."""
    level = {ex.id: int(ex.extra.get("difficulty", 0)) for ex in load_dataset("arithmetic")}
    methods = list(f.results.get("results", {}))
    by: dict[int, list[dict[str, str]]] = {}
    for row in f.scores:
        if row.get("correct") in ("0", "1") and row.get("id") in level:
            by.setdefault(level[row["id"]], []).append(row)
    out = []
    for d in sorted(by):
        rows = by[d]
        means = {m: _mean([row.get(m) for row in rows]) for m in methods}
        acc = sum(int(r["correct"]) for r in rows) / len(rows)
        out.append({"difficulty": d, "n": len(rows), "accuracy": acc, **means})
    return out


def _mean(values: Sequence[str | None]) -> float | None:
    nums = [float(v) for v in values if v not in (None, "")]
    nums = [v for v in nums if math.isfinite(v)]
    return sum(nums) / len(nums) if nums else None


def testbed_section(f: Folder, docs: Path) -> list[str]:
    """AUROC per method (the evaluate section) and uncertainty by difficulty, with the target."""
    rows = difficulty_rows(f)
    labels = f.results.get("labels", {})
    methods = list(f.results.get("results", {}))
    header = ["difficulty", "n", "accuracy", *(labels.get(m, m) for m in methods)]
    table = [
        [str(r["difficulty"]), str(r["n"]), f"{r['accuracy']:.2f}", *(pm(r[m]) for m in methods)]
        for r in rows
    ]
    lines = [
        f"## Testbed: arithmetic of graded difficulty, {folder_title(f)}",
        "",
        settings_line(f),
        "",
    ]
    lines += [target_line(f.results), ""]
    lines += ["Mean uncertainty by difficulty (higher = more uncertain):", ""]
    lines += md_table(header, table)
    png = docs / f"results_testbed_difficulty_{folder_stem(f)}.png"
    if plot_difficulty(png, rows, methods, labels):
        lines += ["", f"![Uncertainty by difficulty]({png.name})"]
    return lines + [""]


#: The testbed's target: Inv-Entropy AUROC at least this, and within TARGET_GAP of the best baseline.
TARGET_AUROC = 0.75
TARGET_GAP = 0.02


def testbed_values(f: Folder) -> dict[str, str]:
    """Note values of the testbed: ``testbed.target_auroc``, ``testbed.target_gap`` and, per
    arithmetic folder, ``testbed.<stem>.inv_entropy.by_difficulty`` (the means, easiest
    first), ``.first`` / ``.last`` (the levels) and ``.first_accuracy`` / ``.last_accuracy``."""
    out = {"testbed.target_auroc": f"{TARGET_AUROC:.2f}", "testbed.target_gap": f"{TARGET_GAP:.2f}"}
    rows = [r for r in difficulty_rows(f) if r.get("inv_entropy") is not None]
    if not rows:
        return out
    key = f"testbed.{folder_stem(f)}"
    return out | {
        f"{key}.inv_entropy.by_difficulty": ", ".join(f"{r['inv_entropy']:.3f}" for r in rows),
        f"{key}.first": str(rows[0]["difficulty"]), f"{key}.last": str(rows[-1]["difficulty"]),
        f"{key}.first_accuracy": f"{rows[0]['accuracy']:.0%}".replace("%", " %"),
        f"{key}.last_accuracy": f"{rows[-1]['accuracy']:.0%}".replace("%", " %"),
    }  # fmt: skip


def target_line(res: dict[str, Any]) -> str:
    """The testbed's target: Inv-Entropy AUROC ≥ 0.75 and within 0.02 of the best baseline.

    The line's label is kept as RESULTS.md has always printed it (its test reads it).
    """
    inv = metric_cell(res, "inv_entropy", "auroc")[0]
    best, names = best_baseline(res)
    if inv is None or best is None:
        return "Target: not measurable here (no Inv-Entropy or baseline AUROC)."
    met = inv >= TARGET_AUROC and inv >= best - TARGET_GAP
    return (
        f"Target: Inv-Entropy AUROC ≥ {TARGET_AUROC} and within {TARGET_GAP} of the best baseline — "
        f"{'met' if met else 'not met'}: Inv-Entropy {inv:.3f}, best baseline {names} {best:.3f}."
    )
