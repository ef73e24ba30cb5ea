"""The sixth round of rewording rules (2026-11-29), each class read in the tuning draws (seeds
29 to 47): a word replaced by an unrelated one beside a loosely related pair, a place, time or
purpose phrase added at the end, "someone" narrowed to a kind of person, and a noun the question
says twice said once.

Each case is a new instance of its class, not a row of the draws, with counter-cases of the
same shape that keep the meaning.
"""

from rewording_verdicts import kept, rejected

from invent_core.perturb.clauses import constraint_added, repeat_lost


def test_an_unrelated_replacement_beside_a_loose_pair_rejects():
    question = "What is the principal crop of the valley?"
    rejected(question, "What is the primary crop of the desert?", "'valley' replaced by 'desert'")
    kept(question, "What is the primary crop of the valley?")  # the loose pair alone


def test_a_phrase_added_at_the_end_narrows_the_question():
    rejected(
        "How much flour does the recipe need?",
        "How much flour does the recipe need for the cake?",
        "adds 'for the cake'",
    )
    kept("How long did the concert last?", "How long did the concert last in total?")
    # the phrase the question has already, and "of": naming the same thing
    assert (
        constraint_added("Where is it in the ocean?", "Where is it in the ocean?", ("ocean",))
        is None
    )
    assert (
        constraint_added("What ends the meiosis cycle?", "What ends meiosis?", ("cycle",)) is None
    )


def test_someone_narrowed_to_a_kind_of_person_rejects():
    question = "when did someone last walk on the moon"
    rejected(question, "When did an astronaut last walk on the Moon?", "narrows 'someone'")
    kept(question, "When did a person last walk on the Moon?")
    kept(question, "Tell me, when did someone last walk on the Moon?")  # "someone" kept


def test_a_noun_said_twice_said_once_rejects():
    question = "who played the joker in the joker movie"
    rejected(question, "Who played in the Joker movie?", "said once")
    kept(question, "Who played the Joker in the movie Joker?")
    # the noun of "how many …" may be left out; a problem's premises repeat nouns on purpose
    assert (
        repeat_lost(
            "If each hen lays an egg, how many would 5 hens lay in a week?",
            "If each hen lays an egg, how many eggs would 5 hens lay in a week?",
        )
        is None
    )
    assert (
        repeat_lost(
            "Tom has 3 apples. How many does Tom have?",
            "Tom has 3 apples. Tom has how many apples?",
        )
        is None
    )
