"""Intervals and paired differences against brute force on toy data; the centre is the sample value."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest

from invent_core.evaluation.metrics import (
    AHEAD,
    BEHIND,
    CONVENTIONS,
    N_BOOTSTRAP,
    NOT_DISTINGUISHABLE,
    PAPER_N_BOOTSTRAP,
    Evaluation,
    PairedDifference,
    auroc_score,
    bootstrap_indices,
    evaluate_scores,
    percentile_interval,
)
from invent_core.evaluation.metrics.paired import (
    bootstrap_p_value,
    holm_adjusted,
    paired_difference,
)
from invent_core.evaluation.tables import results_table

ROOT = Path(__file__).resolve().parents[2]


def _brute_auroc(c, u) -> float:
    """P(a right answer is less uncertain than a wrong one), ties 1/2, over every pair."""
    right = [x for x, ok in zip(u, c) if ok]
    wrong = [x for x, ok in zip(u, c) if not ok]
    wins = sum(1.0 if r < w else 0.5 if r == w else 0.0 for r, w in itertools.product(right, wrong))
    return wins / (len(right) * len(wrong))


def _brute_percentile(values, q) -> float:
    """Linear interpolation between order statistics (numpy's default), by hand."""
    v = sorted(values)
    pos = (len(v) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def _toy(n=30, seed=1):
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 2, n)
    c[:2] = [0, 1]
    u = np.round(rng.normal(size=n) - c, 1)  # rounded: ties on purpose
    return c, u


def test_auroc_equals_the_pairwise_count():
    c, u = _toy()
    assert auroc_score(c, u) == pytest.approx(_brute_auroc(c, u))
    # a hand case: right answers 0.1, 0.5; wrong 0.3, 0.5 -> wins 1 + 1 + 0 + 0.5 over 4
    assert auroc_score([1, 1, 0, 0], [0.1, 0.5, 0.3, 0.5]) == pytest.approx(2.5 / 4)


def test_the_centre_is_the_sample_value_and_the_interval_a_percentile_bootstrap():
    c, u = _toy()
    ev = evaluate_scores({"a": u}, c, n_bootstrap=200, seed=3, metrics=("auroc",))
    cell = ev.results["a"]["auroc"]
    assert cell.point == pytest.approx(_brute_auroc(c, u))
    assert cell.centre() == cell.point and cell.centre("bootstrap_mean") == cell.mean
    idx = bootstrap_indices(c, n_bootstrap=200, seed=3)
    by_hand = [_brute_auroc(c[i], u[i]) for i in idx]
    np.testing.assert_allclose(cell.values, by_hand)
    lo, hi = cell.ci95
    assert lo == pytest.approx(_brute_percentile(by_hand, 2.5))
    assert hi == pytest.approx(_brute_percentile(by_hand, 97.5))
    assert cell.std == pytest.approx(np.std(by_hand))
    # the table shows the sample value, with the interval after the std
    table = results_table(ev)
    assert table.mean[0, 0] == cell.point
    assert f"[{lo:.3f}, {hi:.3f}]" in table.to_markdown()
    assert "auroc_ci_low" in table.to_csv()


def test_the_defaults_and_the_papers_convention():
    assert N_BOOTSTRAP >= 1000 and PAPER_N_BOOTSTRAP == 40
    assert CONVENTIONS["ours"].centre == "sample" and CONVENTIONS["ours"].n_bootstrap == N_BOOTSTRAP
    assert CONVENTIONS["paper"].centre == "bootstrap_mean"
    c, u = _toy()
    ev = evaluate_scores({"a": u}, c, metrics=("auroc",))
    assert ev.n_bootstrap == N_BOOTSTRAP and ev.results["a"]["auroc"].values.size == N_BOOTSTRAP
    paper = evaluate_scores(
        {"a": u}, c, n_bootstrap=PAPER_N_BOOTSTRAP, metrics=("auroc",), centre="bootstrap_mean"
    )
    assert results_table(paper).mean[0, 0] == paper.results["a"]["auroc"].mean


def test_paired_differences_against_brute_force():
    c, u = _toy(n=40, seed=5)
    rng = np.random.default_rng(9)
    v = u + rng.normal(scale=0.8, size=u.size)
    ev = evaluate_scores({"a": u, "b": v, "c": -u}, c, n_bootstrap=300, seed=2, metrics=("auroc",))
    ev = ev.with_paired(["a"])
    d = ev.paired["a"]["b"]
    idx = bootstrap_indices(c, n_bootstrap=300, seed=2)
    diffs = [_brute_auroc(c[i], u[i]) - _brute_auroc(c[i], v[i]) for i in idx]
    assert d.difference == pytest.approx(_brute_auroc(c, u) - _brute_auroc(c, v))
    assert d.std == pytest.approx(np.std(diffs))
    assert d.ci95[0] == pytest.approx(_brute_percentile(diffs, 2.5))
    assert d.ci95[1] == pytest.approx(_brute_percentile(diffs, 97.5))
    # the reversed score is behind by a clear margin
    assert ev.paired["a"]["c"].verdict == AHEAD
    z = 1.959963984540054 + 0.8416212335729143  # 5 % level, 80 % power
    expected = max(
        math.ceil(40 * (z * d.std / abs(d.difference)) ** 2),
        *([41] if d.verdict == NOT_DISTINGUISHABLE else []),
    )
    assert d.questions_needed == expected
    # JSON round trip keeps every figure, and writes the verdict out
    back = Evaluation.from_dict(json.loads(json.dumps(ev.to_dict())))
    assert back.paired["a"]["b"] == d
    assert ev.to_dict()["paired"]["a"]["c"]["verdict"] == AHEAD
    assert ev.to_dict()["results"]["a"]["auroc"]["ci95"] == list(ev.results["a"]["auroc"].ci95)


@pytest.mark.parametrize(
    ("ci", "higher", "verdict"),
    [
        ((0.01, 0.2), True, AHEAD),
        ((-0.2, -0.01), True, BEHIND),
        ((-0.05, 0.2), True, NOT_DISTINGUISHABLE),
        ((-0.2, -0.01), False, AHEAD),  # lower is better (Brier): a negative difference is ahead
        ((0.0, 0.2), True, NOT_DISTINGUISHABLE),  # an end at 0 does not exclude it
    ],
)
def test_a_verdict_follows_from_the_interval_alone(ci, higher, verdict):
    d = PairedDifference("a", "b", "auroc", 0.1, 0.05, ci, 50, higher)
    assert d.verdict == verdict


def test_no_difference_needs_no_sample_size():
    assert PairedDifference("a", "b", "auroc", 0.0, 0.05, (-0.1, 0.1), 50).questions_needed is None


def test_percentile_interval_of_nothing_is_nan():
    assert all(math.isnan(x) for x in percentile_interval([]))


def test_a_difference_not_told_apart_never_needs_fewer_questions_than_it_has():
    # |d| = 3.1 std: the normal approximation says 81 questions would do (80 % power), but
    # the (skewed) percentile interval holds 0 at 100: the count must not contradict it
    d = PairedDifference("a", "b", "ece", -0.15, 0.048, (-0.097, 0.103), 100, False)
    assert d.verdict == NOT_DISTINGUISHABLE
    assert d.questions_needed == 101


def test_folding_whole_questions_keeps_the_value_on_the_sample():
    """With one answer per group the folds are the partition the cross-fit always drew."""
    from invent_core.evaluation.metrics.calibration import cross_fit_folds

    rng = np.random.default_rng(0)
    old = np.array_split(rng.permutation(37), 5)
    fold = cross_fit_folds(37, 5, 0)
    assert [sorted(np.flatnonzero(fold == k)) for k in range(5)] == [sorted(t) for t in old]
    copies = np.array([3, 3, 3, 7, 7, 1, 2, 4, 5, 6, 8, 9])  # a resample's indices
    fold = cross_fit_folds(copies, 5, 0)
    for q in (3, 7):
        assert len(set(fold[copies == q])) == 1  # every copy of a question in one fold


SHIPPED = ROOT / "docs" / "results"


def _side(name: str, method: str):
    from invent_core.experiments.comparison import read_side

    rows = read_side(SHIPPED / name).rows
    return (
        np.array([int(r["correct"]) for r in rows]),
        np.array([float(r[method]) for r in rows]),
    )


@pytest.mark.parametrize("folder", ["evaluate-arithmetic-100", "evaluate-arithmetic-100-gaap"])
def test_every_shipped_interval_holds_its_value_on_the_sample(folder):
    """The cross-fitted losses' resamples are biased (copies of a question, fewer distinct ones)."""
    c, u = _side(folder, "inv_entropy")
    ev = evaluate_scores(
        {"inv_entropy": u}, c, metrics=("auroc", "prr", "brier", "brier_cv", "ece")
    )
    for metric, cell in ev.results["inv_entropy"].items():
        lo, hi = cell.ci95
        assert lo <= cell.point <= hi, (metric, cell.point, cell.ci95)


def test_compare_ece_difference_lies_in_its_own_interval():
    """The probe's case: A − B was −0.120 with the interval [−0.097, +0.103] and 69 needed."""
    from invent_core.evaluation.compare import compare_sides

    a, b = (
        _side("evaluate-arithmetic-100", "inv_entropy"),
        _side("evaluate-arithmetic-100-gaap", "inv_entropy"),
    )
    (ece,) = compare_sides(a, b, metrics=("ece",))
    d = ece.difference
    assert d.ci95[0] <= d.difference <= d.ci95[1]
    if d.verdict == NOT_DISTINGUISHABLE:
        assert d.questions_needed > d.n_questions


def test_holm_keeps_a_family_of_comparisons_at_five_percent():
    """One reference against many: a difference whose own 95 % interval just excludes 0 is
    not a verdict once Holm's wider interval holds 0; a clear one stays."""
    rng = np.random.default_rng(0)
    clear = rng.normal(0.30, 0.05, 2000)  # far from 0
    borderline = rng.normal(0.045, 0.02, 2000)  # its 95 % interval excludes 0, barely
    noise = [rng.normal(0.0, 0.05, 2000) for _ in range(8)]
    row = {"clear": clear, "borderline": borderline, **{f"n{i}": v for i, v in enumerate(noise)}}
    diffs = {o: paired_difference("ref", o, "auroc", (float(np.mean(v)), 0.0),
                                  (v, np.zeros_like(v)), n_questions=100)
             for o, v in row.items()}  # fmt: skip
    assert diffs["borderline"].verdict == AHEAD  # alone, at 95 %
    holm = holm_adjusted(diffs)
    assert holm["clear"].verdict == AHEAD and holm["clear"].holm.rank == 0
    assert holm["clear"].holm.level == pytest.approx(1 - 0.05 / 10)
    b = holm["borderline"]
    assert b.holm.rank == 1 and b.holm.level == pytest.approx(1 - 0.05 / 9)
    assert b.holm.ci[0] < b.ci95[0]  # wider than its own 95 % interval
    assert all(holm[f"n{i}"].verdict == NOT_DISTINGUISHABLE for i in range(8))
    back = PairedDifference.from_dict(json.loads(json.dumps(b.to_dict())))
    assert back.holm == b.holm and back.verdict == b.verdict


def test_holm_stops_at_the_first_difference_it_cannot_tell_apart():
    # 1.5 % of a's resamples are below 0, 2 % of b's: a comes first (smaller p) and its
    # 97.5 % interval holds 0, so b is not a verdict although its own 95 % interval excludes 0
    def resamples(n_below: int) -> np.ndarray:
        return np.concatenate([np.full(n_below, -0.01), np.linspace(0.01, 0.2, 1000 - n_below)])

    diffs = {o: paired_difference("ref", o, "auroc", (0.1, 0.0), (resamples(k), np.zeros(1000)),
                                  n_questions=100) for o, k in (("a", 15), ("b", 20))}  # fmt: skip
    assert diffs["b"].verdict == AHEAD
    holm = holm_adjusted(diffs)
    assert holm["a"].holm.rank == 0 and not holm["a"].holm.significant
    assert holm["b"].holm.rank == 1 and not holm["b"].holm.significant
    assert holm["b"].verdict == NOT_DISTINGUISHABLE


def test_bootstrap_p_value_is_two_sided_and_never_zero():
    assert bootstrap_p_value(np.full(99, 0.5)) == pytest.approx(2 / 100)
    assert bootstrap_p_value(np.array([-1.0, 1.0] * 50)) == 1.0
    assert bootstrap_p_value(np.array([])) == 1.0
