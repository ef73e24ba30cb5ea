"""The LM-Polygraph cross-check: the committed report is whole and consistent with the runs.

The report (``docs/crosscheck_lm_polygraph.md``) is made by
``scripts/crosscheck_lm_polygraph.py`` in a separate virtualenv holding
lm-polygraph; these tests read it, and feed lm-polygraph a tiny case only
where it is importable (the one test allowed to skip).
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
REPORT = ROOT / "docs" / "crosscheck_lm_polygraph.md"
METHODS = {"Semantic Entropy", "LexSim", "DegMat", "LUQ", "KLE", "Kernel Entropy",
           "number of clusters", "P(True)"}  # fmt: skip
#: Our method in the report -> its column in scores.csv / results.json.
OURS = {"Semantic Entropy": "semantic_entropy", "LexSim": "lexsim", "DegMat": "degmat",
        "LUQ": "luq", "P(True)": "p_true"}  # fmt: skip


def _sections() -> dict[str, list[list[str]]]:
    out, name = {}, None
    for line in REPORT.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            name = line[3:].strip()
            out[name] = []
        elif name and line.startswith("| ") and not line.startswith("| ours"):
            out[name].append([c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]])
    return out


def test_the_report_names_its_commit_and_two_evaluations_at_least():
    head = REPORT.read_text(encoding="utf-8").split("\n## ")[0]
    assert re.search(r"at commit [0-9a-f]{12} \((clean tree|uncommitted changes)\)", head)
    assert re.search(r"lm-polygraph \d+\.\d+\.\d+", head)
    sections = _sections()
    assert len(sections) >= 2 and all((ROOT / "docs" / "results" / s).is_dir() for s in sections)
    for name, rows in sections.items():
        assert METHODS <= {r[0] for r in rows}, name


def test_every_difference_beyond_rounding_has_a_reason():
    for name, rows in _sections().items():
        for r in rows:
            method, equal, largest, reason = r[0], r[4], float(r[7]), r[8]
            assert "UNEXPLAINED" not in reason, (name, method)
            k, n = (int(x) for x in equal.split(" of "))
            if reason == "equal to rounding":
                assert largest <= 1e-9 and k == n and r[5] == r[6], (name, method)
            else:
                assert largest > 1e-9 and reason, (name, method)


def test_our_auroc_in_the_report_is_the_evaluations():
    for name, rows in _sections().items():
        res = json.loads((ROOT / "docs" / "results" / name / "results.json").read_text())
        for r in rows:
            if r[0] in OURS and OURS[r[0]] in res["results"]:
                point = res["results"][OURS[r[0]]]["auroc"]["point"]
                assert float(r[5]) == pytest.approx(point, abs=2e-3), (name, r[0])


def test_the_feeding_on_a_tiny_case():
    pytest.importorskip("lm_polygraph")  # only in the cross-check's own virtualenv
    sys.path.insert(0, str(ROOT / "scripts"))
    cc = importlib.import_module("crosscheck_lm_polygraph")
    import lm_polygraph.estimators as est

    w = np.array([[1.0, 0.9, 0.2], [0.9, 1.0, 0.3], [0.2, 0.3, 1.0]])
    q = cc.Question(["8", "8", "9"], w, [0, 0, 1], 0.7, 0.0, 1)
    assert cc._one(est.DegMat(), cc.feed(q)) == pytest.approx(1 - w.sum() / 9)
    assert cc._one(est.NumSemSets(), cc.nss_feed(q)) == 2
    se = est.SemanticEntropy(class_probability_estimation="frequency")
    p = np.array([2 / 3, 1 / 3])
    assert cc._one(se, cc.feed(q)) == pytest.approx(-(p * np.log(p)).sum())
