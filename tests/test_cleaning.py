"""Response cleaning (paper, app:setting "LLM Configuration") on real-looking model outputs."""

from __future__ import annotations

import pytest

from invent_core.cleaning import clean_response, cut_format_tokens, first_line, remove_echo

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
