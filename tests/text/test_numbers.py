"""Number words: the tables every rule that reads "seven" or "forty-five" shares."""

from __future__ import annotations

from invent_core.responses.equivalence import answer_form
from invent_core.text.numbers import CARDINALS, ORDINALS, SCALES, TENS, small_number_words


def test_the_tables_count_in_order():
    assert list(CARDINALS.values()) == list(range(20))
    assert list(TENS.values()) == list(range(20, 100, 10))
    assert list(ORDINALS.values()) == list(range(21))
    assert [SCALES[w] for w in ("hundred", "thousand", "million")] == [100, 1000, 1_000_000]
    assert list(SCALES.values()) == sorted(SCALES.values())


def test_small_number_words():
    assert small_number_words() == CARDINALS | {"twenty": 20}
    assert max(small_number_words(10).values()) == 10 and "eleven" not in small_number_words(10)


def test_an_answer_spelled_in_words_is_a_number():
    assert answer_form("Seven").value == "7" and answer_form("twenty").value == "20"
    assert answer_form("twenty-one").kind == "text"  # compounds are the answer rules' own
