"""Response cleaning (paper, app:setting "LLM Configuration") on real-looking model outputs."""

from __future__ import annotations

import pytest

from invent_core.responses.cleaning import (
    clean_response,
    cut_format_tokens,
    first_line,
    remove_echo,
)

Q = "What is the capital of France?"

CASES = [
    # the paper's own example
    (
        "What is the capital of France?  \n Paris [/INST]# \nIt is a major European city and a global",
        Q,
        "Paris",
    ),
    ("Paris", Q, "Paris"),
    ("Paris.", Q, "Paris"),
    ("  \n\nParis\nParis is the capital and largest city of France.", Q, "Paris"),
    ("Answer: Paris", Q, "Paris"),
    ("answer: Paris.", Q, "Paris"),
    ("A: Paris", Q, "Paris"),
    ("The answer is Paris.", Q, "Paris"),
    ('"Paris"', Q, "Paris"),
    ('"Paris".', Q, "Paris"),
    ("“Paris”", Q, "Paris"),
    ("**Paris**", Q, "Paris"),
    ("# Paris", Q, "Paris"),
    ("[INST] Paris [/INST]", Q, "Paris"),
    ("Paris<|im_end|>\nuser: thanks", Q, "Paris"),
    ("Paris</s> trailing garbage", Q, "Paris"),
    ("what is the capital of france?\nParis", Q, "Paris"),
    (
        "What is the capital of France? Answer concisely and return only the name.\nParis",
        Q,
        "Paris",
    ),
    ("Washington D.C.", "What is the capital of the USA?", "Washington D.C."),
    ("C# is the language.", "Which language did Microsoft create for .NET?", "C# is the language"),
    ("72", "How many clips did Natalia sell?", "72"),
    ("72.", "How many clips did Natalia sell?", "72"),
    ("3.5", "How far?", "3.5"),
    ("Roger Federer.", Q, "Roger Federer"),
    ("A-Rod", "Who?", "A-Rod"),
    ("", Q, ""),
    ("   \n  \n", Q, ""),
    ("What is the capital of France?", Q, ""),
]


@pytest.mark.parametrize(("raw", "question", "expected"), CASES)
def test_clean_response_table(raw, question, expected):
    assert clean_response(raw, question) == expected


def test_clean_without_question_keeps_text():
    assert clean_response("What is it?\nParis") == "What is it?"


def test_none_is_empty():
    assert clean_response(None, Q) == ""


def test_pieces():
    assert first_line("\n\n  a \n b") == "a"
    assert cut_format_tokens("Paris [/INST] more") == "Paris "
    assert cut_format_tokens("[INST]Paris") == "Paris"
    assert remove_echo("WHAT  IS the capital of France? Paris", Q) == "Paris"


# --- non-answers ---

from invent_core.responses.answers import postprocess  # noqa: E402
from invent_core.responses.cleaning import non_answer  # noqa: E402

RIVER = "Which river flows through Ljubljana?"


@pytest.mark.parametrize(
    "reply",
    ["The river flows through the city of Ljubljana", "A river flows through Ljubljana."],
)
def test_an_echo_of_the_question_is_flagged_as_a_non_answer(reply):
    assert non_answer(reply, RIVER) == "echo"
    got = postprocess(reply, RIVER, task="qa")
    assert got.non_answer == "echo" and not got.mapped


@pytest.mark.parametrize("task", ["gsm8k", "qa"])  # qa: a calculation typed in, no dataset
@pytest.mark.parametrize("reply", ["Sum 18 and 25", "18 + 25", "Add 25 to 18", "Addition"])
def test_naming_the_operation_is_a_non_answer_for_numeric_tasks(reply, task):
    got = postprocess(reply, "What is 18 plus 25?", task=task)
    assert got.non_answer == "operation" and not got.mapped


def test_a_polite_rewording_of_a_calculation_is_still_one():
    got = postprocess("Addition", "Can you tell me what 18 plus 25 is?", task="qa")
    assert got.non_answer == "operation"


def test_an_operation_word_answers_a_question_that_is_not_only_a_calculation():
    question = "Which operation turns 2 and 3 into 5?"
    assert postprocess("Addition", question, task="qa").non_answer is None


@pytest.mark.parametrize(
    ("reply", "question", "task"),
    [
        ("The Ljubljanica", RIVER, "qa"),
        ("Venus", "Which is larger, Mars or Venus?", "qa"),
        ("18 + 25 = 43", "What is 18 plus 25?", "gsm8k"),
        ("25", "What is 18 plus 25?", "gsm8k"),  # a wrong answer is still an answer
        ("Sum concisely: 43", "What is 18 plus 25?", "qa"),
        ("Paris", "What is the capital of France?", "qa"),
    ],
)
def test_real_answers_are_not_flagged(reply, question, task):
    got = postprocess(reply, question, task=task)
    assert got.non_answer is None and got.mapped


def test_a_one_word_echo_is_flagged_unless_the_question_offers_a_choice():
    assert non_answer("Dracula", "Who wrote Dracula?") == "echo"
    assert non_answer("Venus", "Which is larger, Mars or Venus?") is None
    assert non_answer("Bram Stoker", "Who wrote Dracula?") is None


def test_the_echoed_question_is_removed_first():
    got = postprocess(f"{RIVER}\nThe Ljubljanica", RIVER, task="qa")
    assert got.cleaned == "The Ljubljanica" and got.non_answer is None
