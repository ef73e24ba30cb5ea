"""What the meaning check, the near-duplicate stand-ins and the non-answer flag find in saved runs.

No LLM call: reads every saved run under ``docs/results_before_meaning_check/evaluate-*/runs`` (and ``docs/results``) and
reports, per folder, (i) final perturbations the meaning check would now
reject, (ii) distinct states per question as saved and with rejected
near-duplicates standing in for copies, (iii) replies now flagged as
non-answers (echo / operation named). Scores are not recomputed: a rejected
perturbation needs a new rewording and new answers (LLM calls), and a flagged
non-answer keeps its canonical text, so the saved scores are what the new code
gives for the same answers.

Run: python scripts/measure_cleaning_gate_counts.py > docs/cleaning_gate_counts.txt
"""

from __future__ import annotations

import json
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def run_figures(run: dict) -> dict:
    """Counts of one saved run: meaning flips, distinct states before/after, non-answers."""
    from invent_core.perturb.meaning import changed_meaning
    from invent_core.perturb.text import duplicate_key
    from invent_core.responses.cleaning import non_answer

    q, perts = run["question"], run["perturbations"]
    flips = [p for p in perts if changed_meaning(p, q) is not None]
    keys = {duplicate_key(p) for p in perts}
    near = {
        duplicate_key(c["text"])
        for c in run.get("candidates") or []
        if c.get("reason") == "near_duplicate" and c.get("text")
    } - keys
    after = min(len(perts), len(keys) + len(near))
    task = run.get("task") or "qa"
    flagged = sum(
        non_answer(a, qq, task=task) is not None
        for qq, reps in zip(run["questions"], run.get("cleaned_responses") or [], strict=False)
        for a in reps
    )
    replies = sum(map(len, run.get("cleaned_responses") or []))
    return {
        "flips": flips,
        "before": len(keys),
        "after": after,
        "flagged": flagged,
        "replies": replies,
    }


def folder_report(folder: Path) -> list[str]:
    """Lines for one evaluate folder."""
    figs = [
        run_figures(json.loads(p.read_text(encoding="utf-8")))
        for p in sorted((folder / "runs").glob("*.json"))
    ]
    if not figs:
        return []
    n_flip = sum(len(f["flips"]) for f in figs)
    lines = [
        f"== {folder.name}: {len(figs)} saved runs",
        f"  perturbations the meaning check rejects: {n_flip} "
        f"(in {sum(bool(f['flips']) for f in figs)} runs)",
        f"  distinct states per question, median: saved {statistics.median(f['before'] for f in figs)}"
        f", with near-duplicate stand-ins {statistics.median(f['after'] for f in figs)}",
        f"  replies flagged as non-answers: {sum(f['flagged'] for f in figs)} of "
        f"{sum(f['replies'] for f in figs)}",
    ]
    examples = [(f, p) for f in figs for p in f["flips"]][:0]
    return lines + [f"    e.g. {p}" for _, p in examples]


def main() -> None:
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("scripts/measure_cleaning_gate_counts.py"))
    print(f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    roots = (ROOT / "docs" / "results_before_meaning_check", ROOT / "docs" / "results")
    for folder in sorted(f for root in roots for f in root.glob("evaluate-*")):
        for line in folder_report(folder):
            print(line)


if __name__ == "__main__":
    main()
