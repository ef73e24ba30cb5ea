"""The ψ_y × padding study on a slice of a shipped evaluation: re-scored from saved runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from invent_core.csv_safe import read_csv, write_csv
from invent_core.evaluation.confound import stratified_auroc
from invent_core.experiments.answer_study import DEFAULT, half, rescored_inv, study_folder

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "docs" / "results" / "evaluate-arithmetic-100"


def _slice(tmp_path: Path, n: int) -> Path:
    """The first ``n`` judged rows of the shipped arithmetic evaluation, with their runs."""
    from invent_core.engine.artifact import RunArtifact
    from invent_core.experiments.runs import run_path

    out = tmp_path / "evaluate-slice"
    (out / "runs").mkdir(parents=True)
    shutil.copy(SOURCE / "config.json", out / "config.json")
    rows = [r for r in read_csv(SOURCE / "scores.csv") if r.get("correct")][:n]
    write_csv(out / "scores.csv", rows, list(rows[0]))
    t = json.loads((SOURCE / "config.json").read_text())["config"]["run"]["temperature"]
    for r in rows:
        src = run_path(SOURCE / "runs", r["id"], t)
        shutil.copy(src, out / "runs" / src.name)
        assert RunArtifact.load(out / "runs" / src.name).question
    return out


def test_halves_are_a_stable_hash_of_the_id():
    ids = [f"arithmetic:{i}" for i in range(200)]
    got = [half(i) for i in ids]
    assert got == [half(i) for i in ids] and 60 < got.count("tune") < 140


def test_stratified_auroc_is_half_for_a_score_that_only_reads_the_count():
    rng = np.random.default_rng(0)
    count = rng.integers(3, 9, 80)
    correct = (rng.random(80) < 1 / (1 + np.exp(count - 6))).astype(int)
    only_count = stratified_auroc(correct, count, count, n_bootstrap=50)
    assert only_count["value"] == 0.5 and only_count["strata"] >= 2
    perfect = stratified_auroc(correct, 1 - correct, count, n_bootstrap=50)
    assert perfect["value"] == 1.0


@pytest.mark.slow
def test_the_default_options_reproduce_the_saved_scores_and_the_study_reads_them(tmp_path):
    folder = _slice(tmp_path, 16)
    rows = list(read_csv(folder / "scores.csv"))
    from invent_core.engine.artifact import RunArtifact
    from invent_core.experiments.runs import run_path

    runs = [RunArtifact.load(run_path(folder / "runs", r["id"], 0.7)) for r in rows]
    # the shipped folder is scored with today's defaults (ψ_y by the rules, distinct padding)
    table = rescored_inv(runs, [("rules", "distinct")])
    np.testing.assert_allclose(
        table["rules+distinct"], [float(r["inv_entropy"]) for r in rows], rtol=1e-6
    )
    got = study_folder(folder, options=[("rules", "distinct"), ("embedding", "paper")],
                       n_bootstrap=50)  # fmt: skip
    assert got["n"] == 16 and set(got["options"]) == {"rules+distinct", "embedding+paper"}
    cell = got["options"]["embedding+paper"]
    assert 0.0 <= cell["all"]["value"] <= 1.0
    assert cell["vs_best_baseline"]["other"] == got["best_baseline"]
    # every option is set against today's default, paired; the default not against itself
    assert DEFAULT == ("rules", "distinct")
    assert cell["vs_default"]["other"] == "rules+distinct"
    gap = cell["all"]["value"] - got["options"]["rules+distinct"]["all"]["value"]
    assert cell["vs_default"]["difference"] == pytest.approx(gap)
    assert "vs_default" not in got["options"]["rules+distinct"]
    holm = cell["vs_default"]["holm"]  # one family per folder: the options against the default
    assert holm["family"] == 1 and holm["significant"] == (not lo_hi_holds_zero(holm["ci"]))
    assert set(cell["within_count_strata"]) == {"value", "ci95", "pairs", "strata"}


def lo_hi_holds_zero(ci: list[float]) -> bool:
    return ci[0] <= 0 <= ci[1]


def test_make_reference_refuses_a_bad_score_option_before_reading_anything(tmp_path):
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make_reference.py"), str(tmp_path / "missing"),
         "--score", "padding=sideways", "--out", str(tmp_path / "ref")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode != 0 and "--score" in proc.stderr and "padding" in proc.stderr
    assert not (tmp_path / "ref").exists()


@pytest.mark.slow
def test_make_reference_rescores_the_saved_runs_under_other_options(tmp_path):
    """A reference follows changed defaults without a generation: its values are the runs
    re-scored under the options given, and its settings say so."""
    import subprocess
    import sys

    from invent_core.engine.artifact import RunArtifact
    from invent_core.evaluation.reference import ReferenceSet
    from invent_core.experiments.runs import run_path

    folder = _slice(tmp_path, 12)
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make_reference.py"), str(folder),
         "--score", "answer_similarity=canonical", "--score", "padding=distinct",
         "--out", str(tmp_path / "ref")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (path,) = (tmp_path / "ref").glob("*.json")
    ref = ReferenceSet.load(path)
    assert (ref.settings["answer_similarity"], ref.settings["padding"]) == ("canonical", "distinct")
    rows = list(read_csv(folder / "scores.csv"))
    want = [
        RunArtifact.load(run_path(folder / "runs", r["id"], 0.7))
        .rescore(answer_similarity="canonical", padding="distinct")
        .score.measures["inv_entropy"]
        for r in rows
    ]
    np.testing.assert_allclose(sorted(ref.values), sorted(want), rtol=1e-6)
    assert list(read_csv(folder / "scores.csv")) == rows  # the source folder is left as it was
    assert (folder / "config.json").read_bytes() == (SOURCE / "config.json").read_bytes()
