"""WordNet's verdict on two common-noun answers (real WordNet, no model)."""

from invent_core.responses.lexical import lexical_verdict
from invent_core.responses.same import rule_verdict


def test_one_sense_named_two_ways_is_one_answer():
    assert lexical_verdict("automobile", "motorcar") is True
    assert lexical_verdict("the physicians", "doctor") is True
    assert lexical_verdict("hydrochloric acid", "muriatic acid") is True


def test_sister_kinds_are_two_answers():
    assert lexical_verdict("violin", "cello") is False
    assert lexical_verdict("sparrow", "finch") is False


def test_an_answer_inside_the_other_s_definition_is_one_answer():
    # WordNet: "puppy: a young dog"; "kidney: … organs that filter wastes … from the blood …"
    assert lexical_verdict("puppy", "young dog") is True
    assert lexical_verdict("the organ that filters the blood", "kidney") is True


def test_names_sentences_and_unknown_words_are_left_alone():
    assert lexical_verdict("Paris", "the French capital") is None
    assert lexical_verdict("Mercury", "quicksilver") is None  # capitalised: the name rules'
    assert lexical_verdict("a young dog, a puppy, the pet of many families", "cat") is None
    assert lexical_verdict("zorblat", "frimble") is None


def test_same_answer_uses_it_where_the_words_share_nothing():
    q = "What do you call a young dog?"
    assert rule_verdict(q, "puppy", "young dog") is True
    assert rule_verdict("Which instrument did Pablo Casals play?", "violin", "cello") is False
