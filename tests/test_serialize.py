"""The generic dataclass ↔ JSON serializer (invent_core.serialize) and the GAAP trace it carries."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
import pytest

from invent_core.perturb.gaap import GaapResult
from invent_core.serialize import JsonDataclass, from_jsonable, to_jsonable

DEMO_GAAP = Path(__file__).resolve().parents[1] / "assets" / "demo_gaap.json"


@dataclass(frozen=True)
class Leaf(JsonDataclass):
    name: str
    weight: float = 1.0


@dataclass(frozen=True)
class Inner(JsonDataclass):
    label: str
    leaves: tuple[Leaf, ...] = ()


@dataclass(frozen=True)
class Outer(JsonDataclass):
    kind: Literal["a", "b"]
    where: int
    inner: Inner = field(metadata={"json": "inline"})
    pairs: tuple[tuple[int, str], ...] = ()
    optional_leaf: Leaf | None = None
    maybe: int | None = None
    by_name: dict[str, list[Leaf]] = field(default_factory=dict)

    JSON_DERIVED = ("n_leaves",)

    @property
    def n_leaves(self) -> int:
        return len(self.inner.leaves)


def _outer() -> Outer:
    return Outer(
        kind="b",
        where=3,
        inner=Inner("in", (Leaf("x", 0.5), Leaf("y"))),
        pairs=((1, "one"), (2, "two")),
        optional_leaf=Leaf("z", 2.0),
        by_name={"k": [Leaf("w", np.float64(0.25))]},
    )


def test_round_trip_through_json_text():
    obj = _outer()
    data = json.loads(json.dumps(obj.to_dict()))
    assert data["label"] == "in" and "inner" not in data  # inline: written flat
    assert data["n_leaves"] == 2  # derived: written for readers
    assert data["pairs"] == [[1, "one"], [2, "two"]]
    back = Outer.from_dict(data)
    assert back == obj
    assert isinstance(back.pairs[0], tuple) and isinstance(back.inner.leaves, tuple)
    assert isinstance(back.by_name["k"][0].weight, float)


def test_defaults_fill_missing_keys_and_ints_become_floats():
    back = Outer.from_dict(
        {"kind": "a", "where": 1, "label": "l", "leaves": [{"name": "n", "weight": 2}]}
    )
    assert back.optional_leaf is None and back.maybe is None and back.by_name == {}
    assert back.inner.leaves == (Leaf("n", 2.0),) and isinstance(back.inner.leaves[0].weight, float)


def test_unknown_or_missing_keys_are_named():
    with pytest.raises(ValueError, match="unknown Leaf keys: colour"):
        from_jsonable(Leaf, {"name": "n", "colour": "red"})
    with pytest.raises(ValueError, match="Leaf needs the key 'name'"):
        from_jsonable(Leaf, {"weight": 1.0})
    with pytest.raises(ValueError, match="Leaf must be read from a JSON object"):
        from_jsonable(Leaf, ["n"])


def test_to_jsonable_plain_values():
    assert to_jsonable({"a": (np.int64(1), [np.float32(0.5)])}) == {"a": [1, [0.5]]}


def _same(a, b) -> bool:
    """Equal JSON values, key order and types included (NaN equals NaN)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_same, a, b))
    return type(a) is type(b) and a == b


def test_the_shipped_demo_trace_round_trips_unchanged():
    raw = json.loads(DEMO_GAAP.read_text())
    result = GaapResult.from_dict(raw)
    assert len(result.perturbations) == result.trace.config.n
    again = json.loads(json.dumps(result.to_dict()))
    assert _same(again, raw)  # same keys, order and values as the file
    assert GaapResult.from_dict(again) == result
    sub = result.trace.sub_sets[0]
    assert raw["trace"]["sub_sets"][0]["token"] == sub.sub.token  # SUB sets stay flat
