"""Paraphrase parsing on real-looking outputs, the exactly-n rule and the re-ask loop."""

from __future__ import annotations

import numpy as np
import pytest

from invent_core.errors import LLMError
from invent_core.llm import Completion
from invent_core.perturb.paraphrase import paraphrase
from invent_core.perturb.paraphrase_parse import enough_or_looping, fit_to_n, parse_paraphrases

Q = "What is the capital of France?"

PARSE_CASES = [
    (
        "Here are 9 paraphrases:\n\n1. Which city is the capital of France?\n2. What city serves as France's capital?\n"
        "3. What is the capital of France?\n4. which city is the capital of  France?\n5. Name the capital city of France.",
        [
            "Which city is the capital of France?",
            "What city serves as France's capital?",
            "Name the capital city of France.",
        ],
    ),
    (
        "1) Which city is France's capital?\n2) What's the French capital?",
        ["Which city is France's capital?", "What's the French capital?"],
    ),
    (
        "- Which city is France's capital?\n- What's the French capital?\n-\n- ",
        ["Which city is France's capital?", "What's the French capital?"],
    ),
    (
        "* Which city is France's capital?\n* What's the French capital?",
        ["Which city is France's capital?", "What's the French capital?"],
    ),
    (
        "1. \"Which city is France's capital?\"\n2. “What is the French capital?”\n3. 'Name France's capital.'",
        [
            "Which city is France's capital?",
            "What is the French capital?",
            "Name France's capital.",
        ],
    ),
    (
        '"Which city is the capital of France?", "What is France\'s capital city?", "Name the French capital."',
        [
            "Which city is the capital of France?",
            "What is France's capital city?",
            "Name the French capital.",
        ],
    ),
    (
        'Sure! Here are some paraphrases of "What is the capital of France?":\nWhich city is the French capital?\n'
        "What city serves as capital of France?",
        ["Which city is the French capital?", "What city serves as capital of France?"],
    ),
    (
        "**Paraphrase 1:** Which city is the capital of France?\nParaphrase 2: What is France's capital?",
        ["Which city is the capital of France?", "What is France's capital?"],
    ),
    (
        "1. What's the capital city of France? (A more formal approach)\n"
        "2. Which city is France's capital? This paraphrase keeps the meaning.",
        ["What's the capital city of France?", "Which city is France's capital?"],
    ),
    ("What is the capital of France?", []),
    ("1. What is the capital of France?\n2. What is the capital of France?", []),
    ("", []),
]


@pytest.mark.parametrize(("text", "expected"), PARSE_CASES)
def test_parse_table(text, expected):
    assert parse_paraphrases(text, Q) == expected


def test_fit_to_n_samples_and_pads_with_rng():
    items = [f"q{i}" for i in range(12)]
    out = fit_to_n(items, 9, np.random.default_rng(0))
    assert len(out) == 9 and len(set(out)) == 9 and set(out) <= set(items)
    assert out == sorted(out, key=items.index)  # original order kept
    few = fit_to_n(["a", "b"], 5, np.random.default_rng(0))
    assert len(few) == 5 and few[:2] == ["a", "b"] and set(few) == {"a", "b"}
    assert fit_to_n(items, 9, np.random.default_rng(1)) == fit_to_n(
        items, 9, np.random.default_rng(1)
    )
    with pytest.raises(ValueError, match="no items"):
        fit_to_n([], 3, np.random.default_rng(0))


def test_stop_rule():
    assert not enough_or_looping("1. Which city is France's capital?", Q, 2)  # no complete line yet
    text = "1. Which city is France's capital?\n2. Name the French capital.\n"
    assert enough_or_looping(text, Q, 2)
    assert not enough_or_looping(text, Q, 3)
    loop = (
        "Here:\n1. Which city?\n2. What is the capital of France?\n3. Which city?\n4. Which city?\n"
    )
    assert enough_or_looping(loop, Q, 9)


class ScriptedLLM:
    """Returns fixed replies in turn and records requests (logic test of the re-ask loop)."""

    identity = "scripted"

    def __init__(self, replies):
        self.replies = list(replies)
        self.requests = []

    def complete(self, messages, **kw):  # pragma: no cover - unused
        raise AssertionError

    def complete_many(self, requests, progress=None, *, cancel=None, concurrency=None):
        self.requests.extend(requests)
        return [Completion(text=self.replies.pop(0)) for _ in requests]

    def close(self):
        pass


def test_paraphrase_asks_again_then_pads():
    llm = ScriptedLLM(
        [
            "1. What is the capital of France?\n2. Which city is France's capital?",
            "- Can you name the French capital?",
        ]
    )
    out = paraphrase(Q, llm=llm, n=4, seed=3, max_requests=2)
    assert len(out) == 4
    assert set(out) == {"Which city is France's capital?", "Can you name the French capital?"}
    assert [r.replication for r in llm.requests] == [0, 1]
    assert len({r.effective_seed for r in llm.requests}) == 2
    assert (
        llm.requests[0].message_list[-1]["content"]
        == "Please Provide 4 paraphrases for this sentence: " + Q
    )
    assert llm.requests[0].message_list[0]["role"] == "system"
    assert llm.requests[0].temperature == 0.7


def test_paraphrase_prefers_questions_and_plain_prompt():
    llm = ScriptedLLM(
        ["1. The capital of France is Paris.\n2. Which city is France's capital?\n3. Name it?"]
    )
    out = paraphrase(Q, llm=llm, n=2, system=None)
    assert sorted(out) == ["Name it?", "Which city is France's capital?"]
    assert [m["role"] for m in llm.requests[0].message_list] == ["user"]


def test_paraphrase_stops_asking_when_enough():
    llm = ScriptedLLM(["1. A city?\n2. B city?\n3. C city?"])
    assert len(paraphrase(Q, llm=llm, n=2)) == 2
    assert len(llm.requests) == 1


def test_paraphrase_nothing_usable_is_a_clear_error():
    llm = ScriptedLLM([Q, "1. " + Q, "Here are 9 paraphrases:"])
    with pytest.raises(LLMError, match="no usable paraphrase"):
        paraphrase(Q, llm=llm, n=3, max_requests=3)
    with pytest.raises(ValueError, match="question is empty"):
        paraphrase("  ", llm=llm)


def test_single_style_one_rewording_per_request_then_pads():
    replies = [
        "Which city is France's capital?",
        "Which city is France's capital?",  # repeat: dropped
        Q,  # echo: dropped
        "Name the French capital city?",
        # round 2 asks for the one still missing plus one
        "What city is the capital of France?",
        "What is the capital of France?",
        "Which city is France's capital?",
    ]
    llm = ScriptedLLM(replies)
    out = paraphrase(Q, llm=llm, n=3, seed=1, style="single", max_requests=2)
    assert sorted(out) == sorted(
        [
            "Which city is France's capital?",
            "Name the French capital city?",
            "What city is the capital of France?",
        ]
    )
    assert len(llm.requests) == 6  # round 1: 3 + 1 extra; round 2: the 1 missing + 1 extra
    assert len({r.effective_seed for r in llm.requests}) == len(
        llm.requests
    )  # every request samples anew
    first = llm.requests[0]
    assert (
        first.message_list[-1]["content"] == "Please Provide 1 paraphrase for this sentence: " + Q
    )
    assert [m["role"] for m in first.message_list][:3] == ["system", "user", "assistant"]
    assert first.temperature == 1.0


def test_single_style_is_bounded_and_pads_a_question_with_one_rewording():
    llm = ScriptedLLM(["Which city is France's capital?"] * 100)
    out = paraphrase(Q, llm=llm, n=9, style="single", max_requests=5)
    assert out == ["Which city is France's capital?"] * 9
    assert len(llm.requests) <= 2 * 9 + 2
    with pytest.raises(ValueError, match="unknown paraphrase style"):
        paraphrase(Q, llm=llm, n=2, style="haiku")


def test_auto_style_follows_the_declared_capability():
    class SmallModel(ScriptedLLM):
        prefers_single_paraphrase = True

    single = SmallModel(["Which city is France's capital?", "Name the French capital?"] * 3)
    paraphrase(Q, llm=single, n=2, max_requests=1)
    assert all(r.tag == "paraphrase-one" for r in single.requests)  # one rewording per request
    listing = ScriptedLLM(["1. A city?\n2. B city?"])
    paraphrase(Q, llm=listing, n=2)
    assert "Please Provide 2 paraphrases" in listing.requests[0].message_list[-1]["content"]


def test_streaming_backends_are_cut_by_the_stop_rule():
    class Streaming(ScriptedLLM):
        def complete_until(self, request, stop_when, *, tag):
            self.requests.append(request)
            text, cut = self.replies.pop(0), ""
            for line in text.splitlines(keepends=True):
                cut += line
                if stop_when(cut):
                    break
            return Completion(text=cut)

    llm = Streaming(["1. A city?\n2. B city?\n3. C city?\n4. D city?\n"])
    assert paraphrase(Q, llm=llm, n=2) == ["A city?", "B city?"]
    assert paraphrase(Q, llm=ScriptedLLM(["1. A city?\n2. B city?"]), n=2, stream=True)
