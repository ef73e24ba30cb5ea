"""The count-only confound on a shipped evaluation: its counts by hand, its headline as RESULTS shows it."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from invent_core.experiments.counts import folder_confound, question_counts

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "docs" / "results" / "evaluate-mmlu-100"


def _rows() -> list[dict]:
    with open(SHIPPED / "scores.csv", newline="", encoding="utf-8") as fh:
        return [r for r in csv.DictReader(fh) if not r["error"] and r["correct"]]


def test_counts_match_a_count_by_hand_on_the_saved_runs():
    rows = _rows()[:5]
    counts = question_counts(SHIPPED, [r["id"] for r in rows])
    for path in sorted((SHIPPED / "runs").glob("*.json")):
        run = json.loads(path.read_text(encoding="utf-8"))
        mine = [i for i, r in enumerate(rows) if r["question"] == run["question"]]
        if not mine:
            continue
        norm = [" ".join(q.split()).casefold() for q in run["questions"]]
        assert counts[rows[mine[0]]["id"]]["distinct_rewordings"] == len(set(norm[1:]) - {norm[0]})
        assert 1 <= counts[rows[mine[0]]["id"]]["distinct_answers"] <= len(run["responses"][0])


def test_headline_interval_is_the_one_results_json_shows():
    checks = folder_confound(SHIPPED)
    saved = json.loads((SHIPPED / "results.json").read_text())["results"]["inv_entropy"]["auroc"]
    for check in checks.values():
        assert check.method_auroc.point == pytest.approx(saved["point"], abs=1e-9)
        assert check.method_auroc.ci95 == pytest.approx(tuple(saved["ci95"]), abs=1e-9)
        assert check.difference.difference == pytest.approx(
            check.method_auroc.point - check.count_auroc.point
        )


def test_a_folder_without_runs_names_the_missing_run(tmp_path):
    folder = tmp_path / "ev"
    folder.mkdir()
    for name in ("config.json", "scores.csv"):
        (folder / name).write_bytes((SHIPPED / name).read_bytes())
    with pytest.raises(FileNotFoundError, match="no saved run"):
        folder_confound(folder)


def test_counts_are_integers_per_question():
    rows = _rows()[:3]
    counts = question_counts(SHIPPED, [r["id"] for r in rows])
    assert all(isinstance(v, int) for c in counts.values() for v in c.values())
    assert np.all([c["distinct_rewordings"] <= 9 for c in counts.values()])
