"""The Inv family is one table (measures.INV_MEASURES) read by the bootstrap and the registry."""

from __future__ import annotations

import numpy as np
import pytest
from test_registry_contract import MIXED, QUESTIONS
from test_scoring import synthetic

from invent_core.config import ScoreConfig
from invent_core.methods import inv_measures, registry
from invent_core.methods.context import ScoringContext
from invent_core.paper.measures import INV_MEASURES, InvMeasure
from invent_core.paper.random_walk import p_x_given_y
from invent_core.paper.scoring import MEASURE_NAMES, bootstrap_measures


def test_registry_and_scoring_read_the_table():
    inv = registry.list_methods("inv")
    assert [m.name for m in inv] == list(INV_MEASURES) == list(MEASURE_NAMES)
    for m in inv:
        assert m.label == INV_MEASURES[m.name].label
        assert m.reference == INV_MEASURES[m.name].reference
    sim_x, sim_y = synthetic(4, 3)
    values = bootstrap_measures(
        sim_x, sim_y, 3, ScoreConfig(n_bootstrap=5), rng=np.random.default_rng(0)
    )
    assert list(values) == [n for n, m in INV_MEASURES.items() if m.resampled]
    assert not INV_MEASURES["nr_inv_entropy"].resampled  # first replication only


def test_a_new_entry_adds_a_method_and_a_bootstrap_key(monkeypatch, request, minilm):
    registry.list_methods()  # every method module imported before the toy is added
    request.addfinalizer(lambda: registry.unregister("toy_trace"))  # gone with the table entry
    toy = InvMeasure(
        label="Toy-Trace",
        reference="a test",
        summary="trace of P(X|Y)",
        fn=lambda p_x, p_y, config: np.trace(p_x_given_y(p_x, p_y), axis1=-2, axis2=-1),
    )
    monkeypatch.setitem(INV_MEASURES, "toy_trace", toy)

    added = inv_measures.register_inv_measures()
    assert [m.name for m in added] == ["toy_trace"]
    assert inv_measures.register_inv_measures() == []  # idempotent
    assert registry.get_method("Toy-Trace").family == "inv"

    sim_x, sim_y = synthetic(4, 3)
    values = bootstrap_measures(
        sim_x, sim_y, 3, ScoreConfig(n_bootstrap=6), rng=np.random.default_rng(0)
    )
    assert values["toy_trace"].shape == (6,)

    ctx = ScoringContext(QUESTIONS, MIXED, ScoreConfig(n_bootstrap=20), embedder=minilm)
    got = registry.compute_methods(ctx, ["toy_trace"], strict=True)["toy_trace"].value
    assert got == pytest.approx(ctx.score.measures["toy_trace"])
    assert ctx.score.values["toy_trace"].shape == (20,)
