"""The score does not move with padding: each distinct question is scored once."""

from __future__ import annotations

import numpy as np
import pytest

from invent_core.config import ScoreConfig
from invent_core.paper.scoring import distinct_state_indices, score_from_similarity, state_scale


def _score(n_distinct: int, padding: str, *, names=None, scattered: bool = False) -> float:
    """Ten states (n = 9), ``n_distinct`` distinct questions, uniform P_x; identical answers."""
    m, r = 10, 5
    questions = [f"q{i % n_distinct}" for i in range(m)]
    responses = [["same"] * r for _ in range(m)]
    sim_x = np.where(np.equal.outer(questions, questions), 1.0, 0.5)
    sim_y = np.ones((m * r, m * r)) if not scattered else 0.5 + 0.5 * np.eye(m * r)
    questions = names or questions
    config = ScoreConfig(padding=padding, n_bootstrap=5)
    res = score_from_similarity(questions, responses, sim_x, sim_y, embedder="t", config=config)
    return res.measures["inv_entropy"]


def test_identical_answers_read_the_same_with_5_or_9_distinct_states():
    default = ScoreConfig().padding
    assert default == "distinct"
    five, nine = _score(5, default), _score(9, default)
    assert five == pytest.approx(nine) == pytest.approx(np.log(10))
    # the paper's padding does not: the copies move the score
    assert _score(5, "paper") != pytest.approx(_score(9, "paper"))


def test_the_papers_option_still_pads():
    """Under "paper" the copies are states: naming them apart changes nothing; by default it does."""
    apart = [f"x{i}" for i in range(10)]
    for padding, moved in (("paper", False), ("distinct", True)):
        copies = _score(5, padding, scattered=True)
        named_apart = _score(5, padding, names=apart, scattered=True)
        assert (copies != pytest.approx(named_apart)) is moved


def test_distinct_state_indices_and_scale():
    assert distinct_state_indices(["a", "b", "a", "c"]).tolist() == [0, 1, 3]
    assert state_scale(10, 10) == 1.0 and state_scale(10, 1) == 1.0
    assert state_scale(10, 5) == pytest.approx(np.log(10) / np.log(5))
