"""Replaying a run's rewording verdicts with today's rules: the same run replays unchanged,
a verdict today's rules would not give is found, and what cannot be replayed says why.

Real saved runs of the shipped arithmetic evaluation, the real embedder and the real rules.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest

from invent_core.config.paraphrase import REWORDING_RULES
from invent_core.experiments.replay import replay_run, rewording_drift

ROOT = Path(__file__).resolve().parents[2]
RUNS = ROOT / "docs" / "results" / "evaluate-arithmetic-100" / "runs"


@pytest.fixture(scope="module")
def run() -> dict:
    return json.loads(sorted(RUNS.glob("*.json"))[0].read_text(encoding="utf-8"))


def _spider(run: dict, *texts: str, premises: str = "") -> dict:
    """The saved run asked about a spider, each text an accepted candidate of round 0."""
    out = copy.deepcopy(run)
    out["question"] = f"{premises} How many legs does a spider have?".strip()
    out["candidates"] = [
        {"text": t, "accepted": True, "reason": None, "detail": "", "round": 0, "index": i}
        for i, t in enumerate(texts)
    ]
    return out


def test_a_saved_run_replays_to_its_own_verdicts(run):
    assert replay_run(run) == []


def test_premises_kept_word_for_word_are_split_off_as_the_gate_did(run):
    """Only the last sentence was gated; judged whole, the rewording would be too long."""
    premises = "A spider sits in the middle of its web, waiting for a fly to land."
    good = f"{premises} How many legs do spiders have?"
    assert replay_run(_spider(run, good, premises=premises)) == []


def test_a_word_swapped_rewording_an_older_round_accepted_is_found(run):
    flips = replay_run(
        _spider(run, "How many legs do spiders have?", "How many legs does an ant have?")
    )
    assert [(f.text, f.then, f.reason) for f in flips] == [
        ("How many legs does an ant have?", True, "changed_meaning")
    ]


def test_a_rejection_todays_rules_would_not_make_is_found(run):
    data = copy.deepcopy(run)
    kept = next(c for c in data["candidates"] if c["accepted"])
    kept["accepted"] = False
    flips = replay_run(data)
    assert len(flips) == 1 and flips[0].then is False and flips[0].reason is None
    assert flips[0].round == kept["round"]


def test_what_cannot_be_replayed_says_why(run, tmp_path):
    asked = copy.deepcopy(run)
    asked["config"]["paraphrase"]["gate"]["llm_verify"] = True
    with pytest.raises(ValueError, match="llm_verify"):
        replay_run(asked)
    unrounded = copy.deepcopy(run)
    for c in unrounded["candidates"]:
        c.pop("round")
    with pytest.raises(ValueError, match="no ask round"):
        replay_run(unrounded)
    gaap = copy.deepcopy(run)
    gaap["config"]["perturber"] = "gaap"
    assert replay_run(gaap) == []  # no gate: no verdict to replay
    with pytest.raises(FileNotFoundError, match="runs"):
        rewording_drift(tmp_path)
    folder = tmp_path / "evaluate-arithmetic-3"
    (folder / "runs").mkdir(parents=True)
    names = [p.name for p in sorted(RUNS.glob("*.json"))[:3]]
    for name in names:
        shutil.copy(RUNS / name, folder / "runs" / name)
    bare = json.loads((folder / "runs" / names[1]).read_text())
    bare.pop("candidates")
    (folder / "runs" / names[1]).write_text(json.dumps(bare))
    swapped = _spider(run, "How many legs does an ant have?")
    (folder / "runs" / names[2]).write_text(json.dumps(swapped))
    drift = rewording_drift(folder)
    assert drift.rules == REWORDING_RULES and drift.replayed == 2
    assert drift.changed == [names[2]] and list(drift.unavailable) == [names[1]]
    assert "candidates" in drift.unavailable[names[1]] and drift.stale
    assert drift.to_dict()["examples"][names[2]][0]["reason"] == "changed_meaning"


def test_set_aside_keeps_the_runs_and_drops_only_their_rows(run, tmp_path):
    """The changed question leaves runs/ and scores.csv; the rest stays to be reused."""
    from invent_core.csv_safe import read_csv, write_csv
    from invent_core.experiments.replay import REPLACED, set_aside
    from invent_core.experiments.runs import run_path

    shipped = RUNS.parent
    folder = tmp_path / "evaluate-arithmetic-3"
    (folder / "runs").mkdir(parents=True)
    shutil.copy(shipped / "config.json", folder / "config.json")
    rows = list(read_csv(shipped / "scores.csv"))[:3]
    names = [run_path(RUNS, r["id"], 0.7).name for r in rows]
    for name in names:
        shutil.copy(RUNS / name, folder / "runs" / name)
    write_csv(folder / "scores.csv", rows, list(rows[0]))
    with pytest.raises(FileNotFoundError, match="no run nothing.json"):
        set_aside(folder, ["nothing.json"])
    assert len(list(read_csv(folder / "scores.csv"))) == 3  # refused before anything moved
    assert set_aside(folder, [names[1]]) == [rows[1]["id"]]
    assert [r["id"] for r in read_csv(folder / "scores.csv")] == [rows[0]["id"], rows[2]["id"]]
    assert (folder / REPLACED / names[1]).is_file() and not (folder / "runs" / names[1]).exists()
    assert set_aside(folder, [names[1]]) == []  # again: nothing left to drop, nothing lost
    assert (folder / REPLACED / names[1]).is_file()


def test_the_script_names_what_changed_and_sets_it_aside(run, tmp_path):
    """``refresh_rewordings.py --set-aside``: the changed run named, moved, the call to remake it printed."""
    import subprocess
    import sys

    from invent_core.csv_safe import read_csv, write_csv
    from invent_core.experiments.replay import REPLACED
    from invent_core.experiments.runs import run_path

    folder = tmp_path / "evaluate-arithmetic-2"
    (folder / "runs").mkdir(parents=True)
    shutil.copy(RUNS.parent / "config.json", folder / "config.json")
    rows = list(read_csv(RUNS.parent / "scores.csv"))[:2]
    names = [run_path(RUNS, r["id"], 0.7).name for r in rows]
    shutil.copy(RUNS / names[0], folder / "runs" / names[0])
    (folder / "runs" / names[1]).write_text(
        json.dumps(_spider(run, "How many legs does an ant have?"))
    )
    write_csv(folder / "scores.csv", rows, list(rows[0]))
    script = ROOT / "scripts" / "refresh_rewordings.py"
    bad = subprocess.run(
        [sys.executable, str(script), str(tmp_path)], capture_output=True, text=True
    )
    assert bad.returncode == 2 and "no runs/ folder" in bad.stderr
    done = subprocess.run(
        [sys.executable, str(script), "--set-aside", str(folder)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "1 would get other perturbations" in done.stdout and names[1] in done.stdout
    assert f"evaluate --from {folder} -o {folder}" in done.stdout
    assert (folder / REPLACED / names[1]).is_file()
    assert [r["id"] for r in read_csv(folder / "scores.csv")] == [rows[0]["id"]]
