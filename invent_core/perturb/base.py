"""Perturbers behind one Protocol and one registry: the paper's Per(S_x0).

A perturber turns the question x₀ into n perturbations. ``run_question``, the
CLI's ``--perturber`` choices, :class:`~invent_core.config.RunConfig`'s
validation and the dashboard's perturber pickers all read
:func:`available_perturbers`, so a new perturber is one class plus one
:func:`register_perturber` call.

The two shipped adapters import their implementation on first use, so
importing this module pulls in neither an LLM client nor KeyBERT/WordNet.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from ..config import RunConfig
    from ..progress import ProgressCallback


@dataclass
class PerturbResult:
    """What a perturber returns.

    Attributes
    ----------
    perturbations : exactly ``config.n_perturbations`` strings (x₁ … xₙ).
    trace : how they were made, JSON-ready (GAAP's generations), or None.
    candidates : texts considered and set aside, one dict each (JSON-ready).
    """

    perturbations: list[str]
    trace: dict[str, Any] | None = None
    candidates: list[dict[str, Any]] = field(default_factory=list)


@runtime_checkable
class Perturber(Protocol):
    """A way to build Per(S_x0).

    Attributes
    ----------
    name : the registry key (``--perturber`` value, ``RunConfig.perturber``).
    label : how the dashboard names it.
    needs_llm : whether :meth:`perturb` calls the LLM (the dashboard warns
        before starting one; a file of pre-generated responses never needs it).
    """

    name: str
    label: str
    needs_llm: bool

    def perturb(
        self,
        question: str,
        config: RunConfig,
        *,
        llm: Any,
        embedder: Any,
        progress: ProgressCallback | None,
    ) -> PerturbResult:
        """``config.n_perturbations`` perturbations of ``question``."""
        ...


_REGISTRY: dict[str, Perturber] = {}


def register_perturber(perturber: Perturber) -> Perturber:
    """Add a perturber under its ``name``; a second one under the same name is an error."""
    if not isinstance(perturber, Perturber):
        raise TypeError(f"{perturber!r} does not implement the Perturber protocol")
    known = _REGISTRY.get(perturber.name)
    if known is not None and known is not perturber:
        raise ValueError(f"a perturber named {perturber.name!r} is already registered")
    _REGISTRY[perturber.name] = perturber
    return perturber


def available_perturbers() -> tuple[str, ...]:
    """Names of the registered perturbers, the paper's default (paraphrase) first."""
    return tuple(_REGISTRY)


def get_perturber(name: str) -> Perturber:
    """Return the perturber called ``name``.

    Raises
    ------
    ValueError
        Naming the unknown perturber and listing the known ones.
    """
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        known = ", ".join(map(repr, _REGISTRY))
        raise ValueError(f"unknown perturber {name!r}: choose one of {known}") from None


# -- the two shipped perturbers -------------------------------------------------


@dataclass(frozen=True)
class ParaphrasePerturber:
    """LLM paraphrasing (paper §4 and Table 1), options from ``config.paraphrase``."""

    name: str = "paraphrase"
    label: str = "LLM paraphrasing"
    needs_llm: bool = True

    def perturb(
        self,
        question: str,
        config: RunConfig,
        *,
        llm: Any,
        embedder: Any = None,
        progress: ProgressCallback | None = None,
    ) -> PerturbResult:
        """See :func:`invent_core.perturb.paraphrase.paraphrase`."""
        from dataclasses import asdict

        from .paraphrase import paraphrase

        texts = paraphrase(
            question,
            llm=llm,
            n=config.n_perturbations,
            seed=config.seed,
            **asdict(config.paraphrase),
        )
        return PerturbResult(perturbations=list(texts))


@dataclass(frozen=True)
class GaapPerturber:
    """GAAP, the genetic-algorithm perturber (paper §2.5), options from ``config.gaap``."""

    name: str = "gaap"
    label: str = "GAAP (genetic algorithm)"
    needs_llm: bool = False

    def perturb(
        self,
        question: str,
        config: RunConfig,
        *,
        llm: Any = None,
        embedder: Any = None,
        progress: ProgressCallback | None = None,
    ) -> PerturbResult:
        """See :func:`invent_core.perturb.gaap.gaap`; progress counts generations."""
        from ..progress import ProgressReporter
        from .gaap import gaap

        result = gaap(
            question,
            n=config.n_perturbations,
            embedder=embedder if embedder is not None else config.embedder,
            seed=config.seed,
            config=config.gaap,
            progress=ProgressReporter(progress).counter("perturb"),
        )
        return PerturbResult(perturbations=list(result.perturbations), trace=result.trace.to_dict())


register_perturber(ParaphrasePerturber())
register_perturber(GaapPerturber())
