"""The validity gate wired into the paraphraser: re-asks, padding, candidates, on_accept."""

from __future__ import annotations

import numpy as np
import pytest

from invent_core.config import GateConfig, ParaphraseConfig, RunConfig
from invent_core.errors import LLMError
from invent_core.llm import Completion
from invent_core.perturb.base import PerturbResult, get_perturber
from invent_core.perturb.paraphrase import gated_paraphrase, paraphrase

AUSTRALIA = "What is the capital of Australia?"
GOOD = [
    "Which city is the capital of Australia?",
    "What city serves as Australia's capital?",
    "Name the city that is Australia's capital.",
    "Can you name the capital city of Australia?",
]


class RecordingLLM:
    """Answers each request with the next scripted reply and records every request."""

    identity = "recording"

    def __init__(self, replies, *, single=True):
        self.replies = list(replies)
        self.requests = []
        self.prefers_single_paraphrase = single

    def complete(self, messages, **kw):  # pragma: no cover - unused
        raise AssertionError("the paraphraser uses complete_many")

    def complete_many(self, requests, progress=None, *, cancel=None, concurrency=None):
        self.requests.extend(requests)
        out = []
        for _ in requests:
            if not self.replies:
                raise AssertionError(f"more requests than scripted replies ({len(self.requests)})")
            out.append(Completion(text=self.replies.pop(0)))
        return out

    def close(self):
        pass


class PairSimilarity:
    """A stand-in embedder: (1+cos)/2 of 0.9 between different texts, 1 on the diagonal,
    and chosen values for named pairs (logic tests of the affinity checks)."""

    def __init__(self, pairs=None):
        self.pairs = {frozenset(k): v for k, v in (pairs or {}).items()}
        self.calls = 0

    def similarity_matrix(self, texts, *, kind, tau):
        assert kind == "shifted_cosine"
        self.calls += 1
        m = np.full((len(texts), len(texts)), 0.9)
        for i, a in enumerate(texts):
            for j, b in enumerate(texts):
                m[i, j] = 1.0 if i == j else self.pairs.get(frozenset((a, b)), 0.9)
        return m


def _gated(llm, n, **kw):
    kw.setdefault("gate", GateConfig())
    return gated_paraphrase(AUSTRALIA, llm=llm, n=n, seed=5, style="single", **kw)


def test_rejected_candidates_are_re_asked_with_new_seeds_then_accepted():
    replies = [
        GOOD[0],
        'Paraphrase: "What city serves as Australia\'s capital?"',  # label + quotes: stripped, kept
        "The capital of Australia is Canberra.",  # an answer, not a question
        "What is the capital?",  # the entity is gone
        # round 2: the one still missing + one spare
        "Qu'elle est la capitale de l'Australie ?",  # other language
        GOOD[2],
    ]
    llm = RecordingLLM(replies)
    accepted = []
    res = _gated(
        llm, 3, similarity=PairSimilarity(), on_accept=lambda i, t: accepted.append((i, t))
    )
    assert res.perturbations == [GOOD[0], GOOD[1], GOOD[2]]
    assert accepted == [(0, GOOD[0]), (1, GOOD[1]), (2, GOOD[2])]
    assert [r.replication for r in llm.requests] == list(range(6))
    assert len({r.effective_seed for r in llm.requests}) == 6  # a re-ask never re-reads a reply
    got = [(c["round"], c["accepted"], c["reason"], c["index"]) for c in res.candidates]
    assert got == [
        (0, True, None, 0),
        (0, True, None, 1),
        (0, False, "not_a_question", None),
        (0, False, "lost_entity", None),
        (1, False, "other_language", None),
        (1, True, None, 2),
    ]
    assert res.candidates[1]["text"] == GOOD[1]
    acc = res.acceptance
    assert (acc["candidates"], acc["accepted"], acc["padded"], acc["requests"]) == (6, 3, 0, 6)
    assert acc["rejected"] == {"other_language": 1, "not_a_question": 1, "lost_entity": 1}
    assert acc["gate"] is True and acc["acceptance_rate"] == pytest.approx(0.5)


def test_the_budget_is_bounded_then_the_accepted_are_padded_by_duplication():
    llm = RecordingLLM([GOOD[0]] + ["Canberra."] * 50)
    accepted = []
    res = _gated(
        llm,
        4,
        gate=GateConfig(max_extra_requests=3),
        on_accept=lambda i, t: accepted.append((i, t)),
    )
    assert len(llm.requests) == 4 + 1 + 3  # first round n + 1, then at most 3 more
    assert res.perturbations == [GOOD[0]] * 4
    assert accepted == [(i, GOOD[0]) for i in range(4)]  # padded states are announced too
    assert res.acceptance["padded"] == 3
    assert res.acceptance["rejected"] == {"not_a_question": 7}


def test_no_re_ask_with_zero_extra_requests():
    llm = RecordingLLM([GOOD[0], "Canberra.", "Canberra."])
    res = _gated(llm, 2, gate=GateConfig(max_extra_requests=0))
    assert len(llm.requests) == 3
    assert res.perturbations == [GOOD[0], GOOD[0]]


def test_near_duplicates_count_as_duplicates_and_surplus_acceptances_are_drawn():
    near = "Which city is the capital city of Australia?"
    sim = PairSimilarity({(GOOD[0], near): 0.999, (AUSTRALIA, GOOD[3]): 0.5})
    llm = RecordingLLM([GOOD[0], near, GOOD[3], GOOD[1], GOOD[2]])
    res = _gated(llm, 2, similarity=sim, gate=GateConfig(max_extra_requests=2))
    got = [(c["round"], c["reason"]) for c in res.candidates]
    assert got == [(0, None), (0, "near_duplicate"), (0, "low_affinity"), (1, None), (1, None)]
    assert "accepted paraphrase 1" in res.candidates[1]["detail"]
    assert sim.calls == 2  # one embedder call per round
    # round 2 gave two acceptances for one missing state: one is drawn, the other unused
    assert sorted(c["index"] is None for c in res.candidates[3:]) == [False, True]
    assert res.perturbations[0] == GOOD[0] and res.perturbations[1] in (GOOD[1], GOOD[2])


def test_every_candidate_rejected_is_a_clear_error_with_the_reasons_when_asked_to_fail():
    llm = RecordingLLM([AUSTRALIA, "Canberra.", "Canberra."])
    with pytest.raises(LLMError, match=r"every candidate was rejected \(duplicate ×1, not_a_q"):
        _gated(llm, 2, gate=GateConfig(max_extra_requests=0, if_none_pass="fail"))


def test_every_candidate_rejected_pads_with_the_question_itself_by_default():
    """The default keeps the question (failing would drop the long ones from an evaluation)."""
    llm = RecordingLLM([AUSTRALIA, "Canberra.", "Canberra.", "Canberra"])  # n + 1 requests
    seen = []
    res = _gated(
        llm, 3, gate=GateConfig(max_extra_requests=0), on_accept=lambda i, t: seen.append(i)
    )
    assert res.perturbations == [AUSTRALIA] * 3
    assert res.acceptance["fallback"] == "original" and res.acceptance["padded"] == 3
    assert res.acceptance["accepted"] == 0 and sorted(seen) == [0, 1, 2]  # every state is answered
    assert [c["accepted"] for c in res.candidates] == [False] * 4  # the rejections are kept


def test_list_style_re_asks_the_whole_list_with_the_next_replication():
    llm = RecordingLLM(
        [
            "1. Which city is the capital of Australia?\n2. Canberra is the capital.",
            "1. What city serves as Australia's capital?\n2. Which city is the capital of Australia?",
        ],
        single=False,
    )
    res = gated_paraphrase(AUSTRALIA, llm=llm, n=2, gate=GateConfig(max_extra_requests=1))
    assert res.perturbations == [GOOD[0], GOOD[1]]
    assert [r.replication for r in llm.requests] == [0, 1]
    assert [c["reason"] for c in res.candidates] == [None, "not_a_question", None, "duplicate"]


def test_gate_off_keeps_the_papers_behaviour_and_reports_it():
    llm = RecordingLLM(["Canberra is it.", GOOD[0], GOOD[0]])
    res = _gated(llm, 2, gate=GateConfig(enabled=False), max_requests=1)
    assert res.acceptance["gate"] is False
    assert set(res.perturbations) == {GOOD[0]}  # the only question among the distinct replies
    assert (
        paraphrase(AUSTRALIA, llm=RecordingLLM([GOOD[0]] * 10), n=2, style="single")
        == [GOOD[0]] * 2
    )


def test_the_adapter_gates_with_the_run_embedder_and_reports_candidates():
    llm = RecordingLLM([GOOD[0], "Canberra.", GOOD[1], GOOD[2]])
    events, accepted = [], []
    cfg = RunConfig(n_perturbations=3)
    res = get_perturber("paraphrase").perturb(
        AUSTRALIA,
        cfg,
        llm=llm,
        embedder=PairSimilarity(),
        progress=events.append,
        on_accept=lambda i, t: accepted.append(i),
    )
    assert isinstance(res, PerturbResult)
    assert res.perturbations == [GOOD[0], GOOD[1], GOOD[2]]
    assert accepted == [0, 1, 2]
    assert [e.done for e in events] == [1, 2, 3] and events[-1].stage == "perturb"
    assert [c["accepted"] for c in res.candidates] == [True, False, True, True]
    assert res.acceptance["accepted"] == 3 and res.acceptance["rejected"] == {"not_a_question": 1}


def test_mmlu_only_the_stem_is_perturbed_and_the_options_come_back_unchanged():
    stem = "Which planet in the Solar System is the largest?"
    question = f"{stem}\nA. Mars\nB. Jupiter\nC. Venus\nD. Earth"
    llm = RecordingLLM(
        [
            "Which is the largest planet of the Solar System?",
            "What is the biggest Solar System planet?",
        ]
        * 3
    )
    accepted = []
    res = get_perturber("paraphrase").perturb(
        question,
        RunConfig(n_perturbations=2),
        llm=llm,
        embedder=PairSimilarity(),
        on_accept=lambda i, t: accepted.append(t),
    )
    asked = llm.requests[0].message_list[-1]["content"]
    assert stem in asked and "Jupiter" not in asked and "A. Mars" not in asked
    for text in [*res.perturbations, *accepted]:
        assert text.endswith("\nA. Mars\nB. Jupiter\nC. Venus\nD. Earth")
    assert res.perturbations[0].startswith("Which is the largest planet")


@pytest.mark.slow
def test_the_adapter_loads_the_run_embedder_for_the_affinity_check(minilm):
    # words the alignment cannot place (run from), so only the embedder's affinity decides
    # when undecided rewordings are kept (the default rejects them before the embedder)
    drift = "What city is Australia run from?"
    llm = RecordingLLM([GOOD[0], drift, drift, GOOD[1], drift])
    gate = GateConfig(delta=0.9, undecided_kept=True)
    cfg = RunConfig(
        n_perturbations=2, paraphrase=ParaphraseConfig(gate=gate)
    )  # (1+cos)/2 of 0.9 is cos 0.8; the drift's is 0.893 under MiniLM
    res = get_perturber("paraphrase").perturb(AUSTRALIA, cfg, llm=llm, embedder=None)
    assert [c["reason"] for c in res.candidates] == [
        None,
        "low_affinity",
        "low_affinity",
        None,
        "low_affinity",
    ]
    assert res.perturbations == [GOOD[0], GOOD[1]]


def test_padding_takes_a_distinct_near_duplicate_before_an_exact_copy():
    """A rewording rejected only as a near-duplicate fills a state before a copy."""
    near = "Which city is the capital city of Australia?"
    sim = PairSimilarity({(GOOD[0], near): 0.999})
    llm = RecordingLLM([GOOD[0], near] + ["Canberra."] * 4)
    res = _gated(llm, 3, similarity=sim, gate=GateConfig(max_extra_requests=2))
    assert res.perturbations[:2] == [GOOD[0], near]  # the near-duplicate, then one copy
    assert res.perturbations[2] in (GOOD[0], near)
    acc = res.acceptance
    assert (acc["accepted"], acc["near_duplicates"], acc["padded"]) == (1, 1, 1)
    assert (acc["distinct"], acc["states"]) == (2, 3)
    stand_in = [c for c in res.candidates if c["reason"] == "near_duplicate" and c["index"] == 1]
    assert len(stand_in) == 1


def test_the_acceptance_line_gives_distinct_states_and_warns_when_few():
    from invent_core.perturb.gate import acceptance_line, distinct_warning

    acc = {"candidates": 19, "accepted": 2, "near_duplicates": 1, "padded": 6}
    line = acceptance_line(acc | {"distinct": 3, "states": 9})
    assert "distinct states: 3 of 9" in line and "only 3 distinct states of 9" in line
    assert distinct_warning(acc | {"distinct": 7, "states": 9}) is None
    assert "data kept" not in line
    kept = acceptance_line(acc | {"distinct": 8, "states": 9, "premises_kept": 23})
    assert "only the last sentence reworded (23 words of data kept)" in kept


def _msgs(request):
    """A request's chat messages as dicts (Request keeps them as hashable pairs)."""
    return [dict(m) for m in request.messages]


def test_each_single_request_asks_for_another_construction_with_its_own_examples():
    """The k-th request carries construction k's instruction and examples."""
    from invent_core.prompts import PARAPHRASE_CONSTRUCTIONS

    llm = RecordingLLM(GOOD + ["Tell me, what is the capital of Australia?"] * 6)
    _gated(llm, 4)
    systems = [_msgs(r)[0]["content"] for r in llm.requests]
    for k, request in enumerate(llm.requests):
        how, examples = PARAPHRASE_CONSTRUCTIONS[k % len(PARAPHRASE_CONSTRUCTIONS)]
        assert systems[k].endswith(how)
        assert _msgs(request)[2]["content"] == examples[0][1]
        assert _msgs(request)[-1]["content"].endswith(AUSTRALIA)
        assert request.replication == k
    assert len(set(systems)) == len(llm.requests)  # five requests, five constructions


def test_without_constructions_every_request_is_the_same_prompt():
    llm = RecordingLLM(GOOD + [GOOD[0]] * 6)
    _gated(llm, 4, constructions=False)
    assert len({str(r.messages) for r in llm.requests}) == 1


WORD_PROBLEM = (
    "Amber, Micah, and Ahito ran 52 miles in total. Amber ran 8 miles. "
    "Micah ran 3.5 times what Amber ran. How many miles did Ahito run?"
)
PREMISES = WORD_PROBLEM[: WORD_PROBLEM.rindex(" How")]


def test_a_word_problem_keeps_its_data_and_only_the_question_sentence_is_reworded():
    """The 0.5B drops a word problem's numbers when asked to reword all of it."""
    told = []
    llm = RecordingLLM(
        [
            "What distance did Ahito run?",
            "How far did Ahito run in miles?",
            "How many miles did Ahito run in Paris?",  # an example's name leaking in: rejected
        ]
        + ["How many miles did Ahito run?"] * (3 + GateConfig().max_extra_requests)
    )  # a duplicate for every re-ask the default allows
    res = gated_paraphrase(
        WORD_PROBLEM, llm=llm, n=3, seed=1, style="single", gate=GateConfig(),
        on_accept=lambda i, t: told.append(t),
    )  # fmt: skip
    asked = [_msgs(r)[-1]["content"] for r in llm.requests]
    assert all(a.endswith(": How many miles did Ahito run?") for a in asked)
    assert res.perturbations[:2] == [
        f"{PREMISES} What distance did Ahito run?",
        f"{PREMISES} How far did Ahito run in miles?",
    ]
    assert all(p.startswith(PREMISES + " ") for p in res.perturbations + told)
    assert res.acceptance["premises_kept"] == len(PREMISES.split())
    flip = next(c for c in res.candidates if "Paris" in c["text"])
    assert flip["reason"] == "changed_meaning" and "Paris" in flip["detail"]
    assert flip["text"].startswith(PREMISES)


def test_premises_kept_off_rewords_the_whole_question():
    llm = RecordingLLM([WORD_PROBLEM.replace("How many", "What number of")] + [WORD_PROBLEM] * 18)
    gated_paraphrase(
        WORD_PROBLEM, llm=llm, n=1, seed=1, style="single", gate=GateConfig(), premises_kept=False
    )
    assert _msgs(llm.requests[0])[-1]["content"].endswith(WORD_PROBLEM)


@pytest.mark.parametrize(
    "question, premises",
    [
        (WORD_PROBLEM, PREMISES),
        ("Who was the U.S. President in 1901?", ""),  # abbreviation, one sentence
        ("Mr. Smith is here. Dr. Who?", ""),  # last sentence under three words
        ("It rained. Then it stopped.", ""),  # not a question
        ('He said "Go." Where did he go then?', 'He said "Go."'),
        (
            "Michael drove 50km/hr (stops for gas, etc.). How far did he go in 3 h?",
            "Michael drove 50km/hr (stops for gas, etc.).",
        ),  # fmt: skip
    ],
)
def test_split_premises(question, premises):
    from invent_core.perturb.premises import split_premises

    got_premises, ask = split_premises(question)
    assert got_premises == premises
    assert (f"{premises} {ask}" if premises else ask) == question


@pytest.mark.parametrize("bound", [0, 1])
def test_meaning_checks_stop_at_their_bound_and_an_unasked_rewording_is_not_kept(bound):
    """Every rule survivor may be asked (overlap thresholds 0 and 1); only ``bound`` are."""
    # three rewordings the word alignment leaves undecided, so the model is the one to ask
    undecided = ["What is Australia's chief city?", "What city is Australia run from?",
                 "Name the city from which Australia is governed."]  # fmt: skip
    five = [GOOD[0], *undecided, GOOD[1]]
    gate = dict(llm_verify=True, overlap_reject=0.0, overlap_accept=1.0, max_extra_requests=0)
    free = RecordingLLM([*five, *["Yes"] * 5])
    _gated(free, 4, gate=GateConfig(**gate))
    checks = len(free.requests) - 5
    assert checks >= 1  # without a bound the model is asked
    llm = RecordingLLM([*five, *["Yes"] * 5])
    res = _gated(llm, 4, gate=GateConfig(**gate, max_verify_requests=bound))
    assert len(llm.requests) - 5 == min(bound, checks)
    asked = [r for r in llm.requests if r.tag == "same-question"]
    assert len(asked) == min(bound, checks)
    assert res.acceptance["accepted"] <= 5 - (checks - min(bound, checks))
