"""The dual random walk and the measures: closed form, reference implementation, toy cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import wasserstein_distance

from invent_core.paper.measures import inv_entropy, max_py_x, ni_entropy, wd_px_py
from invent_core.paper.random_walk import (
    KERNEL_TAU,
    affinity_from_cosine,
    affinity_from_embeddings,
    cosine_similarity,
    p_x_given_y,
    p_x_marginal,
    p_y_given_x,
    p_y_marginal,
    random_walk,
    symmetrize,
    transition_matrix,
)
from invent_core.paper.scoring import measures_from_similarity


def eps_affinity(n: int, eps: float) -> np.ndarray:
    """The paper's §"Insights" affinity: 1 on the diagonal, 1 − ε elsewhere."""
    a = np.full((n + 1, n + 1), 1.0 - eps)
    np.fill_diagonal(a, 1.0)
    return a


def random_affinity(rng: np.random.Generator, m: int) -> np.ndarray:
    emb = rng.normal(size=(m, 8))
    return affinity_from_embeddings(emb, kind="shifted_cosine", tau=KERNEL_TAU)


# -- the paper's closed form ---------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 5, 9, 20])
@pytest.mark.parametrize("eps_x", [0.05, 0.3, 0.7, 1.0])
@pytest.mark.parametrize("eps_y", [0.0, 0.2, 0.5, 0.9, 1.0])
def test_closed_form_diagonal(n, eps_x, eps_y):
    p_x = transition_matrix(eps_affinity(n, eps_x))
    p_y = transition_matrix(eps_affinity(n, eps_y))
    diag = np.diag(p_x_given_y(p_x, p_y))
    expected = (1 + n - n * eps_x - n * eps_y + n * eps_x * eps_y) / (
        (n + 1 - n * eps_x) * (n + 1 - n * eps_y)
    )
    np.testing.assert_allclose(diag, expected, rtol=1e-12)


@pytest.mark.parametrize("n", [1, 3, 9])
def test_transition_matrix_closed_form(n):
    eps = 0.4
    p = transition_matrix(eps_affinity(n, eps))
    denom = (n + 1) - n * eps
    np.testing.assert_allclose(np.diag(p), 1 / denom)
    off = p[~np.eye(n + 1, dtype=bool)]
    np.testing.assert_allclose(off, (1 - eps) / denom)


@pytest.mark.parametrize("n", [9, 20, 50])
@pytest.mark.parametrize("eps_x", [0.1, 0.5, 0.9])
def test_inv_entropy_increases_with_output_dispersion(n, eps_x):
    """Where every P(x_i|y_i) < 1/e, H rises with ε_y (paper §Insights)."""
    p_x = transition_matrix(eps_affinity(n, eps_x))
    grid = np.linspace(0.0, 1.0, 21)
    values, diags = [], []
    for eps_y in grid:
        p_y = transition_matrix(eps_affinity(n, eps_y))
        diags.append(np.diag(p_x_given_y(p_x, p_y)).max())
        values.append(inv_entropy(p_x, p_y))
    values = np.array(values)
    below = np.array(diags) < 1 / math.e
    assert below.sum() >= 2
    assert np.all(np.diff(values[below]) > 0)


def test_inv_entropy_derivative_sign_matches_paper():
    n, eps_x, eps_y, h = 9, 0.6, 0.4, 1e-6

    def diag(ey):
        return (1 + n - n * eps_x - n * ey + n * eps_x * ey) / (
            (n + 1 - n * eps_x) * (n + 1 - n * ey)
        )

    numeric = (diag(eps_y + h) - diag(eps_y - h)) / (2 * h)
    closed = n * eps_x / ((n + 1 - n * eps_x) * (n + 1 - n * eps_y) ** 2)
    assert numeric == pytest.approx(closed, rel=1e-6)
    assert closed > 0


# -- distributions --------------------------------------------------------------
@pytest.mark.parametrize("seed", range(5))
def test_distributions_are_distributions(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 12))
    p_x = transition_matrix(random_affinity(rng, m))
    p_y = transition_matrix(random_affinity(rng, m))
    w = random_walk(p_x, p_y)
    np.testing.assert_allclose(w.p_x.sum(1), 1)
    np.testing.assert_allclose(w.p_y.sum(1), 1)
    np.testing.assert_allclose(w.p_x_given_y.sum(1), 1)  # rows: P(X | Y = y_j)
    np.testing.assert_allclose(w.p_y_given_x.sum(0), 1)  # columns: P(Y | X = x_i)
    assert w.p_y_marginal.sum() == pytest.approx(1)
    assert w.p_x_marginal.sum() == pytest.approx(1)
    # Bayes: P(y_j | x_i) P(x_i) = P(x_i | y_j) P(y_j)
    lhs = w.p_y_given_x * w.p_x_marginal[None, :]
    rhs = w.p_x_given_y * w.p_y_marginal[:, None]
    np.testing.assert_allclose(lhs, rhs, atol=1e-14)
    # the consistent marginal is π P_y P_y P_x, not the text's π P_y P_x
    pi = np.full(m, 1 / m)
    np.testing.assert_allclose(w.p_x_marginal, pi @ p_y @ p_y @ p_x)


def test_reference_implementation_loops():
    """Every matrix against a slow, independent loop over the paper's sums."""
    rng = np.random.default_rng(7)
    m = 6
    ax, ay = random_affinity(rng, m), random_affinity(rng, m)
    px_ref = np.array(
        [[ax[i, j] / sum(ax[i, k] for k in range(m)) for j in range(m)] for i in range(m)]
    )
    py_ref = np.array(
        [[ay[i, j] / sum(ay[i, k] for k in range(m)) for j in range(m)] for i in range(m)]
    )
    # Eq. (pxy): P(x_i | y_j) = Σ_k P_y[j, k] P_x[k, i]
    pxy_ref = np.array(
        [[sum(py_ref[j, k] * px_ref[k, i] for k in range(m)) for i in range(m)] for j in range(m)]
    )
    pyv_ref = np.array([sum(py_ref[i, j] for i in range(m)) / m for j in range(m)])
    joint = np.array([[pyv_ref[j] * pxy_ref[j, i] for i in range(m)] for j in range(m)])
    pxv_ref = np.array([sum(joint[j, i] for j in range(m)) for i in range(m)])
    pyx_ref = np.array([[joint[j, i] / pxv_ref[i] for i in range(m)] for j in range(m)])
    h_ref = -sum(pxy_ref[i, i] * math.log(pxy_ref[i, i]) for i in range(m))
    ni_ref = -sum(pyx_ref[i, i] * math.log(pyx_ref[i, i]) for i in range(m))
    max_ref = max(pyx_ref[i, i] for i in range(m))
    wd_ref = wasserstein_distance(np.arange(m), np.arange(m), pxv_ref, pyv_ref)

    res = measures_from_similarity(ax, ay)
    np.testing.assert_allclose(res.p_x, px_ref)
    np.testing.assert_allclose(res.p_y, py_ref)
    np.testing.assert_allclose(res.p_x_given_y, pxy_ref)
    np.testing.assert_allclose(res.p_y_marginal, pyv_ref)
    np.testing.assert_allclose(res.p_x_marginal, pxv_ref)
    np.testing.assert_allclose(res.p_y_given_x, pyx_ref)
    assert res.inv_entropy == pytest.approx(h_ref)
    assert res.ni_entropy == pytest.approx(ni_ref)
    assert res.max_py_x == pytest.approx(max_ref)
    assert res.wd_px_py == pytest.approx(wd_ref)


@pytest.mark.parametrize("seed", range(6))
def test_wd_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 10))
    p_x = transition_matrix(random_affinity(rng, m))
    p_y = transition_matrix(random_affinity(rng, m))
    px, py = p_x_marginal(p_x, p_y), p_y_marginal(p_y)
    assert wd_px_py(p_x, p_y) == pytest.approx(
        wasserstein_distance(np.arange(m), np.arange(m), px, py)
    )
    assert wd_px_py(p_x, p_y, ground="discrete") == pytest.approx(0.5 * np.abs(px - py).sum())
    assert wd_px_py(p_x, p_y, ground="released_code") == pytest.approx(wasserstein_distance(px, py))


def test_wd_batched_matches_single():
    rng = np.random.default_rng(3)
    p_x = transition_matrix(random_affinity(rng, 5))
    p_ys = np.stack([transition_matrix(random_affinity(rng, 5)) for _ in range(4)])
    for ground in ("index", "discrete", "released_code"):
        batched = wd_px_py(p_x, p_ys, ground=ground)
        single = [wd_px_py(p_x, p, ground=ground) for p in p_ys]
        np.testing.assert_allclose(batched, single)


def test_max_variants():
    rng = np.random.default_rng(11)
    p_x = transition_matrix(random_affinity(rng, 4))
    p_y = transition_matrix(random_affinity(rng, 4))
    assert max_py_x(p_x, p_y) == pytest.approx(np.diag(p_y_given_x(p_x, p_y)).max())
    assert max_py_x(p_x, p_y, variant="released_code") == pytest.approx(p_y_marginal(p_y).max())
    with pytest.raises(ValueError, match="unknown MAX variant"):
        max_py_x(p_x, p_y, variant="nope")
    with pytest.raises(ValueError, match="unknown WD ground"):
        wd_px_py(p_x, p_y, ground="nope")


# -- affinities -----------------------------------------------------------------
def test_affinity_kinds():
    emb = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    cos = cosine_similarity(emb)
    np.testing.assert_allclose(
        affinity_from_cosine(cos, kind="shifted_cosine", tau=KERNEL_TAU),
        [[1, 0, 0.5], [0, 1, 0.5], [0.5, 0.5, 1]],
    )
    np.testing.assert_allclose(
        affinity_from_cosine(cos, kind="abs_cosine", tau=KERNEL_TAU),
        [[1, 1, 0], [1, 1, 0], [0, 0, 1]],
    )
    with pytest.raises(ValueError, match="unknown affinity kind"):
        affinity_from_cosine(cos, kind="dot", tau=KERNEL_TAU)


def test_symmetrize_entailment():
    directed = np.array([[1.0, 0.9], [0.1, 1.0]])
    np.testing.assert_allclose(symmetrize(directed), [[1.0, 0.5], [0.5, 1.0]])


# -- degenerate inputs ----------------------------------------------------------
def test_identical_texts_are_finite_and_least_uncertain():
    m = 4
    same = np.ones((m, m))
    res_same = measures_from_similarity(np.ones((m, m)), same)
    res_scattered = measures_from_similarity(np.ones((m, m)) * 0.9 + np.eye(m) * 0.1, np.eye(m))
    for name in ("inv_entropy", "ni_entropy", "wd_px_py", "max_py_x"):
        assert np.isfinite(getattr(res_same, name))
    assert res_same.inv_entropy < res_scattered.inv_entropy


def test_zero_affinities_become_self_loops():
    p = transition_matrix(np.zeros((3, 3)))
    np.testing.assert_allclose(p, np.eye(3))
    res = measures_from_similarity(np.zeros((3, 3)), np.zeros((3, 3)))
    assert res.inv_entropy == 0.0  # every P(x_i|y_i) = 1: -1·log 1 = 0, no NaN


def test_single_question_n0():
    res = measures_from_similarity(np.ones((1, 1)), np.ones((1, 1)))
    assert res.inv_entropy == 0.0
    assert res.p_y_given_x.shape == (1, 1)
    assert all(np.isfinite([res.ni_entropy, res.wd_px_py, res.max_py_x]))


@pytest.mark.parametrize(
    ("bad", "msg"),
    [
        (np.array([[1.0, -0.2], [-0.2, 1.0]]), "non-negative"),
        (np.array([[1.0, np.nan], [np.nan, 1.0]]), "NaN"),
        (np.ones((2, 3)), "square"),
    ],
)
def test_bad_affinity_is_rejected(bad, msg):
    with pytest.raises(ValueError, match=msg):
        transition_matrix(bad)


def test_shape_mismatch():
    with pytest.raises(ValueError, match="same shape"):
        measures_from_similarity(np.ones((2, 2)), np.ones((3, 3)))
    with pytest.raises(ValueError, match="empty"):
        measures_from_similarity(np.ones((0, 0)), np.ones((0, 0)))


def test_ni_entropy_batched():
    rng = np.random.default_rng(5)
    p_x = transition_matrix(random_affinity(rng, 5))
    p_ys = np.stack([transition_matrix(random_affinity(rng, 5)) for _ in range(3)])
    np.testing.assert_allclose(ni_entropy(p_x, p_ys), [ni_entropy(p_x, p) for p in p_ys])
    np.testing.assert_allclose(inv_entropy(p_x, p_ys), [inv_entropy(p_x, p) for p in p_ys])


def test_the_kernel_functions_take_kind_and_tau_without_defaults():
    """Each default is written once, in ScoreConfig: the kernel functions repeat none."""
    import inspect

    from invent_core.embedders.base import CachedEmbedder, Similarity
    from invent_core.embedders.nli import NLISimilarity

    embedders = (Similarity, CachedEmbedder, NLISimilarity)  # the protocol and both kinds
    for fn in (
        affinity_from_cosine,
        affinity_from_embeddings,
        *(c.similarity_matrix for c in embedders),
    ):
        params = inspect.signature(fn).parameters
        for name in ("kind", "tau"):
            assert params[name].default is inspect.Parameter.empty, (fn.__name__, name)
            assert params[name].kind is inspect.Parameter.KEYWORD_ONLY
    with pytest.raises(TypeError):
        affinity_from_cosine(np.eye(2))
