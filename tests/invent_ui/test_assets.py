"""The Evaluation page's demo is the shipped evaluation it names, by today's code.

The demo once showed Semantic Entropy's AUROC at 0.812 where the shipped
evaluation of the same 100 questions says 0.882 (an older judge, and no word
of where it came from). ``scripts/make_demo_eval.py`` now derives it from a
shipped folder and records that folder and the code; this test recomputes the
folder's metrics (no LLM call) and asks for the demo's numbers.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from invent_core.experiments.folder import read_evaluation
from invent_core.experiments.recompute import recompute_evaluation
from invent_ui.assets import DEMO_EVAL

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def demo() -> dict:
    return json.loads(DEMO_EVAL.read_text(encoding="utf-8"))


def test_the_demo_names_its_source_and_the_code_that_made_it(demo):
    prov = demo["provenance"]
    assert (ROOT / prov["source"] / "scores.csv").is_file()
    assert prov["demo"]["commit"] and prov["demo"]["by"] == "scripts/make_demo_eval.py"
    assert prov["scores"] == read_evaluation(ROOT / prov["source"]).meta["provenance"]


def test_the_demo_numbers_are_its_source_folder_recomputed(demo, tmp_path):
    source = ROOT / demo["provenance"]["source"]
    work = tmp_path / source.name
    work.mkdir()
    for name in ("config.json", "scores.csv", "relabels.jsonl"):
        if (source / name).is_file():
            shutil.copy(source / name, work)
    n_bootstrap = demo["provenance"]["demo"]["n_bootstrap"]
    got = recompute_evaluation(work, n_bootstrap=n_bootstrap).evaluation.to_dict()
    shipped = json.loads((source / "results.json").read_text(encoding="utf-8"))
    assert set(demo["evaluation"]["results"]) == set(got["results"])
    for method, cells in demo["evaluation"]["results"].items():
        for metric, cell in cells.items():
            want = got["results"][method][metric]
            where = f"{method} {metric}"
            assert cell["point"] == pytest.approx(want["point"], nan_ok=True), where
            assert cell["ci95"] == pytest.approx(want["ci95"], nan_ok=True), where
            # the page and the shipped table say the same
            assert cell["point"] == pytest.approx(
                shipped["results"][method][metric]["point"], nan_ok=True
            ), where
    ev = read_evaluation(source)
    assert [r["id"] for r in demo["rows"]] == [r["id"] for r in ev.judged]
    assert [int(r["correct"]) for r in demo["rows"]] == [r["correct"] for r in ev.judged]
