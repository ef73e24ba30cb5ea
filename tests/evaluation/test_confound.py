"""The count-only confound check against a brute-force count on a toy evaluation."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from invent_core.evaluation.confound import count_confound
from invent_core.evaluation.metrics import evaluate_scores
from invent_core.evaluation.metrics.bootstrap import bootstrap_indices
from invent_core.experiments.counts import distinct_answers, distinct_rewordings

# eight questions: 1 = right; Inv-Entropy ranks well, the count of distinct answers ties a lot
CORRECT = np.array([1, 1, 1, 0, 1, 0, 0, 0])
INV = np.array([0.10, 0.30, 0.20, 0.90, 0.50, 0.40, 0.80, 0.70])
ANSWERS = np.array([1, 1, 2, 3, 2, 2, 4, 2])


def brute_auroc(correct: np.ndarray, u: np.ndarray) -> float:
    """P(a wrong answer is more uncertain than a right one), ties counted half, pair by pair."""
    wins = []
    for i, j in itertools.product(range(len(u)), repeat=2):
        if correct[i] == 0 and correct[j] == 1:
            wins.append(1.0 if u[i] > u[j] else 0.5 if u[i] == u[j] else 0.0)
    return float(np.mean(wins))


def test_values_on_the_sample_match_a_brute_force_count():
    check = count_confound(CORRECT, INV, {"distinct_answers": ANSWERS}, n_bootstrap=200)[
        "distinct_answers"
    ]
    assert check.method_auroc.point == pytest.approx(brute_auroc(CORRECT, INV))  # 15/16
    assert check.count_auroc.point == pytest.approx(brute_auroc(CORRECT, ANSWERS))
    assert check.count_auroc.point == pytest.approx(14 / 16)  # worked by hand: 12 wins, 4 ties
    assert check.difference.difference == pytest.approx(15 / 16 - 14 / 16)


def test_interval_is_the_percentile_interval_of_brute_force_resamples():
    check = count_confound(CORRECT, INV, {"distinct_answers": ANSWERS}, n_bootstrap=300, seed=3)
    idx = bootstrap_indices(CORRECT, n_bootstrap=300, seed=3, require_both_classes=True)
    diffs = [brute_auroc(CORRECT[i], INV[i]) - brute_auroc(CORRECT[i], ANSWERS[i]) for i in idx]
    lo, hi = check["distinct_answers"].difference.ci95
    assert (lo, hi) == pytest.approx(tuple(np.percentile(diffs, [2.5, 97.5])))
    assert check["distinct_answers"].difference.std == pytest.approx(np.std(diffs))


def test_method_interval_is_the_one_its_evaluation_table_shows():
    table = {"inv_entropy": INV, "other": ANSWERS * 0.1}
    ev = evaluate_scores(table, CORRECT, n_bootstrap=250, seed=1)
    check = count_confound(CORRECT, INV, {"distinct_answers": ANSWERS}, n_bootstrap=250, seed=1)
    assert check["distinct_answers"].method_auroc.ci95 == ev.results["inv_entropy"]["auroc"].ci95


def test_a_count_with_a_gap_or_the_methods_name_is_refused():
    with pytest.raises(ValueError, match="distinct_answers"):
        count_confound(CORRECT, INV, {"distinct_answers": np.r_[ANSWERS[:-1], np.nan]})
    with pytest.raises(ValueError, match="inv_entropy"):
        count_confound(CORRECT, INV, {"inv_entropy": ANSWERS})


def test_to_dict_carries_both_aurocs_and_the_verdict():
    d = count_confound(CORRECT, INV, {"distinct_answers": ANSWERS}, n_bootstrap=50)[
        "distinct_answers"
    ].to_dict()
    assert set(d) == {"method", "count", "method_auroc", "count_auroc", "difference", "verdict"}
    assert d["count_auroc"]["value"] == pytest.approx(14 / 16)


def test_distinct_rewordings_leave_out_the_original_and_count_padding_once():
    qs = ["What is 2+2?", "what is  2+2?", "Compute 2+2.", "Compute 2+2.", "Add 2 and 2."]
    assert distinct_rewordings(qs) == 2
    assert distinct_rewordings(["Q?", "Q?", "q?"]) == 0


def test_distinct_answers_count_canonical_forms():
    replies = ["8", "The answer is 8.", "10", "8"]
    assert distinct_answers(replies, task="gsm8k", choices=None) == 2
    letters = ["C", "C. Exercise stress test", "Answer is D. Echocardiography"]
    assert distinct_answers(letters, task="mmlu", choices=["a", "b", "c", "d"]) == 2
