"""A question's answer requests: built per state, queued as each state's text is known.

The r answers of state i (the original is state 0, perturbation j is state
j + 1) are :func:`answer_requests`; replication k is seeded by
``state_seed(seed, i, k)``, never by when it was sent, so answers queued while
the perturber is still working (:class:`StateAnswers`) are the answers a run
that waits for every perturbation first would get. :func:`critical_path`
reads what a question's wall was made of from its timings.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from functools import partial
from typing import Any

from ..config import RunConfig
from ..llm import Request, user
from ..llm.pool import RequestPool, gather
from ..prompts import answer_prompt

__all__ = [
    "ANSWER_STOP",
    "StateAnswers",
    "answer_prompts",
    "answer_requests",
    "critical_path",
]

#: Answer requests stop at the first newline: the cleaner keeps the first
#: non-empty line (paper, app:setting), so the rest would be decoded for nothing.
ANSWER_STOP: tuple[str, ...] = ("\n",)


def answer_prompts(
    questions: Sequence[str], task: str = "qa", choices: Sequence[str] | None = None
) -> list[str]:
    """The answer prompt of each question text (paper, app:setting), in order.

    The one place a run's prompts are built: the requests of :func:`answer_requests`
    (a run and a re-ask) and the ``prompts`` a :class:`RunArtifact` records both
    come from here, so what was asked and what was recorded cannot drift apart.
    """
    return [answer_prompt(q, task, choices) for q in questions]


def answer_requests(
    states: Sequence[tuple[int, str]],
    config: RunConfig,
    *,
    task: str = "qa",
    choices: Sequence[str] | None = None,
) -> list[Request]:
    """Build the r answer requests of each ``(state index, question text)``, state-major.

    Replication k of state i is seeded by ``state_seed(config.seed, i, k)``
    (:class:`~invent_core.llm.Request`), stops at the first newline
    (:data:`ANSWER_STOP`) and may use ``config.answer_tokens(task)`` tokens.
    The same state and text always make the same requests (and cache keys).
    """
    prompts = answer_prompts([text for _, text in states], task, choices)
    return [
        Request(
            messages=user(prompt),
            temperature=config.temperature,
            seed=config.seed,
            max_tokens=config.answer_tokens(task),
            replication=k,
            state=i,
            stop=ANSWER_STOP,
        )
        for (i, _), prompt in zip(states, prompts, strict=True)
        for k in range(config.n_replications)
    ]


class StateAnswers:
    """Each state's r answers, queued on the pool as soon as the state's text is known.

    A state whose text another state already has (a perturbation padded by
    duplication, or the question itself when no rewording passed the gate)
    waits in ``_held`` until :meth:`flush` (when the perturber returns, which
    announces padded states last): the held states go as one job, so that a
    backend taking several choices per request sends their replications
    together and evaluates the shared prompt once instead of once per state
    (an MMLU answer prompt is about 140 tokens; on 2 cores that is about a
    second a state).
    """

    def __init__(self, pool: RequestPool, config: RunConfig, task: str, choices, report) -> None:
        self.pool, self.config, self.task, self.choices = pool, config, task, choices
        self.report = report
        self.total = 0  # answers expected so far ("generate" total)
        self.done = 0
        self.first_at: float | None = None
        self._asked: dict[int, tuple[str, list[Future]]] = {}
        self._held: dict[int, str] = {}
        self._lock = threading.Lock()
        self._partial: dict[int, int] = {}  # job → answers its backend finished so far
        self._jobs = itertools.count()
        self._shown = 0  # the "generate" count last reported (it never goes back)

    def ask(self, state: int, text: str) -> None:
        """Queue state ``state``'s r answers (held when another state has this text)."""
        with self._lock:
            known = self._asked.get(state)
            if known is not None and known[0] == text:
                return
            if any(t == text for i, (t, _) in self._asked.items() if i != state):
                self._held[state] = text
                return
        self._submit([(state, text)])

    def flush(self) -> None:
        """Send the held states as one job."""
        with self._lock:
            held, self._held = sorted(self._held.items()), {}
        if held:
            self._submit(held)

    def _submit(self, states: list[tuple[int, str]]) -> None:
        r = self.config.n_replications
        requests = answer_requests(states, self.config, task=self.task, choices=self.choices)
        job = next(self._jobs)
        with self._lock:
            futures = self.pool.submit_many(  # one job: the backend may group them
                requests, progress=partial(self._moved, job)
            )
            entries = [(text, futures[j * r : (j + 1) * r]) for j, (_, text) in enumerate(states)]
            for (state, _), entry in zip(states, entries, strict=True):
                self._asked[state] = entry
                self._held.pop(state, None)
            if self.first_at is None:
                self.first_at = time.perf_counter()
        for (state, _), entry in zip(states, entries, strict=True):
            for fut in entry[1]:
                fut.add_done_callback(partial(self._finished, state, entry, job))

    def _moved(self, job: int, done: int, _total: int) -> None:
        """A job's backend finished ``done`` of its answers (each one, where it streams them)."""
        with self._lock:
            self._partial[job] = done
        self._show()

    def _finished(self, state: int, entry: tuple[str, list[Future]], job: int, fut: Future) -> None:
        if fut.cancelled() or fut.exception() is not None:
            return
        with self._lock:
            self._partial.pop(job, None)  # its answers are counted one by one from here
            if self._asked.get(state) is not entry:  # replaced: the perturber changed its mind
                return
            self.done += 1
        self._show()

    def _show(self) -> None:
        """Report the answers finished: whole jobs' plus those of jobs still running."""
        with self._lock:
            done = max(self._shown, min(self.done + sum(self._partial.values()), self.total))
            changed, self._shown = done != self._shown, done
            total = max(self.total, done)
        if changed:
            self.report("generate", done, total)

    @property
    def received(self) -> int:
        """Answers received so far, as the progress panel last showed them (partial jobs too)."""
        with self._lock:
            return max(self._shown, self.done)

    def collect(self, texts: Sequence[str]) -> list[list[Any]]:
        """Wait for the (m, r) completions of ``texts`` (asked now where they were not yet)."""
        for i, text in enumerate(texts):
            self.ask(i, text)
        self.flush()
        r = self.config.n_replications
        with self._lock:
            futures = [f for i in range(len(texts)) for f in self._asked[i][1]]
        flat = gather(futures)
        return [flat[i * r : (i + 1) * r] for i in range(len(texts))]


def critical_path(timings: Mapping[str, float]) -> dict[str, float]:
    """What a question's wall was made of: the stages its run waited on, one after the other.

    A run perturbs (``"perturb"``: the perturber's calls), then waits for the
    answers still missing once every perturbation is known (``"answer_wait"``),
    then scores (``"score"``); answers queued while the perturber works run
    beside it and are off this path. Returns those three (seconds), ``"path"``
    (their sum: the wall less setup) and ``"beside"`` (how long answers were
    asked while the perturber still worked: ``generate - answer_wait``, from
    the first answer asked to the last perturbation known; 0 when the stages
    ran one after the other). A run saved before ``answer_wait`` was recorded
    counts its whole ``generate`` as waited for.
    """
    generate = float(timings.get("generate", 0.0))
    wait = float(timings.get("answer_wait", generate))
    path = {
        "perturb": float(timings.get("perturb", 0.0)),
        "answer_wait": wait,
        "score": float(timings.get("score", 0.0)),
    }
    return path | {"path": sum(path.values()), "beside": max(0.0, generate - wait)}
