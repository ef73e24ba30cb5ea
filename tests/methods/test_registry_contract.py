"""Contract test over EVERY registered method (cf. huggingface/evaluate's common metric test).

Each method in ``list_methods()`` must give a finite score on a small real
run (real packaged MiniLM), be invariant to the order of the replications,
and rate identical answers as less uncertain than scattered ones. Methods
that ask the LLM get :class:`FakeLLM`, a deterministic test double of
:class:`invent_core.llm.LLM` (pure logic only; the real local model is
exercised in tests/methods/test_baselines.py, marked slow).
"""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pytest

from invent_core.config import ScoreConfig
from invent_core.errors import MethodUnavailable
from invent_core.llm.base import Completion
from invent_core.methods.registry import NEEDS, ScoringContext, compute_methods, list_methods
from invent_core.prompts import VERBALIZED_CONFIDENCE_SUFFIX

QUESTIONS = [
    "Who wrote the play Hamlet?",
    "Which playwright authored Hamlet?",
    "Hamlet was written by whom?",
    "Name the author of the play Hamlet.",
]
TRUE_ANSWER = "shakespeare"  # the FakeLLM is confident in answers containing this word
MIXED = [
    ["William Shakespeare", "Shakespeare", "Christopher Marlowe", "Shakespeare"],
    ["Shakespeare", "William Shakespeare", "Ben Jonson", "Shakespeare"],
    ["Shakespeare", "Shakespeare", "Shakespeare", "Marlowe"],
    ["William Shakespeare", "Francis Bacon", "Shakespeare", "Shakespeare"],
]
IDENTICAL = [["William Shakespeare"] * 4 for _ in QUESTIONS]
SCATTERED = [
    ["William Shakespeare", "Christopher Marlowe", "Queen Elizabeth I", "Charles Dickens"],
    ["Ben Jonson", "Geoffrey Chaucer", "John Milton", "Oscar Wilde"],
    ["Mark Twain", "Leo Tolstoy", "Jane Austen", "Homer"],
    ["Francis Bacon", "Thomas Kyd", "Edmund Spenser", "Virginia Woolf"],
]

#: Reads replication 0 of every question by definition (paper §3 Baselines (ii)).
ORDER_DEPENDENT = {"nr_inv_entropy"}


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


class FakeLLM:
    """Deterministic stand-in for an LLM backend (pure-logic tests only).

    - VU follow-up: "I am 90% confident." about an answer naming Shakespeare, else "About 20%.".
    - P(True): "(A) True" / "(B) False" by the same rule; with ``with_logprobs``
      the first token's top logprobs put 0.9 on the right letter.
    - entailment prompts: "Yes" when the two answers are equal after
      lowercasing and dropping punctuation, or one's words contain the other's.
    """

    identity = "fake-llm"

    def __init__(self, *, with_logprobs: bool = False) -> None:
        self.with_logprobs = with_logprobs
        self.calls: list[dict] = []

    def _reply(self, messages, logprobs: bool) -> Completion:
        last = messages[-1]["content"]
        if VERBALIZED_CONFIDENCE_SUFFIX in last:
            answer = messages[-2]["content"] if len(messages) >= 3 else last
            return Completion(
                "I am 90% confident." if TRUE_ANSWER in answer.lower() else "About 20%."
            )
        m = re.search(r"Proposed Answer: (.*)\n", last)
        if m:
            good = TRUE_ANSWER in m.group(1).lower()
            if logprobs and self.with_logprobs:
                hi, lo = ("A", "B") if good else ("B", "A")
                return Completion(hi, logprobs=[[hi, math.log(0.9)], [lo, math.log(0.1)]])
            return Completion(" (A) True" if good else " (B) False")
        m = re.search(r"Answer 1: (.*)\nAnswer 2: (.*)\n", last)
        if m:
            a, b = _norm(m.group(1)), _norm(m.group(2))
            same = a == b or set(a.split()) <= set(b.split()) or set(b.split()) <= set(a.split())
            if logprobs and self.with_logprobs:
                p = 0.95 if same else 0.05
                return Completion(
                    "Yes" if same else "No",
                    logprobs=[["Yes", math.log(p)], ["No", math.log(1 - p)]],
                )
            return Completion("Yes" if same else "No")
        return Completion("Paris")

    def complete(
        self,
        messages,
        *,
        temperature=0.0,
        seed=0,
        max_tokens=32,
        logprobs=False,
        top_logprobs=0,
        **kw,
    ):
        self.calls.append(
            {"messages": messages, "temperature": temperature, "seed": seed, "logprobs": logprobs}
        )
        return self._reply(messages, logprobs)

    def complete_many(
        self, requests, progress=None, *, cancel=None
    ):  # pragma: no cover - not used by the baselines
        return [self.complete(r.message_list) for r in requests]

    def close(self) -> None:
        pass


ALL = [m.name for m in list_methods()]


@pytest.fixture(scope="module")
def scores(minilm):
    """Every method on the mixed run, computed once (strict: any error fails the test)."""
    ctx = ScoringContext(
        QUESTIONS, MIXED, ScoreConfig(n_bootstrap=2000), embedder=minilm, llm=FakeLLM()
    )
    return compute_methods(ctx, strict=True)


def test_registry_holds_the_paper_table():
    names = set(ALL)
    inv = {"inv_entropy", "ni_entropy", "nr_inv_entropy", "wd_px_py", "max_py_x"}
    baselines = {
        "semantic_entropy",
        "kernel_entropy",
        "verbalized",
        "p_true",
        "lexsim",
        "degmat",
        "luq",
        "kle",
    }
    assert inv | baselines <= names
    assert len(ALL) == len(names)  # no name twice


@pytest.mark.parametrize("name", ALL)
def test_metadata(name):
    m = next(m for m in list_methods() if m.name == name)
    assert m.label and m.reference and m.summary
    assert set(m.needs) <= set(NEEDS)
    if m.family == "baseline":
        assert m.simplifications, f"{name} must state what it simplifies"


def test_needs_llm_is_the_one_offline_test():
    """``Method.needs_llm``: LLM-asking methods (extra prompts or log-probabilities) only."""
    by_name = {m.name: m for m in list_methods()}
    assert by_name["p_true"].needs_llm and by_name["verbalized"].needs_llm
    assert not by_name["inv_entropy"].needs_llm and not by_name["semantic_entropy"].needs_llm
    for m in by_name.values():
        assert m.needs_llm == bool({"llm", "logprobs"} & set(m.needs))


@pytest.mark.parametrize("name", ALL)
def test_finite_score(scores, name):
    assert scores[name].ok, scores[name].error
    assert np.isfinite(scores[name].value)


@pytest.mark.parametrize("name", ALL)
def test_invariant_to_replication_order(scores, minilm, name):
    if name in ORDER_DEPENDENT:
        pytest.skip(f"{name} reads replication 0 by definition")
    rng = np.random.default_rng(7)
    permuted = [[reps[i] for i in rng.permutation(len(reps))] for reps in MIXED]
    assert permuted != MIXED
    ctx = ScoringContext(
        QUESTIONS, permuted, ScoreConfig(n_bootstrap=2000), embedder=minilm, llm=FakeLLM()
    )
    value = compute_methods(ctx, [name], strict=True)[name].value
    # Bootstrap measures resample replication indices, so a permutation changes the draws:
    # with B = 2000 their means agree within a few percent; exact methods to 1e-9.
    tol = (
        0.05 * abs(scores[name].value) + 2e-3
        if name in {"inv_entropy", "ni_entropy", "wd_px_py", "max_py_x"}
        else 1e-9
    )
    assert value == pytest.approx(scores[name].value, abs=tol)


#: WD-px-py is the distance between P_x and P_y, not a spread of the answers: under a
#: sharp kernel, identical answers make P_y uniform while distinct perturbations keep
#: P_x peaked, so its distance is not smaller than with scattered answers (measured
#: here: 0.0209 vs 0.0205 under exp_cosine τ = 0.25). The ordering holds under the
#: paper's kernel, the one it was defined with.
KERNEL_FOR_ORDER = {"wd_px_py": "shifted_cosine"}
#: WD-px-py compares the shapes of P_x and P_y only: under ψ_y "rules" this symmetric toy
#: (every answer the same, or every one different) gives uniform marginals both ways, so
#: its order is checked under the embedder's cosine, the ψ_y it was defined with.
PSI_Y_FOR_ORDER = {"wd_px_py": "embedding"}


@pytest.mark.parametrize("name", ALL)
def test_identical_less_uncertain_than_scattered(minilm, name):
    cfg = ScoreConfig(n_bootstrap=200)
    if name in KERNEL_FOR_ORDER:
        cfg = dataclasses.replace(cfg, affinity=KERNEL_FOR_ORDER[name])
    if name in PSI_Y_FOR_ORDER:
        cfg = dataclasses.replace(cfg, answer_similarity=PSI_Y_FOR_ORDER[name])
    same = ScoringContext(QUESTIONS, IDENTICAL, cfg, embedder=minilm, llm=FakeLLM())
    scat = ScoringContext(QUESTIONS, SCATTERED, cfg, embedder=minilm, llm=FakeLLM())
    u_same = compute_methods(same, [name], strict=True)[name].value
    u_scat = compute_methods(scat, [name], strict=True)[name].value
    assert u_same < u_scat, f"{name}: identical {u_same:.4f} should be below scattered {u_scat:.4f}"


@pytest.mark.parametrize("name", [m.name for m in list_methods() if "llm" in m.needs])
def test_llm_methods_say_why_without_llm(minilm, name):
    ctx = ScoringContext(QUESTIONS, MIXED, embedder=minilm)
    with pytest.raises(MethodUnavailable, match="needs an LLM backend"):
        compute_methods(ctx, [name], strict=True)
    assert "needs an LLM backend" in compute_methods(ctx, [name])[name].error


@pytest.mark.parametrize("name", [m.name for m in list_methods() if m.family == "baseline"])
def test_single_replication_gives_a_documented_value(minilm, name):
    ctx = ScoringContext(QUESTIONS, [[r[0]] for r in MIXED], embedder=minilm, llm=FakeLLM())
    assert np.isfinite(compute_methods(ctx, [name], strict=True)[name].value)


@pytest.mark.parametrize("spec", [None, "all", ["all"], ("all",), "all "])
def test_every_spelling_of_all_selects_every_method(spec):
    from invent_core.methods.registry import resolve_methods

    assert [m.name for m in resolve_methods(spec)] == [m.name for m in list_methods()]


def test_a_selection_names_families_and_methods_and_refuses_the_unknown():
    from invent_core.methods.registry import resolve_methods

    names = [m.name for m in resolve_methods(("inv", "lexsim"))]
    assert names[0] == "inv_entropy" and names[-1] == "lexsim"
    with pytest.raises(ValueError, match="unknown method 'bogus'; known: inv_entropy"):
        resolve_methods(["inv", "bogus"])
