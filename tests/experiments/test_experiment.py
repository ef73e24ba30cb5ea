"""The experiment runner (evaluate / tsu) with the real local LLM on a few easy and hard questions."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import pytest

from invent_core.config import RunConfig
from invent_core.experiments import ExperimentConfig, default_tsu_columns, evaluate, tsu

QUESTIONS = [
    ("q1", "What is the capital of France?", "Paris"),
    ("q2", "What is the capital of Japan?", "Tokyo"),
    ("q3", "Brunswick, Lancastrian and Pearl Pickler are types of which vegetable?", "Onion"),
    (
        "q4",
        "Which Scottish king was said to have died of leprosy in 1329?",
        "Robert the Bruce|Robert I",
    ),
]


@pytest.fixture(scope="module")
def data_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("exp") / "questions.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "question", "answer"])
        w.writerows(QUESTIONS)
    return path


def _never():
    raise AssertionError("the LLM must not be started on a re-run")


def test_config_validation():
    with pytest.raises(ValueError, match="exactly one of a dataset name"):
        ExperimentConfig()
    with pytest.raises(ValueError, match="unknown judge"):
        ExperimentConfig(dataset="triviaqa", judge="vibes")


def test_default_tsu_columns_cover_the_papers():
    pairs, chains = default_tsu_columns([0.3, 0.7, 1.0, 1.4])
    assert (1.0, 1.4) in pairs and (0.7, 1.4) in pairs
    assert (0.7, 1.4) in chains and (0.3, 1.4) in chains
    with pytest.raises(ValueError, match="strictly increasing"):
        tsu(ExperimentConfig(dataset="triviaqa"), [1.0, 0.5], "/tmp/never", llm_factory=_never)


@pytest.mark.slow
def test_evaluate_end_to_end_then_rerun_without_llm(tmp_path, data_file):
    from invent_core.llm import get_llm

    cfg = ExperimentConfig(
        run=RunConfig(n_perturbations=2, n_replications=2).replace(n_bootstrap=10),
        data=str(data_file),
        methods=("inv", "lexsim", "semantic_entropy"),
        n_bootstrap_metrics=10,
    )
    started = []

    def factory():
        started.append(1)
        return get_llm("local")

    res = evaluate(cfg, tmp_path, llm_factory=factory)
    assert started, "the first run must generate"
    rows = list(csv.DictReader(open(tmp_path / "scores.csv")))
    assert [r["id"] for r in rows] == ["q1", "q2", "q3", "q4"]
    correct = [int(r["correct"]) for r in rows]
    assert correct[0] == 1, rows[0]["response"]  # the packaged model knows Paris
    md = (tmp_path / "results.md").read_text()
    assert "Inv-Entropy" in md or "inv_entropy" in md
    assert "\\textbf" in (tmp_path / "results.tex").read_text()
    data = json.loads((tmp_path / "results.json").read_text())
    assert "auroc" in {m.lower() for m in data["metrics"]}
    assert set(res.methods) >= {"inv_entropy", "lexsim", "semantic_entropy"}
    # the same command again reads saved scores: no LLM at all
    again = evaluate(cfg, tmp_path, llm_factory=_never)
    assert not again.llm_started
    assert [r["inv_entropy"] for r in again.rows] == [r["inv_entropy"] for r in rows]


@pytest.mark.slow
def test_tsu_end_to_end(tmp_path, data_file):
    from invent_core.llm import get_llm

    cfg = ExperimentConfig(
        run=RunConfig(n_perturbations=2, n_replications=2).replace(n_bootstrap=10),
        data=str(data_file),
        limit=2,
        methods=("inv", "lexsim"),
    )
    res = tsu(cfg, [0.3, 1.2], tmp_path, llm_factory=lambda: get_llm("local"))
    table = json.loads((tmp_path / "tsu.json").read_text())["tsu"]
    assert set(table) == {
        "inv_entropy",
        "ni_entropy",
        "nr_inv_entropy",
        "wd_px_py",
        "max_py_x",
        "lexsim",
    }
    for row in table.values():
        for v in row.values():
            assert 0.0 <= v <= 1.0
    assert len(res.rows) == 4  # 2 questions × 2 temperatures
    again = tsu(cfg, [0.3, 1.2], tmp_path, llm_factory=_never)
    assert again.tsu == res.tsu


@pytest.mark.slow
def test_cli_evaluate_reports_single_class_without_losing_scores(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("question,answer\nWhat is the capital of France?,Paris\n")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "invent_core",
            "evaluate",
            "--data",
            str(path),
            "-n",
            "2",
            "-r",
            "2",
            "-B",
            "5",
            "--methods",
            "inv",
            "-o",
            str(tmp_path / "o"),
            "-q",
        ],
        capture_output=True,
        text=True,
    )
    # one class only still prints the table, with the reason, and exits 0
    assert out.returncode == 0, out.stderr
    assert "n/a — all answers" in out.stdout and "Traceback" not in out.stderr
    assert "warning: metrics not judged: n/a — all answers" in out.stderr
    assert (tmp_path / "o" / "scores.csv").is_file()
