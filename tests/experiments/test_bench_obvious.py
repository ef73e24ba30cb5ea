"""benchmarks/bench_obvious.py: its pair count, its kept rule and its questions (no model)."""

from __future__ import annotations

import json

from benchmarks import bench_obvious
from invent_core.config import ScoreConfig


def test_pairs_right_counts_unknown_above_known_and_ties_as_half():
    labels = {"k1": "known", "k2": "known", "u1": "unknown"}
    share, n = bench_obvious.pairs_right({"k1": 1.0, "k2": 2.0, "u1": 2.0}, labels)
    assert (share, n) == (0.75, 2)  # above k1, tied with k2


def test_a_question_counts_only_where_its_answers_agree_with_its_label():
    assert bench_obvious.is_obvious({"label": "known"}, right=4, r=5)
    assert not bench_obvious.is_obvious({"label": "known"}, right=3, r=5)
    assert bench_obvious.is_obvious({"label": "unknown"}, right=0, r=5)
    assert not bench_obvious.is_obvious({"label": "unknown"}, right=1, r=5)


def test_the_defaults_are_scored_first():
    first = bench_obvious._options()[0]
    assert first == (ScoreConfig().answer_similarity, ScoreConfig().padding)
    assert len(set(bench_obvious._options())) == len(bench_obvious._options())


def test_the_questions_are_unique_and_each_split_has_both_labels():
    items = json.loads(bench_obvious.DATA.read_text(encoding="utf-8"))["questions"]
    assert len({it["question"] for it in items}) == len(items)
    for split in ("tune", "heldout", "fresh"):
        labels = {it["label"] for it in items if it["split"] == split}
        assert labels == {"known", "unknown"}, split
