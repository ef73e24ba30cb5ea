"""answers.postprocess: raw reply → cleaned → canonical, with the unmapped flag."""

from __future__ import annotations

import pytest

from invent_core.responses.answers import Answer, postprocess

MORAL = ["Wrong, Wrong", "Wrong, Not wrong", "Not wrong, Wrong", "Not wrong, Not wrong"]


@pytest.mark.parametrize(
    "raw, question, task, choices, cleaned, canonical, mapped",
    [
        ("Answer: (B) Venus", "Which planet?", "mmlu", ["Mars", "Venus"], "(B) Venus", "B", True),
        ("B. Wrong, Not wrong\nBecause…", "Q?", "mmlu", MORAL, "B. Wrong, Not wrong", "B", True),
        ("Not wrong, Wrong", "Q?", "mmlu", MORAL, "Not wrong, Wrong", "C", True),
        ("I am not sure.", "Q?", "mmlu", MORAL, "I am not sure", "I am not sure", False),
        ("The total is $1,000.", "How much?", "gsm8k", None, "The total is $1,000", "1000", True),
        ("no idea", "How much?", "gsm8k", None, "no idea", "no idea", False),
        ("What is it?\n Paris [/INST]", "What is it?", "qa", None, "Paris", "Paris", True),
        (None, "Q?", "qa", None, "", "", False),
    ],
)
def test_postprocess_table(raw, question, task, choices, cleaned, canonical, mapped):
    got = postprocess(raw, question, task=task, choices=choices)
    assert got == Answer(raw or "", cleaned, canonical, mapped)


def test_raw_is_kept_verbatim():
    raw = "  **Canberra**.  \n(the capital)"
    got = postprocess(raw, "What is the capital of Australia?", task="qa")
    assert got.raw == raw
    assert got.canonical == "Canberra"


def test_mmlu_without_choices_is_refused():
    with pytest.raises(ValueError, match="needs choices"):
        postprocess("B", "Q?", task="mmlu")
