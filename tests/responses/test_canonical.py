"""Canonical answers per task: tables of real-looking replies → the expected forms."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from invent_core.evaluation.correctness import judge_correct
from invent_core.responses.canonical import (
    Canonical,
    canonical_answer,
    canonical_answers,
    format_number,
    option_letter,
)
from invent_core.responses.cleaning import clean_response

ROOT = Path(__file__).resolve().parents[2]
MORAL = ["Wrong, Wrong", "Wrong, Not wrong", "Not wrong, Wrong", "Not wrong, Not wrong"]
PLANETS = ["Mercury", "Venus", "Earth", "Mars"]


@pytest.mark.parametrize(
    "reply, choices, expected",
    [
        # the mixed forms a small model gives for one choice set
        ("B", MORAL, "B"),
        ("B.", MORAL, "B"),
        ("(B)", MORAL, "B"),
        ("[B]", MORAL, "B"),
        ("The answer is B", MORAL, "B"),
        ("Answer: B", MORAL, "B"),
        ("B. Wrong, Not wrong", MORAL, "B"),
        ("D. Not wrong, Not wrong", MORAL, "D"),
        ("A. Wrong, Wrong", MORAL, "A"),  # assets/demo_eval.json, row 1
        ("Wrong, Not wrong", MORAL, "B"),  # the option's text alone
        ("not wrong, wrong", MORAL, "C"),  # case-insensitive
        ("Not wrong, Not wrong.", MORAL, "D"),
        ("Option C", MORAL, "C"),
        ("C) Not wrong, Wrong", MORAL, "C"),
        ("Mars", PLANETS, "D"),
        ("The planet is Venus!", PLANETS, "B"),  # exactly one option's text inside
    ],
)
def test_mmlu_forms_map_to_the_letter(reply, choices, expected):
    assert canonical_answer(reply, task="mmlu", choices=choices) == Canonical(expected, True)


@pytest.mark.parametrize(
    "reply, choices",
    [
        ("A cell", PLANETS),  # the article "A", not option A
        ("Jupiter", PLANETS),  # no option
        ("Venus or Mars", PLANETS),  # two options
        ("E", PLANETS),  # beyond the choices
        ("", PLANETS),
        ("I don't know", MORAL),
    ],
)
def test_mmlu_unmappable_keeps_text(reply, choices):
    got = canonical_answer(reply, task="mmlu", choices=choices)
    assert got == Canonical(reply, False)


def test_mmlu_needs_choices():
    with pytest.raises(ValueError, match="task 'mmlu' needs choices"):
        canonical_answer("B", task="mmlu")


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("18", "18"),
        ("$18", "18"),
        ("18.0", "18"),
        ("18.", "18"),
        ("1,000", "1000"),
        ("$1,234.50", "1234.5"),
        ("She makes $18 every day.", "18"),
        ("16 - 3 - 4 = 9 eggs, 9 * 2 = 18", "18"),  # the final number
        ("-5", "-5"),
        ("25%", "25"),
        ("0.5 hours", "0.5"),
        ("The answer is 70000.", "70000"),
    ],
)
def test_gsm8k_final_number(reply, expected):
    assert canonical_answer(reply, task="gsm8k") == Canonical(expected, True)


def test_gsm8k_without_a_number_is_flagged():
    assert canonical_answer("eighteen dollars", task="gsm8k") == Canonical(
        "eighteen dollars", False
    )


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("Canberra", "Canberra"),
        ("Canberra.", "Canberra"),
        ("Answer: Tom Watson", "Tom Watson"),
        ('"Tom Watson"', "Tom Watson"),
        ("**Onion**", "Onion"),
        ("Washington D.C.", "Washington D.C."),  # abbreviation keeps its period
        ("The Who", "The Who"),  # articles kept: conservative
        ("  Walter   M. McPherson ", "Walter M. McPherson"),
    ],
)
def test_qa_short_answer(reply, expected):
    assert canonical_answer(reply, task="qa") == Canonical(expected, True)


def test_qa_real_names_from_demo_run_are_unchanged():
    run = json.loads((ROOT / "assets" / "demo_run.json").read_text())
    for reps in run["responses"]:
        for text in reps:
            assert canonical_answer(text, task="qa") == Canonical(text, True)


def test_qa_empty_is_flagged_and_unknown_task_raises():
    assert canonical_answer("", task="qa") == Canonical("", False)
    assert canonical_answer(None, task="qa") == Canonical("", False)
    with pytest.raises(ValueError, match="unknown task 'trivia'"):
        canonical_answer("x", task="trivia")


def test_raw_reply_through_cleaning_then_canonical():
    raw = "Which planet is red?\nD. Mars [/INST]# \nIt is the fourth planet"
    cleaned = clean_response(raw, "Which planet is red?")
    assert cleaned == "D. Mars"
    assert canonical_answer(cleaned, task="mmlu", choices=PLANETS).text == "D"


def test_batch_helper_and_number_format():
    got = canonical_answers(["B", "Wrong, Not wrong", "x"], task="mmlu", choices=MORAL)
    assert [c.text for c in got] == ["B", "B", "x"]
    assert [c.mapped for c in got] == [True, True, False]
    assert format_number(-0.0) == "0" and format_number(2.50) == "2.5"
    assert option_letter("Not wrong, Not wrong", MORAL) == "D"


@pytest.mark.parametrize(
    "reply, reference, correct",
    [
        ("56", "56", True),
        ("56.", "56", True),
        ("The answer is 56", "56", True),
        ("7 x 8 = 56", "56", True),
        ("56.0", "56", True),
        ("560", "56", False),
        ("5", "56", False),
        ("fifty-six", "56", False),
        ("Canberra", "Canberra", True),
        ("Sydney", "Canberra", False),
        ("Au", "Au", True),
        ("AU.", "Au", True),
        ("Ag", "Au", False),
    ],
)
def test_arithmetic_judge_is_exact_on_numbers(reply, reference, correct):
    cleaned = clean_response(reply, None)
    assert judge_correct(cleaned, [reference], dataset="arithmetic") is correct


def _saved_evaluations():
    """(scores.csv rows, the judge method its config.json recorded) of every evaluation the
    results report is made from. Evaluations from before the judge was an option were judged
    by the dataset's rule ("match")."""
    import csv
    import json

    out = []
    for path in sorted((ROOT / "docs" / "results").glob("evaluate-*/scores.csv")):
        with open(path, newline="", encoding="utf-8") as fh:
            rows = [r for r in csv.DictReader(fh) if r.get("correct") in ("0", "1")]
        config = json.loads((path.parent / "config.json").read_text(encoding="utf-8"))
        judge = config.get("config", {}).get("judge") or "match"
        out.append(pytest.param(rows, judge, id=path.parent.name))
    return out


@pytest.mark.parametrize(("rows", "judge"), _saved_evaluations())
def test_saved_evaluations_judge_the_canonical_form_of_the_scored_reply(rows, judge):
    """On real replies of the packaged model: the stored canonical form is the canonical step's
    output, and the stored verdict is the verdict of the judge the evaluation recorded
    (a SciQ evaluation re-judged by "paraphrase" is checked by "paraphrase", not the rule)."""
    from invent_core.evaluation.correctness import judge_verdict
    from invent_core.questions.datasets import load_dataset

    assert rows
    examples = {e.id: e for e in load_dataset(rows[0]["dataset"])}
    for row in rows:
        ex = examples[row["id"]]
        choices = list(ex.choices) if ex.choices else None
        got = canonical_answer(row["response"], task=ex.task, choices=choices)
        assert got.text == row["canonical"], row["id"]
        verdict = judge_verdict(
            got.text,
            list(ex.answers),
            dataset=ex.dataset,
            question=ex.question,
            choices=choices,
            method=judge,
        )
        assert verdict.correct == bool(int(row["correct"])), row["id"]
        if row.get("judge_reason"):
            assert verdict.reason == row["judge_reason"], row["id"]
