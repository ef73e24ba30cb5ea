"""benchmarks/bench_adaptive.py on a small synthetic evaluate folder (no model needed)."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from benchmarks import bench_adaptive
from invent_core.config import RunConfig
from invent_core.engine.artifact import RunArtifact
from invent_core.paper.random_walk import KERNEL_TAU, affinity_from_embeddings
from invent_core.paper.scoring import score_from_similarity


def _run(i: int, agree: bool, n: int = 9, r: int = 5) -> RunArtifact:
    """A saved run whose answers all agree (a confident, correct question) or scatter."""
    rng = np.random.default_rng(i)
    m = n + 1
    q_emb = rng.normal(size=(m, 16)) * 0.1 + rng.normal(size=16)
    if agree:
        a_emb = np.tile(rng.normal(size=16), (m * r, 1)) + rng.normal(size=(m * r, 16)) * 0.01
    else:
        a_emb = rng.normal(size=(m * r, 16))
    config = RunConfig(n_perturbations=n, n_replications=r).replace(n_bootstrap=20)
    questions = [f"Question {i}?"] + [f"Question {i}, reworded {j}?" for j in range(n)]
    responses = [[f"answer {i}.{s}.{k}" for k in range(r)] for s in range(m)]
    score = score_from_similarity(
        questions,
        responses,
        affinity_from_embeddings(q_emb, kind="shifted_cosine", tau=KERNEL_TAU),
        affinity_from_embeddings(a_emb, kind="shifted_cosine", tau=KERNEL_TAU),
        embedder="synthetic",
        config=config.score,
    )
    return RunArtifact(
        question=questions[0],
        task="qa",
        choices=None,
        perturbations=questions[1:],
        questions=questions,
        prompts=[],
        raw_responses=responses,
        responses=responses,
        config=config,
        score=score,
    )


@pytest.fixture
def folder(tmp_path):
    out = tmp_path / "evaluate-synthetic"
    (out / "runs").mkdir(parents=True)
    rows = []
    for i in range(12):
        agree = i % 2 == 0
        run = _run(i, agree)
        run.save(out / "runs" / f"q{i}_T0.7.json")
        correct = int(agree) if i not in (0, 1) else int(not agree)  # two labels against the grain
        rows.append({"id": f"q{i}", "question": run.question, "correct": correct})
    rows.append({"id": "unjudged", "question": "Question 99?", "correct": ""})
    with open(out / "scores.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=["id", "question", "correct"])
        w.writeheader()
        w.writerows(rows)
    return out


def test_fixed_versus_adaptive_table(folder, capsys):
    rows = bench_adaptive.main([str(folder), "--tolerances", "0,0.5", "--n-boot", "30"])
    text = capsys.readouterr().out
    assert "12 judged questions" in text and "adaptive 0.5" in text and "load average" in text
    fixed, never_stops, loose = rows
    assert fixed["budget"] == "fixed" and fixed["calls"] == 50 and fixed["saving"] == 0
    # tolerance 0 never stops early: the replay of the full run is the fixed budget
    assert never_stops["calls"] == 50 and never_stops["auroc"] == pytest.approx(fixed["auroc"])
    assert never_stops["delta_mean"] == pytest.approx(0.0)
    # agreeing runs stop at the first step (3 perturbations: 20 answers)
    assert loose["calls"] < 50 and loose["saving"] > 0.2
    assert 0.0 <= loose["auroc"] <= 1.0 and loose["auroc_std"] >= 0


def test_empty_folder_is_a_clear_error(tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "scores.csv").write_text("id,question,correct\n")
    with pytest.raises(SystemExit, match="no judged runs found"):
        bench_adaptive.main([str(tmp_path)])
