"""evaluate names its degenerate questions: per question in scores.csv and results.json, a count
under the table and among the warnings, and again when only its saved runs are read; tsu names
its degenerate runs in uq.csv and tsu.json.

The pipeline runs for real (gate, MiniLM, scoring); the scripted LLM rewords
Japan's question as itself, so the gate accepts no rewording, the run pads with
the question and its Inv-Entropy is ln(n + 1) whatever the answers.
"""

from __future__ import annotations

import csv
import json

import pytest
from test_experiment_honest import RUN, ScriptLLM

from invent_core.experiments import ExperimentConfig, evaluate, tsu
from invent_core.experiments.recompute import recompute_evaluation
from invent_core.llm import Completion

QUESTIONS = [
    ("q1", "What is the capital of France?", "Paris"),
    ("q2", "What is the capital of Japan?", "Tokyo"),
    ("q3", "What is the capital of Italy?", "Rome"),
]
SENTENCE = "1 of 3 questions are degenerate (every perturbation a copy of the question)"


class EchoLLM(ScriptLLM):
    """Rewords Japan's question as the question itself; answers the others as ScriptLLM does."""

    def complete_many(self, requests, progress=None, *, cancel=None, concurrency=None):
        text = requests[0].message_list[-1]["content"]
        if text.startswith("Please Provide") and "Japan" in text:
            q = text.split(": ", 1)[1]
            return [Completion(f"1. {q}\n2. {q}") for _ in requests]
        return super().complete_many(requests, progress, cancel=cancel, concurrency=concurrency)


class NoLLM:
    identity = "script"

    def __getattr__(self, name):
        raise AssertionError(f"the LLM was used ({name}) although every run is saved")


@pytest.fixture
def evaluated(tmp_path, minilm):
    path = tmp_path / "capitals.csv"
    with open(path, "w", newline="") as fh:
        csv.writer(fh).writerows([("id", "question", "answer"), *QUESTIONS])
    cfg = ExperimentConfig(run=RUN, data=str(path), methods=("inv_entropy",), n_bootstrap_metrics=5)
    out = tmp_path / "out"
    return cfg, out, evaluate(cfg, out, llm_factory=EchoLLM)


def _scores(out) -> dict[str, dict]:
    with open(out / "scores.csv", newline="") as fh:
        return {r["id"]: r for r in csv.DictReader(fh)}


def test_each_degenerate_question_is_named_and_counted(evaluated):
    _, out, res = evaluated
    [entry] = res.degenerate
    assert entry["id"] == "q2"
    assert entry["reason"].startswith("degenerate result: all 2 perturbations are the question")
    assert "no rewording was accepted" in entry["reason"]
    rows = _scores(out)
    assert rows["q2"]["degenerate"] == entry["reason"]
    assert rows["q1"]["degenerate"] == rows["q3"]["degenerate"] == ""
    assert json.loads((out / "results.json").read_text())["degenerate"] == [entry]
    assert SENTENCE in (out / "results.md").read_text()
    assert any(w.startswith(SENTENCE) for w in res.warnings)
    assert SENTENCE in res.table.to_text()


def test_a_folder_saved_before_the_column_reads_its_runs_again_without_the_llm(evaluated):
    cfg, out, first = evaluated
    rows = list(_scores(out).values())
    columns = [c for c in rows[0] if c != "degenerate"]
    with open(out / "scores.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, columns, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    again = evaluate(cfg, out, llm_factory=NoLLM)
    assert not again.llm_started and again.degenerate == first.degenerate
    assert _scores(out)["q2"]["degenerate"] == first.degenerate[0]["reason"]


def test_recomputed_results_keep_the_count(evaluated):
    _, out, _ = evaluated
    (out / "results.md").unlink()
    res = recompute_evaluation(out, n_bootstrap=5)
    assert [d["id"] for d in res.degenerate] == ["q2"]
    assert SENTENCE in (out / "results.md").read_text()


def test_tsu_names_each_degenerate_run_in_uq_csv_and_tsu_json(evaluated, tmp_path):
    cfg, _, first = evaluated
    out = tmp_path / "tsu"
    res = tsu(cfg, [0.3, 1.0], out, llm_factory=EchoLLM)
    with open(out / "uq.csv", newline="") as fh:
        uq = list(csv.DictReader(fh))
    assert len(uq) == 6
    named = {(r["id"], r["temperature"]): r["degenerate"] for r in uq}
    assert named[("q2", "0.3")] == named[("q2", "1.0")] == first.degenerate[0]["reason"]
    assert all(why == "" for (qid, _), why in named.items() if qid != "q2")
    saved = json.loads((out / "tsu.json").read_text())["degenerate"]
    assert [(d["id"], d["temperature"]) for d in saved] == [("q2", 0.3), ("q2", 1.0)]
    line = "2 of 6 runs are degenerate (every perturbation a copy of the question)"
    assert any(w.startswith(line) and "uq.csv and tsu.json" in w for w in res.warnings)
