"""Stale means a number would change: a shipped folder's saved runs re-scored at this commit.

A small copy of the shipped arithmetic evaluation (12 questions with their runs)
is re-scored in memory; it is not stale as saved, and it is stale once a saved
score, a label or a metric differs from what this commit computes, or once a
saved rewording verdict is not the one today's rules give.
"""

from __future__ import annotations

import csv
import json
import math
import shutil
from pathlib import Path

import pytest

from invent_core.experiments.recompute import recompute_evaluation
from invent_core.experiments.runs import run_path
from invent_core.experiments.staleness import (
    STALE_FILE,
    StaleCheck,
    drift,
    rescore_drift,
    value_change,
    write_stale_check,
)

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "docs" / "results" / "evaluate-arithmetic-100"
KEEP = 12


def _rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _write(path: Path, rows: list[dict]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> Path:
    """The shipped folder's first questions (both labels), their runs, and metrics made now."""
    out = tmp_path_factory.mktemp("stale") / "evaluate-arithmetic-12"
    (out / "runs").mkdir(parents=True)
    rows = _rows(SHIPPED / "scores.csv")
    rows = sorted(rows, key=lambda r: r["correct"])[-KEEP // 2 :] + rows[: KEEP // 2]
    _write(out / "scores.csv", rows)
    shutil.copy(SHIPPED / "config.json", out / "config.json")
    for r in rows:
        src = run_path(SHIPPED / "runs", r["id"], 0.7)
        shutil.copy(src, out / "runs" / src.name)
    recompute_evaluation(out, n_bootstrap=40)
    return out


@pytest.fixture
def folder(saved, tmp_path) -> Path:
    out = tmp_path / saved.name
    shutil.copytree(saved, out)
    return out


def test_a_folder_as_this_commit_makes_it_is_not_stale(folder):
    check = rescore_drift(folder)
    assert not check.stale, check.to_dict()
    assert check.n_questions == KEEP and check.labels_changed == 0 and check.metrics_change == 0.0
    assert set(check.largest_change) >= {"inv_entropy", "semantic_entropy", "lexsim"}
    assert all(v <= check.tolerance for v in check.largest_change.values())
    path = write_stale_check(folder, check)
    assert path.name == STALE_FILE
    saved = json.loads(path.read_text())
    assert saved["stale"] is False and saved["provenance"]["commit"] == check.provenance["commit"]


def test_a_changed_score_makes_it_stale_and_is_named(folder):
    rows = _rows(folder / "scores.csv")
    rows[3]["lexsim"] = str(float(rows[3]["lexsim"]) + 0.01)
    _write(folder / "scores.csv", rows)
    check = rescore_drift(folder)
    assert check.stale and check.moved == ["lexsim"]
    assert check.largest_change["lexsim"] == pytest.approx(0.01, abs=1e-9)


def test_a_rewording_verdict_todays_rules_would_not_give_makes_it_stale(folder):
    run = sorted((folder / "runs").glob("*.json"))[0]
    data = json.loads(run.read_text())
    rejected = next(c for c in data["candidates"] if not c["accepted"])
    rejected["accepted"] = True  # as if an older round had let it through
    run.write_text(json.dumps(data))
    check = rescore_drift(folder)
    assert check.stale and not check.moved and check.labels_changed == 0
    assert check.rewordings["changed"] == [run.name]
    assert check.to_dict()["rewordings"]["replayed"] == KEEP


def test_a_changed_label_makes_it_stale(folder):
    rows = _rows(folder / "scores.csv")
    rows[0]["correct"] = "1" if rows[0]["correct"] == "0" else "0"
    _write(folder / "scores.csv", rows)
    check = rescore_drift(folder)
    assert check.stale and check.labels_changed == 1


def test_metrics_that_differ_from_the_scores_make_it_stale(folder):
    res = json.loads((folder / "results.json").read_text())
    res["results"]["inv_entropy"]["auroc"]["point"] += 0.05
    (folder / "results.json").write_text(json.dumps(res))
    check = rescore_drift(folder)
    assert check.stale and not check.moved and check.metrics_change == pytest.approx(0.05)


def test_a_folder_without_runs_is_checked_on_its_metrics_and_says_why(folder):
    shutil.rmtree(folder / "runs")
    check = rescore_drift(folder)
    assert not check.stale and "without its saved runs" in check.unavailable


def test_the_tolerance_is_what_separates_noise_from_a_change():
    old = [{"a": "0.5", "b": "", "c": "1.0"}]
    assert drift(old, [{"a": "0.5000001", "b": "", "c": "nan"}], ["a", "b", "c"]) == pytest.approx(
        {"a": 1e-7, "b": 0.0, "c": math.inf}
    )
    assert value_change("1", "1") == 0.0
    noise = StaleCheck(1e-6, 1, {"a": 1e-7}, 0)
    assert not noise.stale and StaleCheck(1e-6, 1, {"a": 2e-6}, 0).stale
    with pytest.raises(ValueError, match="tolerance"):
        rescore_drift(ROOT, tolerance=-1)
