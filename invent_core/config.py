"""Run configuration: one frozen dataclass per concern, each default written once.

Every entry point (``run_question``, ``score_responses``, ``batch_score``,
``evaluate``/``tsu``, the dashboard) takes one of these objects instead of a
mirror of its fields, and the CLI's options and the sidebar's widgets are
generated from the fields (:func:`iter_options`), so a new knob reaches every
entry point at once. A config travels inside the run artefact and
round-trips through JSON (:func:`config_to_dict`, ``RunConfig.from_dict``).

- :class:`ScoreConfig`: how responses become the Inv measures (ψ, B, seed,
  affinity, the WD ground metric, the MAX variant).
- :class:`GaapConfig`: the genetic-algorithm perturber (paper §2.5).
- :class:`ParaphraseConfig`: the LLM paraphraser (paper §4), with its
  :class:`GateConfig` (the validity gate of every paraphrase).
- :class:`RunConfig`: one question end to end: perturber, n, r, temperature,
  the answer budget, and the three above.

Pure: numpy-free, no heavy import. Validation lives here, once, with
messages that name the option the user typed.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, get_args, get_origin

AffinityKind = Literal["shifted_cosine", "abs_cosine", "exp_cosine"]
WDGround = Literal["index", "discrete", "released_code"]
MaxVariant = Literal["paper", "released_code"]

#: Highest answer temperature accepted (OpenAI's API limit; llama.cpp takes more,
#: but above 2 a 0.5B model emits noise, not answers).
MAX_TEMPERATURE = 2.0


def _opt(default: Any, help: str, *, flag: str | None = None, cli: bool = True, **extra: Any):
    """A dataclass field with the metadata the CLI / sidebar generators read.

    ``flag`` is an extra short option (``"-n"``); ``cli=False`` keeps a field
    out of the generated options (it is set from another one).
    """
    meta = {"help": help, "flag": flag, "cli": cli, **extra}
    if isinstance(default, list | dict | set):  # pragma: no cover - no mutable defaults here
        raise TypeError("mutable defaults are not allowed in a frozen config")
    return field(default=default, metadata=meta)


#: Upper bounds of the size options (B, n, r): far above any use, far below an allocation
#: that cannot succeed (``-B 10**12`` asked for 14.6 TiB).
MAX_BOOTSTRAP = 100_000
MAX_SAMPLES = 1_000


def _check_int(owner: str, name: str, value: Any, *, low: int, high: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{owner}.{name} must be an integer, got {value!r}")
    if value < low:
        raise ValueError(f"{owner}.{name} must be at least {low}, got {value}")
    if high is not None and value > high:  # sizes: bounded before any work or allocation
        raise ValueError(f"{owner}.{name} must be at most {high:,}, got {value:,}")


def _check_float(owner: str, name: str, value: Any, *, low: float, high: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{owner}.{name} must be a finite number, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{owner}.{name} must be in [{low:g}, {high:g}], got {value:g}")


def _check_bool(owner: str, name: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise ValueError(f"{owner}.{name} must be true or false, got {value!r}")


def _check_choice(owner: str, name: str, value: Any, kind: Any) -> None:
    allowed = get_args(kind)
    if value not in allowed:
        raise ValueError(
            f"{owner}.{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}"
        )


@dataclass(frozen=True)
class ScoreConfig:
    """How responses become the Inv measures (Algorithm 1 minus the LLM calls)."""

    embedder: str = _opt(
        "minilm",
        "ψ: minilm (paper's SBERT-small), mpnet (SBERT-large) or an NLI model folder",
    )  # paper §3 "Implementation details": SBERT-small by default
    n_bootstrap: int = _opt(
        30, "B, bootstrap resamples", flag="-B"
    )  # paper, Appendix "Replication and Bootstrapping" (S = 30)
    seed: int = _opt(
        0, "seeds perturbation, answer replications and the bootstrap"
    )  # ours: one seed at the edge
    affinity: AffinityKind = _opt(
        "exp_cosine",
        "a(·,·) from cosine: exp_cosine (ours, exp((cos-1)/τ), the default), shifted_cosine "
        "(the paper's (1+cos)/2) or abs_cosine (the released code's |cos|)",
    )  # ours, by evidence (docs/RESULTS.md "Kernel study"); the paper's §3 is (1 + cos) / 2
    kernel_tau: float = _opt(
        0.25, "τ of the exp_cosine affinity exp((cos-1)/τ); smaller is sharper"
    )  # ours: see random_walk.affinity_from_cosine for the measured Δ per τ
    wd_ground: WDGround = _opt(
        "index", "WD-px-py ground metric (the paper names none)"
    )  # ours; see measures.wd_px_py
    max_variant: MaxVariant = _opt(
        "paper", "MAX-py-x: the paper's definition or the released code's"
    )  # paper §3 "Baselines" (iv)

    def __post_init__(self) -> None:
        o = "ScoreConfig"
        if not isinstance(self.embedder, str) or not self.embedder.strip():
            raise ValueError(f"{o}.embedder must be a non-empty name, got {self.embedder!r}")
        _check_int(o, "n_bootstrap", self.n_bootstrap, low=1, high=MAX_BOOTSTRAP)
        _check_int(o, "seed", self.seed, low=0)
        _check_choice(o, "affinity", self.affinity, AffinityKind)
        _check_float(o, "kernel_tau", self.kernel_tau, low=1e-3, high=10.0)
        _check_choice(o, "wd_ground", self.wd_ground, WDGround)
        _check_choice(o, "max_variant", self.max_variant, MaxVariant)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of the options."""
        return config_to_dict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScoreConfig:
        """Inverse of :meth:`to_dict`; unknown keys are an error naming them."""
        return _from_dict(cls, data)


@dataclass(frozen=True)
class GaapConfig:
    """Settings of one GAAP run (paper §2.5, Appendix "GAAP Implementation Details").

    ``n`` is the number of perturbations returned; inside a :class:`RunConfig`
    it is taken from ``n_perturbations``. ``affinity`` is the fitness
    a(x_0, ·); δ = 0.7 is the paper's threshold on its (1 + cos)/2 scale, so it
    stays the paper's kernel even when the run scores with another one.
    """

    n: int = _opt(9, "GAAP perturbations", cli=False)  # paper, Appendix "Experimental setting"
    delta: float = _opt(0.7, "δ: stop when the best fitness falls below it")  # paper §3
    ratio: float = _opt(
        0.2, "share of word tokens that are key tokens"
    )  # ours: 4 key tokens on a 22-word question
    max_generations: int = _opt(6, "T, most generations after Pop_0")  # ours (not given)
    tau: int = _opt(2, "τ, sampling gap between generations")  # ours
    n_parents: int = _opt(10, "parents drawn by roulette wheel per generation")  # ours
    max_population: int = _opt(30, "cap on a generation after de-duplication")  # ours: 10+10+10
    max_senses: int | None = _opt(
        None, "use only the first WordNet senses (default: all, as the paper)"
    )  # paper: every synonym, hypernym, hyponym
    mutate: Literal["content", "key"] = _opt(
        "content", "mutation sites: any content word, or key tokens only"
    )  # ours
    inflect_plurals: bool = _opt(True, "pluralise replacements of plural nouns")  # ours
    affinity: AffinityKind = _opt("shifted_cosine", "fitness a(x_0, ·) from cosine")  # paper §3
    # ours, off by default on evidence: on 100 arithmetic questions GAAP
    # flags 7.6 of 9 members and every member of 60 questions; keeping only unflagged
    # ones moved Inv-Entropy 0.464 -> 0.480 (+0.016 ± 0.092; docs/results/breakdown.md)
    meaning_check: bool = _opt(
        False,
        "Per(S_x0) keeps only members that keep the question's numbers, names and meaning "
        "(the paraphrase gate's check), padding with copies as the paper does",
    )

    def __post_init__(self) -> None:
        o = "GaapConfig"
        _check_bool(o, "meaning_check", self.meaning_check)
        _check_int(o, "n", self.n, low=1)
        _check_float(o, "delta", self.delta, low=0.0, high=1.0)
        _check_float(o, "ratio", self.ratio, low=0.0, high=1.0)
        if self.ratio == 0:
            raise ValueError(f"{o}.ratio must be in (0, 1], got 0")
        if isinstance(self.max_generations, int) and self.max_generations < 0:
            raise ValueError(f"{o}.max_generations must be >= 0, got {self.max_generations}")
        _check_int(o, "max_generations", self.max_generations, low=0)
        _check_int(o, "tau", self.tau, low=1)
        _check_int(o, "n_parents", self.n_parents, low=2)
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
        _check_choice(o, "affinity", self.affinity, AffinityKind)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of the settings."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GaapConfig:
        """Inverse of :meth:`to_dict`; unknown keys are an error naming them."""
        return _from_dict(cls, data)


@dataclass(frozen=True)
class GateConfig:
    """The validity gate every paraphrase passes before it is answered.

    Affinities are on the paper's (1 + cos)/2 scale, whatever kernel the run
    scores with, so δ keeps the meaning it has for GAAP. See
    :mod:`invent_core.perturb.gate` for the checks and their order.
    """

    enabled: bool = _opt(True, "check paraphrases (false: accept every reply, as the paper)")
    delta: float = _opt(
        0.7, "δ: least (1+cos)/2 affinity of a paraphrase to the original"
    )  # paper §3: GAAP's δ = 0.7
    min_length_ratio: float = _opt(
        0.5, "shortest paraphrase, as a share of the original's words"
    )  # ours
    max_length_ratio: float = _opt(
        2.5, "longest paraphrase, as a multiple of the original's words"
    )  # ours: "Who wrote Hamlet?" may become "Which playwright was the author of Hamlet?"
    length_slack: int = _opt(
        3, "words added to both counts before the ratio (short questions)"
    )  # ours
    near_duplicate: float = _opt(
        0.995, "(1+cos)/2 affinity at or above which two texts count as one"
    )  # ours: cos ≥ 0.99; "What's the capital …" vs "What is the capital …" is 0.997 (MiniLM)
    min_entity_recall: float = _opt(
        1.0, "share of the original's numbers and named entities a paraphrase must keep"
    )  # ours: every one
    meaning_check: bool = _opt(
        True, "reject rewordings that change the wh-word, operation, operands or a qualifier"
    )  # ours: the meaning check
    max_extra_requests: int = _opt(
        9, "re-asks for rejected paraphrases before padding by duplication"
    )  # ours: at most n more; the paper pads at once
    if_none_pass: Literal["original", "fail"] = _opt(
        "original",
        "when every candidate is rejected: original (pad with the question itself, flagged) "
        "or fail (the question fails)",
    )  # ours: padding by duplication with the one valid wording; failing drops long questions

    def __post_init__(self) -> None:
        """Check every field; a message names the field and the bad value."""
        o = "GateConfig"
        _check_choice(o, "if_none_pass", self.if_none_pass, Literal["original", "fail"])
        _check_bool(o, "enabled", self.enabled)
        _check_float(o, "delta", self.delta, low=0.0, high=1.0)
        _check_float(o, "min_length_ratio", self.min_length_ratio, low=0.0, high=1.0)
        _check_float(o, "max_length_ratio", self.max_length_ratio, low=1.0, high=100.0)
        _check_int(o, "length_slack", self.length_slack, low=0)
        _check_float(o, "near_duplicate", self.near_duplicate, low=0.0, high=1.0)
        _check_float(o, "min_entity_recall", self.min_entity_recall, low=0.0, high=1.0)
        _check_int(o, "max_extra_requests", self.max_extra_requests, low=0)
        _check_bool(o, "meaning_check", self.meaning_check)


@dataclass(frozen=True)
class ParaphraseConfig:
    """Settings of the LLM paraphraser (paper §4, Appendix "Prompts")."""

    style: Literal["auto", "list", "single"] = _opt(
        "auto", "list: the paper's one-request list; single: one rewording per request"
    )  # ours: auto = single for the packaged local models, list for servers
    temperature: float | None = _opt(
        None, "paraphrasing temperature (default: 0.7 for list, 1.0 for single)"
    )  # paper: 0.7 (list); ours: 1.0 (single)
    max_tokens: int = _opt(400, "token budget of one paraphrase reply")  # ours: a list of nine
    max_requests: int = _opt(
        3, "requests before padding by duplication (list style)"
    )  # ours; paper pads at once
    frequency_penalty: float = _opt(
        0.5, "OpenAI frequency_penalty of the list request (0 = the paper's)"
    )  # ours: stops small models repeating a line
    constructions: bool = _opt(
        True, "single style: each request asks for another construction (Do you know …, passive …)"
    )  # ours: the 0.5B echoes the question when asked the same thing ten times
    premises_kept: bool = _opt(
        True, "single style: reword only the last sentence of a multi-sentence question"
    )  # ours: the 0.5B rewords a word problem by dropping its numbers
    gate: GateConfig = field(default_factory=GateConfig)  # the validity gate

    def __post_init__(self) -> None:
        o = "ParaphraseConfig"
        for name in ("constructions", "premises_kept"):
            _check_bool(o, name, getattr(self, name))
        _check_choice(o, "style", self.style, Literal["auto", "list", "single"])
        if self.temperature is not None:
            _check_float(o, "temperature", self.temperature, low=0.0, high=MAX_TEMPERATURE)
        _check_int(o, "max_tokens", self.max_tokens, low=1)
        _check_int(o, "max_requests", self.max_requests, low=1)
        _check_float(o, "frequency_penalty", self.frequency_penalty, low=-2.0, high=2.0)


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

    enabled: bool = _opt(
        False,
        "grow the perturbation set until Inv-Entropy is stable (values of runs that stop at "
        "different sizes are not comparable)",
    )  # ours
    start: int = _opt(3, "perturbations of the first step")  # ours
    step: int = _opt(2, "perturbations added per step")  # ours
    tolerance: float = _opt(
        0.02, "stop when the 90% bootstrap interval of Inv-Entropy / log(m) is narrower"
    )  # ours; with the exp kernel, 0.05+ stops every question at the first step (see above)
    level: float = _opt(0.9, "level of the bootstrap interval")  # ours, as the dashboard's

    def __post_init__(self) -> None:
        o = "AdaptiveConfig"
        _check_int(o, "start", self.start, low=1)
        _check_int(o, "step", self.step, low=1)
        _check_float(o, "tolerance", self.tolerance, low=0.0, high=10.0)
        _check_float(o, "level", self.level, low=0.01, high=0.999)


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

    perturber: Perturber = _opt(
        "paraphrase", "how questions are perturbed"
    )  # paper Table 1: paraphrasing; §2.5: GAAP. The CLI's choices: the perturber registry
    n_perturbations: int = _opt(9, "n, perturbations per question", flag="-n")  # paper §3
    n_replications: int = _opt(
        5, "r, answers per question", flag="-r"
    )  # paper, Appendix "Replication and Bootstrapping"
    temperature: float = _opt(
        0.7, "answer temperature", flag="-t"
    )  # paper, Appendix "LLM Configuration"
    answer_max_tokens: int | None = _opt(
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
        _check_int(o, "n_perturbations", self.n_perturbations, low=1, high=MAX_SAMPLES)
        _check_int(o, "n_replications", self.n_replications, low=1, high=MAX_SAMPLES)
        _check_float(o, "temperature", self.temperature, low=0.0, high=MAX_TEMPERATURE)
        if self.answer_max_tokens is not None:
            _check_int(o, "answer_max_tokens", self.answer_max_tokens, low=1)
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
        return _replace_flat(self, changes)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready nested dict (inverse: :meth:`from_dict`)."""
        return config_to_dict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunConfig:
        """Inverse of :meth:`to_dict`; unknown keys are an error naming them."""
        return _from_dict(cls, data)

    @classmethod
    def from_settings(cls, settings: dict[str, Any]) -> RunConfig:
        """The config of a run saved before configs existed (its flat ``settings`` dict).

        Keys that are not options (the llm identity, timings …) are ignored;
        missing ones take today's defaults.
        """
        flat = {k: v for k, v in settings.items() if k in _flat_names(cls)}
        return _replace_flat(cls(), flat)


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


# -- generic helpers: flattening, JSON, options ---------------------------------


def _nested_types(cls: type) -> dict[str, type]:
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls) if _is_config(hints[f.name])}


def _is_config(tp: Any) -> bool:
    return isinstance(tp, type) and dataclasses.is_dataclass(tp)


#: nested field → prefix of its flat option names ("" = unprefixed: --embedder, --seed).
PREFIX = {"score": "", "paraphrase": "paraphrase_", "gaap": "gaap_", "adaptive": "adaptive_"}


def _flat_name(prefix: str, name: str) -> str:
    # A nested ``enabled`` switch is named after its section: --adaptive, not --adaptive-enabled.
    return prefix.rstrip("_") if name == "enabled" and prefix else prefix + name


def _flat_names(cls: type) -> dict[str, tuple[str, ...]]:
    """Flat option name → path of field names, e.g. ``"gaap_delta" → ("gaap", "delta")``."""
    out: dict[str, tuple[str, ...]] = {}
    nested = _nested_types(cls)
    for f in dataclasses.fields(cls):
        if f.name in nested:
            for sub, path in _flat_names(nested[f.name]).items():
                out[_flat_name(PREFIX.get(f.name, f.name + "_"), sub)] = (f.name, *path)
        else:
            out[f.name] = (f.name,)
    return out


def _replace_flat(cfg: Any, changes: dict[str, Any]) -> Any:
    names = _flat_names(type(cfg))
    nested = _nested_types(type(cfg))
    # A nested field given a config object is replaced whole; a plain value under a
    # nested field's name is a flat option (``adaptive=True`` is adaptive.enabled).
    direct = {
        k: v
        for k, v in changes.items()
        if k in {f.name for f in dataclasses.fields(cfg)}
        and (k not in nested or dataclasses.is_dataclass(v))
    }
    grouped: dict[str, dict[str, Any]] = {}
    for key, value in changes.items():
        if key in direct:
            continue
        path = names.get(key) or tuple(key.split("."))
        if path[0] not in nested or key not in names and "." not in key:
            known = ", ".join(sorted(names))
            raise ValueError(f"unknown option {key!r} for {type(cfg).__name__}; known: {known}")
        grouped.setdefault(path[0], {})[".".join(path[1:])] = value
    for name, sub in grouped.items():
        inner = direct.get(name, getattr(cfg, name))
        direct[name] = _replace_flat(inner, sub)
    return dataclasses.replace(cfg, **direct) if direct else cfg


def config_to_dict(cfg: Any) -> dict[str, Any]:
    """JSON-ready nested dict of a config (tuples become lists)."""
    return json_ready(dataclasses.asdict(cfg))


def json_ready(value: Any) -> Any:
    """A copy of ``value`` with tuples turned into lists (JSON has no tuples)."""
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(v) for v in value]
    return value


def _from_dict(cls: type, data: dict[str, Any]) -> Any:
    if not isinstance(data, dict):
        raise ValueError(f"{cls.__name__} must be a JSON object, got {type(data).__name__}")
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"unknown {cls.__name__} keys: {', '.join(unknown)}")
    nested = _nested_types(cls)
    kwargs = {
        k: _from_dict(nested[k], v) if k in nested else (tuple(v) if isinstance(v, list) else v)
        for k, v in data.items()
    }
    return cls(**kwargs)


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
        if _is_config(tp):
            yield from _iter_options(tp, (*path, f.name), value)
            continue
        if not f.metadata.get("cli", True):
            continue
        base, choices, optional = _base_type(tp)
        choices = f.metadata.get("choices", choices)
        yield OptionSpec(
            name=_flat_name(prefix, f.name),
            path=(*path, f.name),
            type=base,
            default=value,
            help=f.metadata.get("help", ""),
            flag=f.metadata.get("flag"),
            choices=tuple(choices()) if callable(choices) else choices,
            optional=optional,
        )


def config_from_flat(cls: type, values: dict[str, Any], base: Any = None) -> Any:
    """A config of ``cls`` from flat option values (e.g. an argparse namespace's dict).

    Keys that are not options of ``cls`` are ignored; ``base`` (default: the
    defaults) supplies the rest.
    """
    names = _flat_names(cls)
    picked = {k: v for k, v in values.items() if k in names}
    return _replace_flat(base if base is not None else cls(), picked)


def flat_values(cfg: Any) -> dict[str, Any]:
    """Flat option name → value of a config (inverse of :func:`config_from_flat`)."""
    out = {}
    for name, path in _flat_names(type(cfg)).items():
        value = cfg
        for p in path:
            value = getattr(value, p)
        out[name] = value
    return out
