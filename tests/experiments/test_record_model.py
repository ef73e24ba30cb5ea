"""config.json names the model an evaluation was made with, from its saved runs' identities."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from invent_core.experiments import ExperimentConfig
from invent_core.experiments.recompute import record_model

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "docs" / "results" / "evaluate-sciq-140-1.5b"


@pytest.fixture
def folder(tmp_path) -> Path:
    out = tmp_path / SHIPPED.name
    (out / "runs").mkdir(parents=True)
    meta = json.loads((SHIPPED / "config.json").read_text())
    meta["config"]["llm"] = meta["config"]["paraphrase_llm"] = None  # as it was shipped
    meta.pop("model", None)
    (out / "config.json").write_text(json.dumps(meta))
    for run in sorted((SHIPPED / "runs").glob("*.json"))[:3]:
        shutil.copy(run, out / "runs" / run.name)
    return out


def test_the_model_is_named_from_the_runs(folder):
    run = json.loads(next((folder / "runs").iterdir()).read_text())
    block = record_model(folder)
    meta = json.loads((folder / "config.json").read_text())
    assert meta["config"]["llm"] == run["identities"]["llm"]
    assert block["llm"] == {"spec": "qwen1.5b", "identity": run["identities"]["llm"]}
    assert meta["model"] == block and "recorded identities" in block["source"]
    # the same model paraphrased: no separate paraphrasing model is named
    assert meta["config"]["paraphrase_llm"] is None and block["paraphrase_llm"] is None
    assert ExperimentConfig.from_dict(meta["config"]).llm == run["identities"]["llm"]


def test_runs_naming_two_models_are_refused(folder):
    path = next((folder / "runs").iterdir())
    run = json.loads(path.read_text())
    run["identities"]["llm"] = "local:sha256=0|model=qwen0.5b"
    path.write_text(json.dumps(run))
    before = (folder / "config.json").read_text()
    with pytest.raises(ValueError, match="2 answering models"):
        record_model(folder)
    assert (folder / "config.json").read_text() == before


def test_a_folder_without_runs_says_the_model_is_not_recorded(folder):
    shutil.rmtree(folder / "runs")
    block = record_model(folder)
    assert block["llm"] is None and "not recorded" in block["source"]
    assert json.loads((folder / "config.json").read_text())["config"]["llm"] is None
