"""One question end to end: perturb → answer (m × r) → clean → score.

The paper's Algorithm (Sec. 2, "Inv-Entropy"): the original question x₀ and
n perturbations form m = n + 1 inputs; the LLM f answers each r times; the
responses are embedded by ψ and scored by the random-walk measures with B
bootstrap resamples. Every option comes in one
:class:`~invent_core.config.RunConfig` (paper defaults). A
:class:`RunArtifact` keeps everything needed to show, reload and re-score a
run without calling the LLM again, its config included.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .cleaning import clean_response
from .config import RunConfig, ScoreConfig, flat_values, iter_options
from .progress import Progress, ProgressCallback, ProgressReporter
from .prompts import TASKS, answer_prompt

__all__ = ["Progress", "ProgressCallback", "RunArtifact", "run_question"]


@dataclass
class RunArtifact:
    """A scored question: inputs, prompts, raw and cleaned responses, config and scores.

    Attributes
    ----------
    questions : the original question first, then its n perturbations (m = n + 1).
    prompts : the m answer prompts actually sent.
    raw_responses, responses : m × r raw and cleaned answers (state-major).
    config : every option of the run (the source of truth; see :attr:`settings`).
    identities : ``"llm"`` and ``"embedder"``: model names with weight digests.
    score : the ``ScoreResult`` (``None`` only while building).
    timings : seconds per stage ("perturb", "generate", "score", "total").
    usage : token totals (prompt, completion), requests and cache hits.
    gaap_trace : the perturber's trace as a dict (GAAP's generations), else ``None``.
    extras : free space for baselines to stash extra LLM outputs (JSON-able).
    """

    question: str
    task: str
    choices: list[str] | None
    perturbations: list[str]
    questions: list[str]
    prompts: list[str]
    raw_responses: list[list[str]]
    responses: list[list[str]]
    config: RunConfig = field(default_factory=RunConfig)
    identities: dict[str, str | None] = field(default_factory=dict)
    score: Any = None
    timings: dict[str, float] = field(default_factory=dict)
    usage: dict[str, int] = field(default_factory=dict)
    gaap_trace: dict[str, Any] | None = None
    extras: dict[str, Any] = field(default_factory=dict)

    FORMAT = "invent.run/2"  # /1 kept a flat ``settings`` dict instead of ``config``
    _READS = (None, "invent.run/1", FORMAT)

    @property
    def settings(self) -> dict[str, Any]:
        """Read-only flat view: every option by its flat name, plus llm, embedder identity, task."""
        return {
            **flat_values(self.config),
            "llm": self.identities.get("llm"),
            "embedder_identity": self.identities.get("embedder"),
            "task": self.task,
        }

    @property
    def measures(self) -> dict[str, float]:
        """Shortcut to ``score.measures``."""
        return dict(self.score.measures) if self.score is not None else {}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: the config nested, the score as ``ScoreResult.to_dict``."""
        d: dict[str, Any] = {name: getattr(self, name) for name in self.__dataclass_fields__}
        d["config"] = self.config.to_dict()
        d["score"] = self.score.to_dict() if self.score is not None else None
        d["format"] = self.FORMAT
        return d

    def to_json(self, *, indent: int | None = 1) -> str:
        """JSON text (NaN/inf are not expected; arrays become lists)."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False, default=_json_default)

    def save(self, path: str | Path) -> Path:
        """Write ``to_json()`` to ``path`` (folders created; written atomically)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(self.to_json(), encoding="utf-8")
        tmp.replace(path)
        return path

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunArtifact:
        """Inverse of :meth:`to_dict`; runs saved with a flat ``settings`` dict load too."""
        from .scoring import ScoreResult

        fmt = data.get("format")
        if fmt not in cls._READS:
            raise ValueError(f"unsupported run format {fmt!r} (expected {cls.FORMAT!r})")
        missing = [k for k in ("question", "questions", "responses") if k not in data]
        if "config" not in data and "settings" not in data:
            missing.append("settings (or config)")
        if missing:
            raise ValueError(f"not a run artifact: missing {', '.join(missing)}")
        skip = ("config", "identities", "score")
        kwargs = {k: data[k] for k in cls.__dataclass_fields__ if k in data and k not in skip}
        kwargs.setdefault("task", "qa")
        kwargs.setdefault("choices", None)
        kwargs.setdefault("perturbations", list(data["questions"][1:]))
        kwargs.setdefault("prompts", [])
        kwargs.setdefault("raw_responses", data["responses"])
        for k in ("timings", "usage", "extras"):
            kwargs[k] = dict(kwargs.get(k) or {})
        config, identities = _config_of(data)
        score = data.get("score")
        if score is not None:
            score = ScoreResult.from_dict(score)
            score.config = config.score  # the run's config is the source of truth
        return cls(**kwargs, config=config, identities=identities, score=score)

    @classmethod
    def from_json(cls, text: str) -> RunArtifact:
        """Inverse of :meth:`to_json`."""
        return cls.from_dict(json.loads(text))

    @classmethod
    def load(cls, path: str | Path) -> RunArtifact:
        """Read a run saved by ``save``."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError as err:
            raise FileNotFoundError(f"run file {path} does not exist") from err
        try:
            return cls.from_json(text)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path} is not valid JSON: {err}") from err

    def rescore(
        self, config: ScoreConfig | None = None, *, embedder: Any = None, **changes: Any
    ) -> RunArtifact:
        """Return a copy scored again from the stored responses — no LLM call.

        Parameters
        ----------
        config
            The scoring options (default: this run's); every field is kept
            unless changed.
        embedder
            ψ by name, or a loaded Similarity object to score with.
        **changes
            Scoring options by name on top of ``config``
            (``n_bootstrap=7, affinity="abs_cosine"``).

        Raises
        ------
        ValueError
            For a name that is not a scoring option, or an invalid value.
        """
        from .scoring import score_responses

        known = {opt.name for opt in iter_options(ScoreConfig)}
        unknown = sorted(set(changes) - known)
        if unknown:
            raise ValueError(
                f"rescore takes scoring options ({', '.join(sorted(known))}); got {', '.join(unknown)}"
            )
        if isinstance(embedder, str):
            changes["embedder"], embedder = embedder, None
        score_config = replace(config or self.config.score, **changes)
        t0 = time.perf_counter()
        score = score_responses(self.questions, self.responses, score_config, embedder=embedder)
        return replace(
            self,
            config=replace(self.config, score=score.config),
            identities={**self.identities, "embedder": score.embedder},
            score=score,
            timings={**self.timings, "score": time.perf_counter() - t0},
        )


def _config_of(data: dict[str, Any]) -> tuple[RunConfig, dict[str, str | None]]:
    """(config, identities) of a saved run, new (``config``) or format /1 (flat ``settings``)."""
    if "config" in data:
        return RunConfig.from_dict(data["config"]), dict(data.get("identities") or {})
    settings = dict(data["settings"])
    # format /1 kept affinity, WD ground and MAX variant only in the score's options
    options = (data.get("score") or {}).get("options") or {}
    config = RunConfig.from_settings({**options, **settings})
    return config, {"llm": settings.get("llm"), "embedder": settings.get("embedder_identity")}


def _json_default(obj: Any) -> Any:
    import numpy as np

    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    raise TypeError(f"cannot write {type(obj).__name__} to JSON")


def run_question(
    question: str,
    config: RunConfig | None = None,
    *,
    llm: Any = None,
    task: str = "qa",
    choices: Sequence[str] | None = None,
    progress: ProgressCallback | None = None,
    embedder: Any = None,
) -> RunArtifact:
    """Perturb, answer, clean and score one question.

    Parameters
    ----------
    question
        The question x₀.
    config
        Every option (default: the paper's; :class:`~invent_core.config.RunConfig`).
        ``config.seed`` seeds the perturbation, the answers and the bootstrap.
    llm
        ``None`` (the local packaged model), a spec string for
        :func:`invent_core.llm.get_llm` or an LLM object.
    task, choices
        Answer prompt: ``"qa"``, ``"mmlu"`` (needs ``choices``) or ``"gsm8k"``.
    progress
        Called with :class:`Progress` events ("perturb", "generate", "score").
    embedder
        A loaded Similarity object (or a name) used instead of ``config.embedder``.

    Returns
    -------
    RunArtifact with ``score.measures`` (higher = more uncertain).

    Examples
    --------
    >>> from invent_core.config import RunConfig
    >>> run = run_question("What is the capital of France?",
    ...                    RunConfig(n_perturbations=2, n_replications=2))  # doctest: +SKIP
    """
    from .llm import get_llm
    from .perturb.base import get_perturber
    from .scoring import score_responses

    config = config or RunConfig()
    question, choices_list = _checked_question(question, task, choices)
    perturber = get_perturber(config.perturber)
    report = ProgressReporter(progress)
    model = get_llm("local") if llm is None else get_llm(llm)
    timings: dict[str, float] = {}
    t_start = time.perf_counter()

    with _timed(timings, "perturb"):
        perturbed = _perturb(question, config, perturber, model, embedder, report)
    questions = [question, *perturbed.perturbations]
    prompts = [answer_prompt(q, task, choices_list) for q in questions]
    with _timed(timings, "generate"):
        raw, usage = _answer(model, prompts, config, report)
    cleaned = [[clean_response(t, q) for t in reps] for q, reps in zip(questions, raw, strict=True)]
    report("score", 0, 1)
    with _timed(timings, "score"):
        score = score_responses(questions, cleaned, config.score, embedder=embedder)
    report("score", 1, 1)
    timings["total"] = time.perf_counter() - t_start
    return RunArtifact(
        question=question,
        task=task,
        choices=choices_list,
        perturbations=list(perturbed.perturbations),
        questions=questions,
        prompts=prompts,
        raw_responses=raw,
        responses=cleaned,
        config=dataclasses.replace(config, score=score.config),
        identities={"llm": model.identity, "embedder": score.embedder},
        score=score,
        timings=timings,
        usage=usage,
        gaap_trace=perturbed.trace,
    )


@contextmanager
def _timed(timings: dict[str, float], stage: str) -> Iterator[None]:
    """Record the seconds the block takes as ``timings[stage]``."""
    t0 = time.perf_counter()
    yield
    timings[stage] = time.perf_counter() - t0


def _checked_question(
    question: str, task: str, choices: Sequence[str] | None
) -> tuple[str, list[str] | None]:
    """Check the question, task and choices before any model loads; return them cleaned."""
    if not isinstance(question, str) or not question.strip():
        raise ValueError("question is empty")
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}: choose one of {', '.join(TASKS)}")
    question = question.strip()
    choices_list = [str(c) for c in choices] if choices else None
    answer_prompt(question, task, choices_list)  # validates task/choices early
    return question, choices_list


def _perturb(question, config, perturber, llm, embedder, report):
    """Step 1: the perturber's n perturbations (exactly n, or an error naming the perturber)."""
    n = config.n_perturbations
    report("perturb", 0, n)
    result = perturber.perturb(
        question, config, llm=llm, embedder=embedder, progress=report.callback
    )
    if len(result.perturbations) != n:
        raise ValueError(
            f"perturber {perturber.name!r} returned {len(result.perturbations)} perturbations, "
            f"expected {n}"
        )
    report("perturb", n, n)
    return result


def _answer(
    model: Any, prompts: list[str], config: RunConfig, report: ProgressReporter
) -> tuple[list[list[str]], dict[str, int]]:
    """Step 2: r answers to every prompt (one request each, replication k seeded by k).

    Returns the (m, r) raw answers and the token usage.
    """
    from .llm import Request, user

    r = config.n_replications
    requests = [
        Request(
            messages=user(p),
            temperature=config.temperature,
            seed=config.seed,
            max_tokens=config.answer_max_tokens,
            replication=k,
        )
        for p in prompts
        for k in range(r)
    ]
    completions = model.complete_many(requests, progress=report.counter("generate"))
    raw = [[completions[i * r + k].text for k in range(r)] for i in range(len(prompts))]
    usage = {
        "prompt_tokens": sum(int(c.usage.get("prompt_tokens", 0)) for c in completions),
        "completion_tokens": sum(int(c.usage.get("completion_tokens", 0)) for c in completions),
        "requests": len(completions),
        "cached": sum(1 for c in completions if c.cached),
    }
    return raw, usage
