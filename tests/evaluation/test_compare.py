"""Paired differences of two sides against a brute-force reference, and the rank disagreement."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from invent_core.evaluation.compare import compare_sides, disagreement, paired_indices
from invent_core.evaluation.metrics import METRICS, bootstrap_indices, evaluate_scores


def _toy(seed: int, n: int = 30):
    rng = np.random.default_rng(seed)
    ca = rng.integers(0, 2, n)
    cb = np.where(rng.random(n) < 0.2, 1 - ca, ca)  # another model: some labels differ
    ua = rng.normal(size=n) - ca  # right answers a little less uncertain
    ub = rng.normal(size=n) - 0.3 * cb
    return (ca, ua), (cb, ub)


def auroc_by_pairs(correct, uncertainty) -> float:
    """AUROC by counting every (right, wrong) pair: the right one less uncertain wins, a tie half."""
    right = [u for c, u in zip(correct, uncertainty, strict=True) if c]
    wrong = [u for c, u in zip(correct, uncertainty, strict=True) if not c]
    wins = sum(1.0 if r < w else 0.5 if r == w else 0.0 for r, w in itertools.product(right, wrong))
    return wins / (len(right) * len(wrong))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_auroc_difference_and_interval_match_a_brute_force_loop(seed):
    a, b = _toy(seed)
    idx = paired_indices(a[0], b[0], n_bootstrap=200, seed=seed)
    (got,) = compare_sides(a, b, metrics=["auroc"], indices=idx)
    assert got.value_a == pytest.approx(auroc_by_pairs(*a))
    assert got.value_b == pytest.approx(auroc_by_pairs(*b))
    assert got.difference.difference == pytest.approx(got.value_a - got.value_b)
    diffs = [
        auroc_by_pairs(a[0][i], a[1][i]) - auroc_by_pairs(b[0][i], b[1][i]) for i in idx
    ]  # the same resample on both sides, question by question
    lo, hi = np.percentile(diffs, [2.5, 97.5])
    assert got.difference.ci95 == pytest.approx((lo, hi))
    assert got.difference.std == pytest.approx(np.std(diffs))


@pytest.mark.parametrize("metric", ["prr", "brier"])
def test_every_metric_is_differenced_resample_by_resample(metric):
    a, b = _toy(5)
    idx = paired_indices(a[0], b[0], n_bootstrap=100, seed=3)
    (got,) = compare_sides(a, b, metrics=[metric], indices=idx)
    f = METRICS[metric].func
    diffs = [f(a[0][i], a[1][i]) - f(b[0][i], b[1][i]) for i in idx]
    assert got.difference.ci95 == pytest.approx(tuple(np.percentile(diffs, [2.5, 97.5])))
    assert got.difference.higher_is_better is METRICS[metric].higher_is_better


def test_every_resample_holds_both_classes_on_both_sides():
    a, b = _toy(7, n=14)
    idx = paired_indices(a[0], b[0], n_bootstrap=300, seed=0)
    assert idx.shape == (300, 14)
    for labels in (a[0], b[0]):
        sums = labels[idx].sum(axis=1)
        assert ((sums > 0) & (sums < 14)).all()


def test_two_methods_of_one_evaluation_give_the_results_paired_block():
    """Same labels: the resamples and the difference are those evaluate already reports."""
    (c, u1), (_, u2) = _toy(3)
    ev = evaluate_scores({"m1": u1, "m2": u2}, c, n_bootstrap=150, seed=4).with_paired(["m1"])
    assert np.array_equal(paired_indices(c, c, n_bootstrap=150, seed=4),
                          bootstrap_indices(c, n_bootstrap=150, seed=4))  # fmt: skip
    (got,) = compare_sides((c, u1), (c, u2), names=("m1", "m2"), metrics=["auroc"],
                           n_bootstrap=150, seed=4)  # fmt: skip
    want = ev.paired["m1"]["m2"]
    assert got.difference.difference == pytest.approx(want.difference)
    assert got.difference.ci95 == pytest.approx(want.ci95)


def test_a_side_with_one_class_is_refused():
    c = np.array([0, 1, 0, 1, 1])
    with pytest.raises(ValueError, match="side b's answers are all judged the same"):
        paired_indices(c, np.ones(5), n_bootstrap=10)


def test_disagreement_is_the_distance_between_percentiles():
    u = np.array([0.1, 0.5, 2.0, 9.0])
    assert disagreement(u, u * 100).tolist() == [0, 0, 0, 0]  # same order, other units
    assert disagreement(u, -u).tolist() == pytest.approx([1, 1 / 3, 1 / 3, 1])
