"""The alias table: one token for every name of one thing, pronouns left alone."""

from invent_core.perturb.aliases import ALIAS_GROUPS, with_aliases_joined


def test_every_name_of_a_group_becomes_its_token():
    assert (
        with_aliases_joined("the USA")
        == with_aliases_joined("the United States")
        == ("the UnitedStates")
    )
    assert "SecondWorldWar" in with_aliases_joined("after WWII ended")
    assert "SecondWorldWar" in with_aliases_joined("after World War 2 ended")
    assert "France" in with_aliases_joined("the French national dish")
    assert with_aliases_joined("America's largest state") == "UnitedStates largest state"


def test_a_pronoun_stays_a_pronoun():
    assert with_aliases_joined("Can you tell us who won?") == "Can you tell us who won?"
    assert with_aliases_joined("tell us who won") == "tell us who won"
    assert "UnitedStates" in with_aliases_joined("who did us fight in world war 1")
    assert "FirstWorldWar" in with_aliases_joined("who did us fight in world war 1")


def test_the_longest_name_wins_and_no_name_is_in_two_groups():
    assert with_aliases_joined("United States of America") == "UnitedStates"
    names = [n.casefold() for g in ALIAS_GROUPS for n in g]
    assert len(names) == len(set(names))
