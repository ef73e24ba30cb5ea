"""The eight baselines of the paper's Table 1 against hand-computed values and independent references."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from test_registry_contract import QUESTIONS, FakeLLM

from invent_core.config import ScoreConfig
from invent_core.errors import MethodUnavailable
from invent_core.llm.base import Completion
from invent_core.methods import (
    degmat,
    kernel_entropy,
    kle,
    lexsim,
    luq,
    p_true,
    semantic_entropy,
    verbalized,
)
from invent_core.methods.entailment import (
    DEFAULT_EMBEDDING_THRESHOLD,
    EmbeddingJudge,
    LLMJudge,
    NLIJudge,
    entailment_matrix,
    equivalent,
    get_judge,
    response_weights,
    yes_probability,
)
from invent_core.methods.registry import ScoringContext, get_method
from invent_core.paper.random_walk import KERNEL_TAU

W3 = np.array([[1.0, 0.5, 0.2], [0.5, 1.0, 0.8], [0.2, 0.8, 1.0]])


def _ctx(minilm, answers, **kw):
    """A context whose original question has ``answers`` (perturbations repeat them)."""
    return ScoringContext(QUESTIONS, [list(answers) for _ in QUESTIONS], embedder=minilm, **kw)


# --- Semantic Entropy ---------------------------------------------------------------


def test_semantic_entropy_hand_values():
    assert semantic_entropy.discrete_semantic_entropy([0, 0, 1]) == pytest.approx(
        -(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3))
    )
    assert semantic_entropy.discrete_semantic_entropy([0, 1, 2, 3]) == pytest.approx(math.log(4))
    assert semantic_entropy.discrete_semantic_entropy([5, 5, 5]) == 0.0


def test_clustering_greedy_against_first_member_and_order_free():
    # a ~ b, b ~ c but not a ~ c: greedy compares to the cluster's first member (Kuhn et al.)
    pairs = {frozenset("ab"), frozenset("bc")}
    same = lambda x, y: frozenset((x, y)) in pairs  # noqa: E731
    ids = semantic_entropy.cluster_by_equivalence(["c", "a", "b", "a"], same)
    assert ids == [1, 0, 0, 0]  # visits a, b (joins a), c (not ~ a) → {a, b}, {c}
    for perm in itertools.permutations(["c", "a", "b", "a"]):
        got = semantic_entropy.cluster_by_equivalence(list(perm), same)
        assert sorted(np.bincount(got)) == [1, 3]


def test_semantic_entropy_with_embedding_judge(minilm):
    ctx = _ctx(minilm, ["Paris", "Paris, France", "London"])
    value = get_method("semantic_entropy").compute(ctx)
    assert value == pytest.approx(-(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3)))
    assert ctx.extras["semantic_entropy"] == {
        "judge": "embedding",
        "clusters": [1, 1, 0],
    }  # sorted visit: London first


@pytest.mark.parametrize("with_logprobs", [False, True])
def test_semantic_entropy_with_llm_judge(minilm, with_logprobs):
    llm = FakeLLM(with_logprobs=with_logprobs)
    ctx = _ctx(minilm, ["paris.", "Paris", "London", "Rome"], llm=llm, entailment="llm")
    assert get_method("semantic_entropy").compute(ctx) == pytest.approx(
        -(0.5 * math.log(0.5) + 2 * 0.25 * math.log(0.25))
    )
    assert all(c["temperature"] == 0.0 and c["logprobs"] for c in llm.calls)


def test_llm_judge_needs_llm(minilm):
    ctx = _ctx(minilm, ["Paris", "London"], entailment="llm")
    with pytest.raises(MethodUnavailable, match="judge 'llm' needs an LLM backend"):
        get_method("semantic_entropy").compute(ctx)


# --- entailment judges --------------------------------------------------------------


def test_get_judge_specs(tmp_path, minilm):
    assert isinstance(get_judge(None, similarity=minilm), EmbeddingJudge)
    assert get_judge("embedding", similarity=minilm, threshold=0.9).threshold == 0.9
    assert isinstance(get_judge("llm", llm=FakeLLM()), LLMJudge)
    judge = EmbeddingJudge(minilm)
    assert get_judge(judge) is judge
    with pytest.raises(ValueError, match="unknown entailment judge 'nope'"):
        get_judge("nope")
    with pytest.raises(TypeError, match="entailment must be"):
        get_judge(3)
    with pytest.raises(ValueError, match="threshold must be in"):
        EmbeddingJudge(minilm, threshold=0)


def test_embedding_judge_threshold(minilm):
    judge = EmbeddingJudge(minilm)
    assert judge.threshold == DEFAULT_EMBEDDING_THRESHOLD
    assert judge.entails("Paris", "Paris, France")
    assert not judge.entails("Paris", "London")
    assert equivalent(judge, "Tom Watson", "Watson")
    m = entailment_matrix(judge, ["Paris", "London"])
    np.testing.assert_allclose(
        m, minilm.similarity_matrix(["Paris", "London"], kind="shifted_cosine", tau=KERNEL_TAU)
    )


def test_yes_probability_logprobs_and_text():
    lp = Completion(
        "Yes", logprobs=[["Yes", math.log(0.6)], [" no", math.log(0.2)], ["Maybe", math.log(0.2)]]
    )
    assert yes_probability(lp) == pytest.approx(0.75)  # renormalised over Yes/No
    assert yes_probability(Completion("No, they differ.")) == 0.0
    assert yes_probability(Completion("yes")) == 1.0
    assert yes_probability(Completion("I think the answer is yes")) == 1.0
    assert yes_probability(Completion("unclear")) == 0.0
    assert (
        yes_probability(Completion("Yes", logprobs=[["Maybe", 0.0]])) == 1.0
    )  # falls back to text


def test_llm_judge_directed_and_memoised():
    llm = FakeLLM(with_logprobs=True)
    judge = LLMJudge(llm)
    assert judge.probability("William Shakespeare", "Shakespeare", question="q") == pytest.approx(
        0.95
    )
    assert judge.probability("William Shakespeare", "Shakespeare", question="q") == pytest.approx(
        0.95
    )
    assert len(llm.calls) == 1
    assert "If Answer 1 is true" in llm.calls[0]["messages"][0]["content"]
    assert judge.equivalent("Rome", "Paris") is False
    assert (
        judge.equivalent("Paris", "Rome") is False and len(llm.calls) == 2
    )  # unordered pair asked once


# --- Kernel Entropy -------------------------------------------------------------------


def test_kernel_entropy_hand_values():
    assert kernel_entropy.predictive_kernel_entropy(W3) == pytest.approx(-(0.5 + 0.2 + 0.8) / 3)
    assert kernel_entropy.predictive_kernel_entropy(np.ones((4, 4))) == -1.0
    assert kernel_entropy.predictive_kernel_entropy(np.eye(1)) == -1.0
    with pytest.raises(ValueError, match="square"):
        kernel_entropy.predictive_kernel_entropy(np.ones(3))


def test_kernel_entropy_reference_on_embeddings(minilm):
    answers = ["Paris", "London", "the city of Paris", "Rome"]
    ctx = _ctx(minilm, answers, config=ScoreConfig(baseline_answers="embedding"))
    e = minilm.encode(answers).astype(np.float64)
    ref = -np.mean([(1 + e[i] @ e[j]) / 2 for i in range(4) for j in range(4) if i != j])
    assert get_method("kernel_entropy").compute(ctx) == pytest.approx(ref, abs=1e-6)


# --- LexSim -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "a,b,expected",
    [
        (
            "the cat sat on the mat",
            "the cat lay on a mat",
            2 / 3,
        ),  # LCS the,cat,on,mat: P = R = 4/6
        (
            "George Washington was first",
            "Washington, first president",
            4 / 7,
        ),  # LCS 2; P 2/3, R 2/4
        ("Paris", "paris!", 1.0),
        ("Paris", "London", 0.0),
        ("", "", 1.0),
        ("", "Paris", 0.0),
    ],
)
def test_rouge_l_hand_values(a, b, expected):
    assert lexsim.rouge_l(a, b) == pytest.approx(expected)
    assert lexsim.rouge_l(b, a) == pytest.approx(expected)


def _lcs_brute(a, b):
    """Slow reference: the longest subsequence of a that is a subsequence of b."""

    def is_subseq(s, t):
        it = iter(t)
        return all(x in it for x in s)

    for k in range(len(a), 0, -1):
        if any(is_subseq(c, b) for c in itertools.combinations(a, k)):
            return k
    return 0


def test_lcs_against_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(60):
        a = list(rng.choice(list("abcd"), size=rng.integers(0, 8)))
        b = list(rng.choice(list("abcd"), size=rng.integers(0, 8)))
        assert lexsim.lcs_length(a, b) == _lcs_brute(a, b)


def test_lexsim_method(minilm):
    ctx = _ctx(minilm, ["the cat sat on the mat", "the cat lay on a mat", "the cat sat on the mat"])
    assert get_method("lexsim").compute(ctx) == pytest.approx(1 - (2 / 3 + 1 + 2 / 3) / 3)


# --- DegMat, LUQ, KLE ---------------------------------------------------------------


def test_degmat_hand_values():
    assert degmat.degree_uncertainty(W3) == pytest.approx(1 - 6.0 / 9)  # Σ W = 3 + 2·1.5
    assert degmat.degree_uncertainty(np.ones((3, 3))) == 0.0
    assert degmat.degree_uncertainty(np.eye(4)) == pytest.approx(3 / 4)


def test_luq_hand_values():
    # one unit per answer: C_i = mean_{j≠i} W[j, i] → (0.35, 0.65, 0.5), U = 1 − 0.5
    sents = [["a"], ["b"], ["c"]]
    assert luq.luq_uncertainty(sents, lambda i, k, j: W3[j, i]) == pytest.approx(0.5)
    # sample 0 has two sentences supported (0.9, 0.3) by sample 1; sample 1 supported 0.6 by 0
    table = {(0, 0, 1): 0.9, (0, 1, 1): 0.3, (1, 0, 0): 0.6}
    assert luq.luq_uncertainty(
        [["s1", "s2"], ["t1"]], lambda i, k, j: table[(i, k, j)]
    ) == pytest.approx(1 - (0.6 + 0.6) / 2)
    assert luq.luq_uncertainty([["only"]], lambda i, k, j: 1.0) == 0.0


def test_split_sentences():
    assert luq.split_sentences("Paris") == ["Paris"]
    assert luq.split_sentences("It is Paris. It is in France!  Really?") == [
        "It is Paris.",
        "It is in France!",
        "Really?",
    ]


def test_luq_long_answers_use_sentence_support(minilm):
    answers = [
        "Paris is the capital. It lies on the Seine.",
        "The capital is Paris.",
        "It is Lyon.",
    ]
    ctx = _ctx(minilm, answers)
    sents = [luq.split_sentences(a) for a in answers]
    flat = [s for ss in sents for s in ss]
    sim = minilm.similarity_matrix(flat + answers, kind="shifted_cosine", tau=KERNEL_TAU)
    cross = sim[: len(flat), len(flat) :]
    # reference by hand: sentence rows 0,1 belong to answer 0; 2 to answer 1; 3 to answer 2
    c0 = np.mean([np.mean([cross[0, 1], cross[0, 2]]), np.mean([cross[1, 1], cross[1, 2]])])
    c1 = np.mean([cross[2, 0], cross[2, 2]])
    c2 = np.mean([cross[3, 0], cross[3, 1]])
    assert get_method("luq").compute(ctx) == pytest.approx(1 - np.mean([c0, c1, c2]))


def test_luq_equals_scaled_degmat_on_short_answers(minilm):
    ctx = _ctx(minilm, ["Paris", "London", "Rome", "Paris"])
    r = 4
    assert get_method("luq").compute(ctx) == pytest.approx(
        r / (r - 1) * get_method("degmat").compute(ctx)
    )


def test_kle_2x2_closed_form():
    w, t = 0.5, 1.0
    e = math.exp(-2 * t * w)  # heat-kernel eigenvalues 1 and e^{-2tw}
    p = np.array([1, e]) / (1 + e)
    assert kle.kernel_language_entropy(np.array([[1, w], [w, 1]]), t=t) == pytest.approx(
        -(p * np.log(p)).sum()
    )


def test_kle_3x3_against_eigendecomposition_reference():
    lap = np.diag(W3.sum(1) - 1) - (W3 - np.eye(3))  # D − W without self-loops, by hand
    lam, v = np.linalg.eigh(lap)
    k = v @ np.diag(np.exp(-0.7 * lam)) @ v.T
    mu = np.linalg.eigvalsh(k / np.trace(k))
    assert kle.kernel_language_entropy(W3, t=0.7) == pytest.approx(-(mu * np.log(mu)).sum())


def test_kle_orientation():
    """Identical answers (all weights 1) must score below scattered ones (weights ≈ 0.5) and disconnected ones."""
    same = kle.kernel_language_entropy(np.ones((5, 5)))
    scattered = kle.kernel_language_entropy(np.full((5, 5), 0.5) + 0.5 * np.eye(5))
    disconnected = kle.kernel_language_entropy(np.eye(5))
    assert same < scattered < disconnected == pytest.approx(math.log(5))


def test_response_weights_default_is_the_shared_matrix(minilm):
    embedding = ScoreConfig(baseline_answers="embedding")  # the published comparison
    ctx = _ctx(minilm, ["Paris", "London", "Rome"], config=embedding)
    w, source = response_weights(ctx)
    assert source == "affinity"
    np.testing.assert_array_equal(w, ctx.original_affinity)
    # the baselines' kernel is (1 + cos)/2 whatever kernel the Inv measures use
    e = minilm.encode(["Paris", "London", "Rome"]).astype(np.float64)
    np.testing.assert_allclose(ctx.original_affinity, (1 + e @ e.T) / 2, atol=1e-6)
    paper = _ctx(
        minilm,
        ["Paris", "London", "Rome"],
        config=ScoreConfig(
            affinity="shifted_cosine", baseline_answers="embedding", answer_similarity="embedding"
        ),
    )  # the walk's ψ_y the paper's way: then its matrix is the baselines' one
    np.testing.assert_allclose(paper.original_affinity, np.asarray(paper.score.sim_y)[:3, :3])
    np.testing.assert_allclose(paper.original_affinity, ctx.original_affinity, atol=1e-6)


def test_response_weights_with_llm_judge(minilm):
    ctx = _ctx(
        minilm,
        ["Paris", "paris", "London"],
        llm=FakeLLM(with_logprobs=True),
        entailment="llm",
        config=ScoreConfig(baseline_answers="embedding"),  # the judge's weights alone
    )
    w, source = response_weights(ctx)
    assert source == "entailment:llm"
    np.testing.assert_allclose(
        w, [[1, 0.95, 0.05], [0.95, 1, 0.05], [0.05, 0.05, 1]]
    )  # P(Yes) of the double
    assert get_method("degmat").compute(ctx) == pytest.approx(1 - (3 + 2 * 0.95 + 4 * 0.05) / 9)


# --- Verbalized Uncertainty -------------------------------------------------------------

PARSE_TABLE = [
    ("85%", 0.85),
    ("I am 85% confident.", 0.85),
    ("85 percent", 0.85),
    ("about 85 per cent sure", 0.85),
    ("Confidence: 85.5 %", 0.855),
    ("0.85", 0.85),
    ("My confidence is 0.9", 0.9),
    ("eighty-five percent", 0.85),
    ("Ninety percent sure", 0.9),
    ("a hundred percent", 1.0),
    ("80-90%", 0.85),
    ("between 70 and 80 percent", 0.75),
    ("8/10", 0.8),
    ("7 out of 10", 0.7),
    ("Confidence: 85", 0.85),
    ("150%", 1.0),
    ("Confidence: high", 0.8),
    ("very high", 0.95),
    ("I am certain.", 0.95),
    ("moderate", 0.6),
    ("I'm not sure", 0.3),
    ("uncertain", 0.3),
    ("low", 0.3),
    ("very low", 0.1),
    ("Paris", None),
    ("", None),
]


@pytest.mark.parametrize("text,expected", PARSE_TABLE)
def test_parse_confidence_table(text, expected):
    got = verbalized.parse_confidence(text)
    if expected is None:
        assert got is None
    else:
        assert got == pytest.approx(expected)


def test_verbalized_followup_and_cache(minilm):
    llm = FakeLLM()
    ctx = _ctx(minilm, ["Shakespeare", "Marlowe", "Shakespeare", "Shakespeare"], llm=llm)
    assert get_method("verbalized").compute(ctx) == pytest.approx(1 - (3 * 0.9 + 0.2) / 4)
    assert len(llm.calls) == 2  # one per distinct answer
    msgs = llm.calls[0]["messages"]
    assert [m["role"] for m in msgs] == ["user", "assistant", "user"]
    assert msgs[0]["content"].endswith("Answer concisely and return only the name.")
    assert msgs[2]["content"] == "And use a percentage to tell me your confidence in your answer."
    # a re-score on the same extras asks nothing
    ctx2 = _ctx(
        minilm, ["Shakespeare", "Marlowe", "Shakespeare", "Shakespeare"], llm=llm, extras=ctx.extras
    )
    get_method("verbalized").compute(ctx2)
    assert len(llm.calls) == 2


def test_verbalized_single_prompt_and_fallback(minilm):
    class Says(FakeLLM):
        def complete(self, messages, **kw):
            self.calls.append(messages)
            return Completion("The answer is Paris.")

    llm = Says()
    ctx = _ctx(minilm, ["Paris"], llm=llm)
    assert verbalized.compute(ctx, verbalized.VUConfig(mode="single")) == pytest.approx(1 - 0.5)
    assert llm.calls[0][0]["content"].endswith(
        "And use a percentage to tell me your confidence in your answer."
    )


def test_verbalized_pipeline_confidence_is_used(minilm):
    ctx = _ctx(minilm, ["Paris"], extras={"verbalized_confidence": [0.8, 0.6]})
    assert get_method("verbalized").compute(ctx) == pytest.approx(0.3)


# --- P(True) ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,expected",
    [(" (A) True", True), ("(B)", False), ("A", True), ("B) False", False), ("True", True), ("false.", False),
     ("a city", None), ("", None)],
)  # fmt: skip
def test_parse_true_false(text, expected):
    assert p_true.parse_true_false(text) is expected


def test_p_true_sampled(minilm):
    llm = FakeLLM()
    ctx = _ctx(minilm, ["Shakespeare", "Marlowe", "Marlowe"], llm=llm, temperature=0.7)
    assert get_method("p_true").compute(ctx) == pytest.approx(1 - 1 / 3)
    sampled = [c for c in llm.calls if not c["logprobs"]]
    assert len(sampled) == 2 * p_true.DEFAULT_CONFIG.n_samples
    assert {c["temperature"] for c in sampled} == {0.7}
    assert len({c["seed"] for c in sampled}) == p_true.DEFAULT_CONFIG.n_samples
    assert ctx.extras["p_true"]["answers"]["Marlowe"]["votes"] == [False] * 5


def test_p_true_logprob_form(minilm):
    llm = FakeLLM(with_logprobs=True)
    ctx = _ctx(minilm, ["Shakespeare", "Marlowe"], llm=llm)
    assert get_method("p_true").compute(ctx) == pytest.approx(1 - (0.9 + 0.1) / 2)
    assert len(llm.calls) == 2 and all(c["logprobs"] for c in llm.calls)
    assert ctx.extras["p_true"]["answers"]["Shakespeare"]["form"] == "logprobs"


def test_p_true_logprob_mass_elsewhere_falls_back():
    c = Completion(" (", logprobs=[[" (", 0.0]])
    assert p_true.p_true_from_logprobs(c) is None
    assert p_true.p_true_from_logprobs(Completion("A")) is None


# --- an NLI model folder as the judge (tiny random BERT built here; nothing downloaded) ---


@pytest.mark.slow
def test_nli_folder_judge_feeds_the_graph_baselines(minilm, tiny_nli):
    answers = ["Paris", "London", "Rome"]
    embedding = ScoreConfig(baseline_answers="embedding")  # the judge's weights alone
    ctx = _ctx(minilm, answers, entailment=str(tiny_nli), config=embedding)
    judge = get_judge(str(tiny_nli))
    assert isinstance(judge, NLIJudge) and judge.gives_probabilities
    directed = judge.nli.directed_matrix(answers)
    w, source = response_weights(ctx)
    assert source.startswith("entailment:nli:")
    np.testing.assert_allclose(w, (directed + directed.T) / 2)
    assert get_method("degmat").compute(ctx) == pytest.approx(degmat.degree_uncertainty(w))
    assert judge.probability("Paris", "London") == pytest.approx(directed[0, 1])
    for name in ("semantic_entropy", "luq", "kle", "degmat"):
        assert np.isfinite(get_method(name).compute(ctx))
    ruled, _ = response_weights(_ctx(minilm, answers, entailment=str(tiny_nli)))
    np.testing.assert_array_equal(ruled, np.eye(3))  # the rules: three different cities


# --- the real local LLM ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def local_llm(tmp_path_factory):
    from invent_core.llm import available_llms, get_llm

    if "qwen0.5b" not in available_llms():
        pytest.skip("the packaged local LLM is not installed")
    llm = get_llm("local", cache=tmp_path_factory.mktemp("llm-cache") / "cache.sqlite")
    yield llm
    llm.close()


@pytest.mark.slow
def test_llm_baselines_with_the_real_local_llm(minilm, local_llm):
    answers = ["Paris", "Paris", "Lyon"]
    qs = ["What is the capital of France?", "Which city is the capital of France?"]
    ctx = ScoringContext(
        qs,
        [answers, answers],
        ScoreConfig(seed=0),
        embedder=minilm,
        llm=local_llm,
        entailment="llm",
    )
    values = {n: get_method(n).compute(ctx) for n in ("verbalized", "p_true", "semantic_entropy")}
    assert all(np.isfinite(v) for v in values.values()), values
    assert 0.0 <= values["verbalized"] <= 1.0 and 0.0 <= values["p_true"] <= 1.0
    assert 0.0 <= values["semantic_entropy"] <= math.log(2) + 1e-9
    assert set(ctx.extras["verbalized_uncertainty"]["asked"]) == {"Paris", "Lyon"}
    # re-scoring from the stored extras is free and identical
    again = ScoringContext(
        qs,
        [answers, answers],
        ScoreConfig(seed=0),
        embedder=minilm,
        llm=local_llm,
        extras=ctx.extras,
    )
    assert get_method("verbalized").compute(again) == values["verbalized"]
    assert get_method("p_true").compute(again) == values["p_true"]
