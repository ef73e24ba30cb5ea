"""Bootstrap and score_responses: vectorised vs loop, seeds, permutations, validation."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid

import numpy as np
import pytest

from invent_core.config import ScoreConfig
from invent_core.engine.scoring import score_responses, validate_responses
from invent_core.paper.measures import inv_entropy, max_py_x, ni_entropy, wd_px_py
from invent_core.paper.random_walk import KERNEL_TAU, affinity_from_embeddings, transition_matrix
from invent_core.paper.scoring import (
    MEASURE_NAMES,
    ScoreResult,
    bootstrap_measures,
    replication_indices,
    score_from_similarity,
)


def synthetic(m: int, r: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    paper = {"kind": "shifted_cosine", "tau": ScoreConfig().kernel_tau}
    sim_x = affinity_from_embeddings(rng.normal(size=(m, 6)), **paper)
    sim_y = affinity_from_embeddings(rng.normal(size=(m * r, 6)), **paper)
    return sim_x, sim_y


def loop_bootstrap(sim_x, sim_y_all, r, idx):
    """Obviously-correct reference: one resample at a time."""
    m = sim_x.shape[0]
    p_x = transition_matrix(sim_x)
    out = {k: [] for k in ("inv_entropy", "ni_entropy", "wd_px_py", "max_py_x")}
    for b in range(idx.shape[0]):
        rows = [i * r + idx[b, i] for i in range(m)]
        sub = np.array([[sim_y_all[a, c] for c in rows] for a in rows])
        p_y = transition_matrix(sub)
        out["inv_entropy"].append(inv_entropy(p_x, p_y))
        out["ni_entropy"].append(ni_entropy(p_x, p_y))
        out["wd_px_py"].append(wd_px_py(p_x, p_y))
        out["max_py_x"].append(max_py_x(p_x, p_y))
    return {k: np.array(v) for k, v in out.items()}


@pytest.mark.parametrize(("m", "r", "b"), [(10, 5, 30), (3, 2, 7), (1, 4, 3), (5, 1, 4)])
def test_vectorised_bootstrap_equals_loop(m, r, b):
    sim_x, sim_y = synthetic(m, r)
    fast = bootstrap_measures(
        sim_x, sim_y, r, ScoreConfig(n_bootstrap=b), rng=np.random.default_rng(42)
    )
    idx = replication_indices(m, r, b, np.random.default_rng(42))
    slow = loop_bootstrap(sim_x, sim_y, r, idx)
    for k in slow:
        np.testing.assert_allclose(fast[k], slow[k], rtol=1e-10, atol=1e-12)


def test_same_seed_same_numbers_other_seed_differs():
    sim_x, sim_y = synthetic(6, 4)
    qs = [f"q{i}" for i in range(6)]
    rs = [[f"a{i}{k}" for k in range(4)] for i in range(6)]
    a = score_from_similarity(qs, rs, sim_x, sim_y, embedder="t", config=ScoreConfig(seed=3))
    b = score_from_similarity(qs, rs, sim_x, sim_y, embedder="t", config=ScoreConfig(seed=3))
    c = score_from_similarity(qs, rs, sim_x, sim_y, embedder="t", config=ScoreConfig(seed=4))
    np.testing.assert_array_equal(a.values["inv_entropy"], b.values["inv_entropy"])
    assert not np.array_equal(a.values["inv_entropy"], c.values["inv_entropy"])


def test_permuting_replications_leaves_distribution_unchanged():
    """Relabelling the replications of a state permutes which index is drawn,
    not the distribution: enumerate all r^m resamples exactly on a small case."""
    m, r = 3, 3
    sim_x, sim_y = synthetic(m, r, seed=9)
    perm = np.array([2, 0, 1])
    order = np.concatenate([i * r + perm for i in range(m)])
    sim_y_perm = sim_y[np.ix_(order, order)]

    def exact_values(sy):
        grid = np.array(np.meshgrid(*[range(r)] * m, indexing="ij")).reshape(m, -1).T  # (r^m, m)
        return np.sort(loop_bootstrap(sim_x, sy, r, grid)["inv_entropy"])

    np.testing.assert_allclose(exact_values(sim_y), exact_values(sim_y_perm))
    # and the Monte-Carlo estimates agree within sampling error for large B
    big = {}
    for name, sy in (("a", sim_y), ("b", sim_y_perm)):
        big[name] = bootstrap_measures(
            sim_x, sy, r, ScoreConfig(n_bootstrap=20000), rng=np.random.default_rng(1)
        )
    assert big["a"]["inv_entropy"].mean() == pytest.approx(big["b"]["inv_entropy"].mean(), abs=2e-3)


def test_b_equals_one_and_r_equals_one():
    sim_x, sim_y = synthetic(4, 1)
    qs, rs = [f"q{i}" for i in range(4)], [[f"a{i}"] for i in range(4)]
    res = score_from_similarity(
        qs, rs, sim_x, sim_y, embedder="t", config=ScoreConfig(n_bootstrap=1)
    )
    assert all(np.isfinite(v) for v in res.measures.values())
    # with r = 1 every resample is the single response: bootstrap = NR
    assert res.measures["inv_entropy"] == pytest.approx(res.measures["nr_inv_entropy"])
    with pytest.raises(ValueError, match="n_bootstrap must be at least 1"):
        ScoreConfig(n_bootstrap=0)


def test_score_result_roundtrip():
    sim_x, sim_y = synthetic(3, 2)
    qs, rs = ["a", "b", "c"], [["x", "y"], ["z", "w"], ["u", "v"]]
    res = score_from_similarity(
        qs, rs, sim_x, sim_y, embedder="t", config=ScoreConfig(n_bootstrap=5)
    )
    back = ScoreResult.from_dict(json.loads(json.dumps(res.to_dict())))
    assert back.measures == res.measures
    np.testing.assert_allclose(back.walk.p_x_given_y, res.walk.p_x_given_y)
    np.testing.assert_allclose(back.values["inv_entropy"], res.values["inv_entropy"])
    lo, hi = back.interval("inv_entropy")
    assert lo <= back.measures["inv_entropy"] <= hi


@pytest.mark.parametrize(
    ("questions", "responses", "msg"),
    [
        ([], [], "questions is empty"),
        ("What?", [["a"]], "must be a list"),
        (["q", "p"], [["a"]], "got 2 questions but responses for 1"),
        (
            ["q", "p"],
            [["a", "b"], ["c"]],
            r"ragged responses: question 0 has 2 replications but question 1 has 1",
        ),
        (["q"], [[]], r"responses\[0\] is empty"),
        (["q"], [[3]], r"responses\[0\]\[0\] is int"),
        ([None], [["a"]], r"questions\[0\] is NoneType"),
    ],
)
def test_validation_messages(questions, responses, msg):
    with pytest.raises(ValueError, match=msg):
        validate_responses(questions, responses)


def test_import_is_light():
    code = (
        "import sys, invent_core, invent_core.paper.scoring, invent_core.methods.registry, invent_core.paper.measures;"
        "invent_core.measures_from_similarity;"
        "bad=[m for m in ('torch','transformers','sentence_transformers','streamlit','keybert','nltk','openai','xllamacpp') if m in sys.modules];"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


# -- real packaged models ------------------------------------------------------
QUESTIONS = [
    "What is the capital of France?",
    "Which city is the capital of France?",
    "Name the capital city of France.",
    "France's capital is which city?",
]


@pytest.mark.slow
def test_score_responses_real_minilm_consistent_vs_scattered(minilm):
    consistent = [["Paris"] * 3 for _ in QUESTIONS]
    scattered = [
        ["Paris", "Lyon", "Marseille"],
        ["Nice", "Paris", "Bordeaux"],
        ["Toulouse", "Lille", "Paris"],
        ["Strasbourg", "Nantes", "Paris"],
    ]
    a = score_responses(QUESTIONS, consistent, ScoreConfig(n_bootstrap=20), embedder=minilm)
    b = score_responses(QUESTIONS, scattered, ScoreConfig(n_bootstrap=20), embedder=minilm)
    assert set(a.measures) == set(MEASURE_NAMES)
    assert a.measures["inv_entropy"] < b.measures["inv_entropy"]
    assert a.values["inv_entropy"].shape == (20,)
    assert a.embedder.startswith("minilm:") and "sha256" in a.embedder
    assert a.sim_y.shape == (12, 12)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["minilm", "mpnet"])
def test_packaged_embedders_paraphrase_beats_unrelated(name):
    import os

    from invent_core.embedders import get_embedder

    assert os.environ["HF_HUB_OFFLINE"] == "1"
    emb = get_embedder(name)
    s = emb.similarity_matrix(
        [
            "A man is playing a guitar.",
            "Someone plays the guitar.",
            "The stock market fell sharply today.",
        ],
        kind="shifted_cosine",
        tau=KERNEL_TAU,
    )
    assert s[0, 1] > s[0, 2] + 0.15
    assert s[0, 1] > s[1, 2] + 0.15
    np.testing.assert_allclose(np.diag(s), 1.0, atol=1e-5)
    vecs = emb.encode(["hello", "hello", "world"])
    assert vecs.shape == (3, emb.dimension)
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)


@pytest.mark.slow
def test_each_distinct_text_embedded_once(minilm):
    before = minilm.stats.encoded
    # new texts each time: the embedding store on disk keeps those of earlier test runs
    tag = uuid.uuid4().hex
    texts = [f"unique text alpha {tag}", f"unique text beta {tag}", f"unique text alpha {tag}"]
    minilm.encode(texts)
    minilm.encode(texts)
    assert minilm.stats.encoded - before == 2


def test_corrupt_weights_are_refused(tmp_path):
    from invent_core.errors import ModelFileError
    from invent_core.packaged import verify_file

    f = tmp_path / "model.safetensors"
    f.write_bytes(b"x" * 10)
    with pytest.raises(ModelFileError, match="has 10 bytes, expected 11"):
        verify_file(f, size=11, sha256="0" * 64)
    with pytest.raises(ModelFileError, match="sha256 .* expected 0000"):
        verify_file(f, size=10, sha256="0" * 64)


def test_unknown_embedder():
    from invent_core.embedders import get_embedder

    with pytest.raises(ValueError, match="unknown embedder 'bert-huge'"):
        get_embedder("bert-huge")


@pytest.mark.slow
def test_cli_score_json(tmp_path):
    path = tmp_path / "in.json"
    path.write_text(
        json.dumps(
            {"questions": QUESTIONS[:2], "responses": [["Paris", "Paris"], ["Paris", "Lyon"]]}
        )
    )
    out = subprocess.run(
        [sys.executable, "-m", "invent_core", "score", str(path), "--json", "-B", "10"],
        capture_output=True,
        text=True,
        check=True,
    )
    data = json.loads(out.stdout)
    assert set(data["measures"]) == set(MEASURE_NAMES)
    assert data["n_perturbations"] == 1 and data["n_replications"] == 2
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"questions": ["a", "b"], "responses": [["x", "y"], ["z"]]}))
    out = subprocess.run(
        [sys.executable, "-m", "invent_core", "score", str(bad)], capture_output=True, text=True
    )
    assert out.returncode == 2
    assert "ragged responses" in out.stderr and "Traceback" not in out.stderr
