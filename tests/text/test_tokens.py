"""The word patterns of the text floor: what each keeps, on the texts the rules read."""

from __future__ import annotations

import pytest

from invent_core.text.tokens import (
    ASCII_WORD,
    JOINED_WORD,
    LETTER_WORD,
    LETTERS,
    LOWER_ALNUM,
    NAME_TOKEN,
    NUMBER,
    WORD,
    WORD_AND_APOSTROPHES,
    WORD_OR_NUMBER,
    word_tokens,
)

TEXT = "Janet’s U.S. trip cost $1,982.50 in 2019 — don't ask: naïve sou-wester B12"


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (WORD, ["Janet", "s", "U", "S", "trip", "cost", "1", "982", "50", "in", "2019", "don"]),
        (LETTERS, ["Janet", "s", "U", "S", "trip", "cost", "in", "don", "t", "ask", "naïve"]),
        (LETTER_WORD, ["Janet’s", "U", "S", "trip", "cost", "in", "don't", "ask", "naïve"]),
        (ASCII_WORD, ["Janet", "s", "U", "S", "trip", "cost", "in", "don", "t", "ask", "na"]),
        (
            NAME_TOKEN,
            ["Janet’s", "U.S.", "trip", "cost", "in", "don't", "ask", "naïve", "sou-wester"],
        ),
        (JOINED_WORD, ["Janet’s", "U", "S", "trip", "cost", "1", "982", "50", "in", "2019"]),
        (NUMBER, ["1,982.50", "2019", "12"]),
        (WORD_AND_APOSTROPHES, ["Janet’s", "U", "S", "trip", "cost", "1", "982", "50", "in"]),
    ],
    ids=lambda v: v.pattern if hasattr(v, "pattern") else None,
)
def test_each_pattern_keeps_its_kind_of_token(pattern, expected):
    found = pattern.findall(TEXT)
    assert found[: len(expected)] == expected


def test_word_or_number_reads_casefolded_text():
    assert WORD_OR_NUMBER.findall("what's 1,982 + last year's".casefold()) == [
        "what's",
        "1,982",
        "last",
        "year's",
    ]


def test_word_tokens_are_lowercase_and_unicode_aware():
    assert word_tokens("Ångström, 3-1!") == ["ångström", "3", "1"]
    assert word_tokens("  ,.!") == []


def test_lower_alnum_splits_where_wordnet_glosses_join_with_an_underscore():
    gloss = "a single drawing in a comic_strip (trade name ru_486)"
    assert LOWER_ALNUM.findall(gloss)[-5:] == ["strip", "trade", "name", "ru", "486"]
    assert WORD.findall(gloss)[-3:] == ["trade", "name", "ru_486"]
