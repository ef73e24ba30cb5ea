"""What an experiment runs: :class:`ExperimentConfig`, and the key a saved run must share.

An experiment names its questions (a shipped ``dataset`` or a ``data`` file,
``limit``, ``sample_seed``, ``difficulty``), its ``methods``, its ``judge`` and
one :class:`~invent_core.config.RunConfig` for every run. :func:`generation_key`
is the part of a run config that changes a run's texts: a saved run with the
same key is reused (rescored when only scoring options differ).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from ..config import DEFAULT_PROFILE, RunConfig, ScoreConfig, flat_values, get_profile, iter_options
from ..evaluation.correctness import DEFAULT_JUDGE, JUDGE_METHODS
from ..evaluation.metrics import CONVENTIONS, N_BOOTSTRAP

__all__ = ["JUDGES", "MAX_METRIC_BOOTSTRAP", "ExperimentConfig", "generation_key"]

#: Most metric bootstrap resamples: each holds an index per question (1e8 of them
#: filled memory after the whole generation); checked before any work.
MAX_METRIC_BOOTSTRAP = 10_000

#: Most questions --limit may ask for (a million: far above any dataset shipped or read).
MAX_QUESTIONS = 1_000_000

#: How correctness is judged (``evaluation.correctness.judge_verdict``'s methods).
JUDGES: tuple[str, ...] = JUDGE_METHODS


@dataclass(frozen=True)
class ExperimentConfig:
    """What an experiment runs: which questions, which methods, and one run config for all.

    ``run`` holds every generation and scoring option (paper defaults, see
    :class:`~invent_core.config.RunConfig`); ``tsu`` overrides only its
    temperature.
    """

    run: RunConfig = field(default_factory=RunConfig)
    dataset: str | None = None  # one of invent_core.questions.datasets.available_datasets()
    data: str | None = None  # or a user CSV/JSONL with question + answer
    limit: int | None = None
    sample_seed: int | None = 0  # with a limit: a seeded shuffled draw (None: file order)
    # keep only rows whose ``extra["difficulty"]`` is one of these (the testbed's 1 … 5), before the draw
    difficulty: tuple[int, ...] | None = None
    methods: tuple[str, ...] = ("all",)
    judge: str = DEFAULT_JUDGE  # one of JUDGES
    n_bootstrap_metrics: int = N_BOOTSTRAP  # ours, 1,000 (the paper's 40: --profile paper)
    # the reference the run reproduces (config.profiles): it sets the metrics' centre
    profile: str = DEFAULT_PROFILE
    # identities of the answering LLM and of a separate rewording one (None: not known or none):
    # a folder's saved runs are reused only with the model that made them
    llm: str | None = None
    paraphrase_llm: str | None = None

    def __post_init__(self) -> None:
        """Check the question source and the judge; store ``methods`` as a tuple."""
        if (self.dataset is None) == (self.data is None):
            raise ValueError("give exactly one of a dataset name (--dataset) or a file (--data)")
        get_profile(self.profile)  # an unknown profile is refused, naming --profile
        if self.judge not in JUDGES:
            raise ValueError(f"unknown judge {self.judge!r}: use one of {', '.join(JUDGES)}")
        if self.limit is not None and (isinstance(self.limit, bool) or self.limit < 1):
            raise ValueError(f"--limit must be a positive number of questions, got {self.limit!r}")
        if self.limit is not None and self.limit > MAX_QUESTIONS:  # sizes are bounded
            raise ValueError(
                f"--limit must be at most {MAX_QUESTIONS:,} questions, got {self.limit:,}"
            )
        n_boot = self.n_bootstrap_metrics
        if (
            isinstance(n_boot, bool)
            or not isinstance(n_boot, int)
            or not 1 <= n_boot <= MAX_METRIC_BOOTSTRAP
        ):
            raise ValueError(
                f"--n-bootstrap-metrics must be a whole number from 1 to {MAX_METRIC_BOOTSTRAP:,} "
                f"(the paper's is {N_BOOTSTRAP}), got {n_boot!r}"
            )
        if self.sample_seed is not None and self.sample_seed < 0:
            raise ValueError(f"--sample-seed must be >= 0 (or none), got {self.sample_seed!r}")
        object.__setattr__(self, "methods", tuple(self.methods))
        if self.difficulty is not None:
            levels = tuple(sorted(set(self.difficulty)))
            if not levels or any(isinstance(d, bool) or not isinstance(d, int) for d in levels):
                raise ValueError(f"--difficulty must name whole levels, got {self.difficulty!r}")
            object.__setattr__(self, "difficulty", levels)

    def made_by(self, run: Any) -> bool:
        """Whether a saved run was made by this experiment's LLMs (True where one is not known)."""
        same = self.llm is None or run.identities.get("llm") in (None, self.llm)
        para, want = run.paraphrase_identity, self.paraphrase_llm or self.llm
        return same and (para is None or want is None or para == want)

    @property
    def centre(self) -> str:
        """What a table shows per metric: "sample" (ours) or "bootstrap_mean" (the paper's)."""
        return CONVENTIONS[get_profile(self.profile).intervals].centre

    def run_key(self, temperature: float | None = None) -> dict[str, Any]:
        """Return the options a saved run must share to be reused (see :func:`generation_key`)."""
        run = self.run if temperature is None else self.run.replace(temperature=temperature)
        return generation_key(run)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict, the run config nested under ``"run"``."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return {**out, "run": self.run.to_dict(), "methods": list(self.methods)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ExperimentConfig:
        """Inverse of :meth:`to_dict`; configs saved with flat run options load too.

        So do configs saved before the metrics' bootstrap count was named
        ``n_bootstrap_metrics`` (their key was ``"n_boot_metrics"``).
        """
        own = {f.name for f in dataclasses.fields(cls)} - {"run"}
        if "n_boot_metrics" in data and "n_bootstrap_metrics" not in data:
            data = {**data, "n_bootstrap_metrics": data["n_boot_metrics"]}
        if "run" in data:
            run = RunConfig.from_dict(data["run"])
        else:  # saved before RunConfig: perturber, n, r, B, temperature … sat at the top
            run = RunConfig.from_settings(data)
        return cls(run=run, **{k: v for k, v in data.items() if k in own})


def generation_key(config: RunConfig) -> dict[str, Any]:
    """Return the options that change a run's texts: every option but the scoring ones (seed stays).

    Two runs with the same key have the same perturbations and answers; a
    saved run that differs only in scoring options is rescored, not regenerated.
    """
    scoring = {opt.name for opt in iter_options(ScoreConfig)} - {"seed"}
    key = {k: v for k, v in flat_values(config).items() if k not in scoring}
    if not config.adaptive.enabled:  # the budget's settings change nothing while it is off
        key = {k: v for k, v in key.items() if not k.startswith("adaptive_")}
    return key
