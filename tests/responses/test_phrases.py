"""Names, qualifiers, places and descriptions, on cases that are not in the labelled set."""

from __future__ import annotations

import pytest

from invent_core.responses.equivalence import rule_verdict
from invent_core.responses.phrases import name_like, phrase_words


@pytest.mark.parametrize(
    ("question", "a", "b", "same"),
    [
        ("Who wrote Pride and Prejudice?", "Austen", "Jane Austen", True),
        ("Who wrote Pride and Prejudice?", "J. Austen", "Jane Austen", True),
        ("Who wrote Pride and Prejudice?", "Jane Austen", "Charlotte Brontë", False),
        ("Who wrote Pride and Prejudice?", "Jane Austen", "Jane Seymour", False),
        ("Who composed The Four Seasons?", "Vivaldi", "Antonio Lucio Vivaldi", True),
        ("Who composed The Four Seasons?", "Antonio Vivaldi", "Antonio Salieri", False),
        ("Who led the Soviet Union in 1945?", "Stalin", "Joseph Stalin", True),
        ("Who painted The Starry Night?", "Vincent van Gogh", "Van Gogh", True),
        ("Who painted The Starry Night?", "Vincent van Gogh", "Theo van Gogh", False),
        ("Who wrote Leviathan?", "Thomas Hobbes", "T. Hobbes", True),
        ("Who founded Microsoft with Paul Allen?", "W. H. Gates", "William Henry Gates", True),
        ("Who was the 43rd US president?", "George W. Bush", "George H. W. Bush", False),
        ("Who was the 43rd US president?", "George W. Bush", "Bush", True),
        ("Who was the first Tudor king?", "Henry VII", "King Henry VII", True),
        ("Who was the first Tudor king?", "Henry VII", "Henry VIII", False),
        ("Who wrote The Hobbit?", "JRR Tolkien", "J. R. R. Tolkien", True),
        ("Who discovered radium?", "Dr. Curie", "Marie Curie", True),
    ],
)
def test_names_by_their_parts(question, a, b, same):
    assert rule_verdict(question, a, b) is same


@pytest.mark.parametrize(
    ("question", "a", "b", "same"),
    [
        ("Which sea lies between Europe and Africa?", "Mediterranean", "Mediterranean Sea", True),
        ("Which sea lies between Europe and Africa?", "Mediterranean Sea", "Red Sea", False),
        ("What connects the Atlantic and the Pacific?", "Panama Canal", "the Panama", True),
        ("What connects the Atlantic and the Pacific?", "Panama Canal", "Suez Canal", False),
        ("Where does digestion finish?", "large intestine", "small intestine", False),
        ("What kind of cell division makes gametes?", "meiosis", "meiotic division", None),
        ("What kind of cells lack a nucleus?", "prokaryotic cells", "eukaryotic cells", False),
        # no shared word: WordNet's sister kinds (both kinds of seed plant) decide
        ("Which plants make seeds without fruit?", "gymnosperms", "angiosperms", False),
        ("What kind of energy does a moving car have?", "kinetic energy", "kinetic", True),
        (
            "What kind of energy does a moving car have?",
            "kinetic energy",
            "potential energy",
            False,
        ),
        ("What kind of solution has pH below 7?", "acidic", "nonacidic", False),
    ],
)
def test_a_head_and_its_qualifiers(question, a, b, same):
    assert rule_verdict(question, a, b) is same


@pytest.mark.parametrize(
    ("question", "a", "b", "same"),
    [
        (
            "Where was Shakespeare born?",
            "Stratford-upon-Avon",
            "Stratford-upon-Avon, England",
            True,
        ),
        ("Where is Harvard University?", "Cambridge", "Cambridge, Massachusetts", True),
        ("Where is Harvard University?", "Cambridge, Massachusetts", "Cambridge, England", False),
        ("Where is Harvard University?", "Cambridge, MA", "Boston, MA", False),
        ("What is the capital of Canada?", "Ottawa", "Ottawa, Ontario", True),
        ("What is the capital of Canada?", "Ottawa", "Toronto", False),
    ],
)
def test_a_place_and_its_region(question, a, b, same):
    assert rule_verdict(question, a, b) is same


@pytest.mark.parametrize(
    ("question", "a", "b"),
    [
        ("What is the capital of Italy?", "Rome", "the Italian capital"),
        ("What is the capital of Italy?", "Rome", "the Eternal City"),
        ("Which organ pumps blood?", "heart", "cardiac muscle"),
        ("What do bees make?", "honey", "a sweet syrup"),
        ("Who wrote Hamlet?", "Shakespeare", "the Bard of Avon"),
        ("What is H2O commonly called?", "water", "aqua"),
    ],
)
def test_descriptions_sharing_no_word_are_left_to_a_model(question, a, b):
    assert rule_verdict(question, a, b) is None


def test_two_names_sharing_no_word_differ_and_abbreviations_wait():
    assert rule_verdict("Which city hosted the 2012 Olympics?", "London", "Beijing") is False
    assert rule_verdict("Where is Wall Street?", "New York", "NYC") is None
    assert rule_verdict("Which country is Sacramento in?", "United States", "US") is True


def test_names_and_their_words():
    assert name_like("Leonardo da Vinci") and name_like("PETER DAVISON")
    assert not name_like("the French capital")
    assert phrase_words("Sir Isaac Newton") == ["isaac", "newton"]
    assert phrase_words("A. Einstein") == ["a", "einstein"]  # an initial, not an article
    assert phrase_words("JRR Tolkien") == ["j", "r", "r", "tolkien"]
