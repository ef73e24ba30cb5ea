"""Generic helpers of the frozen configs: flat option names, replacing, JSON round trip.

A nested config's fields get flat names (``gaap_delta`` is ``gaap.delta``;
``PREFIX`` says how each nested field is prefixed). These helpers know no config
class: they read any dataclass whose nested fields are dataclasses, so every
config module can use them.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any


def _nested_types(cls: type) -> dict[str, type]:
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls) if is_config(hints[f.name])}


def is_config(tp: Any) -> bool:
    """Whether a field's type is a nested config (a dataclass)."""
    return isinstance(tp, type) and dataclasses.is_dataclass(tp)


#: nested field → prefix of its flat option names ("" = unprefixed: --embedder, --seed).
PREFIX = {"score": "", "paraphrase": "paraphrase_", "gaap": "gaap_", "adaptive": "adaptive_"}


def flat_name(prefix: str, name: str) -> str:
    """The flat option name of a nested field (``paraphrase_`` + ``n`` → ``paraphrase_n``)."""
    # A nested ``enabled`` switch is named after its section: --adaptive, not --adaptive-enabled.
    return prefix.rstrip("_") if name == "enabled" and prefix else prefix + name


def flat_names(cls: type) -> dict[str, tuple[str, ...]]:
    """Flat option name → path of field names, e.g. ``"gaap_delta" → ("gaap", "delta")``."""
    out: dict[str, tuple[str, ...]] = {}
    nested = _nested_types(cls)
    for f in dataclasses.fields(cls):
        if f.name in nested:
            for sub, path in flat_names(nested[f.name]).items():
                out[flat_name(PREFIX.get(f.name, f.name + "_"), sub)] = (f.name, *path)
        else:
            out[f.name] = (f.name,)
    return out


def replace_flat(cfg: Any, changes: dict[str, Any]) -> Any:
    """``dataclasses.replace`` that also takes the flat names of nested fields."""
    names = flat_names(type(cfg))
    nested = _nested_types(type(cfg))
    # A nested field given a config object is replaced whole; a plain value under a
    # nested field's name is a flat option (``adaptive=True`` is adaptive.enabled).
    direct = {
        k: v
        for k, v in changes.items()
        if k in {f.name for f in dataclasses.fields(cfg)}
        and (k not in nested or dataclasses.is_dataclass(v))
    }
    grouped: dict[str, dict[str, Any]] = {}
    for key, value in changes.items():
        if key in direct:
            continue
        path = names.get(key) or tuple(key.split("."))
        if path[0] not in nested or key not in names and "." not in key:
            known = ", ".join(sorted(names))
            raise ValueError(f"unknown option {key!r} for {type(cfg).__name__}; known: {known}")
        grouped.setdefault(path[0], {})[".".join(path[1:])] = value
    for name, sub in grouped.items():
        inner = direct.get(name, getattr(cfg, name))
        direct[name] = replace_flat(inner, sub)
    return dataclasses.replace(cfg, **direct) if direct else cfg


def config_to_dict(cfg: Any) -> dict[str, Any]:
    """JSON-ready nested dict of a config (tuples become lists)."""
    return json_ready(dataclasses.asdict(cfg))


def json_ready(value: Any) -> Any:
    """A copy of ``value`` with tuples turned into lists (JSON has no tuples)."""
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(v) for v in value]
    return value


def dataclass_from_dict(cls: type, data: dict[str, Any]) -> Any:
    """A config dataclass from its JSON dict; an unknown key or a non-object is refused."""
    if not isinstance(data, dict):
        raise ValueError(f"{cls.__name__} must be a JSON object, got {type(data).__name__}")
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"unknown {cls.__name__} keys: {', '.join(unknown)}")
    nested = _nested_types(cls)
    kwargs = {
        k: _nested(nested[k], v) if k in nested else (tuple(v) if isinstance(v, list) else v)
        for k, v in data.items()
    }
    return cls(**kwargs)


def _nested(kind: type, value: Any) -> Any:
    """A nested config through its own ``from_dict`` (which may read an older file its way)."""
    own = getattr(kind, "from_dict", None)
    return own(value) if own is not None else dataclass_from_dict(kind, value)


def config_from_flat(cls: type, values: dict[str, Any], base: Any = None) -> Any:
    """A config of ``cls`` from flat option values (e.g. an argparse namespace's dict).

    Keys that are not options of ``cls`` are ignored; ``base`` (default: the
    defaults) supplies the rest.
    """
    names = flat_names(cls)
    picked = {k: v for k, v in values.items() if k in names}
    return replace_flat(base if base is not None else cls(), picked)


def flat_values(cfg: Any) -> dict[str, Any]:
    """Flat option name → value of a config (inverse of :func:`config_from_flat`)."""
    out = {}
    for name, path in flat_names(type(cfg)).items():
        value = cfg
        for p in path:
            value = getattr(value, p)
        out[name] = value
    return out
