"""The adaptive perturbation budget: schedule, stopping rule, replay on a run."""

from __future__ import annotations

import numpy as np
import pytest

from invent_core.config import AdaptiveConfig, RunConfig, ScoreConfig
from invent_core.engine.adaptive import (
    normalized_width,
    prefix_schedule,
    prefix_similarities,
    simulate_on_run,
    stop_reason,
)
from invent_core.paper.random_walk import affinity_from_embeddings
from invent_core.paper.scoring import bootstrap_measures


def test_schedule_ends_at_n_max():
    cfg = AdaptiveConfig(start=3, step=2)
    assert prefix_schedule(9, cfg) == [3, 5, 7, 9]
    assert prefix_schedule(8, cfg) == [3, 5, 7, 8]
    assert prefix_schedule(2, cfg) == [2]
    with pytest.raises(ValueError, match="n_max"):
        prefix_schedule(0, cfg)


def test_width_is_scaled_by_log_m():
    v = np.array([1.0, 1.0, 2.0, 2.0])
    assert normalized_width(v, 4, level=1.0) == pytest.approx(1 / np.log(4))
    assert normalized_width(np.full(30, 2.3), 10, level=0.9) == 0.0


def test_stop_reasons():
    cfg = AdaptiveConfig(tolerance=0.01)
    assert stop_reason(np.full(30, 1.0), 3, 9, cfg) == "stable"
    scattered = np.linspace(0.5, 2.0, 30)
    assert stop_reason(scattered, 3, 9, cfg) is None
    assert stop_reason(scattered, 9, 9, cfg) == "n_max"


def _toy_run(identical: bool, n: int = 9, r: int = 5, seed: int = 0):
    """Affinities of a toy run: every answer the same, or every answer its own direction."""
    rng = np.random.default_rng(seed)
    m = n + 1
    q = rng.normal(size=(m, 16)) * 0.1 + rng.normal(size=16)  # near-identical questions
    if identical:
        a = np.tile(rng.normal(size=16), (m * r, 1))
    else:
        a = rng.normal(size=(m * r, 16))  # scattered answers
    kind, tau = RunConfig().score.affinity, RunConfig().score.kernel_tau
    return (
        affinity_from_embeddings(q, kind=kind, tau=tau),
        affinity_from_embeddings(a, kind=kind, tau=tau),
    )


def _bootstrap(r: int):
    def boot(sx, sy):
        rng = np.random.default_rng(0)
        return bootstrap_measures(sx, sy, r, ScoreConfig(n_bootstrap=30), rng=rng)["inv_entropy"]

    return boot


def test_identical_answers_stop_at_the_first_step():
    sx, sy = _toy_run(identical=True)
    rec, values = simulate_on_run(sx, sy, 5, AdaptiveConfig(), bootstrap=_bootstrap(5))
    assert rec.reason == "stable" and rec.n_used == 3
    assert rec.llm_calls == 4 * 5
    assert values.shape == (30,)


def test_scattered_answers_run_to_n_max():
    sx, sy = _toy_run(identical=False)
    cfg = AdaptiveConfig(tolerance=1e-6)
    rec, _ = simulate_on_run(sx, sy, 5, cfg, bootstrap=_bootstrap(5))
    assert rec.reason == "n_max" and rec.n_used == 9
    assert [s["n"] for s in rec.steps] == [3, 5, 7, 9]
    assert rec.to_dict()["llm_calls"] == 50


def test_prefix_keeps_state_major_rows():
    sx = np.arange(16.0).reshape(4, 4)
    sy = np.arange(144.0).reshape(12, 12)  # m = 4, r = 3
    px, py = prefix_similarities(sx, sy, 3, 1)
    assert px.shape == (2, 2) and py.shape == (6, 6)
    assert py[5, 5] == sy[5, 5]
