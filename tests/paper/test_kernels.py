"""Affinity kernels: the paper's closed form, validity of exp_cosine, Δ on real MiniLM embeddings."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from invent_core.config import ScoreConfig
from invent_core.paper.measures import inv_entropy
from invent_core.paper.random_walk import (
    KERNEL_TAU,
    affinity_from_cosine,
    affinity_from_embeddings,
    cosine_similarity,
    p_x_given_y,
    transition_matrix,
)

ROOT = Path(__file__).resolve().parents[2]
KINDS = ("shifted_cosine", "abs_cosine", "exp_cosine")
#: the paper's kernel (1 + cos)/2; τ is ignored by it but has no default
PAPER = {"kind": "shifted_cosine", "tau": KERNEL_TAU}


def eps_cosine(n: int, c: float) -> np.ndarray:
    """(n+1, n+1) cosines: 1 on the diagonal, c elsewhere."""
    cos = np.full((n + 1, n + 1), c)
    np.fill_diagonal(cos, 1.0)
    return cos


def closed_form_diag(n: int, eps_x: float, eps_y: float) -> float:
    """Paper §"Insights into Inv-Entropy": P(x_i | y_i) for ε-affinities."""
    return (1 + n - n * eps_x - n * eps_y + n * eps_x * eps_y) / (
        (n + 1 - n * eps_x) * (n + 1 - n * eps_y)
    )


# -- the paper's kernel still gives the paper's closed form ---------------------
@pytest.mark.parametrize("n", [1, 4, 9])
@pytest.mark.parametrize("cx, cy", [(0.9, 0.2), (0.5, -0.3), (0.99, 0.99), (-1.0, 1.0)])
def test_closed_form_through_the_paper_kernel(n, cx, cy):
    sim_x = affinity_from_cosine(eps_cosine(n, cx), **PAPER)  # (1 + cos)/2 = 1 − ε
    sim_y = affinity_from_cosine(eps_cosine(n, cy), **PAPER)
    eps_x, eps_y = (1 - cx) / 2, (1 - cy) / 2
    diag = np.diag(p_x_given_y(transition_matrix(sim_x), transition_matrix(sim_y)))
    np.testing.assert_allclose(diag, closed_form_diag(n, eps_x, eps_y), rtol=1e-12)


@pytest.mark.parametrize("tau", [0.05, 0.25, 1.0])
def test_closed_form_through_exp_kernel(tau):
    """exp_cosine of a constant cosine is an ε-affinity with 1 − ε = exp((c − 1)/τ)."""
    n, cx, cy = 9, 0.8, 0.3
    sim_x = affinity_from_cosine(eps_cosine(n, cx), kind="exp_cosine", tau=tau)
    sim_y = affinity_from_cosine(eps_cosine(n, cy), kind="exp_cosine", tau=tau)
    eps_x, eps_y = 1 - np.exp((cx - 1) / tau), 1 - np.exp((cy - 1) / tau)
    diag = np.diag(p_x_given_y(transition_matrix(sim_x), transition_matrix(sim_y)))
    np.testing.assert_allclose(diag, closed_form_diag(n, eps_x, eps_y), rtol=1e-12)


# -- exp_cosine is a valid affinity ------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("tau", [0.01, 0.1, KERNEL_TAU, 3.0])
def test_exp_kernel_is_a_valid_affinity(seed, tau):
    emb = np.random.default_rng(seed).normal(size=(12, 16))
    a = affinity_from_embeddings(emb, kind="exp_cosine", tau=tau)
    assert a.shape == (12, 12)
    assert np.all(a >= 0) and np.all(a <= 1)
    np.testing.assert_allclose(a, a.T, rtol=0, atol=1e-15)
    np.testing.assert_allclose(np.diag(a), 1.0, rtol=1e-12)
    p = transition_matrix(a)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)


def test_exp_kernel_values_and_order():
    cos = np.array([[1.0, 0.9, -1.0], [0.9, 1.0, 0.0], [-1.0, 0.0, 1.0]])
    a = affinity_from_cosine(cos, kind="exp_cosine", tau=0.5)
    np.testing.assert_allclose(a, np.exp((cos - 1) / 0.5))
    assert a[0, 1] > a[1, 2] > a[0, 2] > 0  # increasing in cos, never zero
    # sharper than the paper's kernel: the same cosines spread over more of [0, 1]
    paper = affinity_from_cosine(cos, **PAPER)
    assert a[0, 1] - a[1, 2] > paper[0, 1] - paper[1, 2]
    # τ → ∞ flattens it to all ones; batched input keeps its shape
    np.testing.assert_allclose(affinity_from_cosine(cos, kind="exp_cosine", tau=1e9), 1.0)
    batch = affinity_from_cosine(np.stack([cos, cos]), kind="exp_cosine", tau=0.5)
    assert batch.shape == (2, 3, 3)


def test_bad_kernel_arguments():
    cos = np.eye(2)
    with pytest.raises(ValueError, match="tau of the exp_cosine affinity must be > 0"):
        affinity_from_cosine(cos, kind="exp_cosine", tau=0.0)
    with pytest.raises(ValueError, match="unknown affinity kind 'dot'.*'exp_cosine'"):
        affinity_from_cosine(cos, kind="dot", tau=KERNEL_TAU)


def test_kernel_config_fields():
    cfg = ScoreConfig(affinity="exp_cosine", kernel_tau=0.1)
    assert cfg.kernel_tau == 0.1 and ScoreConfig().kernel_tau == KERNEL_TAU
    with pytest.raises(ValueError, match=r"ScoreConfig.kernel_tau must be in \[0.001, 10\]"):
        ScoreConfig(kernel_tau=0.0)
    with pytest.raises(ValueError, match="ScoreConfig.affinity must be one of"):
        ScoreConfig(affinity="dot")


# -- NLI similarity: what a kind means there -------------------------------------------
class _FixedNLI:
    """NLISimilarity's kind logic on a fixed directed entailment matrix (no model)."""

    def __init__(self, directed: np.ndarray) -> None:
        from invent_core.embedders.nli import NLISimilarity

        self._directed = directed
        self.similarity_matrix = NLISimilarity.similarity_matrix.__get__(self)

    def directed_matrix(self, texts):
        return self._directed


def test_nli_kinds():
    directed = np.array([[1.0, 0.9, 0.0], [0.7, 1.0, 0.2], [0.0, 0.4, 1.0]])
    nli = _FixedNLI(directed)
    s = (directed + directed.T) / 2
    np.testing.assert_allclose(
        nli.similarity_matrix(["a", "b", "c"], kind="shifted_cosine", tau=KERNEL_TAU), s
    )
    sharp = nli.similarity_matrix(["a", "b", "c"], kind="exp_cosine", tau=0.5)
    np.testing.assert_allclose(sharp, np.exp(2 * (s - 1) / 0.5))
    np.testing.assert_allclose(np.diag(sharp), 1.0)
    with pytest.raises(ValueError, match="'abs_cosine' is not defined for an NLI similarity"):
        nli.similarity_matrix(["a"], kind="abs_cosine", tau=KERNEL_TAU)
    with pytest.raises(ValueError, match="unknown affinity kind 'dot'"):
        nli.similarity_matrix(["a"], kind="dot", tau=KERNEL_TAU)


# -- identical vs scattered answers on real embeddings ---------------------------------
def inv_entropy_bootstrap(sim_x, sim_y_all, r, *, n_bootstrap=30, seed=0) -> float:
    """Ĥ of Eq. (meanentropy): mean Inv-Entropy over B resamples of one answer per state."""
    m = sim_x.shape[0]
    idx = np.random.default_rng(seed).integers(0, r, size=(n_bootstrap, m))
    flat = np.arange(m) * r + idx  # (B, m) rows of sim_y_all
    sim_y = sim_y_all[flat[:, :, None], flat[:, None, :]]  # (B, m, m)
    return float(inv_entropy(transition_matrix(sim_x), transition_matrix(sim_y)).mean())


@pytest.fixture(scope="module")
def golfer():
    run = json.loads((ROOT / "assets" / "demo_run.json").read_text())
    return run["questions"], run["responses"]


@pytest.mark.slow
def test_identical_vs_scattered_delta_per_kernel(minilm, golfer, capsys):
    questions, scattered = golfer
    m, r = len(questions), len(scattered[0])
    identical = [["Tom Watson"] * r for _ in questions]
    kernels = [("shifted_cosine", KERNEL_TAU), ("abs_cosine", KERNEL_TAU)]
    kernels += [("exp_cosine", t) for t in (0.05, 0.1, KERNEL_TAU, 0.5)]
    deltas = {}
    lines = []
    for kind, tau in kernels:
        h = {}
        for name, responses in (("identical", identical), ("scattered", scattered)):
            flat = [t for reps in responses for t in reps]
            a = affinity_from_cosine(
                cosine_similarity(minilm.encode(questions + flat)), kind=kind, tau=tau
            )
            h[name] = inv_entropy_bootstrap(a[:m, :m], a[m:, m:], r)
        label = kind if kind != "exp_cosine" else f"exp_cosine τ={tau:g}"
        deltas[label] = h["scattered"] - h["identical"]
        lines.append(
            f"{label:22s} identical {h['identical']:.4f}  scattered {h['scattered']:.4f}"
            f"  Δ {deltas[label]:+.4f}"
        )
    with capsys.disabled():
        print("\nInv-Entropy, golfer question (demo_run.json), MiniLM, r=5, B=30:")
        print("\n".join(lines))
    assert deltas["shifted_cosine"] < 0.05  # the issue: the paper's kernel barely moves
    assert deltas[f"exp_cosine τ={KERNEL_TAU:g}"] >= 0.05  # the default kernel tells the two apart
    assert deltas[f"exp_cosine τ={KERNEL_TAU:g}"] > 10 * deltas["shifted_cosine"]
    assert deltas["exp_cosine τ=0.05"] < 0  # too sharp: past the 1/e turning point


@pytest.mark.slow
def test_embedder_similarity_matrix_takes_the_kernel(minilm):
    texts = ["Tom Watson", "Tiger Woods", "Which golfer won in 1982?"]
    for kind in KINDS:
        got = minilm.similarity_matrix(texts, kind=kind, tau=0.2)
        np.testing.assert_allclose(
            got, affinity_from_embeddings(minilm.encode(texts), kind=kind, tau=0.2), rtol=1e-6
        )
    default = minilm.similarity_matrix(texts, kind="exp_cosine", tau=KERNEL_TAU)
    np.testing.assert_allclose(
        default, affinity_from_embeddings(minilm.encode(texts), kind="exp_cosine", tau=KERNEL_TAU)
    )
