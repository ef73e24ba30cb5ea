"""Comparing two batch configurations: what a resumed run or merged shards must share.

A batch output's sidecar records its configuration (the layout, methods,
embedder, LLM and the run config as ``to_dict()``). :func:`comparable_config`
flattens it into the CLI's option names; :func:`config_diff` lists the
settings that differ, ``"n_bootstrap: 8 → 9"``, for the refusal message.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from ..config import RunConfig, ScoreConfig, flat_values, iter_options
from .input import LLM_LAYOUTS

__all__ = ["comparable_config", "config_diff"]

#: Options that matter for pre-generated responses (no generation settings).
_SCORE_OPTIONS = frozenset(f.name for f in dataclasses.fields(ScoreConfig))


def comparable_config(batch_config: dict[str, Any]) -> dict[str, Any]:
    """The settings two outputs must share to be resumed or merged, as flat option names.

    The run config is flattened (``n_bootstrap``, ``gaap_delta`` …, the names
    of the CLI options); for pre-generated responses only the scoring options
    count. ψ is compared by its identity (name and weights hash).
    """
    out = {k: v for k, v in batch_config.items() if k != "run"}
    run = batch_config.get("run")
    if isinstance(run, dict):
        try:
            flat = flat_values(RunConfig.from_dict(run))
        except (ValueError, TypeError) as err:
            raise ValueError(f"the sidecar's run configuration cannot be read: {err}") from None
        generated = batch_config.get("layout") in LLM_LAYOUTS
        out.update(
            (k, v)
            for k, v in flat.items()
            if k != "embedder" and (generated or k in _SCORE_OPTIONS)
        )
    return out


def config_diff(
    old: dict[str, Any], new: dict[str, Any], *, ignore: Iterable[str] = ()
) -> list[str]:
    """``["--n-bootstrap: 8 → 9", …]``: the comparable settings that differ, as the user typed them.

    A setting is named by its option (``--n-bootstrap``, ``--methods``); one no option
    sets (GAAP's n, always the run's n) is left out; the output's columns only when
    ``--methods`` did not change them; lists say what went and what came.
    """
    a, b = comparable_config(old), comparable_config(new)
    keys = sorted((set(a) | set(b)) - set(ignore) - _MIRRORED)
    if a.get("methods") != b.get("methods"):
        keys = [k for k in keys if k != "columns"]  # the columns follow --methods
    flags = _flags()
    return [
        f"{flags.get(k, k)}: {_change(a.get(k), b.get(k))}" for k in keys if a.get(k) != b.get(k)
    ]


#: Flat settings that follow another one and no option sets: ``gaap_n`` is the run's n.
_MIRRORED = frozenset({"gaap_n"})


def _flags() -> dict[str, str]:
    """Flat setting name → the CLI option that sets it (``n_bootstrap`` → ``--n-bootstrap``)."""
    return {**{o.name: o.long_flag for o in iter_options(RunConfig)}, "methods": "--methods"}


def _change(x: Any, y: Any) -> str:
    """``8 → 9``; for two lists, what was dropped and what was added."""
    if isinstance(x, list) and isinstance(y, list) and (set(map(str, x)) != set(map(str, y))):
        dropped = [str(v) for v in x if v not in y]
        added = [str(v) for v in y if v not in x]
        said = [f"{', '.join(dropped)} dropped"] if dropped else []
        return "; ".join(said + ([f"{', '.join(added)} added"] if added else []))
    return f"{x!r} → {y!r}"
