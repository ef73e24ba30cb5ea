"""Dataclasses ↔ JSON-ready dicts, driven by the type hints: one serializer for every record.

:func:`to_jsonable` turns a (nested) dataclass into dicts, lists and scalars;
:func:`from_jsonable` rebuilds it from such data, reading each field's type
hint to recurse into nested dataclasses, ``tuple[X, ...]``, ``list[X]``,
``dict[str, X]`` and ``X | None``. Two declarations tune the format, both
on the class:

- ``JSON_DERIVED: ClassVar[tuple[str, ...]]`` — properties written for
  readers of the file (e.g. a generation's best fitness) and skipped on read;
- ``field(metadata={"json": "inline"})`` — a nested dataclass whose fields
  are written into its parent's dict instead of under its own key.

:class:`JsonDataclass` adds ``to_dict`` / ``from_dict`` methods built on them.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from typing import Any, ClassVar, TypeVar, get_args, get_origin

import numpy as np

T = TypeVar("T")


def to_jsonable(value: Any) -> Any:
    """A JSON-ready copy of ``value``: dataclasses become dicts, tuples lists, numpy scalars floats."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        for f in dataclasses.fields(value):
            item = to_jsonable(getattr(value, f.name))
            if f.metadata.get("json") == "inline":
                out.update(item)
            else:
                out[f.name] = item
        for name in getattr(type(value), "JSON_DERIVED", ()):
            out[name] = to_jsonable(getattr(value, name))
        return out
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def from_jsonable(tp: Any, data: Any) -> Any:
    """Rebuild a value of type ``tp`` from :func:`to_jsonable` output.

    Raises
    ------
    ValueError
        A dataclass's dict misses a required field or has a key that is
        neither a field nor one of its ``JSON_DERIVED`` names.
    """
    origin, args = get_origin(tp), get_args(tp)
    if dataclasses.is_dataclass(tp):
        return _dataclass_from(tp, data)
    if origin in (typing.Union, types.UnionType):
        if data is None:
            return None
        options = [a for a in args if a is not type(None)]
        return from_jsonable(options[0], data) if len(options) == 1 else data
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(from_jsonable(args[0], v) for v in data)
        return tuple(from_jsonable(a, v) for a, v in zip(args, data, strict=True))
    if origin is list:
        return [from_jsonable(args[0], v) for v in data]
    if origin is dict:
        return {k: from_jsonable(args[1], v) for k, v in data.items()}
    if tp in (int, float) and data is not None:
        return tp(data)
    return data  # str, bool, Literal, Any: as read


def _dataclass_from(cls: type[T], data: Any) -> T:
    if not isinstance(data, dict):
        raise ValueError(
            f"{cls.__name__} must be read from a JSON object, got {type(data).__name__}"
        )
    hints = _hints(cls)
    kwargs: dict[str, Any] = {}
    used = set(getattr(cls, "JSON_DERIVED", ()))
    for f in dataclasses.fields(cls):
        if f.metadata.get("json") == "inline":
            inner_type = hints[f.name]
            names = {g.name for g in dataclasses.fields(inner_type)}
            names |= set(getattr(inner_type, "JSON_DERIVED", ()))
            kwargs[f.name] = from_jsonable(inner_type, {k: data[k] for k in names if k in data})
            used |= names
        elif f.name in data:
            kwargs[f.name] = from_jsonable(hints[f.name], data[f.name])
            used.add(f.name)
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise ValueError(f"{cls.__name__} needs the key {f.name!r}")
    unknown = sorted(set(data) - used)
    if unknown:
        raise ValueError(f"unknown {cls.__name__} keys: {', '.join(unknown)}")
    return cls(**kwargs)


class JsonDataclass:
    """Mixin for dataclasses: ``to_dict`` / ``from_dict`` by :func:`to_jsonable` / :func:`from_jsonable`."""

    JSON_DERIVED: ClassVar[tuple[str, ...]] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of this record (nested records as dicts)."""
        return to_jsonable(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Any:
        """Inverse of :meth:`to_dict`."""
        return from_jsonable(cls, data)
