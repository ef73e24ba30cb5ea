"""A shipped evaluation rescored from its saved runs: no LLM call, today's provenance, the old one kept."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from invent_core.errors import LLMError
from invent_core.experiments.rescore import RESCORED_FROM, NoLLM, rescore_evaluation
from invent_core.experiments.runs import run_path

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "docs" / "results" / "evaluate-mmlu-100"
KEEP = 12  # questions copied: enough for both labels and the cross-fitted metrics


def _rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture
def folder(tmp_path) -> Path:
    """The shipped MMLU folder with its first questions (mixed labels) and their runs."""
    out = tmp_path / "evaluate-mmlu-12"
    (out / "runs").mkdir(parents=True)
    rows = _rows(SHIPPED / "scores.csv")
    rows = sorted(rows, key=lambda r: r["correct"])[-KEEP // 2 :] + rows[: KEEP // 2]
    with open(out / "scores.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    shutil.copy(SHIPPED / "config.json", out / "config.json")
    for r in rows:
        src = run_path(SHIPPED / "runs", r["id"], 0.7)
        shutil.copy(src, out / "runs" / src.name)
    return out


def test_no_llm_refuses_every_call():
    with pytest.raises(LLMError, match="no LLM call"):
        NoLLM().complete("x")


def test_an_llm_judge_is_refused_before_anything_is_written(folder):
    before = (folder / "scores.csv").read_bytes()
    with pytest.raises(ValueError, match="LLM"):
        rescore_evaluation(folder, judge="llm")
    assert (folder / "scores.csv").read_bytes() == before


def test_a_missing_run_is_named(folder):
    victim = next((folder / "runs").iterdir())
    victim.unlink()
    with pytest.raises(FileNotFoundError, match=victim.name):
        rescore_evaluation(folder, n_bootstrap=20)


@pytest.mark.slow
def test_rescore_reads_the_saved_answers_and_records_both_codes(folder):
    old = {r["id"]: r for r in _rows(folder / "scores.csv")}
    generated = json.loads((folder / "config.json").read_text())
    rep = rescore_evaluation(folder, n_bootstrap=50)
    new = _rows(folder / "scores.csv")
    assert rep.unavailable == {}  # P(True) and VU read the runs' extras: no method needed the LLM
    assert len(new) == KEEP and {r["id"] for r in new} == set(old)
    for r in new:  # the LLM's own answers come back exactly; the replies scored are the same
        assert float(r["p_true"]) == pytest.approx(float(old[r["id"]]["p_true"]))
        assert float(r["verbalized"]) == pytest.approx(float(old[r["id"]]["verbalized"]))
        assert r["canonical"] == old[r["id"]]["canonical"] and r["judge_reason"]
    meta = json.loads((folder / "config.json").read_text())
    assert meta["provenance"]["source"] == "git" and meta["provenance"]["commit"]
    assert meta["generated_by"]["provenance"] == generated.get("provenance")
    # the rewordings are the generation's: the round of rules that chose them is kept
    assert meta["rewording_rules"] == generated.get("rewording_rules")
    assert meta["results_recomputed"]["from"] == RESCORED_FROM
    assert meta["results_recomputed"]["commit"] == meta["provenance"]["commit"]
    assert json.loads((folder / "results.json").read_text())["n_bootstrap"] == 50
