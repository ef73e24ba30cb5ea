"""One question end to end: :class:`RunConfig`, with the adaptive budget and the answer budgets.

:class:`RunConfig` nests :class:`~.score.ScoreConfig`,
:class:`~.paraphrase.ParaphraseConfig`, :class:`~.gaap.GaapConfig` and
:class:`AdaptiveConfig`; ``replace``/``from_dict`` reach the nested fields by
their flat or dotted names (:mod:`.flat`). Also the TSU sweep's default
temperatures and their check.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

from .checks import MAX_SAMPLES, MAX_TEMPERATURE, MAX_TOKENS, check_float, check_int, opt
from .flat import config_to_dict, dataclass_from_dict, flat_names, replace_flat
from .gaap import GaapConfig
from .paraphrase import ParaphraseConfig
from .score import ScoreConfig


@dataclass(frozen=True)
class AdaptiveConfig:
    """The adaptive perturbation budget (ours, beyond the paper).

    The paper names "adaptively determine when further perturbation is
    unnecessary" as future work. With ``enabled``, a run grows its
    perturbation set ``start, start + step, …`` up to ``RunConfig.n_perturbations``
    and stops as soon as the bootstrap interval of Inv-Entropy, divided by
    log(m) (its largest value for m states, so the rule reads the same for
    every m), is narrower than ``tolerance``.

    Measured (``benchmarks/bench_adaptive.py``, ``docs/RESULTS.md``): Inv-Entropy's
    scale grows with m (≈ log m), so runs that stopped at different sizes cannot be
    ranked together. At tolerance 0.01–0.02 questions stop at different sizes and the
    AUROC fell from 0.85 to 0.52 on the arithmetic testbed; at 0.05–0.1 every
    question stopped at the first step (60 % fewer answers, AUROC within the noise).
    Hence off by default; compare adaptive runs only with runs of the same size.
    """

    enabled: bool = opt(
        False,
        "grow the perturbation set until Inv-Entropy is stable (values of runs that stop at "
        "different sizes are not comparable)",
    )  # ours
    start: int = opt(3, "perturbations of the first step")  # ours
    step: int = opt(2, "perturbations added per step")  # ours
    tolerance: float = opt(
        0.02, "stop when the 90% bootstrap interval of Inv-Entropy / log(m) is narrower"
    )  # ours; with the exp kernel, 0.05+ stops every question at the first step (see above)
    level: float = opt(0.9, "level of the bootstrap interval")  # ours, as the dashboard's

    def __post_init__(self) -> None:
        o = "AdaptiveConfig"
        check_int(o, "start", self.start, low=1, high=MAX_SAMPLES)
        check_int(o, "step", self.step, low=1, high=MAX_SAMPLES)
        check_float(o, "tolerance", self.tolerance, low=0.0, high=10.0)
        check_float(o, "level", self.level, low=0.01, high=0.999)


#: a name in invent_core.perturb's registry ("paraphrase", "gaap"). The config checks only
#: that it is a name: membership is checked where a perturber is used (run, batch, evaluate,
#: tsu), so a config, and a run saved with a plug-in perturber, loads without the plug-in.
Perturber = str

#: Answer token budget per task when ``RunConfig.answer_max_tokens`` is None (ours).
#: Answers stop at the first newline (the cleaner keeps the first line), so the cap
#: only bounds a long first line: a name fits in 32; an MMLU reply such as "The
#: answer is B. Wrong, Not wrong" or the option's text, and a GSM8K result line,
#: need more (32 cut MMLU answers before the letter).
ANSWER_MAX_TOKENS: dict[str, int] = {"qa": 32, "mmlu": 64, "gsm8k": 64}


@dataclass(frozen=True)
class RunConfig:
    """One question end to end: perturb → answer (m × r) → clean → score.

    ``seed`` is ``score.seed``: one seed at the edge seeds the perturbation,
    the answer replications and the bootstrap.
    """

    perturber: Perturber = opt(
        "paraphrase", "how questions are perturbed"
    )  # paper Table 1: paraphrasing; §2.5: GAAP. The CLI's choices: the perturber registry
    n_perturbations: int = opt(9, "n, perturbations per question", flag="-n")  # paper §3
    n_replications: int = opt(
        5, "r, answers per question", flag="-r"
    )  # paper, Appendix "Replication and Bootstrapping"
    temperature: float = opt(
        0.7, "answer temperature", flag="-t"
    )  # paper, Appendix "LLM Configuration"
    answer_max_tokens: int | None = opt(
        None, "token budget per answer (default: per task, ANSWER_MAX_TOKENS)"
    )  # ours: answers stop at the first newline; see ANSWER_MAX_TOKENS
    score: ScoreConfig = field(default_factory=ScoreConfig)
    paraphrase: ParaphraseConfig = field(default_factory=ParaphraseConfig)
    gaap: GaapConfig = field(default_factory=GaapConfig)
    adaptive: AdaptiveConfig = field(default_factory=AdaptiveConfig)

    def __post_init__(self) -> None:
        o = "RunConfig"
        if not isinstance(self.perturber, str) or not self.perturber.strip():
            raise ValueError(f"{o}.perturber must be a perturber's name, got {self.perturber!r}")
        check_int(o, "n_perturbations", self.n_perturbations, low=1, high=MAX_SAMPLES)
        check_int(o, "n_replications", self.n_replications, low=1, high=MAX_SAMPLES)
        check_float(o, "temperature", self.temperature, low=0.0, high=MAX_TEMPERATURE)
        if self.answer_max_tokens is not None:
            check_int(o, "answer_max_tokens", self.answer_max_tokens, low=1, high=MAX_TOKENS)
        if self.gaap.n != self.n_perturbations:  # one n: the run's
            object.__setattr__(self, "gaap", dataclasses.replace(self.gaap, n=self.n_perturbations))

    @property
    def seed(self) -> int:
        """The run seed (``score.seed``): perturbation, replications and bootstrap."""
        return self.score.seed

    def answer_tokens(self, task: str) -> int:
        """Token budget of one answer to ``task``: ``answer_max_tokens``, else the task's default."""
        if self.answer_max_tokens is not None:
            return self.answer_max_tokens
        return ANSWER_MAX_TOKENS.get(task, max(ANSWER_MAX_TOKENS.values()))

    @property
    def embedder(self) -> str:
        """ψ's name (``score.embedder``)."""
        return self.score.embedder

    def replace(self, **changes: Any) -> RunConfig:
        """A copy with fields changed; dotted or flat names reach nested configs.

        ``cfg.replace(seed=1, n_bootstrap=10, gaap_delta=0.6)`` is
        ``cfg.replace(score=…, gaap=…)`` spelled out.
        """
        return replace_flat(self, changes)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready nested dict (inverse: :meth:`from_dict`)."""
        return config_to_dict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunConfig:
        """Inverse of :meth:`to_dict`; unknown keys are an error naming them."""
        return dataclass_from_dict(cls, data)

    @classmethod
    def from_settings(cls, settings: dict[str, Any]) -> RunConfig:
        """The config of a run saved before configs existed (its flat ``settings`` dict).

        Keys that are not options (the llm identity, timings …) are ignored;
        missing ones take today's defaults.
        """
        flat = {k: v for k, v in settings.items() if k in flat_names(cls)}
        return replace_flat(cls(), flat)


#: The temperatures of the paper's TSU table (Table "tsu_horizontal"): a sweep's default.
TSU_TEMPERATURES: tuple[float, ...] = (0.3, 0.7, 1.0, 1.4)


def check_temperatures(values: Any) -> list[float]:
    """Check the temperatures of a TSU sweep: at least two, increasing, each a valid one.

    Raises
    ------
    ValueError
        Saying which rule a value breaks (answer temperatures lie in [0, 2]).
    """
    temps = [float(t) for t in values]
    if len(temps) < 2 or any(b <= a for a, b in zip(temps, temps[1:], strict=False)):
        raise ValueError(
            f"temperatures must be at least two strictly increasing values, got {temps}"
        )
    for t in temps:
        if not math.isfinite(t) or not 0.0 <= t <= MAX_TEMPERATURE:
            raise ValueError(f"temperatures must lie in [0, {MAX_TEMPERATURE:g}], got {t:g}")
    return temps
