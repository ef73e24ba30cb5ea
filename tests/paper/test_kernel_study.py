"""scripts/kernel_study.py on a tiny synthetic evaluate folder (real MiniLM, no LLM)."""

from __future__ import annotations

import csv
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load_script():
    spec = importlib.util.spec_from_file_location(
        "kernel_study", ROOT / "scripts" / "kernel_study.py"
    )
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


ks = _load_script()
NAMES = ["Tom Watson", "Jack Nicklaus", "Gary Player", "Ben Hogan"]


def _write_folder(folder: Path, labels: list[int]) -> None:
    """Questions k: consistent answers (label 1) or the demo run's scattered names (label 0)."""
    demo = json.loads((ROOT / "assets" / "demo_run.json").read_text())
    rng = np.random.default_rng(0)
    scattered = [t for reps in demo["responses"] for t in reps]
    (folder / "runs").mkdir(parents=True)
    rows = []
    for k, label in enumerate(labels):
        questions = [f"Question {k}: {q}" for q in demo["questions"]]
        if label:
            responses = [[NAMES[k % len(NAMES)]] * 5 for _ in questions]
        else:
            order = rng.permutation(len(scattered))
            responses = [[scattered[j] for j in order[i * 5 : i * 5 + 5]] for i in range(10)]
        run = {
            "format": "invent.run/1",
            "question": questions[0],
            "questions": questions,
            "responses": responses,
            "task": "qa",
            "choices": None,
            "settings": {"n_perturbations": 9, "n_replications": 5},
        }
        (folder / "runs" / f"q{k}_T0.7.json").write_text(json.dumps(run))
        rows.append({"id": f"q{k}", "question": questions[0], "correct": label})
    rows.append({"id": "no-run", "question": "Never run?", "correct": 1})
    with open(folder / "scores.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["id", "question", "correct"])
        w.writeheader()
        w.writerows(rows)


@pytest.mark.slow
def test_kernel_study_on_a_synthetic_folder(tmp_path, minilm, capsys):
    folder = tmp_path / "evaluate-synthetic"
    _write_folder(folder, [1, 0, 1, 0, 1, 0])
    items, missing = ks.load_items(folder)
    assert [it.id for it in items] == [f"q{k}" for k in range(6)] and missing == ["no-run"]
    kernels = ["shifted_cosine", "abs_cosine", "exp_cosine:0.25"]
    table = ks.rescore(items, kernels, embedder=minilm, n_bootstrap=10)
    correct = np.array([it.correct for it in items])
    rows = {r["kernel"]: r for r in ks.study(table, correct, n_boot=20)}
    # consistent answers are the less uncertain ones under every kernel …
    for spec in kernels:
        assert rows[spec]["auroc"] == pytest.approx(1.0)
        assert table[spec][correct == 1].max() < table[spec][correct == 0].min()
    # … but only the sharper kernel spreads the measure across questions
    assert rows["exp_cosine:0.25"]["std"] > 20 * rows["shifted_cosine"]["std"]
    assert rows["exp_cosine:0.25"]["iqr"] > 20 * rows["shifted_cosine"]["iqr"]
    assert rows["exp_cosine:0.25"]["vs_paper"] == pytest.approx(0.0)

    out = tmp_path / "study.json"
    assert ks.main([str(folder), "--kernels", *kernels, "-B", "10", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "6 questions with runs (1 without)" in printed
    for spec in kernels:
        assert spec in printed
    assert "1.000 ± 0.000" in printed
    report = json.loads(out.read_text())[str(folder)]
    assert report["n"] == 6 and report["accuracy"] == 0.5


@pytest.mark.slow
def test_one_class_prints_spread_and_na(tmp_path, minilm):
    folder = tmp_path / "all-wrong"
    _write_folder(folder, [0, 0, 0])
    items, _ = ks.load_items(folder)
    table = ks.rescore(items, ["shifted_cosine", "exp_cosine:0.1"], embedder=minilm, n_bootstrap=5)
    rows = ks.study(table, np.zeros(3, dtype=int))
    assert all(r["auroc"] is None and r["std"] >= 0 for r in rows)
    text = ks.format_rows(rows)
    assert "n/a" in text and "nan" not in text


def test_parse_kernel():
    assert ks.parse_kernel("exp_cosine:0.1") == ("exp_cosine", 0.1)
    assert ks.parse_kernel("shifted_cosine")[0] == "shifted_cosine"
    with pytest.raises(ValueError, match="ScoreConfig.affinity must be one of"):
        ks.parse_kernel("dot")
    with pytest.raises(ValueError, match="ScoreConfig.kernel_tau"):
        ks.parse_kernel("exp_cosine:0")
