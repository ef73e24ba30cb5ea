"""What a refused resume or merge names: the options as typed, lists by what changed."""

from __future__ import annotations

from invent_core.batch.config_diff import config_diff
from invent_core.config import RunConfig


def _config(run: RunConfig, methods: list[str], layout: str = "questions") -> dict:
    columns = ["id", "question", *methods]
    return {"layout": layout, "methods": methods, "columns": columns, "run": run.to_dict()}


def test_a_changed_n_is_named_once_by_its_option():
    """GAAP's n follows the run's n: ``-n 2 → 3`` is one change, not two."""
    old = _config(RunConfig(n_perturbations=2), ["inv_entropy"])
    new = _config(RunConfig(n_perturbations=3), ["inv_entropy"])
    assert config_diff(old, new) == ["--n-perturbations: 2 → 3"]


def test_changed_methods_say_what_went_and_what_came_not_every_column():
    old = _config(RunConfig(), ["inv_entropy", "p_true"])
    new = _config(RunConfig().replace(n_bootstrap=7), ["inv_entropy", "lexsim"])
    assert config_diff(old, new) == [
        "--methods: p_true dropped; lexsim added",
        "--n-bootstrap: 30 → 7",
    ]


def test_the_same_methods_in_another_order_are_shown_as_they_were():
    old = _config(RunConfig(), ["a", "b"])
    new = _config(RunConfig(), ["b", "a"])
    assert config_diff(old, new) == ["--methods: ['a', 'b'] → ['b', 'a']"]
