"""The answer judge of ψ_y ("judge"): the packaged LLM and a local NLI folder, asked only for
the pairs the rules leave undecided, once per distinct pair."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import ROOT

from invent_core.config import ScoreConfig
from invent_core.llm import yes_probability
from invent_core.responses import same_answer
from invent_core.responses.judge import SAME_PROBABILITY, AnswerJudge
from invent_core.responses.same import answer_cosines


class _Unasked:
    """An embedder that must not be asked: every pair here is decided without cosines."""

    name = identity = "unasked"

    def similarity_matrix(self, texts, *, kind, tau):
        raise AssertionError(f"the embedder was asked about {list(texts)}")


UNASKED = _Unasked()

Q = "What is the capital of Nigeria?"


class _Counting:
    """The real LLM, with the requests it was sent counted (a spy, not a fake)."""

    def __init__(self, llm):
        self.llm, self.sent = llm, []

    def complete_many(self, requests):
        self.sent.extend(requests)
        return self.llm.complete_many(requests)


def test_only_undecided_distinct_pairs_reach_the_judge():
    asked = []

    def judge(question, pairs):
        asked.append(list(pairs))
        return [True] * len(pairs)

    answers = ["Lagos", "the largest Nigerian city", "Lagos", "Abuja", "12"]
    cos = answer_cosines(Q, answers, mode="judge", similarity=UNASKED, judge=judge)
    # "Lagos" / "Abuja" and the number are decided by the rules; the description shares no
    # word with either name, so its two distinct pairs are undecided and asked once each
    assert len(asked) == 1 and len(asked[0]) == 2
    assert {frozenset(p) for p in asked[0]} == {
        frozenset({"Lagos", "the largest Nigerian city"}),
        frozenset({"Abuja", "the largest Nigerian city"}),
    }
    assert cos[0, 1] == cos[1, 2] == 1.0 and cos[0, 3] == 0.0 and cos[3, 4] == 0.0
    np.testing.assert_array_equal(cos, cos.T)


def test_the_option_and_its_judge_are_validated_and_recorded():
    cfg = ScoreConfig(answer_similarity="judge", answer_judge="qwen1.5b")
    assert cfg.to_dict()["answer_judge"] == "qwen1.5b"
    assert ScoreConfig.from_dict(cfg.to_dict()) == cfg
    with pytest.raises(ValueError, match="answer_judge"):
        ScoreConfig(answer_judge=" ")


def test_an_nli_judge_that_is_not_a_folder_names_it(tmp_path):
    judge = AnswerJudge(f"nli:{tmp_path / 'missing'}")
    with pytest.raises(ValueError, match="missing.*not a folder"):
        judge.same_many(Q, [("Lagos", "The city of Lagos")])


@pytest.mark.slow
def test_nli_folder_judge_needs_entailment_both_ways(tiny_nli):
    judge = AnswerJudge(f"nli:{tiny_nli}")
    pairs = [("Lagos", "The city of Lagos"), ("Abuja", "Nigeria's capital, Abuja")]
    got = judge.same_many(Q, pairs)
    forward = judge.model.entailment([a for a, _ in pairs], [b for _, b in pairs])
    backward = judge.model.entailment([b for _, b in pairs], [a for a, _ in pairs])
    assert got == [bool(min(f, b) >= SAME_PROBABILITY) for f, b in zip(forward, backward)]


@pytest.mark.slow
def test_the_packaged_llm_judges_each_pair_once(local_llm):
    spy = _Counting(local_llm)
    judge = AnswerJudge("local", model=spy)
    pairs = [("Lagos", "the largest Nigerian city"), ("Lagos", "Ibadan")]
    first = judge.same_many(Q, pairs + [(b, a) for a, b in pairs])
    assert len(spy.sent) == 2  # one request per unordered pair
    assert first[:2] == first[2:]
    assert judge.same_many(Q, pairs) == first[:2] and len(spy.sent) == 2  # memo
    # the verdict is the model's P(Yes) to the paper-style equivalence question
    replies = local_llm.complete_many(spy.sent)
    assert first[:2] == [yes_probability(c) >= SAME_PROBABILITY for c in replies]
    assert all(r.logprobs for r in replies) and all(r.temperature == 0.0 for r in spy.sent)
    assert same_answer(Q, *pairs[0], judge=judge) is first[0]  # the rules leave it to the judge
    assert same_answer(Q, *pairs[1], judge=judge) is False  # the rules decide: other names


@pytest.mark.slow
def test_a_rescore_under_the_judge_asks_the_judge_only_and_once(local_llm):
    """ψ_y = judge on a saved run: the only requests are the judge's, one per undecided
    distinct pair; a second re-score (the Compare page's) asks nothing."""
    from invent_core.engine.artifact import RunArtifact
    from invent_core.experiments.answer_study import undecided_pairs
    from invent_core.responses import judge as judges

    # a shipped arithmetic run whose rules leave a pair to the judge (the demo run: 31, 57 s)
    run = RunArtifact.load(
        ROOT / "docs/results/evaluate-arithmetic-100/runs/arithmetic_275-f97e8242_T0.7.json"
    )
    assert undecided_pairs([run]) >= 1  # the judge is asked, so "only and once" means something
    spy = _Counting(local_llm)
    judges.use_answer_judge("spy", spy)
    try:
        first = run.rescore(answer_similarity="judge", answer_judge="spy")
        assert len(spy.sent) == undecided_pairs([run])
        assert {r.tag for r in spy.sent} <= {"answer-judge"}
        again = run.rescore(answer_similarity="judge", answer_judge="spy")
        assert len(spy.sent) == undecided_pairs([run])
        assert again.score.measures == first.score.measures
        assert first.config.score.answer_judge == "spy"
        assert json.loads(first.to_json())["config"]["score"]["answer_similarity"] == "judge"
    finally:
        judges.use_answer_judge("spy", None)  # unbound: a later "spy" would load its own model


@pytest.mark.slow  # one subprocess per option, each loading the packaged embedder
def test_every_answer_similarity_is_reachable_from_score_and_recorded(tmp_path):
    """`score --answer-similarity X` for every option: the header and the JSON name it; the
    judge with a missing NLI folder fails naming the folder, before any output."""
    import subprocess
    import sys
    from pathlib import Path

    from invent_core.responses.same import ANSWER_SIMILARITIES

    root = Path(__file__).resolve().parents[2]
    data = {"questions": ["What is 6 times 7?", "What is the product of 6 and 7?"],
            "responses": [["42", "42", "36"], ["42", "48", "forty-two"]]}  # fmt: skip
    path = tmp_path / "ex.json"
    path.write_text(json.dumps(data))

    def score(*extra):
        return subprocess.run(
            [sys.executable, "-m", "invent_core", "score", str(path), "-B", "5", *extra],
            capture_output=True, text=True, cwd=root,
        )  # fmt: skip

    values = {}
    for option in ANSWER_SIMILARITIES:
        if option == "judge":
            continue  # asks the LLM; its path is tested above with the real model
        proc = score("--answer-similarity", option, "--json")
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        assert out["config"]["answer_similarity"] == option
        values[option] = out["measures"]["inv_entropy"]
    assert values["embedding"] != values["canonical"]  # "36" / "48" / "42" compared otherwise
    missing = tmp_path / "no-nli"
    proc = score("--answer-similarity", "judge", "--answer-judge", f"nli:{missing}")
    assert proc.returncode != 0 and str(missing) in proc.stderr
