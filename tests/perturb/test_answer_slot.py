"""The third round of rewording rules: the answer left open, the kind of answer, the question
after its premises, a classifier before a name, units in two letters, undecided rejected.

Each case is a new instance of a class read in the tuning draws (seeds 29 and 31), not a row
of them: the rules must hold on questions they were not written from.
"""

import pytest

from invent_core.config import GateConfig
from invent_core.perturb.asks_same import same_question
from invent_core.perturb.frames import final_sentence, question_proper
from invent_core.perturb.meaning import wh_class
from invent_core.perturb.narrowed import kind_narrowed


def _verdict(question: str, rewording: str):
    return same_question(question, rewording, llm=None)


@pytest.mark.parametrize(
    ("question", "rewording"),
    [
        # a statement with the answer filled in, after a polite frame or none
        ("What gas do plants absorb from the air?", "Tell me, plants absorb carbon dioxide."),
        ("the largest moon of saturn is called", "The largest moon of Saturn is called Titan."),
        # a yes/no question about a filled-in answer
        ("Bees make honey from what?", "Do you know bees make honey from nectar?"),
        ("What protects the heart?", "Can you protect the heart?"),
    ],
)
def test_a_rewording_that_leaves_no_answer_open_is_rejected(question, rewording):
    verdict = _verdict(question, rewording)
    assert not verdict and "open" in verdict.detail, verdict


@pytest.mark.parametrize(
    ("question", "rewording"),
    [
        ("What is the boiling point of water?", "Can you tell me the boiling point of water?"),
        ("What is the boiling point of water?", "Do you know the boiling point of water?"),
        (
            "Which metal is liquid at room temperature?",
            "Name the metal liquid at room temperature.",
        ),
        ("the longest river in africa is", "The longest river in Africa is?"),
    ],
)
def test_an_order_or_a_frame_before_the_thing_asked_leaves_it_open(question, rewording):
    assert _verdict(question, rewording), _verdict(question, rewording)


def test_a_wh_word_after_a_comma_or_premises_is_the_question_asked():
    assert wh_class("In terms of mass, which planet is the largest?") == "thing"
    assert wh_class("Ann has 4 pens. If she buys 3 more, how many does she have?") == "quantity"
    assert wh_class("The salt dissolves quickly when heated in water") is None  # mid-clause
    assert final_sentence("Ann has 4 pens. She buys No. 2 pencils?") == "She buys No. 2 pencils?"


def test_a_condition_before_a_wh_clause_is_not_a_yes_no_question():
    assert question_proper("Do you know if she buys 3 more, how many she has?")[1] is None
    assert question_proper("Do you know if she bought pens?")[1] == "polar"
    assert question_proper("If it rains, what happens to the soil?")[1] is None


def test_the_question_after_its_premises_keeps_its_kind():
    q = "Ann has 4 pens. If she buys 3 more pens, how many pens does she have?"
    r = "Ann has 4 pens. Do you know if she buys 3 more pens?"
    assert not _verdict(q, r)


@pytest.mark.parametrize(
    ("question", "rewording", "note"),
    [
        ("What illness did Mozart die of?", "Who said Mozart died of an illness?", "person"),
        ("how is a baby kangaroo called", "What is a baby kangaroo called?", None),
        ("the three states of matter", "How are the three states of matter?", "manner"),
        (
            "Lake Titicaca lies on the border of which country?",
            "What does Lake Titicaca lie on?",
            "place",
        ),
    ],
)
def test_the_kind_of_answer_read_from_a_phrase_or_a_wh_word(question, rewording, note):
    verdict = _verdict(question, rewording)
    if note is None:
        assert verdict, verdict
    else:
        assert not verdict and note in verdict.detail, verdict


def test_an_added_noun_naming_the_kind_narrows_a_bare_what():
    assert kind_narrowed("What causes tides?", "Which force causes tides?", ("force",))
    assert kind_narrowed(
        "What causes tides?", "What is the process that causes tides?", ("process",)
    )
    # the question named a kind: the alignment judges the swap, not this rule
    assert kind_narrowed("What planet is largest?", "Which world is largest?", ("world",)) is None
    # a name, an amount or a person asks nothing narrower
    assert kind_narrowed("What did he pay?", "What amount did he pay?", ("amount",)) is None


def test_a_noun_naming_the_kind_of_a_name_narrows_nothing():
    assert _verdict("Who painted the portrait Mona Lisa?", "Who painted Mona Lisa?")
    assert not _verdict("Who painted the Mona Lisa?", "Who painted the famous portrait?")


def test_a_unit_in_two_letters_matches_its_name():
    assert _verdict("How many grams are in 3 kilograms?", "How many grams are in 3 kg?")
    assert _verdict("How tall is a 6 ft man in centimetres?", "How tall is a 6 feet man in cm?")


def test_rewordings_the_rules_leave_undecided_are_rejected_by_default():
    """Chosen on the tuning draws: 17 of 19 undecided rewordings that passed δ changed meaning."""
    assert GateConfig().undecided_kept is False
    q, r = "Who ruled Egypt in 1300 BC?", "Who presided over Egypt in 1300 BC?"
    assert not _verdict(q, r)
    assert same_question(q, r, llm=None, config=GateConfig(undecided_kept=True))
