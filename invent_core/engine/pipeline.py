"""One question end to end: perturb → answer (m × r) → clean → canonicalise → score.

The paper's Algorithm (Sec. 2, "Inv-Entropy"): the original question x₀ and
n perturbations form m = n + 1 inputs; the LLM f answers each r times; the
responses are embedded by ψ and scored by the random-walk measures with B
bootstrap resamples. Every option comes in one
:class:`~invent_core.config.RunConfig` (paper defaults). A
:class:`~invent_core.engine.artifact.RunArtifact` keeps
everything needed to show, reload and re-score a run without calling the LLM again,
its config included.

The stages overlap: every request of the question goes through
one :class:`~invent_core.llm.pool.RequestPool` that keeps the backend's slots
busy. The original's r answers are asked at once, beside the perturber's
requests; a perturbation's r answers are queued as soon as the perturber
accepts it (``on_accept``: while the gate is still asking for replacements of
the rejected ones) or returns it. Replication k of state i is seeded
by ``state_seed(seed, i, k)``, so a duplicated perturbation gets answers of
its own and the answers do not depend on when they were sent: ``overlap=False``
(the stages one after the other, for measuring) sends the same requests. The
timings record the critical path (:func:`~invent_core.engine.answers.critical_path`).
With ``RunConfig.adaptive`` (ours, beyond the paper) the perturbation set grows
by :func:`~invent_core.engine.adaptive.prefix_schedule` and the run stops once
Inv-Entropy is stable (:func:`~invent_core.engine.adaptive.stop_reason`).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from functools import partial
from pathlib import Path
from typing import Any

from ..config import RunConfig
from ..errors import Cancelled
from ..llm import resolve_llm
from ..llm.base import derive_seed
from ..llm.paraphraser import split_llm
from ..llm.pool import RequestPool
from ..llm.thinking import traces_of
from ..perturb.base import get_perturber
from ..perturb.gate import GateVerdict, summarize
from ..perturb.paraphrase import distinct_states
from ..progress import CancelToken, Progress, ProgressCallback, ProgressReporter
from ..prompts import TASKS
from ..provenance import provenance
from ..responses.answers import postprocess
from .adaptive import AdaptiveRecord, normalized_width, prefix_schedule, stop_reason
from .answers import ANSWER_STOP, StateAnswers, answer_prompts, answer_requests
from .artifact import RunArtifact
from .placement import placement
from .scoring import loaded_embedder, score_with_embedder

__all__ = [
    "ANSWER_STOP",
    "answer_prompts",
    "answer_requests",
    "checked_question",
    "postprocess_responses",
    "run_question",
]


def run_question(
    question: str,
    config: RunConfig | None = None,
    *,
    llm: Any = None,
    task: str = "qa",
    choices: Sequence[str] | None = None,
    progress: ProgressCallback | None = None,
    embedder: Any = None,
    cancel: CancelToken | None = None,
    paraphrase_llm: Any = None,
    reference_path: str | Path | None = None,
    overlap: bool = True,
) -> RunArtifact:
    """Perturb, answer, clean, canonicalise and score one question.

    Parameters
    ----------
    question
        The question x₀.
    config
        Every option (default: the paper's; :class:`~invent_core.config.RunConfig`).
        ``config.seed`` seeds the perturbation, the answers (replication k of
        state i: ``state_seed(seed, i, k)``) and the bootstrap.
    llm
        ``None`` (the local packaged model), a spec string for
        :func:`invent_core.llm.get_llm` or an LLM object.
    task, choices
        Answer prompt: ``"qa"``, ``"mmlu"`` (needs ``choices``) or ``"gsm8k"``.
    progress
        Called with :class:`Progress` events per stage ("perturb", "generate",
        "score"), with time left; the stages overlap, so events interleave.
    embedder
        A loaded Similarity object (or a name) instead of ``config.embedder``; resolved
        once here, for the perturber, the scoring and the placement.
    cancel
        Once cancelled, no further LLM request is sent; those in flight finish
        and, like every finished answer, stay in the LLM cache.
    paraphrase_llm
        The model that rewords (spec or LLM), in a pool of its own; default: ``llm``'s own.
    reference_path
        Where the run is placed (stored as ``reference``, which every printer reads): a
        folder of reference files or one file of one's own; default the shipped ones.
    overlap
        ``False``: no answer before the perturber returns (the same run, to measure the overlap).

    Returns
    -------
    RunArtifact with ``score.measures`` (higher = more uncertain).

    Raises ``Cancelled`` when ``cancel`` was cancelled, saying how many answers were finished.

    Example: ``run_question("What is the capital of France?", RunConfig(n_perturbations=2))``.
    """
    config = config or RunConfig()
    question, choices_list = checked_question(question, task, choices)
    perturber = get_perturber(config.perturber)
    similarity, config = _loaded_psi(embedder, config)
    model, para = split_llm(resolve_llm(llm), paraphrase_llm)
    t_start = time.perf_counter()
    with _pools(model, para, cancel) as pools:
        job = _run_in(
            pools,
            question,
            config,
            task=task,
            choices=choices_list,
            perturber=perturber,
            embedder=similarity,
            report=_SafeReporter(progress),
            overlap=overlap,
        )
    counts = {k: v for p in pools if p is not None for k, v in p.counts.items()}
    art = job.artifact(_identities(model, para, perturber), counts, time.perf_counter() - t_start)
    _record_runtime(art, model)
    art.reference = placement(art, embedder=similarity, reference_path=reference_path)
    return art


def _loaded_psi(embedder: Any, config: RunConfig) -> tuple[Any, RunConfig]:
    """The run's ψ, resolved once (:func:`loaded_embedder`), and the config naming it."""
    similarity, score_config = loaded_embedder(embedder, config.score)
    return similarity, dataclasses.replace(config, score=score_config)


def _record_runtime(art: RunArtifact, model: Any) -> None:
    """Keep how the answering model's requests were timed and decoded (``extras``)."""
    runtime = getattr(model, "runtime", None)
    if isinstance(runtime, dict):
        art.extras["llm_runtime"] = runtime


def _run_in(pools: tuple[Any, Any], question: str, config: RunConfig, **kw: Any) -> _QuestionRun:
    """Run the question's job with (the answers' pool, a separate paraphraser's pool or None)."""
    job = _QuestionRun(question, config, pool=pools[0], perturb_pool=pools[1], **kw)
    try:
        job.run()
    except Cancelled as err:
        raise Cancelled(job.cancel_message()) from err
    return job


def _identities(model: Any, para: Any, perturber: Any) -> dict[str, str]:
    """The LLM identities a run records: the answering model; the rewording one if an LLM reworded."""
    out = {"llm": model.identity}
    if perturber.needs_llm:
        out["paraphrase_llm"] = (para or model).identity
    return out


@contextmanager
def _pools(model: Any, para: Any, cancel: CancelToken | None) -> Iterator[tuple]:
    """(the answers' request pool, a separate paraphrasing model's own or None), closed after."""
    with (
        RequestPool(model, cancel=cancel) as pool,
        nullcontext(None) if para is None else RequestPool(para, cancel=cancel) as own,
    ):
        yield pool, own


def postprocess_responses(
    questions: Sequence[str],
    raw: Sequence[Sequence[str]],
    *,
    task: str = "qa",
    choices: Sequence[str] | None = None,
) -> tuple[list[list[str]], list[list[str]], list[list[bool]]]:
    """Clean and canonicalise raw answers: (cleaned, canonical, unmapped), each m × r."""
    done = [
        [postprocess(t, q, task=task, choices=choices) for t in reps]
        for q, reps in zip(questions, raw, strict=True)
    ]
    return (
        [[a.cleaned for a in reps] for reps in done],
        [[a.canonical for a in reps] for reps in done],
        [[not a.mapped for a in reps] for reps in done],
    )


class _SafeReporter(ProgressReporter):
    """A :class:`ProgressReporter` that pool threads and the perturber may call at once."""

    def __init__(self, callback: ProgressCallback | None) -> None:
        lock = threading.RLock()

        def locked(event: Progress) -> None:
            with lock:
                callback(event)

        super().__init__(locked if callback is not None else None)
        self._lock = lock

    def __call__(self, stage: str, done: int, total: int, note: str = "") -> None:
        """Send one event, one thread at a time."""
        with self._lock:
            super().__call__(stage, done, total, note)


class _QuestionRun:
    """One question's run: perturbation steps, answers, scoring, and the artefact."""

    def __init__(
        self,
        question,
        config,
        *,
        task,
        choices,
        pool,
        perturber,
        embedder,
        report,
        perturb_pool=None,
        overlap=True,
    ):
        self.question, self.config, self.task, self.choices = question, config, task, choices
        self.pool, self.perturber, self.embedder = pool, perturber, embedder
        self.perturb_pool = perturb_pool or pool  # a separate paraphrasing model's own
        self.report, self.overlap = report, overlap
        self.answers = StateAnswers(pool, config, task, choices, report)
        self.states: list[str] = [question]
        self.traces: list[dict[str, Any] | None] = []
        self.candidates: list[dict[str, Any]] = []
        # the critical path: perturb, then answer_wait, then score (critical_path)
        self.timings = {"perturb": 0.0, "generate": 0.0, "answer_wait": 0.0, "score": 0.0}
        self.record: AdaptiveRecord | None = AdaptiveRecord() if config.adaptive.enabled else None
        self.completions: list[list[Any]] = []
        self.score: Any = None
        self.early = 0  # answers received while the perturber worked
        self._all: list[str] = []  # GAAP under the adaptive budget: the n_max perturbations

    def run(self) -> None:
        """Plan → loop over the perturbation steps → stop (the last step's score is the run's)."""
        n_max = self.config.n_perturbations
        schedule = prefix_schedule(n_max, self.config.adaptive) if self.record else [n_max]
        self.answers.total = (schedule[0] + 1) * self.config.n_replications
        self.report("perturb", 0, schedule[0])  # the first event, whatever finishes first
        if self.overlap:
            self.answers.ask(0, self.question)  # needs no perturbation: start at once
        for step, k in enumerate(schedule):
            self._perturb_up_to(k, step)
            self.answers.total = (k + 1) * self.config.n_replications
            t0 = time.perf_counter()
            self.completions = self.answers.collect(self.states)
            self.timings["answer_wait"] += time.perf_counter() - t0
            self.timings["generate"] = time.perf_counter() - (self.answers.first_at or 0.0)
            if self.pool.cancel is not None:
                self.pool.cancel.raise_if_cancelled()
            self._score(step, len(schedule))
            if self.record is not None and self._stop_here(k, n_max, step):
                break

    def _perturb_up_to(self, k: int, step: int) -> None:
        """Make the state list hold the original and ``k`` perturbations."""
        have = len(self.states) - 1
        if k <= have:
            return
        t0 = time.perf_counter()
        if self.record is not None and not self.perturber.needs_llm:
            # a perturber without LLM calls (GAAP) runs once for n_max; steps take prefixes
            if not self.traces:
                self._all = self._call_perturber(self.config.n_perturbations, 0, have, ask=False)
            new = self._all[have:k]
        else:
            new = self._call_perturber(k - have, step, have, ask=self.overlap)
        if self.overlap:  # those on_accept announced are not asked twice
            for j, text in enumerate(new):
                self.answers.ask(have + 1 + j, text)
            self.answers.flush()
        self.early = self.answers.received  # answers in before the last perturbation was known
        self.states.extend(new)
        self.timings["perturb"] += time.perf_counter() - t0
        self.report("perturb", k, k)

    def _call_perturber(self, n: int, step: int, have: int, *, ask: bool) -> list[str]:
        """``n`` more perturbations (states ``have + 1 …``).

        With ``ask``, each one the perturber accepts (``on_accept``) is answered at once.
        """
        config = self.config.replace(n_perturbations=n)
        if step > 0:  # the extra perturbations of an adaptive step: a seed of their own
            config = config.replace(seed=derive_seed("perturb-step", self.config.seed, step))
        self.report("perturb", have, have + n)
        result = self.perturber.perturb(
            self.question,
            config,
            llm=self.perturb_pool.as_llm(),
            embedder=self.embedder,
            progress=self.report.callback,
            on_accept=partial(self._accepted, have, have + n) if ask else None,
        )
        if len(result.perturbations) != n:
            raise ValueError(
                f"perturber {self.perturber.name!r} returned {len(result.perturbations)} "
                f"perturbations, expected {n}"
            )
        self.traces.append(result.trace)
        self.candidates.extend(result.candidates)
        return list(result.perturbations)

    def _accepted(self, have: int, target: int, index: int, text: str) -> None:
        """``on_accept`` of the perturber: perturbation ``index`` (0-based) is ``text``."""
        self.answers.ask(have + 1 + index, text)
        self.report("perturb", have + index + 1, target)

    def _score(self, step: int, steps: int) -> None:

        raw = [[c.text for c in reps] for reps in self.completions]
        self.cleaned, canonical, self.unmapped = postprocess_responses(
            self.states, raw, task=self.task, choices=self.choices
        )
        self.report("score", step, steps)
        t0 = time.perf_counter()
        self.score = score_with_embedder(self.states, canonical, self.config.score, self.embedder)
        self.timings["score"] += time.perf_counter() - t0
        self.report("score", step + 1, steps)

    def _stop_here(self, k: int, n_max: int, step: int) -> bool:
        """Record step ``k`` of the adaptive budget; True when the rule says stop."""
        adaptive = self.config.adaptive
        values = self.score.values["inv_entropy"]
        self.record.steps.append(
            {"n": k, "width": normalized_width(values, k + 1, level=adaptive.level)}
        )
        reason = stop_reason(values, k, n_max, adaptive)
        if reason is None:
            return False
        self.record.n_used, self.record.reason = k, reason
        self.report("score", step + 1, step + 1)  # done: the steps left are not needed
        return True

    def cancel_message(self) -> str:
        """Say how far a cancelled run got, and that its finished answers are kept."""
        return (
            f"cancelled after {self.answers.received} of {self.answers.total} answers; the finished "
            "ones are in the LLM cache, so running the question again costs nothing for them"
        )

    def artifact(
        self, identities: dict[str, str], counts: dict[str, dict[str, int]], total: float
    ) -> RunArtifact:
        """Build the finished run's artefact."""
        answers = [c for reps in self.completions for c in reps]
        perturb = counts.get("perturb", {"requests": 0, "cached": 0})
        usage = {
            "prompt_tokens": sum(int(c.usage.get("prompt_tokens", 0)) for c in answers),
            "completion_tokens": sum(int(c.usage.get("completion_tokens", 0)) for c in answers),
            "requests": len(answers),
            "cached": sum(1 for c in answers if c.cached),
            "perturb_requests": perturb["requests"],
            "perturb_cached": perturb["cached"],
            "llm_calls": sum(c["requests"] for c in counts.values()),
            "answers_while_perturbing": self.early,
        }
        if self.record is not None:
            self.record.llm_calls = usage["llm_calls"]
        questions = list(self.states)
        return RunArtifact(
            question=self.question,
            task=self.task,
            choices=self.choices,
            perturbations=questions[1:],
            questions=questions,
            prompts=answer_prompts(questions, self.task, self.choices),
            raw_responses=[[c.text for c in reps] for reps in self.completions],
            thinking=traces_of(self.completions),
            responses=[list(r) for r in self.score.responses],
            config=dataclasses.replace(self.config, score=self.score.config),
            identities={**identities, "embedder": self.score.embedder},
            score=self.score,
            timings={**self.timings, "total": total},
            usage=usage,
            gaap_trace=_one_trace(self.traces),
            cleaned_responses=self.cleaned,
            unmapped=self.unmapped,
            candidates=self.candidates,
            acceptance=_acceptance(self.candidates, questions[1:]),
            adaptive=self.record,
            provenance=provenance(),
        )


def _one_trace(traces: list[dict[str, Any] | None]) -> dict[str, Any] | None:
    """Return the perturber's trace: the one call's, or every call's under ``calls``."""
    if len(traces) == 1:
        return traces[0]
    return {"calls": traces} if any(t is not None for t in traces) else None


def _acceptance(
    candidates: list[dict[str, Any]], perturbations: list[str]
) -> dict[str, Any] | None:
    """Summarise the candidates a perturber reported with the gate's counts (None: none).

    Over every perturber call of the run (the adaptive budget calls it again),
    so the count of states filled by duplication is ``n`` minus the accepted ones
    and the near-duplicates standing in for copies; ``distinct`` counts the
    perturbations' different wordings (the effective number of states).
    """
    if not candidates:
        return None

    fields = ("text", "accepted", "reason", "detail")
    summary = summarize([GateVerdict(**{k: c[k] for k in fields if k in c}) for c in candidates])
    near = sum(1 for c in candidates if not c.get("accepted") and c.get("index") is not None)
    if not summary["accepted"] and not near:  # if_none_pass = "original": the question pads all
        summary["fallback"] = "original"
    filled = int(summary.get("accepted", 0)) + near
    return summary | {
        "near_duplicates": near,
        "padded": max(0, len(perturbations) - filled),
        "distinct": distinct_states(perturbations),
        "states": len(perturbations),
    }


def checked_question(
    question: str, task: str, choices: Sequence[str] | None
) -> tuple[str, list[str] | None]:
    """Check the question, task and choices before any model loads; return them cleaned."""
    if not isinstance(question, str) or not question.strip():
        raise ValueError("question is empty")
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}: choose one of {', '.join(TASKS)}")
    question = question.strip()
    choices_list = [str(c) for c in choices] if choices else None
    answer_prompts([question], task, choices_list)  # validates task/choices early
    return question, choices_list
