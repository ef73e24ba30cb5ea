"""Provenance: the commit and uncommitted changes behind an artefact, read from git without a network."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from invent_core import __version__
from invent_core.evaluation.reference import ReferenceSet
from invent_core.provenance import (
    BEFORE_PROVENANCE,
    WHEEL,
    is_older,
    last_change,
    provenance,
    provenance_items,
)

ROOT = Path(__file__).resolve().parents[1]


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    """A git checkout holding invent_core/paper/x.py, committed twice."""
    root = tmp_path / "repo"
    (root / "invent_core" / "paper").mkdir(parents=True)
    _git(root, "init", "-q")
    for k in ("user.email", "user.name"):
        _git(root, "config", k, "t@example.org")
    commits = []
    for text in ("a = 1\n", "a = 2\n"):
        (root / "invent_core" / "paper" / "x.py").write_text(text)
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", "change")
        commits.append(_git(root, "rev-parse", "HEAD"))
    provenance_items.cache_clear()
    yield root, commits
    provenance_items.cache_clear()


def test_this_checkout_records_its_commit_and_whether_it_is_dirty():
    p = provenance()
    if not (ROOT / ".git").exists():
        assert p["source"] == WHEEL and p["commit"] is None
        return
    assert p["source"] == "git" and p["version"] == __version__
    assert p["commit"] == _git(ROOT, "rev-parse", "HEAD")
    assert p["dirty"] == bool(_git(ROOT, "status", "--porcelain", "--", "invent_core"))


def test_a_commit_and_dirty_tree_in_a_fresh_repository(repo):
    root, (first, second) = repo
    assert provenance(root) == {
        "version": __version__,
        "commit": second,
        "dirty": False,
        "source": "git",
    }
    (root / "invent_core" / "paper" / "new.py").write_text("b = 1\n")  # untracked counts
    provenance_items.cache_clear()
    assert provenance(root)["dirty"] is True


def test_stale_is_told_by_the_last_change_to_scoring(repo):
    root, (first, second) = repo
    assert last_change(root=root) == second
    assert is_older(first, second, root) is True and is_older(second, second, root) is False
    assert is_older("0" * 40, second, root) is None  # a commit git does not know


def test_no_git_directory_is_an_installed_wheel(tmp_path):
    (tmp_path / "invent_core").mkdir()
    p = provenance(tmp_path)
    assert p == {"version": __version__, "commit": None, "dirty": None, "source": WHEEL}


def test_no_git_program_is_said_not_guessed(repo, monkeypatch):
    root, _ = repo
    monkeypatch.setenv("PATH", str(root))  # no git on PATH
    assert provenance(root)["source"] == "git unavailable" and provenance(root)["commit"] is None
    assert last_change(root=root) is None and is_older("abc", "def", root) is None


def test_a_reference_set_keeps_its_provenance(tmp_path):
    ref = ReferenceSet(np.array([1.0, 2.0]), np.array([1, 0]), {"measure": "inv_entropy"},
                       provenance=provenance())  # fmt: skip
    back = ReferenceSet.load(ref.save(tmp_path / "ref.json"))
    assert back.provenance == provenance()
    sys.path.insert(0, str(ROOT / "scripts"))
    made = importlib.import_module("make_reference").reference_provenance({"config": {}})
    assert made["commit"] == provenance()["commit"]
    assert made["scores"] == {"source": BEFORE_PROVENANCE}  # its evaluation recorded none


def _code_line():
    sys.path.insert(0, str(ROOT / "scripts"))
    return importlib.import_module("results_report.reading").code_line


def test_the_results_generator_says_who_made_the_scores():
    code_line = _code_line()
    old = {"provenance": {"version": "0.1.0", "commit": None, "dirty": None,
                          "source": BEFORE_PROVENANCE}}  # fmt: skip
    assert "before their commit was recorded (invent 0.1.0)" in code_line(old, None, "abc")
    assert "before their commit was recorded" in code_line({"versions": {}}, None, "abc")
    made = {"provenance": {"version": "0.1.0", "commit": "a" * 40, "dirty": True, "source": "git"}}
    assert "commit `aaaaaaaaaa` with uncommitted changes" in code_line(made, None, None)


def _check(commit, **kw):
    return {"tolerance": 1e-6, "n_questions": 100, "largest_change": {"lexsim": 1e-7},
            "labels_changed": 0, "metrics_change": 0.0, "stale": False, "moved": [],
            "provenance": {"commit": commit}} | kw  # fmt: skip


def test_stale_only_when_re_scoring_changed_a_number():
    """A commit that touched scoring does not make a folder stale; a changed number does."""
    code_line = _code_line()
    meta = {
        "provenance": {"version": "0.1.0", "commit": "7773efd", "dirty": False, "source": "git"}
    }
    assert "**staleness not checked**" in code_line(meta, None, None)
    head = provenance()["commit"] or "f" * 40
    line = code_line(meta, _check(head), None)
    assert "not stale" in line and "Stale" not in line and "largest 1e-07" in line
    stale = _check(head, stale=True, moved=["lexsim"], largest_change={"lexsim": 0.03})
    assert "**Stale:** re-scoring its 100 saved runs" in code_line(meta, stale, None)
    assert "moves lexsim (by up to 0.03)" in code_line(meta, stale, None)
    labels = _check(head, stale=True, labels_changed=2)
    assert "changes 2 labels" in code_line(meta, labels, None)
    metrics = _check(head, stale=True, metrics_change=0.02)
    assert "**Stale:**" in code_line(meta, metrics, None) and "move by up to 0.02" in code_line(
        meta, metrics, None
    )
    no_runs = _check(
        head, unavailable="the folder was shipped without its saved runs", largest_change={}
    )
    assert "not stale as far as can be checked" in code_line(meta, no_runs, None)


def test_the_line_says_what_replaying_the_rewordings_found():
    """Same perturbations: said beside "not stale"; other ones: stale with the count; older round: out of date."""
    from invent_core.config.paraphrase import REWORDING_RULES

    code_line = _code_line()
    meta = {"provenance": {"version": "0.1.0", "commit": "7773efd", "source": "git"}}
    head = provenance()["commit"] or "f" * 40
    same = {"rules": REWORDING_RULES, "replayed": 100, "changed": [], "unavailable": {}}
    line = code_line(meta, _check(head, rewordings=same), None)
    assert "not stale" in line and "same perturbations for all 100 questions" in line
    other = same | {"changed": ["a.json", "b.json"]}
    line = code_line(meta, _check(head, stale=True, rewordings=other), None)
    assert "**Stale:**" in line and "other perturbations for 2 of 100 questions" in line
    assert "moves no number" in line
    older = same | {"rules": REWORDING_RULES - 1}
    line = code_line(meta, _check(head, rewordings=older), None)
    assert "**staleness check out of date**" in line and f"round {REWORDING_RULES - 1}" in line


def test_a_check_made_before_the_last_change_to_scoring_is_out_of_date():
    if provenance()["source"] != "git":
        pytest.skip("no git checkout: the age of a check cannot be told")
    code_line = _code_line()
    meta = {"provenance": {"source": BEFORE_PROVENANCE}}
    line = code_line(meta, _check("7773efd"), last_change())  # this feature began there
    assert "**staleness check out of date**" in line and "not stale" not in line
    assert "out of date" not in code_line(meta, _check(last_change()), last_change())


def test_every_shipped_reference_says_where_it_came_from():
    """Sets built before provenance was recorded say so instead of naming a commit."""
    from invent_core.evaluation.reference import reference_dir

    found = sorted(reference_dir().glob("*.json"))
    assert found
    for path in found:
        prov = ReferenceSet.load(path).provenance
        assert prov is not None and {"commit", "dirty", "source"} <= set(prov), path.name
        assert prov["commit"] is not None or prov["source"] in (BEFORE_PROVENANCE, WHEEL)
