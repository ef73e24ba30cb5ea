"""Graph helpers of the baselines against scipy, hand values and slow references."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.linalg
from scipy.sparse.csgraph import laplacian as scipy_laplacian

from invent_core.methods import graph as g


def _random_weights(k: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.uniform(0, 1, size=(k, k))
    w = (a + a.T) / 2
    np.fill_diagonal(w, 1.0)
    return w


def test_degree_hand_values():
    w = np.array([[1.0, 0.5, 0.2], [0.5, 1.0, 0.8], [0.2, 0.8, 1.0]])
    np.testing.assert_allclose(g.degree(w), [1.7, 2.3, 2.0])
    np.testing.assert_allclose(g.degree_matrix(w), np.diag([1.7, 2.3, 2.0]))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("kind,normed", [("unnormalized", False), ("normalized", True)])
def test_laplacian_matches_scipy(seed, kind, normed):
    w = _random_weights(6, seed)
    w0 = w.copy()
    np.fill_diagonal(w0, 0.0)  # self-loops drop out of our Laplacian
    np.testing.assert_allclose(
        g.laplacian(w, kind=kind), scipy_laplacian(w0, normed=normed), atol=1e-12
    )


def test_laplacian_hand_2x2_and_psd():
    lap = g.laplacian(np.array([[1.0, 0.3], [0.3, 1.0]]))
    np.testing.assert_allclose(lap, [[0.3, -0.3], [-0.3, 0.3]])
    lam = np.linalg.eigvalsh(g.laplacian(_random_weights(7, 3)))
    assert lam.min() > -1e-12 and abs(lam[0]) < 1e-10  # PSD with a zero eigenvalue


def test_normalized_laplacian_isolated_node_is_zero():
    w = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.5], [0.0, 0.5, 1.0]])
    lap = g.laplacian(w, kind="normalized")
    assert np.all(lap[0] == 0) and np.all(lap[:, 0] == 0)


def _expm_taylor(a: np.ndarray, terms: int = 60) -> np.ndarray:
    """Slow reference: the power series Σ A^k / k!."""
    out = np.eye(len(a))
    term = np.eye(len(a))
    for k in range(1, terms):
        term = term @ a / k
        out = out + term
    return out


@pytest.mark.parametrize("t", [0.1, 0.5, 1.0, 2.0])
def test_heat_kernel_matches_taylor_series(t):
    lap = g.laplacian(_random_weights(5, 7))
    np.testing.assert_allclose(g.heat_kernel(lap, t=t), _expm_taylor(-t * lap), atol=1e-10)


def test_heat_kernel_2x2_closed_form():
    w = 0.4
    k = g.heat_kernel(g.laplacian(np.array([[1.0, w], [w, 1.0]])), t=1.5)
    e = math.exp(-2 * 1.5 * w)  # eigenvalues of L: 0 and 2w
    np.testing.assert_allclose(k, 0.5 * np.array([[1 + e, 1 - e], [1 - e, 1 + e]]), atol=1e-12)


def test_heat_kernel_rejects_bad_t():
    with pytest.raises(ValueError, match="t must be > 0"):
        g.heat_kernel(np.zeros((2, 2)), t=0)


def test_von_neumann_entropy_hand_values():
    assert g.von_neumann_entropy(np.eye(4)) == pytest.approx(math.log(4))
    v = np.array([[1.0], [2.0], [2.0]])
    assert g.von_neumann_entropy(v @ v.T) == pytest.approx(0.0, abs=1e-12)  # rank one
    p = np.array([0.5, 0.3, 0.2])
    assert g.von_neumann_entropy(np.diag(p)) == pytest.approx(-(p * np.log(p)).sum())
    rot = scipy.linalg.expm(np.array([[0, 0.3, 0], [-0.3, 0, 0.4], [0, -0.4, 0]]))  # orthogonal
    assert g.von_neumann_entropy(rot @ np.diag(p) @ rot.T) == pytest.approx(-(p * np.log(p)).sum())


def test_unit_trace_and_errors():
    np.testing.assert_allclose(np.trace(g.unit_trace(np.diag([1.0, 3.0]))), 1.0)
    with pytest.raises(ValueError, match="unit trace"):
        g.unit_trace(np.zeros((2, 2)))


def test_shannon_entropy_and_validation():
    assert g.shannon_entropy(np.array([2 / 3, 1 / 3])) == pytest.approx(0.636514168)
    assert g.shannon_entropy(np.array([1.0, 0.0])) == 0.0
    assert str(g.shannon_entropy(np.array([1.0]))) == "0.0"  # no negative zero
    with pytest.raises(ValueError, match="sum to 1"):
        g.shannon_entropy(np.array([0.5, 0.2]))


def test_check_weights_messages():
    with pytest.raises(ValueError, match="square"):
        g.check_weights(np.ones((2, 3)))
    with pytest.raises(ValueError, match="negative entries"):
        g.check_weights(np.array([[1.0, -0.5], [-0.5, 1.0]]))
    with pytest.raises(ValueError, match="not symmetric"):
        g.check_weights(np.array([[1.0, 0.2], [0.7, 1.0]]))
    with pytest.raises(ValueError, match="non-finite"):
        g.check_weights(np.array([[1.0, np.nan], [np.nan, 1.0]]))
    with pytest.raises(ValueError, match="unknown Laplacian kind"):
        g.laplacian(np.eye(2), kind="random-walk")


def test_mean_off_diagonal():
    w = np.array([[1.0, 0.5, 0.2], [0.5, 1.0, 0.8], [0.2, 0.8, 1.0]])
    assert g.mean_off_diagonal(w) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="at least two"):
        g.mean_off_diagonal(np.eye(1))
