"""Metrics against scikit-learn, brute force and hand-computed toys."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

from invent_core.evaluation.metrics import (
    METRICS,
    N_BOOTSTRAP,
    auprc_released_code_score,
    auroc_score,
    bootstrap_indices,
    brier_isotonic_loss,
    confidence_from_uncertainty,
    ece_loss,
    evaluate_scores,
    isotonic_probabilities,
    paired_bootstrap,
    prr_score,
    rejection_curve,
    reliability_diagram,
    tsu_chain,
    tsu_label,
    tsu_pair,
    tsu_score,
    tsu_table,
)


def _toy(n=120, seed=0, ties=False):
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 2, n)
    u = rng.normal(size=n) - 0.8 * c
    if ties:
        u = np.round(u, 0)  # few distinct values -> many ties
    return c, u


def _auroc_pairs(c, u):
    """Brute force: P(conf_correct > conf_incorrect) + 1/2 P(tie)."""
    conf = -u
    pos, neg = conf[c == 1], conf[c == 0]
    wins = sum((p > q) + 0.5 * (p == q) for p in pos for q in neg)
    return wins / (pos.size * neg.size)


def _prr_brute(c, u):
    """Malinin's PRR averaged over every tie-breaking order of the rejection sequence."""
    n = c.size
    e = 1 - c

    def area(order):
        kept_err = e.sum() - np.r_[0, np.cumsum(e[order])]
        return np.trapezoid(kept_err / n, np.arange(n + 1) / n)

    groups = [np.flatnonzero(u == v) for v in sorted(set(u), reverse=True)]
    areas = []
    for perms in itertools.product(*[itertools.permutations(g) for g in groups]):
        areas.append(area(np.concatenate(perms).astype(int)))
    a_model = np.mean(areas)
    a_rand = e.mean() / 2
    a_orac = area(np.argsort(c, kind="stable"))
    return (a_rand - a_model) / (a_rand - a_orac)


# --- confidence and input checks ------------------------------------------------


def test_confidence_is_negative_uncertainty():
    np.testing.assert_array_equal(confidence_from_uncertainty([1.0, -2.0, 0.5]), [-1.0, 2.0, -0.5])


@pytest.mark.parametrize(
    ("c", "u", "msg"),
    [
        ([1, 0], [0.1], "same length"),
        ([1, 0], [0.1, np.nan], "non-finite"),
        ([1, 2], [0.1, 0.2], "only 0/1"),
        ([], [], "empty"),
        ([[1, 0]], [[0.1, 0.2]], "1-D"),
    ],
)
def test_inputs_are_validated(c, u, msg):
    with pytest.raises(ValueError, match=msg):
        auroc_score(c, u)


@pytest.mark.parametrize("name", ["auroc", "prr", "auprc"])
def test_single_class_raises(name):
    with pytest.raises(ValueError, match="all 4 answers are correct"):
        METRICS[name].func([1, 1, 1, 1], [0.1, 0.2, 0.3, 0.4])
    with pytest.raises(ValueError, match="all 3 answers are incorrect"):
        METRICS[name].func([0, 0, 0], [0.1, 0.2, 0.3])


# --- AUROC ---------------------------------------------------------------------


@pytest.mark.parametrize("ties", [False, True])
def test_auroc_matches_sklearn_and_pair_counting(ties):
    c, u = _toy(ties=ties)
    got = auroc_score(c, u)
    assert got == pytest.approx(roc_auc_score(c, -u))
    assert got == pytest.approx(_auroc_pairs(c, u))


def test_auroc_direction_and_bool_labels():
    c = np.array([True, True, False, False])
    assert auroc_score(c, [0.1, 0.2, 0.8, 0.9]) == 1.0  # correct answers are less uncertain
    assert auroc_score(c, [0.9, 0.8, 0.2, 0.1]) == 0.0
    assert auroc_score(c, [0.5, 0.5, 0.5, 0.5]) == 0.5


# --- PRR -----------------------------------------------------------------------


def test_prr_hand_computed_toy():
    # n=4, errors at the two answers ranked 1st and 3rd most uncertain.
    c = np.array([0, 1, 0, 1])
    u = np.array([4.0, 3.0, 2.0, 1.0])
    # kept errors after k rejections: 2,1,1,0,0 -> /4 ; trapezoid step 1/4
    e = np.array([2, 1, 1, 0, 0]) / 4
    a_model = np.sum((e[1:] + e[:-1]) / 2) / 4  # 0.1875
    a_random = 0.5 / 2  # 0.25
    o = np.array([2, 1, 0, 0, 0]) / 4
    a_oracle = np.sum((o[1:] + o[:-1]) / 2) / 4  # 0.125
    expected = (a_random - a_model) / (a_random - a_oracle)
    assert expected == pytest.approx(0.5)  # (0.25 - 0.1875) / (0.25 - 0.125)
    assert prr_score(c, u) == pytest.approx(0.5)


def test_prr_oracle_random_reversed():
    c, _ = _toy(n=200, seed=3)
    assert prr_score(c, -c.astype(float)) == pytest.approx(1.0)  # oracle ranking
    assert prr_score(c, c.astype(float)) == pytest.approx(-1.0)  # reversed oracle
    assert prr_score(c, np.zeros(c.size)) == pytest.approx(0.0)  # constant = random
    rng = np.random.default_rng(7)
    randoms = [prr_score(c, rng.normal(size=c.size)) for _ in range(200)]
    assert abs(np.mean(randoms)) < 0.03


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_prr_matches_brute_force_over_tie_orders(seed):
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 2, 7)
    c[:2] = [0, 1]
    u = rng.integers(0, 3, 7).astype(float)  # heavy ties
    assert prr_score(c, u) == pytest.approx(_prr_brute(c, u))


@pytest.mark.parametrize("ties", [False, True])
def test_prr_equals_gini_of_auroc_for_binary_labels(ties):
    # A property of Malinin's oracle-replaced error curve with 0/1 errors: its area is
    # linear in the Mann-Whitney statistic, so PRR = 2 AUROC - 1.
    c, u = _toy(ties=ties)
    assert prr_score(c, u) == pytest.approx(2 * auroc_score(c, u) - 1)


def test_rejection_curve_data():
    c = np.array([0, 1, 0, 1])
    curve = rejection_curve(c, [4.0, 3.0, 2.0, 1.0])
    np.testing.assert_allclose(curve.fraction_rejected, [0, 0.25, 0.5, 0.75, 1.0])
    np.testing.assert_allclose(curve.accuracy_kept[:4], [0.5, 2 / 3, 0.5, 1.0])
    assert np.isnan(curve.accuracy_kept[4])
    np.testing.assert_allclose(curve.error, [0.5, 0.25, 0.25, 0, 0])
    np.testing.assert_allclose(curve.error_random, [0.5, 0.375, 0.25, 0.125, 0])
    np.testing.assert_allclose(curve.error_oracle, [0.5, 0.25, 0, 0, 0])


# --- released-code "PRR" (AUPRC) ---------------------------------------------------


def test_auprc_released_code_matches_sklearn_ratio():
    c, u = _toy()
    expected = average_precision_score(c, -u) / average_precision_score(c, c)
    assert auprc_released_code_score(c, u) == pytest.approx(expected)
    assert auprc_released_code_score(c, -c.astype(float)) == pytest.approx(1.0)


# --- isotonic Brier and ECE ---------------------------------------------------------


def test_brier_isotonic_perfect_ordering_is_zero():
    c = np.array([1, 1, 1, 0, 0, 1, 0, 0])
    u = np.where(c == 1, 0.1, 0.9) + np.arange(8) * 1e-3
    assert brier_isotonic_loss(c, u) == pytest.approx(0.0)


def test_brier_isotonic_constant_uncertainty_is_variance():
    c = np.array([1, 1, 1, 0])
    assert brier_isotonic_loss(c, np.zeros(4)) == pytest.approx(0.75 * 0.25)


def test_isotonic_probabilities_decrease_with_uncertainty():
    c, u = _toy()
    p = isotonic_probabilities(c, u)
    order = np.argsort(u)
    assert np.all(np.diff(p[order]) <= 1e-12)
    assert p.min() >= 0 and p.max() <= 1


def test_brier_cross_fit_is_seeded_and_worse_than_in_sample():
    c, u = _toy(n=300, seed=5)
    a = brier_isotonic_loss(c, u, cross_fit=True, seed=1)
    assert a == brier_isotonic_loss(c, u, cross_fit=True, seed=1)
    assert a != brier_isotonic_loss(c, u, cross_fit=True, seed=2)
    assert a > brier_isotonic_loss(c, u)


def test_cross_fit_validation():
    with pytest.raises(ValueError, match="at least 2"):
        brier_isotonic_loss([1, 0, 1], [0.1, 0.2, 0.3], cross_fit=True, n_folds=1)
    with pytest.raises(ValueError, match="needs at least 5 answers"):
        brier_isotonic_loss([1, 0, 1], [0.1, 0.2, 0.3], cross_fit=True)


def test_ece_in_sample_isotonic_is_zero_by_construction():
    c, u = _toy(n=300, seed=2)
    assert ece_loss(c, u, cross_fit=False) == pytest.approx(0.0, abs=1e-12)
    assert ece_loss(c, u) > 0  # cross-fitted (default) is informative


def test_ece_toy_against_hand_computation():
    # Constant uncertainty: isotonic fit on the training folds = their accuracy.
    c = np.array([1, 1, 1, 0] * 5)
    d = reliability_diagram(c, np.zeros(c.size), n_bins=4, cross_fit=False)
    # every p = 0.75 -> bin [0.75, 1.0]; accuracy 0.75 -> ECE 0
    np.testing.assert_array_equal(d.count, [0, 0, 0, 20])
    assert d.mean_confidence[3] == pytest.approx(0.75)
    assert d.accuracy[3] == pytest.approx(0.75)
    assert np.isnan(d.accuracy[0])
    assert d.ece == pytest.approx(0.0)


def test_reliability_diagram_matches_brute_force_ece():
    c, u = _toy(n=200, seed=9)
    d = reliability_diagram(c, u, n_bins=5, seed=3)
    p = isotonic_probabilities(c, u, cross_fit=True, seed=3)
    ece = 0.0
    for b in range(5):
        lo, hi = b / 5, (b + 1) / 5
        m = (p >= lo) & ((p < hi) if b < 4 else (p <= hi))
        if m.any():
            ece += m.mean() * abs(c[m].mean() - p[m].mean())
            assert d.count[b] == m.sum()
    assert d.ece == pytest.approx(ece)
    assert d.count.sum() == c.size


# --- bootstrap --------------------------------------------------------------------


def test_paired_bootstrap_reproducible_and_paired():
    c, u = _toy()
    a = paired_bootstrap("auroc", c, u, n_bootstrap=40, seed=11)
    b = paired_bootstrap("auroc", c, u, n_bootstrap=40, seed=11)
    np.testing.assert_array_equal(a.values, b.values)
    assert a.values.size == 40
    assert paired_bootstrap("auroc", c, u, seed=11).values.size == N_BOOTSTRAP == 1000
    assert a.mean == pytest.approx(a.values.mean()) and a.std == pytest.approx(a.values.std())
    assert not np.array_equal(a.values, paired_bootstrap("auroc", c, u, seed=12).values)
    # paired: the oracle uncertainty stays perfect on every resample
    oracle = paired_bootstrap("auroc", c, -c.astype(float), n_bootstrap=40, seed=11)
    np.testing.assert_array_equal(oracle.values, np.ones(40))
    # and equals the metric on the resampled pairs
    idx = bootstrap_indices(c, n_bootstrap=40, seed=11)
    assert a.values[5] == pytest.approx(auroc_score(c[idx[5]], u[idx[5]]))


def test_bootstrap_accepts_a_generator():
    c, u = _toy()
    a = paired_bootstrap("prr", c, u, seed=np.random.default_rng(4))
    b = paired_bootstrap("prr", c, u, seed=np.random.default_rng(4))
    np.testing.assert_array_equal(a.values, b.values)


def test_bootstrap_single_class_resamples_redrawn_or_skipped():
    c = np.zeros(6, dtype=int)
    c[0] = 1  # a resample misses the lone correct answer with prob (5/6)^6 ≈ 0.33
    idx = bootstrap_indices(c, n_bootstrap=40, seed=0)
    assert idx.shape == (40, 6)
    assert all(0 < c[i].sum() < 6 for i in idx)
    skipped = bootstrap_indices(c, n_bootstrap=40, seed=0, on_single_class="skip")
    assert 0 < skipped.shape[0] < 40
    with pytest.raises(ValueError, match="after 3 draws"):
        bootstrap_indices(c, n_bootstrap=40, seed=0, max_draws=3)
    with pytest.raises(ValueError, match="on_single_class"):
        bootstrap_indices(c, on_single_class="drop")


# --- evaluate_scores ---------------------------------------------------------------


def test_evaluate_scores_all_metrics():
    c, u = _toy()
    ev = evaluate_scores({"good": u, "bad": -u, "gone": np.full(u.size, np.nan)}, c, n_bootstrap=10)
    assert set(ev.results) == {"good", "bad"} and "gone" in ev.skipped
    assert ev.metrics == tuple(METRICS)
    good = ev.results["good"]
    assert good["auroc"].point == pytest.approx(auroc_score(c, u))
    assert good["auroc"].mean > 0.5 > ev.results["bad"]["auroc"].mean
    # same resamples for every method: AUROC of -u is 1 - AUROC of u on each resample
    np.testing.assert_allclose(good["auroc"].values, 1 - ev.results["bad"]["auroc"].values)
    assert ev.to_dict()["results"]["good"]["prr"]["values"] == list(good["prr"].values)
    again = evaluate_scores({"good": u}, c, n_bootstrap=10)
    np.testing.assert_array_equal(again.results["good"]["brier"].values, good["brier"].values)


def test_an_evaluation_saved_with_the_old_n_boot_key_loads():
    """``n_boot`` became ``n_bootstrap``: results.json and payloads saved before load."""
    from invent_core.evaluation.metrics import Evaluation

    c, u = _toy()
    ev = evaluate_scores({"good": u}, c, n_bootstrap=7)
    saved = ev.to_dict()
    assert saved["n_bootstrap"] == 7 and "n_boot" not in saved
    old = {("n_boot" if k == "n_bootstrap" else k): v for k, v in saved.items()}
    back = Evaluation.from_dict(old)
    assert back.n_bootstrap == 7 and back.to_dict() == saved


def test_evaluate_scores_rejects_partial_nan_and_bad_length():
    c, u = _toy()
    u2 = u.copy()
    u2[3] = np.nan
    with pytest.raises(ValueError, match="method 'm': 1 of 120 uncertainties are NaN"):
        evaluate_scores({"m": u2}, c)
    with pytest.raises(ValueError, match="method 'm': 119 uncertainties for 120"):
        evaluate_scores({"m": u[:-1]}, c)
    with pytest.raises(ValueError, match="unknown metric 'f1'"):
        evaluate_scores({"m": u}, c, metrics=["f1"])


# --- TSU -------------------------------------------------------------------------


def test_tsu_chain_and_pair_toy():
    t = [0.3, 0.7, 1.0, 1.4]
    uq = np.array(
        [
            [0.1, 0.2, 0.3, 0.4],  # strictly increasing everywhere
            [0.1, 0.2, 0.2, 0.4],  # tie 0.7 -> 1.0: not increasing
            [0.5, 0.2, 0.3, 0.4],  # drop 0.3 -> 0.7
            [0.4, 0.3, 0.2, 0.1],  # decreasing
        ]
    )
    assert tsu_score(uq, t) == 0.25
    assert tsu_chain(uq, t) == 0.25  # TSU(0.3–1.4)
    assert tsu_chain(uq, t, 0.7, 1.4) == 0.5  # rows 0 and 2
    assert tsu_pair(uq, t, 1.0, 1.4) == 0.75
    assert tsu_pair(uq, t, 0.7, 1.0) == 0.5  # the tie is not an increase
    assert tsu_pair(uq, t, 0.3, 1.4) == 0.5


def test_tsu_brute_force_random():
    rng = np.random.default_rng(0)
    uq = rng.integers(0, 3, size=(50, 3)).astype(float)
    expected = np.mean([row[0] < row[1] < row[2] for row in uq])
    assert tsu_score(uq, [0.5, 1.0, 1.5]) == pytest.approx(expected)


def test_tsu_nan_policy():
    uq = np.array([[0.1, 0.2], [np.nan, 0.3], [0.3, 0.2]])
    with pytest.raises(ValueError, match="NaN for 1 of 3 questions"):
        tsu_score(uq, [0.7, 1.0])
    assert tsu_score(uq, [0.7, 1.0], nan_policy="omit") == 0.5
    with pytest.raises(ValueError, match="at least one question"):
        tsu_score(np.full((2, 2), np.nan), [0.7, 1.0], nan_policy="omit")


@pytest.mark.parametrize(
    ("temps", "msg"),
    [
        ([1.0, 0.7], "strictly increasing"),
        ([0.7, 0.7], "strictly increasing"),
        ([0.7], "one temperature per column"),
    ],
)
def test_tsu_validates_temperatures(temps, msg):
    with pytest.raises(ValueError, match=msg):
        tsu_score(np.zeros((3, 2)), temps)


def test_tsu_pair_validation_and_labels():
    uq = np.zeros((2, 3))
    with pytest.raises(ValueError, match="not among"):
        tsu_pair(uq, [0.3, 0.7, 1.0], 0.3, 1.4)
    with pytest.raises(ValueError, match="low < high"):
        tsu_pair(uq, [0.3, 0.7, 1.0], 1.0, 0.3)
    with pytest.raises(ValueError, match="at least two"):
        tsu_score(np.zeros((2, 1)), [1.0])
    assert tsu_label(1.0, 1.4, kind="pair") == "TSU(1.0,1.4)"
    assert tsu_label(0.7, 1.4, kind="chain") == "TSU(0.7–1.4)"
    assert tsu_label(1, 2, kind="pair") == "TSU(1.0,2.0)"


def test_tsu_table_paper_columns():
    t = [0.3, 0.7, 1.0, 1.4]
    uq = np.array([[0.1, 0.2, 0.3, 0.4], [0.5, 0.2, 0.3, 0.4]])
    table = tsu_table({"m": uq}, t)
    assert table == {
        "m": {"TSU(1.0,1.4)": 1.0, "TSU(0.7,1.4)": 1.0, "TSU(0.7–1.4)": 1.0, "TSU(0.3–1.4)": 0.5}
    }
    with pytest.raises(ValueError, match="temperature 1.4 is not among"):
        tsu_table({"m": uq[:, :3]}, t[:3])


def test_point_metrics_per_method_on_its_finite_rows():
    """Each method is scored where it has values; sklearn is the reference."""
    from invent_core.evaluation.metrics import point_metrics

    rng = np.random.default_rng(3)
    c = rng.integers(0, 2, 40)
    u = rng.normal(size=40) - c
    partial = u.copy()
    partial[:5] = np.nan  # a baseline that failed on five questions
    got = point_metrics({"full": u, "partial": partial, "none": np.full(40, np.nan)}, c)
    assert got["full"]["auroc"] == pytest.approx(roc_auc_score(c, -u))
    assert got["full"]["prr"] == pytest.approx(prr_score(c, u))
    assert got["partial"]["n"] == 35
    assert got["partial"]["auroc"] == pytest.approx(roc_auc_score(c[5:], -u[5:]))
    assert got["none"] == {"n": 0, "undefined": "no values", "auroc": None, "prr": None}


@pytest.mark.parametrize(
    ("correct", "reason"),
    [
        ([1, 1, 1], "all answers right"),
        ([0, 0], "all answers wrong"),
        ([1], "too few rows"),
        ([], "no values"),
    ],
)
def test_undefined_metrics_say_why(correct, reason):
    from invent_core.evaluation.metrics import point_metrics, undefined_reason

    assert undefined_reason(correct) == reason
    row = point_metrics({"m": np.arange(len(correct), dtype=float)}, correct)["m"]
    assert row["auroc"] is None and row["prr"] is None and row["undefined"] == reason


def test_batch_prints_na_with_the_reason_never_nan(capsys):
    from invent_core.commands.batch import print_evaluation
    from invent_core.evaluation.metrics import point_metrics

    methods = point_metrics({"inv_entropy": [0.1, 0.5, 0.3]}, [1, 1, 1])
    print_evaluation(1.0, 3, methods)
    out = capsys.readouterr().out
    assert "AUROC n/a — all answers right   PRR n/a — all answers right" in out
    assert "nan" not in out.lower()
