"""The labelled draws: every accepted rewording of a committed draw labelled, and their figures.

``tests/data/meaning/accepted_draw_seedN.json`` holds the reader's label for every
distinct accepted rewording of its draw in ``docs/rewordings/`` (:data:`DRAWS`)
(``scripts/accepted_draw.py extract``); the figures docs/method.md quotes are
recomputed here from the labels, so a label or a draw changed fails.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

from accepted_draw import accepted_rows, check_labels, keep_rate, state_key  # noqa: E402

#: seed -> (rows, kept): the figures quoted in docs/method.md
QUOTED = {
    29: (278, 220),
    31: (245, 184),
    37: (225, 204),
    41: (269, 232),
    47: (257, 231),
    53: (285, 267),
    59: (260, 240),
}
#: seed -> the draw its labels belong to (each round's report draw has its own name)
DRAWS = {seed: f"alignment_seed{seed}.json" for seed in (29, 31, 37)} | {
    41: "round4_seed41.json",
    47: "round5_seed47.json",
    53: "round6_seed53.json",
    59: "round6_seed59.json",
}


def _load(seed: int) -> tuple[list[dict], dict]:
    labels = json.loads(
        (ROOT / "tests/data/meaning" / f"accepted_draw_seed{seed}.json").read_text("utf-8")
    )["rows"]
    measured = json.loads((ROOT / "docs/rewordings" / DRAWS[seed]).read_text("utf-8"))
    return labels, measured


@pytest.mark.parametrize("seed", sorted(QUOTED))
def test_every_accepted_rewording_of_the_draw_is_labelled(seed):
    labels, measured = _load(seed)
    check_labels(labels, measured)  # raises on a row left open or a mismatch
    assert (len(labels), sum(r["same_meaning"] for r in labels)) == QUOTED[seed]


def test_distinct_rewordings_ignore_case_and_punctuation_and_the_question():
    measured = {
        "rows": [
            {
                "sample": "s",
                "id": "s:1",
                "question": "What is 2 plus 2?",
                "perturbations": ["what is 2 plus 2", "What's 2 plus 2?", "What is 2 + 2?"],
            }
        ]
    }
    assert [r["rewording"] for r in accepted_rows(measured)] == [
        "What's 2 plus 2?",
        "What is 2 + 2?",
    ]
    assert state_key("What is 2 plus 2?") == state_key("what is 2 plus 2")


def test_the_keep_rate_interval_resamples_questions():
    rows = [{"id": f"q{i // 3}", "same_meaning": i % 3 != 0} for i in range(30)]
    p, lo, hi = keep_rate(rows)
    assert p == pytest.approx(20 / 30) and lo == hi == pytest.approx(20 / 30)  # equal questions
    rows[0]["same_meaning"] = True
    p, lo, hi = keep_rate(rows)
    assert lo < p < hi or lo <= p <= hi
