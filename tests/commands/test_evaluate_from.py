"""``evaluate --from FOLDER`` re-runs an evaluation from its own config.json, model included."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from invent_core.commands.evaluate import config_from_folder
from invent_core.experiments import ExperimentConfig
from invent_core.experiments.recompute import record_model

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "docs" / "results" / "evaluate-arithmetic-100-paraphrase-llm"


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "invent_core", "evaluate", *args],
                          capture_output=True, text=True, cwd=cwd,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin",
                               "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})  # fmt: skip


@pytest.fixture
def folder(tmp_path) -> Path:
    """The shipped folder's config and three runs; config.json without the model, as shipped."""
    out = tmp_path / SHIPPED.name
    (out / "runs").mkdir(parents=True)
    meta = json.loads((SHIPPED / "config.json").read_text())
    meta["config"]["llm"] = meta["config"]["paraphrase_llm"] = None
    (out / "config.json").write_text(json.dumps(meta))
    for run in sorted((SHIPPED / "runs").glob("*.json"))[:3]:
        shutil.copy(run, out / "runs" / run.name)
    return out


def test_the_folders_config_and_model_are_the_evaluation(folder):
    record_model(folder)
    args = argparse.Namespace(from_folder=str(folder), llm="local", paraphrase_llm=None,
                              dataset=None, data=None, judge="paraphrase")  # fmt: skip
    cfg = config_from_folder(args)
    meta = json.loads((folder / "config.json").read_text())
    assert cfg == ExperimentConfig.from_dict(meta["config"])
    assert (args.llm, args.paraphrase_llm) == ("qwen0.5b", "qwen1.5b")  # answered / paraphrased
    assert (args.dataset, args.judge) == (cfg.dataset, cfg.judge) == ("arithmetic", "match")


def test_a_folder_that_names_no_model_is_refused_before_anything_is_written(folder, tmp_path):
    out = tmp_path / "again"
    proc = _cli("--from", str(folder), "-o", str(out), cwd=tmp_path)
    assert proc.returncode != 0
    assert "names no model" in proc.stderr and "--record-model" in proc.stderr
    assert not out.exists()


def test_a_folder_without_config_is_named(tmp_path):
    proc = _cli("--from", str(tmp_path / "nowhere"), "-o", str(tmp_path / "x"), cwd=tmp_path)
    assert proc.returncode != 0 and "nowhere/config.json not found" in proc.stderr
    assert not (tmp_path / "x").exists()


def test_from_and_dataset_are_one_or_the_other(tmp_path):
    proc = _cli("--from", str(tmp_path), "--dataset", "arithmetic", cwd=tmp_path)
    assert proc.returncode == 2 and "not allowed with argument" in proc.stderr
