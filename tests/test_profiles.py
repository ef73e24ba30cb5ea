"""Profiles: ``released-code`` computes what the authors' ``inventropy`` package computes.

``inventropy`` 0.1.0 pins ``openai==0.28.0`` against our ``openai`` pin, so it is not
installed with the tests (see the profile's help). Its scoring, transcribed below
from ``inventropy/core.py`` (``compute_inv_entropy_with_sampling``: |cos|, row
normalisation, ``diag((P_y P_x)^T)``), is checked always; where the package itself
is importable (installed with ``--no-deps``), against the package too.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from invent_core.config import PROFILES, RunConfig, ScoreConfig, get_profile
from invent_core.evaluation.metrics import CONVENTIONS
from invent_core.paper.random_walk import affinity_from_cosine
from invent_core.paper.scoring import bootstrap_measures, measures_from_similarity


def _released_inv_entropy(sim_x: np.ndarray, sim_y: np.ndarray) -> float:
    """One draw of ``compute_inv_entropy_with_sampling`` (inventropy 0.1.0), as written there."""
    px = sim_x / sim_x.sum(axis=1, keepdims=True)
    py = sim_y / sim_y.sum(axis=1, keepdims=True)
    px_y = (py @ px).T
    return float(-np.sum(np.diag(px_y) * np.log(np.diag(px_y))))


def _cosines(rng, m: int, r: int) -> tuple[np.ndarray, np.ndarray]:
    """Cosines of m questions and of m·r answers (state-major), some negative."""

    def cos(k):
        e = rng.normal(size=(k, 8))
        e /= np.linalg.norm(e, axis=1, keepdims=True)
        return e @ e.T

    return cos(m), cos(m * r)


def _released_score(profile: str = "released-code") -> ScoreConfig:
    return RunConfig().replace(**get_profile(profile).score_options()).score


def test_the_three_profiles_and_what_they_set():
    assert list(PROFILES) == ["ours", "paper", "released-code"]
    assert RunConfig().replace(**get_profile("ours").score_options()) == RunConfig()
    released = _released_score()
    assert (released.affinity, released.n_bootstrap) == ("abs_cosine", 10)
    assert (released.wd_ground, released.max_variant) == ("released_code", "released_code")
    assert _released_score("paper").affinity == "shifted_cosine"
    assert CONVENTIONS[get_profile("released-code").intervals].n_bootstrap == 40
    assert get_profile("released-code").prr == "auprc" and get_profile("paper").prr == "prr"
    assert "openai==0.28.0" in get_profile("released-code").help
    with pytest.raises(ValueError, match="--profile must be one of ours, paper, released-code"):
        get_profile("authors")


def test_released_code_equals_its_formulas_with_the_bootstrap_off():
    rng = np.random.default_rng(3)
    cos_x, cos_y = _cosines(rng, 10, 1)
    cfg = _released_score()
    a_x = affinity_from_cosine(cos_x, kind=cfg.affinity, tau=cfg.kernel_tau)
    a_y = affinity_from_cosine(cos_y, kind=cfg.affinity, tau=cfg.kernel_tau)
    ours = measures_from_similarity(a_x, a_y, cfg).values["inv_entropy"]
    assert ours == pytest.approx(_released_inv_entropy(np.abs(cos_x), np.abs(cos_y)), rel=1e-12)


def test_released_code_equals_its_formulas_draw_by_draw():
    """Our bootstrap draws one answer per state, as theirs does: each draw agrees exactly."""
    rng = np.random.default_rng(5)
    m, r = 10, 5
    cos_x, cos_y = _cosines(rng, m, r)
    cfg = _released_score()
    a_x = affinity_from_cosine(cos_x, kind=cfg.affinity, tau=cfg.kernel_tau)
    a_y = affinity_from_cosine(cos_y, kind=cfg.affinity, tau=cfg.kernel_tau)
    values = bootstrap_measures(a_x, a_y, r, cfg, rng=np.random.default_rng(cfg.seed))[
        "inv_entropy"
    ]
    idx = np.random.default_rng(cfg.seed).integers(0, r, size=(cfg.n_bootstrap, m))
    keep = np.arange(m) * r + idx  # their keep_indices: one answer of each question
    theirs = [_released_inv_entropy(np.abs(cos_x), np.abs(cos_y)[np.ix_(k, k)]) for k in keep]
    np.testing.assert_allclose(values, theirs, rtol=1e-12)


def test_released_code_equals_the_inventropy_package():
    """Against the package itself, where it is importable (bootstrap off, then B large)."""
    core = pytest.importorskip("inventropy.core", reason="inventropy is not installed (see module)")
    rng = np.random.default_rng(7)
    m, r = 10, 5
    cos_x, cos_y = _cosines(rng, m, 1)
    cfg = _released_score()
    ours = measures_from_similarity(np.abs(cos_x), np.abs(cos_y), cfg).values["inv_entropy"]
    theirs = core.compute_inv_entropy_with_sampling(
        np.abs(cos_x), np.abs(cos_y), num_perturb=m - 1, num_replication=1, num_bootstrap=1
    )
    assert ours == pytest.approx(theirs, rel=1e-12)
    # B large: their unseeded draws and ours estimate the same mean
    cos_x, cos_y = _cosines(rng, m, r)
    sim_x_rep = np.repeat(
        np.repeat(np.abs(cos_x), r, axis=0), r, axis=1
    )  # questions repeated r times
    theirs = core.compute_inv_entropy_with_sampling(
        sim_x_rep, np.abs(cos_y), num_perturb=m - 1, num_replication=r, num_bootstrap=400
    )
    big = ScoreConfig(n_bootstrap=4000, affinity="abs_cosine")
    values = bootstrap_measures(np.abs(cos_x), np.abs(cos_y), r, big, rng=np.random.default_rng(0))
    se = values["inv_entropy"].std() / np.sqrt(400)
    assert abs(values["inv_entropy"].mean() - theirs) < 5 * se


def test_profile_is_an_option_of_the_command_line():
    out = subprocess.run(
        [sys.executable, "-m", "invent_core", "evaluate", "--help"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "--profile {ours,paper,released-code}" in out
    bad = subprocess.run(
        [sys.executable, "-m", "invent_core", "run", "--profile", "authors", "What is 2+2?"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert bad.returncode != 0 and "--profile" in bad.stderr


def test_a_profile_is_a_base_that_typed_options_change():
    """evaluate --profile released-code: its options, its metric convention; a typed option wins."""
    from invent_core.cli import build_parser
    from invent_core.commands.common import config_from_args
    from invent_core.commands.evaluate import experiment_config_from_args

    parser = build_parser()
    args = parser.parse_args(["evaluate", "--dataset", "arithmetic", "--profile", "released-code"])
    cfg = experiment_config_from_args(args)
    assert (cfg.run.score.affinity, cfg.run.score.n_bootstrap) == ("abs_cosine", 10)
    assert cfg.profile == "released-code" and cfg.n_bootstrap_metrics == 40
    assert cfg.centre == "bootstrap_mean"
    typed = parser.parse_args(
        ["evaluate", "--dataset", "arithmetic", "--profile", "paper", "--affinity", "exp_cosine"]
    )
    assert experiment_config_from_args(typed).run.score.affinity == "exp_cosine"
    plain = experiment_config_from_args(parser.parse_args(["evaluate", "--dataset", "arithmetic"]))
    assert (
        plain.profile == "ours" and plain.n_bootstrap_metrics >= 1000 and plain.centre == "sample"
    )
    score = parser.parse_args(["score", "in.json", "--profile", "released-code"])
    assert config_from_args(score, ScoreConfig).affinity == "abs_cosine"
