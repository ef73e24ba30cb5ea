"""The generated options: one :class:`OptionSpec` per field, for argparse and the sidebar.

:func:`iter_options` walks a config (default :class:`~.run.RunConfig`),
flattening nested configs into the flat names of :mod:`.flat`, in declaration
order; a field's ``help``, short ``flag`` and ``choices`` come from its
:func:`~.checks.opt` metadata, and so do what a dashboard widget needs
(``label``, bounds, ``ui=False`` for an option of the command line only).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal, get_args, get_origin

from .flat import PREFIX, flat_name, is_config
from .run import RunConfig


@dataclass(frozen=True)
class OptionSpec:
    """One generated option: what argparse and the sidebar need to know of a field."""

    name: str  # flat name: "n_bootstrap", "gaap_delta"
    path: tuple[str, ...]  # ("score", "n_bootstrap")
    type: type  # int, float, str or bool (after Optional)
    default: Any
    help: str
    flag: str | None = None  # extra short flag ("-B")
    choices: tuple[Any, ...] | None = None
    optional: bool = False  # None is allowed
    kind: str | None = None  # how it is typed, when its type does not say (config/llm.py)
    label: str | None = None  # the dashboard widget's label, when its name is no label
    ui: bool = True  # False: an option of the command line only (the metadata says why)
    ui_name: str | None = None  # its name in the dashboard's saved settings, when not ``name``
    applies: tuple[str, str] | None = None  # ("served" | "local", the spec field it depends on)
    low: Any = None  # bounds of a number
    high: Any = None
    unset: str | None = None  # what 0 or blank stands for in a widget (None: no such value)
    advanced: bool = False  # in the sidebar's Advanced expander

    @property
    def long_flag(self) -> str:
        """The generated long option, e.g. ``--n-bootstrap``."""
        return "--" + self.name.replace("_", "-")


def _base_type(tp: Any) -> tuple[type, tuple[Any, ...] | None, bool]:
    """(python type, Literal choices or None, whether None is allowed) of an annotation."""
    optional = False
    if get_origin(tp) in (typing.Union, types.UnionType):
        args = [a for a in get_args(tp) if a is not type(None)]
        optional = len(args) < len(get_args(tp))
        tp = args[0]
    if get_origin(tp) is Literal:
        choices = get_args(tp)
        return type(choices[0]), choices, optional
    return tp, None, optional


def iter_options(cls: type = RunConfig) -> Iterator[OptionSpec]:
    """Every option of ``cls`` (nested configs flattened), in declaration order."""
    yield from _iter_options(cls, (), cls())


def _iter_options(cls: type, path: tuple[str, ...], instance: Any) -> Iterator[OptionSpec]:
    hints = typing.get_type_hints(cls)
    prefix = "".join(PREFIX.get(p, p + "_") for p in path)
    for f in dataclasses.fields(cls):
        tp = hints[f.name]
        value = getattr(instance, f.name)
        if is_config(tp):
            yield from _iter_options(tp, (*path, f.name), value)
            continue
        if not f.metadata.get("cli", True):
            continue
        base, choices, optional = _base_type(tp)
        choices = f.metadata.get("choices", choices)
        yield OptionSpec(
            name=flat_name(prefix, f.name),
            path=(*path, f.name),
            type=base,
            default=value,
            help=f.metadata.get("help", ""),
            flag=f.metadata.get("flag"),
            choices=tuple(choices()) if callable(choices) else choices,
            optional=optional,
            **{k: f.metadata[k] for k in _UI_KEYS if k in f.metadata},
        )


#: The metadata of a field that :class:`OptionSpec` carries as it is.
_UI_KEYS = ("kind", "label", "ui", "ui_name", "applies", "low", "high", "unset", "advanced")
