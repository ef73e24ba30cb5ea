"""Every method has a golden test: values computed by hand on a toy case.

The Inv family is checked here on two states, by hand; each baseline's hand-value
test lives beside its code (``test_baselines.py``) and :data:`GOLDEN` names it, so
a method registered without one fails :func:`test_every_method_has_a_golden_test`.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from invent_core.config import ScoreConfig
from invent_core.methods.registry import list_methods
from invent_core.paper.measures import inv_entropy, max_py_x, ni_entropy, wd_px_py
from invent_core.paper.random_walk import transition_matrix
from invent_core.paper.scoring import measures_from_similarity

HERE = Path(__file__).resolve().parent

#: method → (test file, test function) holding its values computed by hand.
GOLDEN: dict[str, tuple[str, str]] = {
    "inv_entropy": ("test_golden.py", "test_inv_entropy_by_hand"),
    "ni_entropy": ("test_golden.py", "test_ni_entropy_and_max_by_hand"),
    "nr_inv_entropy": ("test_golden.py", "test_nr_inv_entropy_by_hand"),
    "wd_px_py": ("test_golden.py", "test_wd_and_released_max_by_hand"),
    "max_py_x": ("test_golden.py", "test_ni_entropy_and_max_by_hand"),
    "semantic_entropy": ("test_baselines.py", "test_semantic_entropy_hand_values"),
    "kernel_entropy": ("test_baselines.py", "test_kernel_entropy_hand_values"),
    "lexsim": ("test_baselines.py", "test_rouge_l_hand_values"),
    "degmat": ("test_baselines.py", "test_degmat_hand_values"),
    "luq": ("test_baselines.py", "test_luq_hand_values"),
    "kle": ("test_baselines.py", "test_kle_2x2_closed_form"),
    "verbalized": ("test_baselines.py", "test_parse_confidence_table"),
    "p_true": ("test_baselines.py", "test_p_true_logprob_form"),
}

# Two states: P_x keeps 3/4 of its mass, answers distinct (P_y = I) or all alike.
P_X = np.array([[0.75, 0.25], [0.25, 0.75]])
DISTINCT = np.eye(2)
ALIKE = np.array([[1.0, 0.0], [1.0, 0.0]])  # every answer walks to answer 0
H34 = -2 * 0.75 * math.log(0.75)  # two diagonals of 3/4: 0.4315231…


def test_every_method_has_a_golden_test():
    names = {m.name for m in list_methods()}
    assert names <= set(GOLDEN), sorted(names - set(GOLDEN))
    for method, (file, test) in GOLDEN.items():
        text = (HERE / file).read_text(encoding="utf-8")
        assert re.search(rf"^def {test}\(", text, re.M), (method, file, test)


def test_inv_entropy_by_hand():
    # P(X|Y) = P_y P_x = P_x: diagonal 3/4, 3/4 → −2 · ¾ ln ¾
    assert inv_entropy(P_X, DISTINCT) == pytest.approx(H34)
    assert H34 == pytest.approx(0.4315231, abs=1e-7)


def test_ni_entropy_and_max_by_hand():
    # uniform marginals and a symmetric walk: P(y_i | x_i) = P(x_i | y_i) = 3/4
    assert ni_entropy(P_X, DISTINCT) == pytest.approx(H34)
    assert max_py_x(P_X, DISTINCT, variant="paper") == pytest.approx(0.75)


def test_wd_and_released_max_by_hand():
    # P(Y) = π P_y = (1, 0); P(X) = π P_y P_y P_x = (1, 0) P_x = (¾, ¼)
    assert wd_px_py(P_X, ALIKE, ground="index") == pytest.approx(0.25)  # |¾ − 1| at the one step
    assert wd_px_py(P_X, ALIKE, ground="discrete") == pytest.approx(0.25)  # ½ (¼ + ¼)
    assert max_py_x(P_X, ALIKE, variant="released_code") == pytest.approx(1.0)  # max P(Y)


def test_nr_inv_entropy_by_hand():
    # affinities 3:1 row-normalise to P_x; one distinct answer per state → the same ¾ diagonal
    a_x = np.array([[3.0, 1.0], [1.0, 3.0]])
    np.testing.assert_allclose(transition_matrix(a_x), P_X)
    m = measures_from_similarity(a_x, np.eye(2), ScoreConfig())
    assert m.values["inv_entropy"] == pytest.approx(H34)
