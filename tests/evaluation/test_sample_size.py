"""Honest small samples: judgeable(), best_methods() / unmarked tables, draw_sample()."""

from __future__ import annotations

import numpy as np
import pytest

from invent_core.evaluation.metrics import evaluate_scores
from invent_core.evaluation.sample_size import (
    MIN_PER_CLASS,
    MIN_QUESTIONS,
    Judgement,
    best_methods,
    draw_sample,
    judgeable,
)
from invent_core.evaluation.tables import results_table, tsu_results_table
from invent_core.questions.datasets import load_dataset


@pytest.mark.parametrize(
    ("args", "ok", "reason"),
    [
        ((12, 6), False, "too few to judge: 12 questions (< 20)"),
        ((1, None), False, "too few to judge: 1 question (< 20)"),
        ((40, 3), False, "only 3 correct answers (< 5)"),
        ((40, 39), False, "only 1 wrong answer (< 5)"),
        ((40, 1, 39), False, "only 1 correct answer (< 5)"),
        ((3, 0), False, "n/a — all answers wrong"),  # undefined beats "too few"
        ((211, 0), False, "n/a — all answers wrong"),
        ((25, 25), False, "n/a — all answers correct"),
        ((0, 0), False, "n/a — no questions"),
        ((20, 5), True, "n = 20 (5 correct, 15 wrong)"),
        ((50, 31, 19), True, "n = 50 (31 correct, 19 wrong)"),
        ((30, None), True, "n = 30"),
    ],
)
def test_judgeable_reasons(args, ok, reason):
    j = judgeable(*args)
    assert j == Judgement(ok, reason)
    got_ok, got_reason = j  # unpacks as a pair
    assert (got_ok, got_reason) == (ok, reason)


def test_judgeable_thresholds_are_the_stated_ones_and_can_be_changed():
    assert (MIN_QUESTIONS, MIN_PER_CLASS) == (20, 5)
    assert judgeable(19, 10).ok is False and judgeable(20, 10).ok is True
    assert judgeable(20, 4).ok is False and judgeable(20, 5).ok is True
    assert judgeable(4, 2, min_n=3, min_class=2).ok is True
    assert judgeable(2, unit="run").reason == "too few to judge: 2 runs (< 20)"


def _evaluation(n: int, n_correct: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    correct = np.zeros(n, dtype=int)
    correct[:n_correct] = 1
    good = -correct + 0.3 * rng.standard_normal(n)  # uncertainty tracks wrongness
    bad = rng.standard_normal(n)
    return evaluate_scores({"good": good, "bad": bad}, correct, n_bootstrap=10, seed=0)


def test_best_methods_on_a_judgeable_sample():
    ev = _evaluation(60, 30)
    table = results_table(ev, metrics=["auroc", "brier"])
    j = judgeable(ev.n_questions, ev.n_correct)
    assert j.ok
    assert best_methods(table, j) == {"auroc": ("good",), "brier": ("good",)}
    assert "**" in table.to_markdown() and r"\textbf" in table.to_latex()
    assert ",best" in table.to_csv()


def test_small_sample_is_never_bold_anywhere():
    ev = _evaluation(12, 6)
    table = results_table(ev, metrics=["auroc", "brier"])
    j = judgeable(ev.n_questions, ev.n_correct)
    assert not j.ok
    assert best_methods(table, j) == {}
    shown = table.unmarked()
    assert not shown.marks().any()
    assert "**" not in shown.to_markdown() and "<ins>" not in shown.to_markdown()
    assert r"\textbf{0" not in shown.to_latex() and r"\underline" not in shown.to_latex()
    assert ",best" not in shown.to_csv() and ",second" not in shown.to_csv()
    np.testing.assert_array_equal(shown.mean, table.mean)  # the numbers stay


def test_one_question_tsu_table_marks_nothing():
    # TSU on one question showed 0 / 100 % and bolded 0.00 as best
    tsu = {"inv_entropy": {"0.3→0.7": 0.0}, "semantic_entropy": {"0.3→0.7": 1.0}}
    table = tsu_results_table(tsu)
    j = judgeable(1)
    assert not j.ok and best_methods(table, j) == {}
    assert "**" not in table.unmarked().to_markdown()


def test_draw_sample_is_reproducible_and_reports_its_seed():
    items = list(range(300))
    a = draw_sample(items, 15, 7)
    b = draw_sample(items, 15, 7)
    assert a == b and a.seed == 7 and a.population == 300
    assert len(a.items) == 15 and len(set(a.items)) == 15
    assert a.items != items[:15]  # not the file order
    assert [items[i] for i in a.indices] == a.items
    assert draw_sample(items, 15, 8).items != a.items
    assert a.describe() == "15 of 300 questions, drawn with seed 7"


def test_draw_sample_without_a_seed_draws_one_and_says_which():
    items = list("abcdefghij")
    s = draw_sample(items, 4, None)
    assert isinstance(s.seed, int) and s.seed >= 0
    assert draw_sample(items, 4, s.seed) == s


def test_draw_sample_limit_none_or_large_shuffles_all():
    items = list(range(10))
    for limit in (None, 10, 50):
        s = draw_sample(items, limit, 0)
        assert sorted(s.items) == items and len(s.items) == 10


def test_draw_sample_matches_load_dataset_with_the_same_seed():
    population = load_dataset("mmlu")
    drawn = draw_sample(population, 15, 3)
    loaded = load_dataset("mmlu", limit=15, seed=3)
    assert [e.question for e in drawn.items] == [e.question for e in loaded]
    # the first 15 MMLU questions are one template; a draw is not
    first = {e.question.split()[0] for e in population[:15]}
    assert len({e.question.split()[0] for e in drawn.items}) > len(first)


@pytest.mark.parametrize(
    ("limit", "seed", "match"),
    [
        (0, 0, "limit must be a positive integer"),
        (2.5, 0, "limit must be a positive integer"),
        (True, 0, "limit must be a positive integer"),
        (3, -1, "seed must be a non-negative integer"),
        (3, "1", "seed must be a non-negative integer"),
    ],
)
def test_draw_sample_validates(limit, seed, match):
    with pytest.raises(ValueError, match=match):
        draw_sample([1, 2, 3], limit, seed)


def test_a_multiple_choice_sample_must_beat_guessing():
    """MMLU at 22 % right against 25 % of guessing is not judgeable; 40 % is."""
    from invent_core.evaluation.sample_size import above_guessing, guess_rate

    assert guess_rate([4, 4, 4]) == 0.25 and guess_rate([4, None]) is None
    assert guess_rate([2, 4]) == pytest.approx(0.375)
    low = judgeable(100, 22, guess=0.25)
    assert not low.ok and "not clearly above the 25% of guessing" in low.reason
    assert judgeable(100, 40, guess=0.25).ok
    assert judgeable(100, 22).ok  # free text: no guess rate
    clear, p = above_guessing(100, 35, 0.25)
    from scipy.stats import binom

    assert clear and p == pytest.approx(binom.sf(34, 100, 0.25))
