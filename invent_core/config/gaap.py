"""The genetic-algorithm perturber's settings: :class:`GaapConfig` (paper §2.5).

Inside a :class:`~.run.RunConfig` its ``n`` follows the run's ``n_perturbations``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

from .checks import (
    MAX_ROUNDS,
    MAX_SAMPLES,
    check_bool,
    check_choice,
    check_float,
    check_int,
    opt,
)
from .flat import dataclass_from_dict
from .score import AffinityKind


@dataclass(frozen=True)
class GaapConfig:
    """Settings of one GAAP run (paper §2.5, Appendix "GAAP Implementation Details").

    ``n`` is the number of perturbations returned; inside a :class:`RunConfig`
    it is taken from ``n_perturbations``. ``affinity`` is the fitness
    a(x_0, ·); δ = 0.7 is the paper's threshold on its (1 + cos)/2 scale, so it
    stays the paper's kernel even when the run scores with another one.
    """

    n: int = opt(9, "GAAP perturbations", cli=False)  # paper, Appendix "Experimental setting"
    delta: float = opt(0.7, "δ: stop when the best fitness falls below it")  # paper §3
    ratio: float = opt(
        0.2, "share of word tokens that are key tokens"
    )  # ours: 4 key tokens on a 22-word question
    max_generations: int = opt(6, "T, most generations after Pop_0")  # ours (not given)
    tau: int = opt(2, "τ, sampling gap between generations")  # ours
    n_parents: int = opt(10, "parents drawn by roulette wheel per generation")  # ours
    max_population: int = opt(30, "cap on a generation after de-duplication")  # ours: 10+10+10
    max_senses: int | None = opt(
        None, "use only the first WordNet senses (default: all, as the paper)"
    )  # paper: every synonym, hypernym, hyponym
    mutate: Literal["content", "key"] = opt(
        "content", "mutation sites: any content word, or key tokens only"
    )  # ours
    inflect_plurals: bool = opt(True, "pluralise replacements of plural nouns")  # ours
    affinity: AffinityKind = opt("shifted_cosine", "fitness a(x_0, ·) from cosine")  # paper §3
    # ours, off by default on evidence: on 100 arithmetic questions GAAP
    # flags 7.6 of 9 members and every member of 60 questions; keeping only unflagged
    # ones moved Inv-Entropy 0.464 -> 0.480 (+0.016 ± 0.092; docs/results/breakdown.md)
    meaning_check: bool = opt(
        False,
        "Per(S_x0) keeps only members that keep the question's numbers, names and meaning "
        "(the paraphrase gate's check), padding with copies as the paper does",
    )

    def __post_init__(self) -> None:
        o = "GaapConfig"
        check_bool(o, "meaning_check", self.meaning_check)
        check_int(o, "n", self.n, low=1, high=MAX_SAMPLES)
        check_float(o, "delta", self.delta, low=0.0, high=1.0)
        check_float(o, "ratio", self.ratio, low=0.0, high=1.0)
        if self.ratio == 0:
            raise ValueError(f"{o}.ratio must be in (0, 1], got 0")
        if isinstance(self.max_generations, int) and self.max_generations < 0:
            raise ValueError(f"{o}.max_generations must be >= 0, got {self.max_generations}")
        check_int(o, "max_generations", self.max_generations, low=0, high=MAX_ROUNDS)
        check_int(o, "tau", self.tau, low=1, high=MAX_ROUNDS)
        check_int(o, "n_parents", self.n_parents, low=2, high=MAX_SAMPLES)
        check_int(o, "max_population", self.max_population, low=2, high=MAX_SAMPLES)
        if self.max_senses is not None:
            check_int(o, "max_senses", self.max_senses, low=1, high=MAX_ROUNDS)
        if self.max_population < self.n_parents:
            raise ValueError(
                f"{o}.max_population ({self.max_population}) must be >= n_parents ({self.n_parents})"
            )
        if self.max_senses is not None and not (
            isinstance(self.max_senses, int) and self.max_senses >= 1
        ):
            raise ValueError(f"{o}.max_senses must be None or >= 1, got {self.max_senses!r}")
        if self.mutate not in ("content", "key"):
            raise ValueError(f"{o}.mutate must be 'content' or 'key', got {self.mutate!r}")
        check_choice(o, "affinity", self.affinity, AffinityKind)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of the settings."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GaapConfig:
        """Inverse of :meth:`to_dict`; unknown keys are an error naming them."""
        return dataclass_from_dict(cls, data)
