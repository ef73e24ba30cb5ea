"""The within/across-wording split of answer spread, and rank agreement between methods."""

from __future__ import annotations

import math

import numpy as np
import pytest

from invent_core.evaluation import normalize_answer, rank_correlation
from invent_core.evaluation.spread import wording_entropy_split


def test_identical_within_every_wording_different_across_is_all_across():
    answers = [["8"] * 5, ["9"] * 5, ["10"] * 5, ["8"] * 5]
    split = wording_entropy_split(answers)
    assert split.within == 0.0
    assert split.total > 0
    assert split.across == pytest.approx(split.total)
    assert split.across_share == pytest.approx(1.0)


def test_same_mixture_in_every_wording_is_all_within():
    answers = [["8", "9", "8", "9"]] * 4
    split = wording_entropy_split(answers)
    assert split.total == pytest.approx(math.log(2))
    assert split.within == pytest.approx(math.log(2))
    assert split.across == pytest.approx(0.0, abs=1e-12)
    assert split.across_share == pytest.approx(0.0, abs=1e-12)


def test_one_answer_everywhere_has_no_spread_and_key_groups_answers():
    split = wording_entropy_split([["Paris", "paris."], ["PARIS", "Paris"]], key=normalize_answer)
    assert split.total == 0.0 and math.isnan(split.across_share)


def test_parts_sum_to_total_on_a_mixed_grid():
    rng = np.random.default_rng(0)
    answers = rng.integers(0, 4, size=(10, 5)).tolist()
    split = wording_entropy_split(answers)
    assert split.within + split.across == pytest.approx(split.total)
    assert 0 <= split.within <= split.total


def test_ragged_grid_is_refused():
    with pytest.raises(ValueError, match="same number of replications"):
        wording_entropy_split([["a", "b"], ["a"]])


def test_rank_correlation_finds_monotone_methods_and_drops_unscored_rows():
    x = np.array([0.1, 0.5, 0.3, 0.9, np.nan, 0.2])
    scores = {"a": x, "b": -1 + x**2, "c": np.array([3.0, 1.0, 2.0, 0.0, 5.0, 4.0])}
    rc = rank_correlation(scores)
    assert rc.n_questions == 5
    assert rc.rho[0, 1] == pytest.approx(1.0)
    assert rc.rho[0, 2] < 0
    assert rc.coinciding() == [("a", "b")]
