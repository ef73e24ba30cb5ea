"""The shipped demos say who made them; the Evaluation page's is the evaluation it names.

The demo once showed Semantic Entropy's AUROC at 0.812 where the shipped
evaluation of the same 100 questions says 0.882 (an older judge, and no word
of where it came from). ``scripts/make_demo_eval.py`` now derives it from a
shipped folder and records that folder and the code; this test recomputes the
folder's metrics (no LLM call) and asks for the demo's numbers. Every
``assets/demo_*.json`` records the commit, tree, day, command and model that
made it, and every page that shows one says so in a caption.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from invent_core.experiments.folder import read_evaluation
from invent_core.experiments.recompute import recompute_evaluation
from invent_core.llm.names import describe_llm
from invent_core.provenance import is_older
from invent_ui import assets
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


# --- every shipped demo says who made it ------------------------------------------------

#: Each page that shows a shipped demo when it has nothing of its own, and that demo.
DEMO_PAGES = [
    ("app.py", assets.DEMO_PAIR),
    ("1_Explore_a_question.py", assets.DEMO_RUN),
    ("2_Compare_embedders.py", assets.DEMO_RUN),
    ("3_GAAP_evolution.py", assets.DEMO_GAAP),
    ("4_TSU.py", assets.DEMO_TSU),
    ("6_Evaluation.py", assets.DEMO_EVAL),
]


def _made_by(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))["provenance"]["demo"]


def test_every_demo_in_assets_is_listed():
    assert sorted(ROOT.glob("assets/demo_*.json")) == sorted(assets.DEMOS)
    assert {path for _, path in DEMO_PAGES} == set(assets.DEMOS)  # and shown on a page


@pytest.mark.parametrize("path", assets.DEMOS, ids=lambda p: p.name)
def test_each_demo_records_the_code_day_command_and_model_that_made_it(path):
    made = _made_by(path)
    assert re.fullmatch(r"[0-9a-f]{40}", made["commit"]), made
    # a commit of this history (a demo made on a branch never merged would name a lost one)
    assert is_older(_head(), made["commit"], ROOT) is False, made["commit"]
    assert made["tree"] in ("clean tree", "uncommitted changes") and made["dirty"] in (True, False)
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", made["date"])
    assert (ROOT / made["by"]).is_file() and made["by"].startswith("scripts/make_demo_")
    assert made["command"].split()[:2] == ["python", made["by"]]
    assert made["model"].startswith("local:sha256="), made["model"]  # the packaged model
    if "from" in made:  # made from a saved folder: one that is shipped
        assert (ROOT / made["from"]).is_dir(), made["from"]


def test_a_caption_says_commit_tree_day_and_model():
    made = _made_by(assets.DEMO_RUN)
    line = assets.demo_caption({"demo": made})
    assert made["commit"][:12] in line and made["tree"] in line and made["date"] in line
    assert describe_llm(made["model"]) in line and made["by"] in line
    assert assets.demo_caption({}).startswith("Demo of unknown origin")  # says so, no guess


def _head() -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.mark.slow  # the pages load the packaged embedders
@pytest.mark.parametrize(("page", "path"), DEMO_PAGES, ids=[p for p, _ in DEMO_PAGES])
def test_each_page_showing_a_demo_says_who_made_it(page, path, monkeypatch, tmp_path):
    from streamlit.testing.v1 import AppTest

    from invent_core.workbench.history import HistoryStore
    from invent_ui.jobs.feedback import job_registry
    from invent_ui.session import archive
    from invent_ui.text import untrusted

    monkeypatch.setattr(archive, "store", lambda: HistoryStore(tmp_path / "history"))
    job_registry.clear()  # nothing of another test's to show instead of the demo
    file = ROOT / ("app.py" if page == "app.py" else f"pages/{page}")
    at = AppTest.from_file(str(file), default_timeout=300).run()
    assert not at.exception, [e.value for e in at.exception]
    want = untrusted(assets.demo_caption({"demo": _made_by(path)}))
    assert want in [c.value for c in at.caption], [c.value for c in at.caption]
