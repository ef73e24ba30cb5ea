"""Percentile and calibrated P(correct) against a reference set: toy answers, monotonicity, JSON."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from invent_core.evaluation.metrics import isotonic_probabilities
from invent_core.evaluation.reference import P_CORRECT_CLIP, ReferenceSet


def test_toy_reference_with_known_answers():
    ref = ReferenceSet([1.0, 2.0, 3.0, 4.0], [1, 1, 0, 0], {"measure": "inv_entropy"})
    assert ref.percentile(0.5) == 0.0
    assert ref.percentile(1.0) == 25.0  # at or below: ties count
    assert ref.percentile(2.5) == 50.0
    assert ref.percentile(9.0) == 100.0
    np.testing.assert_allclose(ref.percentile([1.0, 4.0]), [25.0, 100.0])
    # perfectly separated: certain answers right, uncertain ones wrong (clipped)
    assert ref.p_correct(1.5) == pytest.approx(0.99)
    assert ref.p_correct(3.5) == pytest.approx(0.01)
    assert ref.p_correct(-10.0) == pytest.approx(0.99)  # beyond the range: nearest end
    assert ref.p_correct(2.5) == pytest.approx(0.5)  # halfway between the two fitted levels


def test_pooled_violators_give_the_pooled_mean():
    # uncertainty 2 right but 3 wrong … pool-adjacent-violators averages 2 and 3's labels
    ref = ReferenceSet([1.0, 2.0, 3.0, 4.0], [1, 0, 1, 0])
    np.testing.assert_allclose(ref.p_correct([1.0, 2.0, 3.0, 4.0]), [0.99, 0.5, 0.5, 0.01])


@pytest.mark.parametrize("seed", range(3))
def test_matches_the_papers_isotonic_mapping_and_is_monotone(seed):
    rng = np.random.default_rng(seed)
    values = rng.normal(2.3, 0.3, size=60)
    correct = (rng.random(60) < 1 / (1 + np.exp(4 * (values - 2.3)))).astype(int)
    ref = ReferenceSet(values, correct)
    expected = np.clip(isotonic_probabilities(correct, values), *P_CORRECT_CLIP)
    np.testing.assert_allclose(ref.p_correct(values), expected)
    grid = np.linspace(values.min() - 1, values.max() + 1, 400)
    assert np.all(np.diff(ref.percentile(grid)) >= 0)  # non-decreasing in the measure
    p = ref.p_correct(grid)
    assert np.all(np.diff(p) <= 1e-12)  # non-increasing in the measure
    assert p.min() >= P_CORRECT_CLIP[0] and p.max() <= P_CORRECT_CLIP[1]
    # the percentile of a reference point matches the empirical CDF
    assert ref.percentile(np.sort(values)[29]) == pytest.approx(100 * 30 / 60)


def test_without_labels_only_percentiles():
    ref = ReferenceSet(np.array([2.30, 2.31, 2.32]))
    assert not ref.has_labels and ref.size == 3
    assert ref.percentile(2.31) == pytest.approx(200 / 3)
    with pytest.raises(ValueError, match="has no correctness labels"):
        ref.p_correct(2.31)
    info = ref.describe(2.315)
    assert info == {
        "value": 2.315,
        "percentile": pytest.approx(200 / 3),
        "p_correct": None,
        "p_interval": None,
        "n_near": None,
        "base_rate": None,
        "datasets": [],
        "n_reference": 3,
        "settings": {},
        "placement": None,  # not placed among questions like one (reference.place)
    }


def test_json_round_trip(tmp_path):
    ref = ReferenceSet(
        [2.1, 2.5, 2.2], [1, 0, 1], {"dataset": "arithmetic", "kernel": "exp_cosine"}
    )
    back = ReferenceSet.load(ref.save(tmp_path / "sub" / "ref.json"))
    np.testing.assert_array_equal(back.values, ref.values)
    np.testing.assert_array_equal(back.correct, ref.correct)
    assert back.settings == ref.settings
    assert back.p_correct(2.3) == ref.p_correct(2.3)
    assert ReferenceSet.from_dict({"values": [1.0]}).correct is None
    with pytest.raises(ValueError, match="unsupported reference format"):
        ReferenceSet.from_dict({"format": "other/9", "values": [1.0]})
    with pytest.raises(ValueError, match="no 'values'"):
        ReferenceSet.from_dict({})


def test_from_scores_csv(tmp_path):
    path = tmp_path / "scores.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "correct", "inv_entropy", "lexsim"])
        w.writerows([["a", 1, 2.1, 0.3], ["b", 0, 2.6, 0.4], ["c", 1, "nan", 0.2], ["d", 0, "", 1]])
    ref = ReferenceSet.from_scores_csv(path, settings={"model": "qwen0.5b"})
    np.testing.assert_array_equal(ref.values, [2.1, 2.6])
    np.testing.assert_array_equal(ref.correct, [1, 0])
    assert ref.settings == {"measure": "inv_entropy", "source": str(path), "model": "qwen0.5b"}
    assert ReferenceSet.from_scores_csv(path, measure="lexsim").size == 4
    with pytest.raises(ValueError, match="no finite 'nope' values"):
        ReferenceSet.from_scores_csv(path, measure="nope")


@pytest.mark.parametrize(
    "values, correct, msg",
    [
        ([], None, "at least one value"),
        ([1.0, np.nan], None, "must be finite"),
        ([1.0, 2.0], [1], "1 correctness labels for 2 reference values"),
        ([1.0, 2.0], [1, 2], "only 0/1"),
    ],
)
def test_validation(values, correct, msg):
    with pytest.raises(ValueError, match=msg):
        ReferenceSet(values, correct)


@pytest.mark.parametrize("seed", range(6))
def test_the_python_pava_pools_as_scikit_learns(seed):
    """Bit for bit: the same blocks pooled in the same order (ties, runs, weights)."""
    from invent_core.evaluation.metrics.calibration import pava_python, pava_sklearn

    rng = np.random.default_rng(seed)
    for n in (1, 2, 3, 7, 40, 300):
        y = rng.choice([0.0, 1.0, 0.5, rng.random()], size=n) if seed % 2 else rng.random(n)
        w = rng.integers(1, 5, size=n).astype(float)
        assert pava_python(y, w).tolist() == pava_sklearn(y, w).tolist()


@pytest.mark.parametrize("seed", range(6))
def test_reference_fits_are_scikit_learns_isotonic_regression(seed):
    """P(correct)'s fits: what IsotonicRegression(y_min, y_max, clip) predicts, ties and all."""
    from sklearn.isotonic import IsotonicRegression

    from invent_core.evaluation.metrics.calibration import isotonic_fit, isotonic_read, pava_python

    rng = np.random.default_rng(seed)
    lo, hi = P_CORRECT_CLIP
    for n in (2, 10, 60, 250):
        conf = np.round(rng.normal(size=n), 1)  # rounded: many tied values
        y = (rng.random(n) < 1 / (1 + np.exp(-2 * conf))).astype(float)
        at = np.concatenate([conf, rng.normal(scale=2.0, size=50)])  # and beyond the ends
        iso = IsotonicRegression(y_min=lo, y_max=hi, out_of_bounds="clip").fit(conf, y)
        fit = isotonic_fit(conf, y, bounds=(lo, hi), pava=pava_python)
        np.testing.assert_allclose(isotonic_read(fit, at), iso.predict(at), rtol=0, atol=1e-12)


def test_a_placement_imports_no_scikit_learn():
    """A run that reads a reference imports no scikit-learn, no scipy.stats (3 s of a cached run)."""
    import subprocess
    import sys

    code = (
        "import sys, numpy as np\n"
        "from invent_core.evaluation.reference import ReferenceSet\n"
        "rng = np.random.default_rng(0)\n"
        "v = rng.normal(size=80)\n"
        "ref = ReferenceSet(values=v, correct=(v < 0.2).astype(int))\n"
        "print(ref.describe(0.1)['p_correct'] is not None, 'sklearn' in sys.modules,\n"
        "      'scipy.stats' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "False", "False"], out.stdout + out.stderr


def test_jeffreys_quantiles_are_scipy_stats_betas():
    from scipy.stats import beta

    from invent_core.evaluation.reference.calibration import jeffreys

    for n in (1, 2, 10, 30, 99, 300):
        for k in {0, 1, n // 2, n - 1, n}:
            a, b = k + 0.5, n - k + 0.5
            assert jeffreys(k, n) == (beta.ppf(0.05, a, b), beta.ppf(0.95, a, b))
