"""One registry for every uncertainty method: the Inv measures and the baselines.

A method is a :class:`Method` whose ``compute(ctx)`` reads a
:class:`~invent_core.methods.context.ScoringContext`: the run's texts and the shared
statistics derived from them once (embeddings, affinities, the Inv
bootstrap). Adding a baseline is one new file in ``invent_core/methods/`` that
calls :func:`register`, plus its module name in
``invent_core.methods.MODULES``; an Inv variant is one entry of
:data:`invent_core.paper.measures.INV_MEASURES`. The dashboard's method picker, the
CLI and the contract test all read :func:`list_methods`; :func:`compute_methods`
runs a selection on one context.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ..errors import Cancelled, MethodUnavailable
from ..progress import Progress
from . import load_all
from .context import ScoringContext

Family = Literal["inv", "baseline"]

#: What a method may need beyond the responses to the original question.
NEEDS = {
    "perturbations": "responses to the perturbed questions",
    "replications": "r > 1 responses per question",
    "llm": "an LLM backend for extra prompts",
    "logprobs": "token log-probabilities from the backend",
}
#: The needs that only an LLM backend can meet: a method with one of them asks the LLM.
LLM_NEEDS = frozenset({"llm", "logprobs"})


@dataclass(frozen=True)
class Method:
    """An uncertainty method. ``compute`` returns a float, higher = more uncertain."""

    name: str  # snake_case id used by the CLI and in result files
    label: str  # as printed in the paper's tables
    family: Family
    compute: Callable[[ScoringContext], float]
    needs: frozenset[str] = frozenset()
    reference: str = ""  # paper citation
    summary: str = ""  # one line: what it measures
    simplifications: str = ""  # what this implementation simplifies or chooses

    def __post_init__(self) -> None:
        """Reject needs that :data:`NEEDS` does not define."""
        unknown = set(self.needs) - set(NEEDS)
        if unknown:
            raise ValueError(f"method {self.name!r} declares unknown needs {sorted(unknown)}")

    @property
    def needs_llm(self) -> bool:
        """Whether computing it asks an LLM backend (extra prompts or log-probabilities).

        The one answer to "can this method run offline, from the saved answers alone"
        that the dashboard's pickers and the Explore page's LLM button read.
        """
        return bool(LLM_NEEDS & set(self.needs))


_REGISTRY: dict[str, Method] = {}


def register(method: Method) -> Method:
    """Add a method; a second registration under the same name is an error."""
    if method.name in _REGISTRY and _REGISTRY[method.name] is not method:
        raise ValueError(f"a method named {method.name!r} is already registered")
    _REGISTRY[method.name] = method
    return method


def unregister(name: str) -> None:
    """Remove the method called ``name`` (a plug-in a script or a test added); no-op if absent."""
    _REGISTRY.pop(name, None)


def is_registered(name: str) -> bool:
    """Whether a method called ``name`` is registered (without importing the method modules)."""
    return name in _REGISTRY


def _load() -> None:
    load_all()


def list_methods(family: Family | None = None) -> list[Method]:
    """Registered methods, Inv measures first, in registration order."""
    _load()
    out = [m for m in _REGISTRY.values() if family is None or m.family == family]
    return sorted(out, key=lambda m: m.family != "inv")


def get_method(name: str) -> Method:
    """The method called ``name`` (or whose label is ``name``).

    Raises
    ------
    ValueError
        Listing the known names.
    """
    _load()
    if name in _REGISTRY:
        return _REGISTRY[name]
    for m in _REGISTRY.values():
        if m.label.lower() == name.lower():
            return m
    raise ValueError(f"unknown method {name!r}; known: {', '.join(_REGISTRY)}")


def resolve_methods(names: str | Iterable[str] | None) -> list[Method]:
    """``None``/``"all"`` → every method; ``"inv"``/``"baselines"`` → a family; else names."""
    if isinstance(names, str):
        names = [n.strip() for n in names.split(",") if n.strip()]
    if names is None or list(names) == ["all"]:  # a tuple ("all",) too
        return list_methods()
    out: list[Method] = []
    for n in names:
        if n in ("inv", "baselines", "baseline"):
            out.extend(list_methods("inv" if n == "inv" else "baseline"))
        else:
            out.append(get_method(n))
    return list(dict.fromkeys(out))


@dataclass
class MethodResult:
    """One method's value on one run, or why it has none."""

    name: str
    value: float = float("nan")
    error: str | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """True when the method gave a value."""
        return self.error is None


def compute_methods(
    ctx: ScoringContext,
    names: str | Iterable[str] | None = None,
    *,
    strict: bool = False,
    progress: Callable | None = None,
) -> dict[str, MethodResult]:
    """Run several methods on one context; a failing method yields an error, not an exception.

    Parameters
    ----------
    names : see :func:`resolve_methods`.
    strict : re-raise instead of recording the error.
    progress : called with a :class:`~invent_core.progress.Progress` ("methods",
        done, total, note = the method about to run) before each method and at
        the end; a :class:`~invent_core.errors.Cancelled` it or a method raises
        ends the call (it is never recorded as the method's error).
    """
    out: dict[str, MethodResult] = {}
    methods = resolve_methods(names)
    for i, method in enumerate(methods):
        if progress is not None:
            progress(Progress("methods", i, len(methods), note=method.label))
        t0 = time.perf_counter()
        try:
            value = float(method.compute(ctx))
            if not np.isfinite(value):
                raise ValueError(f"{method.label} returned a non-finite value ({value})")
            out[method.name] = MethodResult(method.name, value, None, time.perf_counter() - t0)
        except Cancelled:
            raise
        except MethodUnavailable as err:
            if strict:
                raise
            out[method.name] = MethodResult(
                method.name, error=str(err), seconds=time.perf_counter() - t0
            )
        except Exception as err:  # noqa: BLE001 - recorded for the table, re-raised when strict
            if strict:
                raise
            msg = f"{type(err).__name__}: {err}"
            out[method.name] = MethodResult(
                method.name, error=msg, seconds=time.perf_counter() - t0
            )
    if progress is not None:
        progress(Progress("methods", len(methods), len(methods)))
    return out


__all__ = [
    "NEEDS",
    "Method",
    "MethodResult",
    "ScoringContext",
    "compute_methods",
    "get_method",
    "is_registered",
    "list_methods",
    "register",
    "resolve_methods",
    "unregister",
]
