"""The two stemmers: a plural one for answers, an inflection one for questions."""

from __future__ import annotations

import pytest

from invent_core.text.stems import inflection_stem, plural_stem


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("arteries", "artery"),
        ("boxes", "box"),
        ("gases", "gas"),
        ("ions", "ion"),
        ("gas", "gas"),  # too short to be a plural
        ("glass", "glass"),  # a double s is no plural ending
        ("discovered", "discovered"),  # verb endings stay: an answer keeps its tense
        ("lies", "lie"),  # "-ies" on four letters is "-s"
    ],
)
def test_plural_stem(word, stem):
    assert plural_stem(word) == stem


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("championships", "championship"),
        ("countries", "country"),
        ("discovered", "discover"),
        ("flying", "fly"),
        ("boxes", "box"),
        ("gas", "gas"),
        ("red", "red"),  # three letters must remain
    ],
)
def test_inflection_stem(word, stem):
    assert inflection_stem(word) == stem


def test_the_two_stemmers_differ_where_their_rules_need_it():
    """An answer's noun keeps "-ing" ("Beijing"); a question's verb loses it ("flying")."""
    assert plural_stem("beijing") == "beijing" and inflection_stem("beijing") == "beij"
    assert plural_stem("glass") == "glass" and inflection_stem("glass") == "glas"
