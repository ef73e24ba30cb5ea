"""An experiment folder is reused only by the LLM that made it; its damage is named, not fatal.

``config.json`` records the answering (and rewording) LLM; a folder made with
another is refused (exit 2 from the command line) unless ``--fresh`` asks to
start over; a ``runs`` that is a file and a damaged cell of ``scores.csv`` are
named with the file, row and column. Real files, and real processes for the CLI.
"""

from __future__ import annotations

import csv
import dataclasses
import json
from pathlib import Path

import pytest
from test_batch_faults import cli
from test_experiment_honest import ScriptLLM

from invent_core.config import RunConfig
from invent_core.config.paraphrase import REWORDING_RULES
from invent_core.engine.artifact import RunArtifact
from invent_core.experiments import ExperimentConfig, FolderMismatch, evaluate

QA = "id,question,answer\nq1,What is the capital of France?,Paris\nq2,What is the capital of Japan?,Tokyo\n"
DEAD_LLM = ("--llm", "openai", "--base-url", "http://127.0.0.1:9/v1", "--model", "m")


class OtherLLM(ScriptLLM):
    identity = "other"


def _cfg(data: Path, llm: str | None = "script") -> ExperimentConfig:
    run = RunConfig().replace(
        n_perturbations=2, n_replications=2, n_bootstrap=5, paraphrase_gate_max_extra_requests=1
    )
    return ExperimentConfig(
        run=run, data=str(data), methods=("inv_entropy",), n_bootstrap_metrics=5, llm=llm
    )


@pytest.fixture
def folder(tmp_path, minilm):
    data = tmp_path / "q.csv"
    data.write_text(QA, encoding="utf-8")
    out = tmp_path / "o"
    evaluate(_cfg(data), out, llm_factory=ScriptLLM)
    return data, out


def test_config_json_records_the_llm_and_another_is_refused(folder):
    data, out = folder
    meta = json.loads((out / "config.json").read_text())
    assert meta["config"]["llm"] == "script"
    assert meta["rewording_rules"] == REWORDING_RULES  # the round of meaning checks used
    with pytest.raises(FolderMismatch, match=r"made with LLM script \(config\.json\).*--fresh"):
        evaluate(_cfg(data, "other"), out, llm_factory=OtherLLM)
    again = evaluate(_cfg(data), out, llm_factory=ScriptLLM)  # the same model: nothing asked
    assert not again.llm_started


def test_fresh_makes_every_run_again_with_the_new_model(folder):
    data, out = folder
    res = evaluate(_cfg(data, "other"), out, llm_factory=OtherLLM, fresh=True)
    assert res.llm_started and res.evaluation.n_questions == 2
    runs = [RunArtifact.load(p) for p in (out / "runs").glob("*.json")]
    assert {r.identities["llm"] for r in runs} == {"other"}
    assert json.loads((out / "config.json").read_text())["config"]["llm"] == "other"


def test_a_folder_whose_config_names_no_model_is_checked_against_its_runs(folder):
    data, out = folder
    meta = json.loads((out / "config.json").read_text())
    del meta["config"]["llm"]  # as written before the identity was recorded
    (out / "config.json").write_text(json.dumps(meta))
    with pytest.raises(FolderMismatch, match=r"made with LLM script \(runs/"):
        evaluate(_cfg(data, "other"), out, llm_factory=OtherLLM)


def test_the_command_refuses_a_folder_of_another_model_before_any_llm_call(folder):
    data, out = folder
    proc = cli("evaluate", "--data", data, "-o", out, *DEAD_LLM, timeout=180)
    assert proc.returncode == 2, proc.stderr
    assert "made with LLM script" in proc.stderr and "--fresh" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_runs_that_is_a_file_is_one_clear_error(tmp_path):
    data = tmp_path / "q.csv"
    data.write_text(QA, encoding="utf-8")
    out = tmp_path / "o"
    out.mkdir()
    (out / "runs").write_text("mine")
    proc = cli("evaluate", "--data", data, "-o", out, *DEAD_LLM, timeout=180)
    assert proc.returncode == 2, proc.stderr
    assert f"{out / 'runs'}: is not a folder" in proc.stderr
    assert "Traceback" not in proc.stderr and "FileExistsError" not in proc.stderr
    assert (out / "runs").read_text() == "mine"


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        ("correct", "x", "column 'correct': 'x' is not 0 or 1"),
        ("inv_entropy", "0.3abc", "column 'inv_entropy': '0.3abc' is not a number"),
    ],
)
def test_a_damaged_scores_cell_is_named_and_scored_again(folder, column, value, message):
    data, out = folder
    scores = out / "scores.csv"
    rows = list(csv.DictReader(open(scores, encoding="utf-8")))
    rows[1][column] = value
    with open(scores, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    res = evaluate(_cfg(data), out, llm_factory=ScriptLLM)
    assert not res.llm_started and res.evaluation.n_questions == 2  # rescored from its run
    assert res.warnings[0] == f"{scores}: row 2 (id q2): {message}; scored again"
    fixed = list(csv.DictReader(open(scores, encoding="utf-8")))
    assert fixed[1]["correct"] in ("0", "1") and fixed[1]["inv_entropy"] != "0.3abc"


def test_a_torn_last_row_is_named_and_scored_again(folder):
    """A crash mid-write: the row's lost scores do not pass for saved NaNs (robustness.md)."""
    data, out = folder
    scores = out / "scores.csv"
    text = scores.read_text(encoding="utf-8")
    scores.write_text(text[: text.rindex("\n", 0, -1) + 20], encoding="utf-8")  # q2 torn
    res = evaluate(_cfg(data), out, llm_factory=ScriptLLM)
    assert not res.llm_started and res.evaluation.n_questions == 2  # rescored from its run
    assert res.warnings[0].startswith(f"{scores}: row 2 (id q2): the row is cut short (")
    assert res.warnings[0].endswith("; scored again")
    fixed = list(csv.DictReader(open(scores, encoding="utf-8")))
    assert fixed[1]["inv_entropy"] not in ("", None)


def test_the_identity_is_kept_by_to_dict_and_from_dict():
    cfg = dataclasses.replace(_cfg(Path("q.csv")), paraphrase_llm="rewriter")
    assert ExperimentConfig.from_dict(cfg.to_dict()) == cfg
