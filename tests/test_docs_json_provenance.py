"""Every JSON artefact in docs/ records the code that made it.

A number in a JSON file under ``docs/`` is read by RESULTS, a page or a test;
without the commit behind it, it cannot be told stale or fresh. So every such
file (saved runs aside: a run keeps its own identities and config) carries
``"provenance"``: the block :func:`invent_core.provenance.provenance` writes
(version, commit, dirty, source), or — for a file made before provenance was
recorded — :data:`~invent_core.provenance.COMMIT_UNKNOWN` as the ``.txt``
printouts say it, or the block with source
:data:`~invent_core.provenance.BEFORE_PROVENANCE` that the evaluation readers
already understand. Nothing else passes, so a script that writes a new
artefact without it fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from invent_core.provenance import BEFORE_PROVENANCE, COMMIT_UNKNOWN, WHEEL

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: ``source`` values a provenance block may hold (see invent_core.provenance).
SOURCES = ("git", WHEEL, "git unavailable", BEFORE_PROVENANCE)


def artefacts(docs: Path = DOCS) -> list[Path]:
    """Every ``docs/**/*.json`` but the saved runs (files inside a ``runs/`` folder)."""
    return sorted(p for p in docs.rglob("*.json") if "runs" not in p.relative_to(docs).parts)


def provenance_problem(data: object) -> str | None:
    """Why ``data`` does not record its code (None: it does)."""
    if not isinstance(data, dict):
        return "is not a JSON object, so it has no place for 'provenance'"
    prov = data.get("provenance")
    if prov == COMMIT_UNKNOWN:
        return None
    if not isinstance(prov, dict):
        return f"has no 'provenance' block nor {COMMIT_UNKNOWN!r}"
    missing = [k for k in ("commit", "dirty", "source") if k not in prov]
    if missing:
        return f"'provenance' lacks {', '.join(missing)}"
    if prov["source"] not in SOURCES:
        return f"'provenance' source {prov['source']!r} is none of {SOURCES}"
    if prov["source"] == "git" and not (prov["commit"] and isinstance(prov["dirty"], bool)):
        return "'provenance' from git names no commit or no clean/dirty state"
    return None


def test_the_scan_sees_the_artefacts():
    names = {p.relative_to(DOCS).as_posix() for p in artefacts()}
    assert "results/evaluate-arithmetic-100/results.json" in names
    assert "results/kernel_study.json" in names and "accuracy_qwen0.5b.json" in names
    assert not any("/runs/" in n for n in names)


@pytest.mark.parametrize("path", artefacts(), ids=lambda p: p.relative_to(DOCS).as_posix())
def test_every_docs_json_artefact_records_its_commit(path):
    problem = provenance_problem(json.loads(path.read_text(encoding="utf-8")))
    assert problem is None, f"{path.relative_to(ROOT)} {problem}"


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ([1, 2], "not a JSON object"),
        ({"rows": []}, "no 'provenance'"),
        ({"provenance": "made some time ago"}, "no 'provenance'"),
        ({"provenance": {"commit": "abc"}}, "lacks dirty, source"),
        ({"provenance": {"commit": None, "dirty": None, "source": "git"}}, "names no commit"),
        ({"provenance": {"commit": "a", "dirty": False, "source": "hand"}}, "source 'hand'"),
    ],
)
def test_an_artefact_without_its_code_is_named(data, why):
    assert why in provenance_problem(data)


def test_the_accepted_forms():
    from invent_core.provenance import provenance

    assert provenance_problem({"provenance": provenance()}) is None
    assert provenance_problem({"provenance": COMMIT_UNKNOWN}) is None
    old = {"version": "0.1.0", "commit": None, "dirty": None, "source": BEFORE_PROVENANCE}
    assert provenance_problem({"provenance": old}) is None
