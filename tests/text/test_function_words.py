"""The function-word lists, each for its rule, and what a question's content words are."""

from __future__ import annotations

from invent_core.text.function_words import (
    ARTICLES,
    ECHO_FUNCTION_WORDS,
    ENGLISH_FUNCTION_WORDS,
    JUDGE_STOP_WORDS,
    QUESTION_STOP_WORDS,
    content_words,
)


def test_content_words_of_a_question():
    assert content_words("Who discovered penicillin?") == {"discover", "penicillin"}
    assert content_words("Which golfer won the British and US Open in 1982?") == {
        "golfer",
        "won",
        "british",
        "open",
    }  # "US" is two letters, "1982" no word


def test_content_words_drop_pronouns_and_stem():
    assert content_words("What did they name their cities?") == {"city"}
    assert content_words("Tell me about your countries") == {"tell", "about", "country"}


def test_each_list_holds_what_its_rule_drops():
    assert ARTICLES <= JUDGE_STOP_WORDS and ARTICLES <= ECHO_FUNCTION_WORDS
    assert ENGLISH_FUNCTION_WORDS < QUESTION_STOP_WORDS
    assert {"he", "she", "their"} <= QUESTION_STOP_WORDS - ENGLISH_FUNCTION_WORDS
    # the judge drops negation ("not" says nothing about which thing is named) ...
    assert {"not", "no", "also", "called"} <= JUDGE_STOP_WORDS
    # ... the echo check keeps it, and no list drops a word that names a thing
    assert "not" not in ECHO_FUNCTION_WORDS
    for words in (ECHO_FUNCTION_WORDS, JUDGE_STOP_WORDS, QUESTION_STOP_WORDS):
        assert not {"city", "river", "paris", "water"} & words
