"""GAAP's trace: every generation, member and pick of one run, as JSON-ready records.

:func:`invent_core.perturb.gaap.gaap` records each step in a :class:`GaapTrace`
so that a demo can replay it generation by generation. The records are
frozen dataclasses; ``to_dict`` / ``from_dict`` come from the one generic
serializer in :mod:`invent_core.serialize`, and the file format is the one
saved traces (``assets/demo_gaap.json``) already use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from ..config import GaapConfig
from ..serialize import JsonDataclass
from .keywords import KeyToken
from .substitutions import SubstitutionSet


@dataclass(frozen=True)
class Origin(JsonDataclass):
    """How a member came about.

    ``op`` is one of
      * ``"initial"``: Pop_0; slot ``position`` (``word``) replaced by
        ``replacement`` ("" = deletion), ``relation`` from WordNet;
      * ``"parent"``: carried over as a selected parent; ``parents = (i,)``
        indexes the previous generation;
      * ``"crossover"``: child of ``parents = (A, B)`` (previous generation)
        cut after ``point`` words: A's first ``point`` slots, then B's;
      * ``"mutation"``: that crossover child, then slot ``position``
        (``word``) replaced by ``replacement`` ("" = deletion). With a single
        ``parents`` entry, the parent itself was mutated (a population of one
        cannot cross over).
    """

    op: Literal["initial", "parent", "crossover", "mutation"]
    parents: tuple[int, ...] = ()
    point: int | None = None
    position: int | None = None
    word: str | None = None
    replacement: str | None = None
    relation: str | None = None

    def describe(self) -> str:
        """One line for people, e.g. ``crossover of #3 × #7 after word 5``."""
        change = ""
        if self.position is not None:
            new = f"'{self.replacement}'" if self.replacement else "deleted"
            change = f"'{self.word}' (word {self.position}) → {new}"
            if self.relation and self.relation != "deletion":
                change += f" ({self.relation})"
        if self.op == "initial":
            return f"initial: {change}"
        if self.op == "parent":
            return f"selected parent #{self.parents[0]}"
        if len(self.parents) == 1:
            return f"mutation of #{self.parents[0]}: {change}"
        cut = f"after word {self.point}" if self.point is not None else "(no cut: 1 word)"
        cross = f"crossover of #{self.parents[0]} × #{self.parents[1]} {cut}"
        return cross if self.op == "crossover" else f"{cross}, then mutation {change}"


@dataclass(frozen=True)
class Member(JsonDataclass):
    """One individual of a generation."""

    text: str
    slots: tuple[str, ...]  # p word slots, "" where a word was deleted
    fitness: float  # a(x_0, x), paper's fitness
    origin: Origin
    selected: bool = False  # drawn as a parent of the next generation
    in_perturbations: bool = False  # entered Per(S_x0)


@dataclass(frozen=True)
class Generation(JsonDataclass):
    """Pop_t with bookkeeping of how it was formed."""

    index: int
    members: tuple[Member, ...]
    n_duplicates: int = 0  # candidates dropped as repeats of an earlier text
    n_original: int = 0  # candidates dropped because they equal S_x0 (or are empty)
    n_capped: int = 0  # dropped to respect max_population
    sampled: bool = False  # t is a multiple of τ: Per(S_x0) draws from it

    JSON_DERIVED = ("max_fitness", "mean_fitness")  # written for readers of the file

    @property
    def max_fitness(self) -> float:
        """Best fitness of the generation (NaN when empty)."""
        return max((m.fitness for m in self.members), default=float("nan"))

    @property
    def mean_fitness(self) -> float:
        """Mean fitness of the generation (NaN when empty)."""
        return float(np.mean([m.fitness for m in self.members])) if self.members else float("nan")


@dataclass(frozen=True)
class PerturbationPick(JsonDataclass):
    """One element of Per(S_x0): which member it is, and whether it is a padding duplicate."""

    text: str
    generation: int
    member: int
    duplicate: bool = False


@dataclass(frozen=True)
class SubEntry(JsonDataclass):
    """SUB(t) for the word at ``position`` (deletion included, last)."""

    position: int
    sub: SubstitutionSet = field(metadata={"json": "inline"})  # written flat, beside position


@dataclass(frozen=True)
class GaapTrace(JsonDataclass):
    """Everything GAAP did on one question, generation by generation."""

    question: str
    words: tuple[str, ...]
    key_tokens: tuple[KeyToken, ...]
    sub_sets: tuple[SubEntry, ...]  # every SUB(t) used: key tokens, then mutated words
    generations: tuple[Generation, ...]
    perturbations: tuple[PerturbationPick, ...]
    stop_reason: str  # "max_generations", "delta" or "empty" (Pop_0 had no member)
    config: GaapConfig
    seed: int | None
    embedder: str  # identity of the fitness embedder
    # how much of the embedder's text→vector cache this run used: depends on
    # what the (shared) embedder saw before, so not part of trace equality
    embedding_requested: int = field(default=0, compare=False)
    embedding_encoded: int = field(default=0, compare=False)
    # seconds spent loading WordNet, KeyBERT and the embedders first (0 once loaded in
    # this process): not GAAP's own time, so the time estimate leaves it out
    load_seconds: float = field(default=0.0, compare=False)

    JSON_DERIVED = ("embedding_calls_saved",)

    @property
    def embedding_calls_saved(self) -> int:
        """Texts whose embedding came from the embedder's cache instead of the model."""
        return self.embedding_requested - self.embedding_encoded

    def sub_set(self, position: int, token: str | None = None) -> SubstitutionSet:
        """SUB of the word at ``position`` (the original word unless ``token`` is given)."""
        token = self.words[position] if token is None else token
        for e in self.sub_sets:
            if e.position == position and e.sub.token == token:
                return e.sub
        raise KeyError(f"no SUB set recorded for {token!r} at word {position}")


@dataclass(frozen=True)
class GaapResult(JsonDataclass):
    """Per(S_x0) and how it was made.

    ``provenance``: who made a saved trace (the shipped demo's ``demo`` block:
    code, day, command, model); None for a trace made in this process.
    """

    perturbations: list[str]
    trace: GaapTrace
    seconds: float = field(default=0.0, compare=False)
    provenance: dict[str, Any] | None = field(default=None, compare=False)

    @property
    def embedding_calls_saved(self) -> int:
        """Texts whose embedding came from the embedder's cache instead of the model."""
        return self.trace.embedding_calls_saved
