"""One registry for every uncertainty method: the Inv measures and the baselines.

A method is a :class:`Method` whose ``compute(ctx)`` reads a
:class:`ScoringContext` — the run's texts and the shared statistics derived
from them once (embeddings, affinities, the Inv bootstrap). Adding a method is
one new file in ``invent_core/methods/`` that calls :func:`register`, plus its
module name in ``invent_core.methods.MODULES``. The dashboard's method picker,
the CLI and the contract test all read :func:`list_methods`.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

import numpy as np

from .errors import MethodUnavailable

Family = Literal["inv", "baseline"]

#: What a method may need beyond the responses to the original question.
NEEDS = {
    "perturbations": "responses to the perturbed questions",
    "replications": "r > 1 responses per question",
    "llm": "an LLM backend for extra prompts",
    "logprobs": "token log-probabilities from the backend",
}


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
        unknown = set(self.needs) - set(NEEDS)
        if unknown:
            raise ValueError(f"method {self.name!r} declares unknown needs {sorted(unknown)}")


_REGISTRY: dict[str, Method] = {}


def register(method: Method) -> Method:
    """Add a method; a second registration under the same name is an error."""
    if method.name in _REGISTRY and _REGISTRY[method.name] is not method:
        raise ValueError(f"a method named {method.name!r} is already registered")
    _REGISTRY[method.name] = method
    return method


def _load() -> None:
    from . import methods

    methods.load_all()


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
    if names is None or names == "all" or names == ["all"]:
        return list_methods()
    if isinstance(names, str):
        names = [n.strip() for n in names.split(",") if n.strip()]
    out: list[Method] = []
    for n in names:
        if n in ("inv", "baselines", "baseline"):
            out.extend(list_methods("inv" if n == "inv" else "baseline"))
        else:
            out.append(get_method(n))
    return list(dict.fromkeys(out))


class ScoringContext:
    """The shared statistics of one run, computed at most once and read by every method.

    Parameters
    ----------
    questions : the original question followed by its n perturbations.
    responses : ``responses[i]`` holds the r cleaned answers to ``questions[i]``.
    embedder : name or Similarity object for the affinities (default MiniLM).
    n_bootstrap, seed : for the Inv bootstrap; ``seed`` also seeds
        per-method generators (:meth:`rng`).
    llm : optional LLM backend, for methods that need extra prompts.
    entailment : optional entailment judge name/object for Semantic Entropy
        and the graph baselines (``None`` = embedding-affinity threshold).
    extras : per-run data collected by the pipeline (e.g. verbalized
        confidences); methods may also cache LLM answers here.
    score : an already computed :class:`invent_core.scoring.ScoreResult`
        (reused instead of recomputed).
    task, choices : the answer-prompt task ("qa", "mmlu", "gsm8k") and MMLU options.
    """

    def __init__(
        self,
        questions: Sequence[str],
        responses: Sequence[Sequence[str]],
        *,
        embedder: Any = "minilm",
        n_bootstrap: int = 30,
        seed: int = 0,
        llm: Any = None,
        entailment: Any = None,
        extras: dict[str, Any] | None = None,
        score: Any = None,
        task: str = "qa",
        choices: Sequence[str] | None = None,
        temperature: float = 0.7,
        score_options: dict[str, Any] | None = None,
    ) -> None:
        from .scoring import validate_responses

        self.questions, self.responses = validate_responses(questions, responses)
        self.embedder = embedder
        self.n_bootstrap = n_bootstrap
        self.seed = seed
        self.llm = llm
        self.entailment = entailment
        # Shared, not copied: what methods stash here (e.g. asked confidences) flows
        # back into the run artefact, so a re-score needs no LLM call.
        self.extras: dict[str, Any] = extras if extras is not None else {}
        self.task = task
        self.choices = list(choices) if choices else None
        self.temperature = temperature
        self.score_options = dict(score_options or {})
        if score is not None:
            self.__dict__["score"] = score

    @classmethod
    def from_run(cls, run: Any, **overrides: Any) -> ScoringContext:
        """Context over a :class:`invent_core.pipeline.RunArtifact` (no LLM call unless a method needs one)."""
        settings = getattr(run, "settings", {}) or {}
        kwargs: dict[str, Any] = {
            "embedder": settings.get("embedder", "minilm"),
            "n_bootstrap": settings.get("n_bootstrap", 30),
            "seed": settings.get("seed", 0),
            "extras": getattr(run, "extras", None),
            "score": getattr(run, "score", None),
            "task": getattr(run, "task", "qa"),
            "choices": getattr(run, "choices", None),
            "temperature": settings.get("temperature", 0.7),
        }
        kwargs.update(overrides)
        if "embedder" in overrides or "n_bootstrap" in overrides or "seed" in overrides:
            kwargs["score"] = overrides.get("score")
        return cls(run.questions, run.responses, **kwargs)

    # -- shared statistics -------------------------------------------------
    @property
    def original_question(self) -> str:
        return self.questions[0]

    @property
    def original_responses(self) -> list[str]:
        """The r answers to the original question: what replication-only baselines read."""
        return self.responses[0]

    @cached_property
    def similarity(self):
        """The Similarity object (embedder or NLI) used for every affinity."""
        from .embedders import get_embedder

        return get_embedder(self.embedder)

    @cached_property
    def score(self):
        """The Inv measures' :class:`~invent_core.scoring.ScoreResult` (computed once)."""
        from .config import ScoreConfig
        from .scoring import score_responses

        config = ScoreConfig(n_bootstrap=self.n_bootstrap, seed=self.seed, **self.score_options)
        return score_responses(self.questions, self.responses, config, embedder=self.similarity)

    @cached_property
    def original_affinity(self) -> np.ndarray:
        """(r, r) affinity between the answers to the original question (from the shared run matrix)."""
        r = len(self.original_responses)
        return np.asarray(self.score.sim_y)[:r, :r]

    @cached_property
    def original_embeddings(self) -> np.ndarray:
        """(r, d) unit embeddings of the original answers (embedders only)."""
        sim = self.similarity
        if not hasattr(sim, "encode"):
            raise MethodUnavailable(
                f"{getattr(sim, 'name', sim)} gives similarities, not embeddings"
            )
        return sim.encode(self.original_responses)

    def rng(self, name: str) -> np.random.Generator:
        """A generator for one method, derived from the run's seed and the method name."""
        salt = int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "little")
        return np.random.default_rng([self.seed, salt])

    def require_llm(self, method: str):
        if self.llm is None:
            raise MethodUnavailable(f"{method} needs an LLM backend; none was given for this run")
        return self.llm


@dataclass
class MethodResult:
    """One method's value on one run, or why it has none."""

    name: str
    value: float = float("nan")
    error: str | None = None
    seconds: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None


def compute_methods(
    ctx: ScoringContext, names: str | Iterable[str] | None = None, *, strict: bool = False
) -> dict[str, MethodResult]:
    """Run several methods on one context; a failing method yields an error, not an exception.

    Parameters
    ----------
    names : see :func:`resolve_methods`.
    strict : re-raise instead of recording the error.
    """
    out: dict[str, MethodResult] = {}
    for method in resolve_methods(names):
        t0 = time.perf_counter()
        try:
            value = float(method.compute(ctx))
            if not np.isfinite(value):
                raise ValueError(f"{method.label} returned a non-finite value ({value})")
            out[method.name] = MethodResult(method.name, value, None, time.perf_counter() - t0)
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
    return out
