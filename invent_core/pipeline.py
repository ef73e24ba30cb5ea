"""One question end to end: perturb → answer (m × r) → clean → score.

The paper's Algorithm (Sec. 2, "Inv-Entropy"): the original question x₀ and
n perturbations form m = n + 1 inputs; the LLM f answers each r times; the
responses are embedded by ψ and scored by the random-walk measures with B
bootstrap resamples (paper defaults: n = 9, r = 5, B = 30, temperature 0.7).
A ``RunArtifact`` keeps everything needed to show, reload and re-score a run
without calling the LLM again.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .cleaning import clean_response
from .prompts import TASKS, answer_prompt

STAGES: tuple[str, ...] = ("perturb", "generate", "score")


@dataclass(frozen=True)
class Progress:
    """What a ``progress`` callback receives."""

    stage: str  # "perturb" | "generate" | "score"
    done: int
    total: int
    eta_seconds: float | None = None


ProgressCallback = Callable[[Progress], None]


@dataclass
class RunArtifact:
    """A scored question: inputs, prompts, raw and cleaned responses, settings and scores.

    Attributes
    ----------
    questions : the original question first, then its n perturbations (m = n + 1).
    prompts : the m answer prompts actually sent.
    raw_responses, responses : m × r raw and cleaned answers (state-major).
    settings : llm identity, embedder, n, r, temperature, seed, B, perturber, task.
    score : the ``ScoreResult`` (``None`` only while building).
    timings : seconds per stage ("perturb", "generate", "score", "total").
    usage : token totals (prompt, completion), requests and cache hits.
    gaap_trace : GAAP's trace as a dict (perturber "gaap"), else ``None``.
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
    settings: dict[str, Any]
    score: Any = None
    timings: dict[str, float] = field(default_factory=dict)
    usage: dict[str, int] = field(default_factory=dict)
    gaap_trace: dict[str, Any] | None = None
    extras: dict[str, Any] = field(default_factory=dict)

    FORMAT = "invent.run/1"

    @property
    def measures(self) -> dict[str, float]:
        """Shortcut to ``score.measures``."""
        return dict(self.score.measures) if self.score is not None else {}

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            if name == "score":
                continue
            d[name] = getattr(self, name)
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
        from .scoring import ScoreResult

        fmt = data.get("format")
        if fmt not in (None, cls.FORMAT):
            raise ValueError(f"unsupported run format {fmt!r} (expected {cls.FORMAT!r})")
        missing = [k for k in ("question", "questions", "responses", "settings") if k not in data]
        if missing:
            raise ValueError(f"not a run artifact: missing {', '.join(missing)}")
        kwargs = {k: data.get(k) for k in cls.__dataclass_fields__ if k in data}
        kwargs.setdefault("task", "qa")
        kwargs.setdefault("choices", None)
        kwargs.setdefault("perturbations", list(data["questions"][1:]))
        kwargs.setdefault("prompts", [])
        kwargs.setdefault("raw_responses", data["responses"])
        score = data.get("score")
        kwargs["score"] = ScoreResult.from_dict(score) if score is not None else None
        for k in ("timings", "usage", "extras"):
            kwargs[k] = dict(kwargs.get(k) or {})
        return cls(**kwargs)

    @classmethod
    def from_json(cls, text: str) -> RunArtifact:
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
        self,
        *,
        embedder: Any = None,
        n_bootstrap: int | None = None,
        seed: int | None = None,
    ) -> RunArtifact:
        """A copy scored again from the stored responses — no LLM call.

        Parameters
        ----------
        embedder, n_bootstrap, seed
            Default: the ones this run used.
        """
        from .scoring import score_responses

        emb = embedder if embedder is not None else self.settings.get("embedder", "minilm")
        B = int(n_bootstrap if n_bootstrap is not None else self.settings.get("n_bootstrap", 30))
        s = int(seed if seed is not None else self.settings.get("seed", 0))
        t0 = time.perf_counter()
        score = score_responses(self.questions, self.responses, embedder=emb, n_bootstrap=B, seed=s)
        settings = dict(self.settings)
        settings.update(
            embedder=_embedder_name(emb), embedder_identity=score.embedder, n_bootstrap=B, seed=s
        )
        timings = dict(self.timings)
        timings["score"] = time.perf_counter() - t0
        return replace(self, score=score, settings=settings, timings=timings)


def _json_default(obj: Any) -> Any:
    import numpy as np

    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    raise TypeError(f"cannot write {type(obj).__name__} to JSON")


def _embedder_name(embedder: Any) -> str:
    if isinstance(embedder, str):
        return embedder
    return str(getattr(embedder, "name", type(embedder).__name__))


class _Reporter:
    """Turns stage counts into ``Progress`` events with a simple rate-based ETA."""

    def __init__(self, callback: ProgressCallback | None) -> None:
        self.callback = callback
        self._t0: dict[str, float] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self.callback is None:
            return
        now = time.perf_counter()
        t0 = self._t0.setdefault(stage, now)
        eta = None
        if 0 < done < total:
            eta = (now - t0) / done * (total - done)
        elif done >= total:
            eta = 0.0
        self.callback(Progress(stage=stage, done=done, total=total, eta_seconds=eta))


def run_question(
    question: str,
    *,
    perturber: str = "paraphrase",
    llm: Any = None,
    embedder: Any = "minilm",
    n_perturbations: int = 9,
    n_replications: int = 5,
    temperature: float = 0.7,
    n_bootstrap: int = 30,
    seed: int = 0,
    task: str = "qa",
    choices: Sequence[str] | None = None,
    progress: ProgressCallback | None = None,
    gaap_options: dict[str, Any] | None = None,
    answer_max_tokens: int = 32,
    paraphrase_options: dict[str, Any] | None = None,
) -> RunArtifact:
    """Perturb, answer, clean and score one question.

    Parameters
    ----------
    question
        The question x₀.
    perturber
        ``"paraphrase"`` (LLM paraphrasing, paper §4) or ``"gaap"`` (§2.5).
    llm
        ``None`` (the local packaged model), a spec string for
        :func:`invent_core.llm.get_llm` or an LLM object.
    embedder
        ψ: a name (``"minilm"``, ``"mpnet"``, an NLI folder) or an object.
    n_perturbations, n_replications
        n and r (paper: 9 and 5); m = n + 1 inputs, m·r requests.
    temperature
        Sampling temperature of the answers (paper: 0.7 by default).
    n_bootstrap
        B (paper: 30).
    seed
        Seeds perturbation, answer replications (request seeds) and bootstrap.
    task, choices
        Answer prompt: ``"qa"``, ``"mmlu"`` (needs ``choices``) or ``"gsm8k"``.
    progress
        Called with :class:`Progress` events.
    gaap_options
        Extra keyword arguments of :func:`invent_core.perturb.gaap.gaap`.
    answer_max_tokens
        Token budget per answer (answers are short).
    paraphrase_options
        Extra keyword arguments of :func:`invent_core.perturb.paraphrase.paraphrase`.

    Returns
    -------
    RunArtifact with ``score.measures`` (higher = more uncertain).
    """
    from .llm import Request, get_llm, user
    from .scoring import score_responses

    if not isinstance(question, str) or not question.strip():
        raise ValueError("question is empty")
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}: choose one of {', '.join(TASKS)}")
    if perturber not in ("paraphrase", "gaap"):
        raise ValueError(f"unknown perturber {perturber!r}: choose 'paraphrase' or 'gaap'")
    if n_perturbations < 1:
        raise ValueError(f"n_perturbations must be >= 1, got {n_perturbations}")
    if n_replications < 1:
        raise ValueError(f"n_replications must be >= 1, got {n_replications}")
    if n_bootstrap < 1:
        raise ValueError(f"n_bootstrap must be >= 1, got {n_bootstrap}")
    question = question.strip()
    choices_list = [str(c) for c in choices] if choices else None
    answer_prompt(question, task, choices_list)  # validates task/choices early

    report = _Reporter(progress)
    model = get_llm("local") if llm is None else get_llm(llm)
    timings: dict[str, float] = {}
    t_start = time.perf_counter()

    # 1. perturb
    report("perturb", 0, n_perturbations)
    t0 = time.perf_counter()
    gaap_trace = None
    if perturber == "paraphrase":
        from .perturb.paraphrase import paraphrase

        perturbations = paraphrase(
            question,
            llm=model,
            n=n_perturbations,
            seed=seed,
            **(paraphrase_options or {}),
        )
    else:
        from .perturb.gaap import gaap

        result = gaap(
            question, n=n_perturbations, embedder=embedder, seed=seed, **(gaap_options or {})
        )
        perturbations = list(result.perturbations)
        trace = getattr(result, "trace", None)
        gaap_trace = trace.to_dict() if trace is not None and hasattr(trace, "to_dict") else trace
    if len(perturbations) != n_perturbations:
        raise ValueError(
            f"perturber {perturber!r} returned {len(perturbations)} perturbations, expected {n_perturbations}"
        )
    timings["perturb"] = time.perf_counter() - t0
    report("perturb", n_perturbations, n_perturbations)

    # 2. answer every input r times
    questions = [question, *perturbations]
    m, r = len(questions), n_replications
    prompts = [answer_prompt(q, task, choices_list) for q in questions]
    requests = [
        Request(
            messages=user(p),
            temperature=temperature,
            seed=seed,
            max_tokens=answer_max_tokens,
            replication=k,
        )
        for p in prompts
        for k in range(r)
    ]
    t0 = time.perf_counter()
    completions = model.complete_many(
        requests, progress=lambda done, total: report("generate", done, total)
    )
    timings["generate"] = time.perf_counter() - t0
    raw = [[completions[i * r + k].text for k in range(r)] for i in range(m)]
    cleaned = [[clean_response(t, questions[i]) for t in raw[i]] for i in range(m)]
    usage = {
        "prompt_tokens": sum(int(c.usage.get("prompt_tokens", 0)) for c in completions),
        "completion_tokens": sum(int(c.usage.get("completion_tokens", 0)) for c in completions),
        "requests": len(completions),
        "cached": sum(1 for c in completions if c.cached),
    }

    # 3. score
    report("score", 0, 1)
    t0 = time.perf_counter()
    score = score_responses(
        questions, cleaned, embedder=embedder, n_bootstrap=n_bootstrap, seed=seed
    )
    timings["score"] = time.perf_counter() - t0
    report("score", 1, 1)
    timings["total"] = time.perf_counter() - t_start

    settings = {
        "llm": model.identity,
        "embedder": _embedder_name(embedder),
        "embedder_identity": score.embedder,
        "n_perturbations": n_perturbations,
        "n_replications": r,
        "temperature": float(temperature),
        "seed": int(seed),
        "n_bootstrap": int(n_bootstrap),
        "perturber": perturber,
        "task": task,
        "answer_max_tokens": int(answer_max_tokens),
    }
    return RunArtifact(
        question=question,
        task=task,
        choices=choices_list,
        perturbations=list(perturbations),
        questions=questions,
        prompts=prompts,
        raw_responses=raw,
        responses=cleaned,
        settings=settings,
        score=score,
        timings=timings,
        usage=usage,
        gaap_trace=gaap_trace,
    )
