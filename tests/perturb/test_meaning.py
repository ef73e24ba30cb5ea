"""The gate's meaning check: the flips a review raised rejected, real rewordings kept."""

import json
from pathlib import Path

import pytest

from invent_core.config import GateConfig
from invent_core.perturb.gate import check_candidate
from invent_core.perturb.meaning import changed_meaning, operations, wh_class

FRANCE = "What is the capital of France?"
NOBEL = "Who was the first woman to win the Nobel Prize in Literature?"
RIVER = "Which river flows through Ljubljana?"

FLIPS = [
    (FRANCE, "Which country's capital is France?"),
    ("What is 48 times 7?", "How many times 7 is 48?"),
    ("What is 19 times 23?", "What is twice 19 times 23?"),
    (RIVER, "Where does the river flow through Ljubljana?"),
    (NOBEL, "Who won the Nobel Prize in Literature?"),
    ("What is 958 minus 827?", "What is 827 minus 958?"),
    ("What is 18 plus 25?", "What is 18 minus 25?"),
    (
        "who played ice queen in chronicles of narnia",
        "Who did ice queen play in Chronicles of Narnia?",
    ),
    (
        "who plays timon in lion king on broadway",
        "Who is played by Timon in Lion King on Broadway?",
    ),
]
REWORDINGS = [
    (FRANCE, "What is France's capital?"),
    (FRANCE, "Which city is the capital of France?"),
    ("What is 48 times 7?", "What is 7 multiplied by 48?"),
    ("What is 16 times 2?", "What is twice 16?"),
    ("What is 18 plus 25?", "What is the sum of 18 and 25?"),
    (RIVER, "What river runs through Ljubljana?"),
    (NOBEL, "Which woman was the first to receive the Nobel Prize in Literature?"),
    (
        "Which is the most northerly of the islands of Japan?",
        "Which is Japan's northernmost island?",
    ),
    (
        "Which is the largest planet in the solar system?",
        "What is the biggest planet in our solar system?",
    ),
    (
        "who played ice queen in chronicles of narnia",
        "Who played the Ice Queen in Chronicles of Narnia?",
    ),
    ("What is 958 minus 827?", "What do you get when you subtract 827 from 958?"),
]


@pytest.mark.parametrize(("original", "candidate"), FLIPS)
def test_the_issues_meaning_flips_are_rejected(original, candidate):
    assert changed_meaning(candidate, original) is not None
    verdict = check_candidate(candidate, original, affinity=0.9)
    assert not verdict.accepted and verdict.reason == "changed_meaning", verdict


@pytest.mark.parametrize(("original", "candidate"), REWORDINGS)
def test_real_rewordings_pass_the_meaning_check(original, candidate):
    assert changed_meaning(candidate, original) is None
    assert check_candidate(candidate, original, affinity=0.9).accepted


def test_the_meaning_check_can_be_switched_off():
    cfg = GateConfig(meaning_check=False)
    assert check_candidate(
        "How many times 7 is 48?", "What is 48 times 7?", affinity=0.9, config=cfg
    ).accepted
    with pytest.raises(ValueError, match="meaning_check"):
        GateConfig(meaning_check="yes")


def test_wh_class_and_operations():
    assert wh_class("In what year did the war end?") == "time"
    assert (
        wh_class("The strength of a base depends on the ions it produces when dissolved in water?")
        is None
    )
    assert (
        wh_class("The tiny Socotra archipelago, once part of trade networks, lies where?")
        == "place"
    )
    assert operations("How many times does 7 go into 48?") == {"div"}
    assert operations("What is the product of 16 and 2?") == {"mul"}


def test_labelled_set_meaning_flips_rejected_more_often_than_before():
    """On the hand-labelled candidates the meaning check rejects more flips and keeps precision up."""
    rows = json.loads((Path(__file__).parents[1] / "data" / "gate_labelled.json").read_text())[
        "rows"
    ]
    assert len(rows) >= 150
    flips = [r for r in rows if not r["same_meaning"]]
    same = [r for r in rows if r["same_meaning"]]
    caught = sum(changed_meaning(r["candidate"], r["original"]) is not None for r in flips)
    wrongly = sum(changed_meaning(r["candidate"], r["original"]) is not None for r in same)
    assert caught >= 20 and caught / len(flips) > 3 * wrongly / len(same)
    raised = [r for r in rows if r["dataset"] == "review_pairs"]  # the pairs a review raised
    for r in raised:
        assert (changed_meaning(r["candidate"], r["original"]) is None) == r["same_meaning"], r
