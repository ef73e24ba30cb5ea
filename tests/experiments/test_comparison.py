"""``compare``: two toy evaluate folders paired question by question, refused when they differ."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from invent_core.cli import main as cli
from invent_core.config import RunConfig
from invent_core.csv_safe import write_csv
from invent_core.engine.artifact import RunArtifact
from invent_core.evaluation.compare import compare_sides
from invent_core.experiments import SCORE_COLUMNS, ExperimentConfig, draw_examples
from invent_core.experiments.comparison import (
    DifferentQuestions,
    compare_evaluations,
    compare_methods,
    read_side,
)
from invent_core.experiments.relabel import Relabel, append_relabel
from invent_core.experiments.runs import example_run_path

ROOT = Path(__file__).resolve().parents[2]
METHODS = ("inv_entropy", "lexsim")


def toy_config(n: int) -> ExperimentConfig:
    """The settings a toy folder records: the arithmetic sample, two cheap methods."""
    return ExperimentConfig(run=RunConfig(), dataset="arithmetic", limit=n, methods=METHODS)


def toy_evaluation(folder: Path, correct, scores: dict, *, drop=(), seed: int = 0) -> Path:
    """What ``evaluate`` leaves in a folder (config.json, scores.csv) for the first questions.

    ``scores``: method → one uncertainty per question; ``drop``: indices left out.
    The questions are the real arithmetic sample's, so ``evaluate`` reuses every row.
    """
    cfg = toy_config(len(correct))
    examples, sample = draw_examples(cfg)
    rows = []
    for i, ex in enumerate(examples):
        if i in drop:
            continue
        answer = ex.answers[0] if correct[i] else "0"
        rows.append({"id": ex.id, "dataset": ex.dataset, "question": ex.question,
                     "response": answer, "canonical": answer, "reference": ex.answers[0],
                     "correct": int(correct[i]), "judge_reason": "toy", "error": "",
                     **{m: float(scores[m][i]) for m in scores}})  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "runs").mkdir(exist_ok=True)
    meta = {"config": cfg.to_dict(), "sample": sample}
    (folder / "config.json").write_text(json.dumps(meta), encoding="utf-8")
    write_csv(folder / "scores.csv", rows, [*SCORE_COLUMNS, *scores])
    return folder


def _sides(seed: int, n: int = 16):
    rng = np.random.default_rng(seed)
    ca = np.array([1, 0] * (n // 2))
    cb = ca.copy()
    cb[:3] = 1 - cb[:3]
    ua = {m: rng.normal(size=n) - ca for m in METHODS}
    ub = {m: rng.normal(size=n) - cb for m in METHODS}
    return (ca, ua), (cb, ub)


@pytest.fixture
def pair(tmp_path):
    (ca, ua), (cb, ub) = _sides(0)
    return toy_evaluation(tmp_path / "A", ca, ua), toy_evaluation(tmp_path / "B", cb, ub)


def test_two_evaluations_are_compared_on_their_paired_questions(pair):
    (ca, ua), (cb, ub) = _sides(0)
    res = compare_evaluations(*pair, metrics=["auroc", "brier"], n_bootstrap=100, seed=1)
    assert res.n_shared == res.n_a == res.n_b == 16 and list(res.results) == list(METHODS)
    for m in METHODS:
        want = compare_sides((ca, ua[m]), (cb, ub[m]), metrics=["auroc", "brier"],
                             n_bootstrap=100, seed=1)  # fmt: skip
        for got, ref in zip(res.results[m], want, strict=True):
            assert got.difference.difference == pytest.approx(ref.difference.difference)
            assert got.difference.ci95 == pytest.approx(ref.difference.ci95)
    gaps = [d.gap for d in res.disagreements]
    assert gaps == sorted(gaps, reverse=True) and len(gaps) == 10


def test_questions_are_paired_by_id_then_by_text(tmp_path, pair):
    """B lists its rows in another order and names one question differently: the same pairs."""
    rows = (pair[1] / "scores.csv").read_text(encoding="utf-8").splitlines()
    head, body = rows[0], rows[1:]
    body[0] = body[0].replace(body[0].split(",")[0], "renamed:1", 1)
    (pair[1] / "scores.csv").write_text("\n".join([head, *body[::-1]]) + "\n", encoding="utf-8")
    again = compare_evaluations(*pair, metrics=["auroc"], n_bootstrap=50)
    first = compare_evaluations(pair[0], pair[0], metrics=["auroc"], n_bootstrap=50)
    assert again.n_shared == 16
    assert first.results["inv_entropy"][0].difference.difference == 0.0


def test_different_questions_are_refused_unless_the_intersection_is_asked(tmp_path, capsys):
    (ca, ua), (cb, ub) = _sides(1)
    a = toy_evaluation(tmp_path / "A", ca, ua)
    b = toy_evaluation(tmp_path / "B", cb, ub, drop=(0, 1, 2))
    with pytest.raises(DifferentQuestions, match=r"A holds 16 .* B 13; 13 are shared.*--inters"):
        compare_evaluations(a, b)
    assert cli(["compare", str(a), str(b)]) == 2
    assert "13 are shared" in capsys.readouterr().err
    res = compare_evaluations(a, b, intersection=True, metrics=["auroc"], n_bootstrap=50)
    assert (res.n_a, res.n_b, res.n_shared) == (16, 13, 13)
    assert cli(["compare", str(a), str(b), "--intersection", "--n-bootstrap-metrics", "50"]) == 0
    out = capsys.readouterr().out
    assert "13 paired questions (A 16, B 13)" in out and "auroc" in out


def test_two_methods_of_one_evaluation(pair, capsys):
    res = compare_methods(pair[0], "inv_entropy", "lexsim", metrics=["auroc"], n_bootstrap=80)
    assert list(res.results) == ["inv_entropy vs lexsim"]
    (ca, ua), _ = _sides(0)
    want = compare_sides((ca, ua["inv_entropy"]), (ca, ua["lexsim"]), metrics=["auroc"],
                         n_bootstrap=80)  # fmt: skip
    assert res.results["inv_entropy vs lexsim"][0].difference.ci95 == want[0].difference.ci95
    argv = [
        "compare",
        str(pair[0]),
        "--methods",
        "inv_entropy,lexsim",
        "--n-bootstrap-metrics",
        "80",
    ]
    assert cli([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["names"] == ["inv_entropy", "lexsim"] and len(data["disagreements"]) == 10


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ([], "--methods must name exactly two"),
        (["--methods", "inv_entropy,lexsim", "--metrics", "auc"], "--metrics: unknown 'auc'"),
        (["--methods", "inv_entropy,nope"], "method 'nope' is not a column"),
        (
            ["--methods", "a,b", "--n-bootstrap-metrics", "0"],
            "--n-bootstrap-metrics must be from 1",
        ),
        (["--methods", "a,b", "--n-bootstrap", "0"], "--n-bootstrap must be from 1 to 10,000"),
        (
            ["--methods", "a,b", "--n-boot", "5", "--n-bootstrap", "5"],
            "give --n-bootstrap-metrics only",
        ),
        (["--methods", "a,b", "--n-bootstrap-metrics", "10001"], "from 1 to 10,000, got 10,001"),
        (["--methods", "a,b", "--seed", "-1"], "--seed must be at least 0, got -1"),
    ],
)
def test_bad_options_are_refused_naming_them(pair, capsys, extra, said):
    assert cli(["compare", str(pair[0]), *extra]) == 2
    assert said in capsys.readouterr().err


def test_the_old_n_bootstrap_still_sets_the_metric_resamples_with_a_note(pair, capsys):
    """compare's resamples have evaluate's name; the old --n-bootstrap works and says so once."""
    argv = ["compare", str(pair[0]), "--methods", "inv_entropy,lexsim", "--json"]
    assert cli([*argv, "--n-bootstrap", "30"]) == 0
    old = capsys.readouterr()
    assert old.err.count("note: compare's --n-bootstrap is now --n-bootstrap-metrics") == 1
    assert cli([*argv, "--n-bootstrap-metrics", "30"]) == 0
    new = capsys.readouterr()
    assert "note:" not in new.err and json.loads(new.out) == json.loads(old.out)
    assert json.loads(new.out)["n_bootstrap"] == 30


def test_a_folder_that_is_no_evaluation_is_named(tmp_path, capsys):
    (tmp_path / "other").mkdir()
    assert cli(["compare", str(tmp_path), str(tmp_path / "other")]) == 2
    assert f"{tmp_path / 'scores.csv'}: not found" in capsys.readouterr().err


def test_a_disagreement_shows_answers_rewordings_and_the_run(pair, capsys):
    side = read_side(pair[0])
    first = side.rows[0]
    run = example_run_path(pair[0] / "runs", type("Ex", (), {"id": first["id"]}), 0.7)
    shutil.copy(ROOT / "assets" / "demo_run.json", run)  # a real saved run
    res = compare_evaluations(*pair, metrics=["auroc"], n_bootstrap=50, top=16)
    (d,) = [d for d in res.disagreements if d.rows[0]["id"] == first["id"]]
    assert d.runs == (run, None)
    assert d.rewordings()[0] == RunArtifact.load(run).perturbations and d.rewordings()[1] == []
    assert cli(["compare", *map(str, pair), "--n-bootstrap-metrics", "50", "--top", "16"]) == 0
    out = capsys.readouterr().out
    assert f"run: {run}" in out and f"reworded: {d.rewordings()[0][0]}" in out


def test_the_reviewers_relabels_are_compared(pair):
    first = read_side(pair[1]).rows[0]
    before = compare_evaluations(*pair, metrics=["auroc"], n_bootstrap=50)
    flipped = Relabel(first["id"], not int(first["correct"]), first["canonical"], "checked")
    append_relabel(pair[1], flipped)
    after = compare_evaluations(*pair, metrics=["auroc"], n_bootstrap=50)
    assert before.results["inv_entropy"][0].value_b != after.results["inv_entropy"][0].value_b
    assert read_side(pair[1]).relabels.changed == (first["id"],)


def test_one_folder_given_twice_is_refused_and_pointed_to_methods(pair, capsys):
    """Every paired difference would be 0: the user meant two methods of one evaluation."""
    assert cli(["compare", str(pair[0]), f"{pair[0]}/."]) == 2
    assert "again; to compare two methods of one evaluation" in capsys.readouterr().err


def test_compare_piped_to_a_closed_reader_exits_quietly(pair):
    """``compare … | head``: exit 141 and nothing on stderr, as every other command."""
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    argv = [
        "compare",
        str(pair[0]),
        "--methods",
        "inv_entropy,lexsim",
        "--n-bootstrap-metrics",
        "20",
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "invent_core", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
    )
    proc.stdout.close()  # the reader is gone before anything is printed
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 141 and err.decode() == "", err.decode()
