"""The word alignment behind same_question: each class of change on questions not in the labelled set.

The pairs here are written for these tests and are not rows of
tests/data/meaning/question_pairs.json (checked below), so the class rules are
tested on questions they were not tuned to.
"""

import json
import sys
from pathlib import Path

import pytest

from invent_core.perturb.align import alignment, aligns, content_tokens, words_match
from invent_core.perturb.asks_same import same_question

sys.path.insert(0, str(Path(__file__).parents[2] / "scripts"))
from question_pairs_score import PAIRS, half_figures, load_pairs, verdicts  # noqa: E402

#: (class, question, rewording) that ask for another answer
DIFFERENT = [
    ("co_hyponym", "How many wheels does a bicycle have?", "How many wheels does a tricycle have?"),
    ("co_hyponym", "How many teeth does a shark have?", "How many fins does a shark have?"),
    (
        "co_hyponym",
        "What is the chemical symbol for sodium?",
        "What is the chemical symbol for potassium?",
    ),
    ("co_hyponym", "How many legs does a crab have?", "How many claws does a crab have?"),
    ("antonym", "What gas do animals inhale?", "What gas do animals exhale?"),
    (
        "antonym",
        "Which country borders France to the north?",
        "Which country borders France to the south?",
    ),
    ("antonym", "Which river is the longest in Asia?", "Which river is the shortest in Asia?"),
    ("verb_kind", "Who composed the Ninth Symphony?", "Who conducted the Ninth Symphony?"),
    ("verb_kind", "Who invented the steam engine?", "Who discovered the steam engine?"),
    ("verb_kind", "Who painted The Starry Night?", "Who bought The Starry Night?"),
    ("verb_kind", "Who wrote Don Quixote?", "Who illustrated Don Quixote?"),
    (
        "modifier",
        "Who was the first chancellor of Germany?",
        "Who was the first vice chancellor of Germany?",
    ),
    (
        "modifier",
        "How many hours does an adult need to sleep?",
        "How many hours does a baby need to sleep?",
    ),
    ("modifier", "What is the largest lake in Africa?", "What is the largest salt lake in Africa?"),
    (
        "part_swap",
        "What is the roof of the Pantheon made of?",
        "What is the floor of the Pantheon made of?",
    ),
    ("part_swap", "What colour is the cover of the book?", "What colour is the spine of the book?"),
    (
        "direction",
        "Which nerves carry signals from the brain to the muscles?",
        "Which nerves carry signals to the brain from the muscles?",
    ),
]

#: (class, question, rewording) that ask for the same answer
SAME = [
    (
        "alias",
        "Who is the current president of the United States?",
        "Who is the current American president?",
    ),
    ("alias", "When did World War II begin?", "When did the Second World War begin?"),
    ("alias", "What is the population of the UK?", "What is the population of Britain?"),
    ("alias", "When did the USSR launch Sputnik?", "When did the Soviet Union launch Sputnik?"),
    ("synonym", "How big is the Sahara desert?", "How large is the Sahara desert?"),
    ("synonym", "Which film won Best Picture in 1998?", "Which movie won Best Picture in 1998?"),
    ("derivation", "How fast does a cheetah run?", "What is the running speed of a cheetah?"),
    ("derivation", "What is the speed of sound?", "How fast does sound travel?"),
    ("derivation", "How heavy is the Moon?", "What is the weight of the Moon?"),
    ("derivation", "At what temperature does lead melt?", "What is the melting point of lead?"),
    ("demonym", "What is the currency of Sweden?", "What is the Swedish currency?"),
    ("wrapper", "What is the capital of Spain?", "Can you tell me what the Spanish capital is?"),
    ("wrapper", "Who discovered insulin?", "Please tell me who discovered insulin."),
    ("reorder", "In which year did the Berlin Wall fall?", "The Berlin Wall fell in which year?"),
]


def test_none_of_these_pairs_is_in_the_labelled_set():
    labelled = {(r["original"], r["candidate"]) for r in load_pairs()}
    labelled_questions = {r["original"] for r in load_pairs()}
    for _, q, r in DIFFERENT + SAME:
        assert (q, r) not in labelled and q not in labelled_questions


@pytest.mark.parametrize(("kind", "question", "rewording"), DIFFERENT)
def test_a_changed_content_word_is_rejected_with_a_reason(kind, question, rewording):
    verdict = same_question(question, rewording, llm=None)
    assert not verdict, (kind, verdict)
    assert verdict.decided_by in ("rules", "alignment"), verdict


@pytest.mark.parametrize(("kind", "question", "rewording"), SAME)
def test_a_rewording_that_keeps_every_word_matched_is_kept(kind, question, rewording):
    verdict = same_question(question, rewording, llm=None)
    assert verdict, (kind, verdict)


def test_the_reason_names_the_words():
    verdict = same_question(
        "How many legs does a beetle have?", "How many legs does a moth have?", llm=None
    )
    assert "'beetle' replaced by 'moth'" in verdict.detail
    verdict = same_question(
        "What is the largest hot spring?", "What is the largest hot spring in Iceland?", llm=None
    )
    assert not verdict  # a name added: the entity rule


def test_a_rarer_shared_sense_is_left_undecided():
    """ "published" shares only a rarer sense with "wrote": the alignment says so and leaves it."""
    aligned = alignment("Who wrote Ulysses?", "Who published Ulysses?")
    assert aligned.note() is None and aligned.loose
    verdict = same_question(
        "Who ruled Portugal in 1700?", "Who reigned over Portugal in 1700?", llm=None
    )
    assert verdict.decided_by == "default" and "loosely related" in verdict.detail


def test_words_match_reads_wordnet_and_the_alias_table():
    assert words_match("fast", "speed") and words_match("deep", "depth")
    assert words_match("populous", "population") and words_match("inventor", "invented")
    assert words_match("film", "movie") and not words_match("spider", "ant")
    assert not words_match("wrote", "published") and not words_match("absorb", "emit")
    assert content_tokens("the boiling point of water") == ["boiling_point", "water"]
    assert "unitedstates" in content_tokens("Who was the first US president?")


def test_long_word_problems_and_other_languages_are_left_to_the_other_rules():
    assert not aligns("Quelle est la capitale de l'Australie ?")
    assert not aligns(" ".join(["word"] * 31))
    assert aligns("What is the capital of Australia?")


def test_tuning_half_figures_do_not_fall():
    """The tuning half of the labelled pairs, no model: at or above what the rules reach now.

    With every class given both sides (537 pairs): precision 0.912 at recall 0.800
    (0.924 at 0.948 on the 308 pairs before the missing sides were written). The third
    round (undecided rewordings rejected, the answer left open, the kind narrowed) moved
    the point to 0.953 at 0.785 (docs/question_pairs_2026-11-29b.txt); a rule change that
    loses either fails here.
    """
    rows = load_pairs()
    assert len(rows) >= 530 and PAIRS.is_file()
    kept = [bool(v) for v in verdicts(rows)]
    fig = half_figures(rows, kept, "tuning")["all"]
    assert fig["precision"][0] >= 0.95 and fig["recall"][0] >= 0.78, fig


def test_the_labelled_set_is_split_by_its_hash_and_has_both_sides():
    import hashlib

    rows = json.loads(PAIRS.read_text(encoding="utf-8"))["rows"]
    for r in rows:
        h = int(hashlib.sha256((r["original"] + "\n" + r["candidate"]).encode()).hexdigest(), 16)
        assert r["split"] == ("tuning" if h % 2 == 0 else "report")
    sources = {r["source"] for r in rows}
    assert sources >= {"triviaqa", "sciq", "nq_open", "mmlu", "gsm8k", "arithmetic", "own"}
    by_class: dict = {}
    for r in rows:
        by_class.setdefault(r["class"], [0, 0])[r["same_meaning"]] += 1
    assert all(min(n) >= 20 for n in by_class.values()), by_class
