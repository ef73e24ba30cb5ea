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

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..embedders import resolve_embedder
from ..progress import ProgressReporter
from ..questions.mmlu import attach_choices, split_mmlu_stem
from .gaap import gaap
from .paraphrase import gated_paraphrase

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
    candidates : every candidate the validity gate judged, one dict each
        (:meth:`~invent_core.perturb.gate.GateVerdict.to_dict` plus ``round``
        and ``index``, see :class:`~invent_core.perturb.paraphrase.ParaphraseResult`).
    acceptance : the gate's summary (:func:`invent_core.perturb.gate.summarize`
        plus ``padded``, ``requests``, ``gate``), or None for a perturber
        without a gate.
    """

    perturbations: list[str]
    trace: dict[str, Any] | None = None
    candidates: list[dict[str, Any]] = field(default_factory=list)
    acceptance: dict[str, Any] | None = None


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
        on_accept: Callable[[int, str], None] | None,
    ) -> PerturbResult:
        """``config.n_perturbations`` perturbations of ``question``.

        ``on_accept(index, text)``, when given, is called as soon as perturbation
        ``index`` is final, so its answers can be asked meanwhile (the paraphraser).
        A perturber that only knows its perturbations at the end (GAAP) may ignore
        it: the pipeline asks every returned perturbation it was not told of.
        Cancel reaches a perturber through ``llm`` (the run's request pool).
        """
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


def unregister_perturber(name: str) -> None:
    """Remove the perturber called ``name`` (a plug-in a script or a test added); no-op if absent."""
    _REGISTRY.pop(name, None)


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
    """LLM paraphrasing (paper §4 and Table 1), options from ``config.paraphrase``.

    Every candidate passes the validity gate (``config.paraphrase.gate``) under
    the run's embedder. A multiple-choice question that carries its options
    ("… A. x B. y") has only its stem reworded; the options are put back under
    every perturbation unchanged (:func:`~invent_core.perturb.gate.split_mmlu_stem`).
    """

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
        on_accept: Callable[[int, str], None] | None = None,
    ) -> PerturbResult:
        """See :func:`invent_core.perturb.paraphrase.gated_paraphrase`.

        ``on_accept(index, text)`` is called as soon as perturbation ``index``
        is final (in index order; padded duplicates last); ``progress`` counts
        accepted perturbations (stage ``"perturb"``).
        """
        opts = config.paraphrase
        n = config.n_perturbations
        stem, choices = split_mmlu_stem(question)
        report = ProgressReporter(progress)

        def accepted(index: int, text: str) -> None:
            report("perturb", index + 1, n)
            if on_accept is not None:
                on_accept(index, attach_choices(text, choices))

        result = gated_paraphrase(
            stem,
            llm=llm,
            n=n,
            seed=config.seed,
            style=opts.style,
            constructions=opts.constructions,
            premises_kept=opts.premises_kept,
            temperature=opts.temperature,
            max_tokens=opts.max_tokens,
            max_requests=opts.max_requests,
            frequency_penalty=opts.frequency_penalty,
            gate=opts.gate,
            similarity=_gate_similarity(opts.gate, embedder, config),
            on_accept=accepted,
            on_reply=report.counter("rewordings"),
        )
        return PerturbResult(
            perturbations=[attach_choices(t, choices) for t in result.perturbations],
            candidates=result.candidates,
            acceptance=result.acceptance,
        )


def _gate_similarity(gate: Any, embedder: Any, config: RunConfig) -> Any:
    """Return the run's embedder (loaded, or by name) for the gate; None when the gate is off."""
    if not gate.enabled:
        return None

    return resolve_embedder(embedder, config)


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
        on_accept: Callable[[int, str], None] | None = None,
    ) -> PerturbResult:
        (
            """See :func:`invent_core.perturb.gaap.gaap`; progress counts generations.

        ``on_accept`` is not called: the population is final only at the end.
        """
            ""
        )

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
