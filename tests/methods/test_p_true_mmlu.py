"""P(True) on multiple choice is asked with the options and the chosen option's text."""

from __future__ import annotations

from invent_core.llm.base import Completion
from invent_core.methods import p_true
from invent_core.methods.context import ScoringContext

STEM = "Which planet in the Solar System is the largest?"
CHOICES = ["Mars", "Jupiter", "Venus", "Earth"]


class Recording:
    """Says "(A) True" to every prompt and records the prompts."""

    identity = "recording"

    def __init__(self):
        self.prompts = []

    def complete(self, messages, **kw):
        self.prompts.append(messages[-1]["content"])
        return Completion(" (A) True")


def _ctx(task, choices, llm, extras=None):
    questions = [STEM, "What is the largest planet of the Solar System?"]
    return ScoringContext(
        questions, [["B", "B"], ["B", "D"]], llm=llm, task=task, choices=choices, extras=extras
    )


def test_mmlu_prompt_carries_the_options_and_the_options_text():
    llm = Recording()
    assert p_true.compute(_ctx("mmlu", CHOICES, llm)) == 0.0
    prompt = llm.prompts[0]
    assert prompt.startswith(f"Question: {STEM}\nA. Mars\nB. Jupiter\nC. Venus\nD. Earth\n")
    assert "Proposed Answer: B. Jupiter\n" in prompt


def test_open_qa_prompt_is_unchanged():
    llm = Recording()
    p_true.compute(_ctx("qa", None, llm))
    assert llm.prompts[0].startswith(f"Question: {STEM}\nProposed Answer: B\n")
    assert "A. Mars" not in llm.prompts[0]


def test_answers_stored_without_the_options_are_asked_again():
    stale = {
        "p_true": {
            "settings": {"n_samples": 5, "temperature": 0.7},
            "answers": {"B": {"p_true": 0.0}},
        }
    }
    llm = Recording()
    ctx = _ctx("mmlu", CHOICES, llm, extras=stale)
    assert p_true.compute(ctx) == 0.0  # (A) True → P(True) = 1, not the stale 0
    assert llm.prompts and ctx.extras["p_true"]["settings"]["options"] is True
