"""The correctness judges against the hand labels, at their committed agreement.

The labels (``tests/data/judge_labels/``, rule in its README) were made by reading
every answer; ``docs/results/judge_agreement.json`` holds the figures
``scripts/judge_agreement.py`` wrote. A change to a judge that moves any count
fails here until the figures are made again (and read).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from invent_core.evaluation.label_agreement import agreement, read_labels

ROOT = Path(__file__).resolve().parents[2]
LABELS = ROOT / "tests" / "data" / "judge_labels"
COMMITTED = json.loads((ROOT / "docs" / "results" / "judge_agreement.json").read_text())
SPLITS = {"dev": ("dev",), "heldout": ("heldout",), "all": ("dev", "heldout")}


@pytest.mark.parametrize("dataset", ["sciq", "triviaqa", "nq_open"])
@pytest.mark.parametrize("judge", ["paraphrase", "match"])
def test_agreement_is_the_committed_figure(dataset, judge):
    rows = read_labels(LABELS / f"{dataset}.jsonl")
    for split, kept in SPLITS.items():
        got = agreement(rows, method=judge, splits=kept).to_dict()
        assert got == COMMITTED["datasets"][dataset][judge][split], (dataset, judge, split)


def test_the_labels_are_enough_and_the_sciq_judge_reaches_its_target():
    counts = {d: len(read_labels(LABELS / f"{d}.jsonl")) for d in ("sciq", "triviaqa", "nq_open")}
    assert counts["sciq"] >= 100 and counts["triviaqa"] >= 50 and counts["nq_open"] >= 50
    sciq = COMMITTED["datasets"]["sciq"]
    assert sciq["paraphrase"]["all"]["agreement"] >= 0.95
    assert sciq["paraphrase"]["heldout"]["agreement"] >= 0.95  # not only where it was tuned
    assert sciq["paraphrase"]["all"]["agreement"] > sciq["match"]["all"]["agreement"]


def test_labels_use_the_corrected_sciq_references():
    rows = {(r["id"], r["answer"]): r for r in read_labels(LABELS / "sciq.jsonl")}
    assert rows[("sciq_test:627", "B cells are produced in the bone marrow")]["label"] is True
    assert all(
        r["reference"] == ["bone marrow"] for r in rows.values() if r["id"] == "sciq_test:627"
    )


def test_a_bad_labels_line_names_the_file_and_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    good = {"id": "x", "dataset": "sciq", "question": "q?", "reference": ["a"], "answer": "a",
            "label": True, "split": "dev"}  # fmt: skip
    path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "label": "yes"}) + "\n")
    with pytest.raises(ValueError, match=r"bad.jsonl, line 2: label must be true or false"):
        read_labels(path)
    path.write_text(json.dumps({k: v for k, v in good.items() if k != "answer"}) + "\n")
    with pytest.raises(ValueError, match=r"line 1: missing answer"):
        read_labels(path)
