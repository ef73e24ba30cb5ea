"""Shipped references: matched by settings, pooled across datasets, built from evaluate runs."""

from __future__ import annotations

import csv
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from invent_core.config import RunConfig
from invent_core.evaluation.reference import (
    MATCH_KEYS,
    MIN_NEAR,
    ReferenceSet,
    columns,
    for_settings,
    reference_line,
    reference_settings,
)

ROOT = Path(__file__).resolve().parents[2]
CFG = RunConfig(n_perturbations=4, n_replications=3)


def _save(folder, name, values, correct, **settings):
    return ReferenceSet(values, correct, settings).save(folder / f"{name}.json")


def test_settings_name_the_packaged_model_and_drop_tau_unless_it_matters():
    s = reference_settings(CFG.replace(affinity="shifted_cosine"), "local", "inv_entropy")
    assert set(s) == set(MATCH_KEYS) - {"kernel_tau"}
    assert (s["llm"], s["n_perturbations"], s["measure"]) == ("qwen0.5b", 4, "inv_entropy")
    sharp = reference_settings(CFG.replace(affinity="exp_cosine"), "local", "inv_entropy")
    assert sharp["kernel_tau"] == CFG.score.kernel_tau


def test_for_settings_matches_and_pools_across_datasets(tmp_path):
    base = reference_settings(CFG, "local", "inv_entropy")
    _save(tmp_path, "a", [1.0, 2.0], [1, 0], **base, dataset="mmlu")
    _save(tmp_path, "b", [3.0], [0], **base, dataset="arithmetic")
    _save(tmp_path, "other_n", [9.0], [1], **{**base, "n_perturbations": 9}, dataset="mmlu")
    _save(tmp_path, "other_measure", [9.0], [1], **{**base, "measure": "lexsim"}, dataset="mmlu")
    (tmp_path / "broken.json").write_text("{not json")
    ref = for_settings(CFG, llm_identity="local", directory=tmp_path)
    assert sorted(ref.values.tolist()) == [1.0, 2.0, 3.0] and ref.has_labels
    assert ref.settings["datasets"] == ["arithmetic", "mmlu"]
    assert ref.settings["files"] == ["a.json", "b.json"]
    assert for_settings(CFG.replace(temperature=1.0), directory=tmp_path) is None
    assert for_settings(CFG, llm_identity="http://h/v1|model=m", directory=tmp_path) is None
    assert for_settings(CFG, directory=tmp_path / "missing") is None


def test_unlabelled_files_pool_without_labels(tmp_path):
    base = reference_settings(CFG, "local", "inv_entropy")
    _save(tmp_path, "a", [1.0, 2.0], [1, 0], **base, dataset="mmlu")
    _save(tmp_path, "b", [3.0], None, **base, dataset="tsu")
    ref = for_settings(CFG, directory=tmp_path)
    assert ref.size == 3 and not ref.has_labels


def test_line_and_columns_with_a_toy_reference_whose_answer_is_known():
    # forty reference questions: low uncertainty right, high wrong
    ref = ReferenceSet(
        [k / 4 for k in range(40)],
        [1] * 20 + [0] * 20,
        {**reference_settings(CFG, "local", "inv_entropy"), "datasets": ["toy"]},
    )
    line = reference_line(7.0, ref)
    assert line.startswith("inv_entropy: percentile 72 among 40 reference questions (settings: ")
    assert "paraphrase, n = 4, r = 3, T = 0.7, minilm" in line and "qwen0.5b; toy" in line
    # P(correct) gives its interval, its support, where it was calibrated and that base rate
    assert "P(correct) ≈ 0.0" in line and "[90 %: " in line
    assert line.endswith(
        "reference questions near this value (calibrated on toy: right on 50 % of them)"
    )
    d = ref.describe(7.0)
    assert d["base_rate"] == 0.5 and ref.datasets == ["toy"] and d["n_near"] >= 10
    assert d["p_interval"][0] - 1e-9 <= d["p_correct"] <= d["p_interval"][1] + 1e-9
    low = columns(0.5, ref)
    assert low == {
        "inv_entropy_percentile": 7.5,
        "inv_entropy_p_correct": pytest.approx(0.99, abs=0.02),
        "inv_entropy_placed_among": "40 reference questions",  # not placed by question
    }
    assert columns(0.5, None) == {
        "inv_entropy_percentile": None,
        "inv_entropy_p_correct": None,
        "inv_entropy_placed_among": None,
    }
    assert columns(math.nan, ref)["inv_entropy_percentile"] is None
    assert "no shipped reference" in reference_line(1.0, None)
    # monotone in the measure
    pct = [columns(v, ref)["inv_entropy_percentile"] for v in (0, 3, 6, 9)]
    p = [columns(v, ref)["inv_entropy_p_correct"] for v in (0, 3, 6, 9)]
    assert pct == sorted(pct) and p == sorted(p, reverse=True)


def test_no_p_correct_from_too_few_reference_questions_near_the_value():
    """Too few neighbours say "not enough reference questions here", not 0.99 from three."""
    ref = ReferenceSet([float(k) for k in range(10)], [1] * 5 + [0] * 5, {"datasets": ["toy"]})
    line = reference_line(7.0, ref)
    assert line.endswith(
        f"P(correct): not enough reference questions near this value (5 < {MIN_NEAR})"
    )
    assert columns(7.0, ref)["inv_entropy_p_correct"] is None
    far = ReferenceSet([k / 4 for k in range(40)], [1] * 20 + [0] * 20)
    assert far.calibration(100.0)["p_correct"] is None  # far outside the reference


def test_calibration_is_monotone_not_a_staircase_and_has_an_interval():
    rng = np.random.default_rng(1)
    values = rng.uniform(2.0, 3.0, 120)
    correct = (rng.uniform(size=120) < 1.0 - (values - 2.0)).astype(int)
    ref = ReferenceSet(values, correct)
    grid = np.linspace(2.2, 2.8, 25)
    cal = [ref.calibration(float(v)) for v in grid]
    p = [c["p_correct"] for c in cal]
    assert all(x is not None for x in p)
    assert all(a >= b - 1e-12 for a, b in zip(p, p[1:]))  # non-increasing
    assert len({round(x, 4) for x in p}) > len({round(float(ref.p_correct(v)), 4) for v in grid})
    assert all(c["interval"][0] - 1e-9 <= c["p_correct"] <= c["interval"][1] + 1e-9 for c in cal)
    assert all(c["interval"][1] - c["interval"][0] > 0 for c in cal)


def _evaluate_folder(folder: Path) -> None:
    """A small synthetic ``evaluate`` output: config.json, scores.csv, one saved run."""
    (folder / "runs").mkdir(parents=True)
    cfg = {"run": CFG.to_dict(), "dataset": "arithmetic", "data": None, "limit": 6}
    (folder / "config.json").write_text(json.dumps({"config": cfg, "sample": "6 of 300"}))
    with open(folder / "scores.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "question", "correct", "error", "inv_entropy", "lexsim"])
        w.writerows(
            [
                ["a", "1+1?", 1, "", 0.5, 0.1],
                ["b", "2+2?", 1, "", 0.7, 0.2],
                ["c", "3*7?", 0, "", 1.9, 0.3],
                ["d", "9*9?", "", "LLMTimeout: slow", "", ""],
            ]
        )
    run = {"identities": {"llm": "local"}, "question": "1+1?"}
    (folder / "runs" / "a.json").write_text(json.dumps(run))


def test_make_reference_script_builds_what_for_settings_finds(tmp_path):
    _evaluate_folder(tmp_path / "evaluate-arithmetic")
    out = tmp_path / "ref"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make_reference.py"),
         str(tmp_path / "evaluate-arithmetic"), "--measures", "inv_entropy,lexsim",
         "--out", str(out)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "3 questions, with labels" in proc.stdout
    files = sorted(p.name for p in out.glob("*.json"))
    assert len(files) == 2 and files[0].startswith("arithmetic__inv_entropy__")
    ref = for_settings(CFG, llm_identity="local", directory=out)
    assert ref.values.tolist() == [0.5, 0.7, 1.9] and ref.correct.tolist() == [1, 1, 0]
    assert ref.settings["datasets"] == ["arithmetic"]
    lex = for_settings(CFG, llm_identity="local", measure="lexsim", directory=out)
    assert lex.values.tolist() == [0.1, 0.2, 0.3]


def test_the_shipped_reference_covers_the_default_settings_of_the_packaged_model():
    """What `run`, Explore and batch show out of the box: a labelled reference for the defaults."""
    ref = for_settings(RunConfig(), llm_identity="local")
    assert ref is not None, "no assets/reference/*.json for the defaults: scripts/make_reference.py"
    assert ref.has_labels and ref.size >= 50
    assert {"arithmetic", "mmlu"} <= set(ref.settings["datasets"])
    assert ref.settings["affinity"] == RunConfig().score.affinity


def _score_cli(tmp_path, *extra, ref_dir=None):
    import os

    data = {
        "questions": ["What is 6 times 7?", "What is the product of 6 and 7?"],
        "responses": [["42", "42", "36"], ["42", "48", "42"]],
    }
    path = tmp_path / "ex.json"
    path.write_text(json.dumps(data))
    env = {**os.environ, "INVENT_REFERENCE_DIR": str(ref_dir or tmp_path / "none")}
    return subprocess.run(
        [sys.executable, "-m", "invent_core", "score", str(path), "-B", "5", *extra],
        capture_output=True, text=True, cwd=ROOT, env=env,
    )  # fmt: skip


@pytest.mark.slow  # loads the packaged embedder in a subprocess
def test_score_places_the_value_among_the_reference_of_the_model_that_made_the_answers(tmp_path):
    made = RunConfig(n_perturbations=1, n_replications=3)
    ref_dir = tmp_path / "ref"
    ref_dir.mkdir()
    settings = reference_settings(made, "qwen0.5b", "inv_entropy")
    _save(ref_dir, "toy", [0.1 * k for k in range(20)], [1] * 10 + [0] * 10, **settings)
    unknown = _score_cli(tmp_path, ref_dir=ref_dir)
    assert unknown.returncode == 0, unknown.stderr
    assert "responses from an unknown LLM, so no reference percentile" in unknown.stdout
    known = _score_cli(tmp_path, "--made-by", "qwen0.5b", ref_dir=ref_dir)
    assert known.returncode == 0, known.stderr
    assert "inv_entropy: percentile" in known.stdout and "among 20 reference" in known.stdout
    as_json = json.loads(
        _score_cli(tmp_path, "--made-by", "qwen0.5b", "--json", ref_dir=ref_dir).stdout
    )
    got = as_json["reference"]
    assert got["n_reference"] == 20 and "n_near" in got  # P(correct) only with enough near it
    assert got["p_correct"] is None or 0 <= got["p_correct"] <= 1


def test_score_refuses_an_unknown_model_before_reading_the_file(tmp_path):
    bad = _score_cli(tmp_path, "--made-by", "gpt-99")
    assert bad.returncode == 2
    assert "--made-by: 'gpt-99' is not a packaged model" in bad.stderr


@pytest.mark.slow
def test_a_typed_trivia_question_is_placed_among_free_text_references_only():
    """``score`` has no task: a question without options is not placed among MMLU's."""
    from invent_core.evaluation.reference import for_settings, question_task, reference_line

    golfer = "Which golfer won the 1997 Masters at Augusta?"
    ref = for_settings(RunConfig(), llm_identity="qwen0.5b", question=golfer,
                       task=question_task(golfer))  # fmt: skip
    line = reference_line(2.3, ref)
    assert "MMLU" not in line and ("TriviaQA" in line or "NQ-open" in line), line
