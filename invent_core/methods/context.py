"""The shared statistics of one run, computed at most once and read by every method.

A :class:`ScoringContext` holds one question's texts (the original question,
its n perturbations, the r answers to each) and derives from them, lazily and
once, what the methods of :mod:`invent_core.methods.registry` read: the Similarity
object, the Inv bootstrap (:attr:`ScoringContext.score`), the affinity of the
original answers, the entailment judge and the graph baselines' weight
matrix. LLM answers that a method asks for are memoised in
:attr:`ScoringContext.extras` by :meth:`ScoringContext.ask_once`, which the
run artefact saves, so re-scoring a saved run asks the LLM nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from typing import Any, TypeVar

import numpy as np

from ..config import RunConfig, ScoreConfig
from ..embedders import get_embedder
from ..engine.scoring import score_responses, validate_responses
from ..errors import MethodUnavailable
from ..paper.random_walk import KERNEL_TAU, affinity_from_cosine
from ..responses.equivalence import rule_verdict
from ..responses.same import answer_cosines
from .entailment import entailment_weights, equivalent, get_judge

T = TypeVar("T")

_RUN_DEFAULTS = RunConfig()  # the answer temperature's default, written once in invent_core.config


class ScoringContext:
    """The shared statistics of one run, computed at most once and read by every method.

    Parameters
    ----------
    questions : the original question followed by its n perturbations.
    responses : ``responses[i]`` holds the r cleaned answers to ``questions[i]``.
    config : how the Inv measures are computed (ψ, B, seed, affinity, …);
        ``config.seed`` also seeds per-method generators (:meth:`rng`).
    llm : optional LLM backend, for methods that need extra prompts.
    entailment : optional entailment judge name/object for Semantic Entropy
        and the graph baselines (``None`` = embedding-affinity threshold).
    extras : per-run data collected by the pipeline (e.g. verbalized
        confidences); :meth:`ask_once` memoises LLM answers here. Shared, not
        copied: what methods store flows back into the run artefact.
    score : an already computed :class:`invent_core.paper.scoring.ScoreResult`
        (reused instead of recomputed).
    task, choices : the answer-prompt task ("qa", "mmlu", "gsm8k") and MMLU options.
    temperature : the answer temperature (P(True) samples at it).
    embedder : an already loaded Similarity object that overrides
        ``config.embedder`` (e.g. one shared by a whole batch).
    """

    def __init__(
        self,
        questions: Sequence[str],
        responses: Sequence[Sequence[str]],
        config: ScoreConfig | None = None,
        *,
        llm: Any = None,
        entailment: Any = None,
        extras: dict[str, Any] | None = None,
        score: Any = None,
        task: str = "qa",
        choices: Sequence[str] | None = None,
        temperature: float = _RUN_DEFAULTS.temperature,
        embedder: Any = None,
    ) -> None:

        self.questions, self.responses = validate_responses(questions, responses)
        self.config = config if config is not None else ScoreConfig()
        self.embedder = embedder if embedder is not None else self.config.embedder
        self.llm = llm
        self.entailment = entailment
        self.extras: dict[str, Any] = extras if extras is not None else {}
        self.task = task
        self.choices = list(choices) if choices else None
        self.temperature = temperature
        self._given_score = score

    @classmethod
    def from_run(cls, run: Any, **overrides: Any) -> ScoringContext:
        """Context over a :class:`invent_core.engine.artifact.RunArtifact` (no LLM call unless a method needs one).

        Reads ``run.config`` (a :class:`~invent_core.config.RunConfig`) when
        the artefact has one, else its older flat ``run.settings`` dict.
        ``overrides`` are constructor arguments; overriding ``config`` or
        ``embedder`` discards the saved score (it was computed under the old ones).
        """
        run_config = getattr(run, "config", None)
        if run_config is None:
            run_config = RunConfig.from_settings(getattr(run, "settings", None) or {})
        kwargs: dict[str, Any] = {
            "config": run_config.score,
            "extras": getattr(run, "extras", None),
            "score": getattr(run, "score", None),
            "task": getattr(run, "task", "qa"),
            "choices": getattr(run, "choices", None),
            "temperature": run_config.temperature,
        }
        kwargs.update(overrides)
        if "embedder" in overrides or kwargs["config"] != run_config.score:
            kwargs["score"] = overrides.get("score")
        return cls(run.questions, run.responses, **kwargs)

    # -- the run's texts and settings ------------------------------------------
    @property
    def original_question(self) -> str:
        """x_0, the question as asked."""
        return self.questions[0]

    @property
    def original_responses(self) -> list[str]:
        """The r answers to the original question: what replication-only baselines read."""
        return self.responses[0]

    @property
    def seed(self) -> int:
        """The run's seed (``config.seed``)."""
        return self.config.seed

    @property
    def n_bootstrap(self) -> int:
        """B, the Inv bootstrap's resamples (``config.n_bootstrap``)."""
        return self.config.n_bootstrap

    def rng(self, name: str) -> np.random.Generator:
        """A generator for one method, derived from the run's seed and the method name."""
        salt = int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "little")
        return np.random.default_rng([self.seed, salt])

    def require_llm(self, method: str) -> Any:
        """The LLM backend, or :class:`MethodUnavailable` naming ``method``."""
        if self.llm is None:
            raise MethodUnavailable(f"{method} needs an LLM backend; none was given for this run")
        return self.llm

    # -- shared statistics, computed once ----------------------------------------
    @cached_property
    def similarity(self) -> Any:
        """The Similarity object (embedder or NLI) used for every affinity."""
        return get_embedder(self.embedder)

    @cached_property
    def score(self) -> Any:
        """The Inv measures' :class:`~invent_core.paper.scoring.ScoreResult` (the given one, or computed once)."""
        if self._given_score is not None:
            return self._given_score

        return score_responses(
            self.questions, self.responses, self.config, embedder=self.similarity
        )

    @cached_property
    def original_affinity(self) -> np.ndarray:
        """(r, r) (1 + cos)/2 affinity between the answers to the original question.

        The baselines that read it (Kernel Entropy, DegMat, LUQ, KLE) keep their
        published kernel whatever kernel the Inv measures use (``ScoreConfig.affinity``),
        so choosing Inv's kernel never changes a baseline; they compare answers as the
        rules say (``ScoreConfig.baseline_answers``, :func:`invent_core.responses.same.answer_cosines`):
        under the default rules two answers whose canonical forms differ are orthogonal
        (affinity 1/2), two that say the same are identical (1).
        """
        texts = list(self.original_responses)
        mode = self.config.baseline_answers
        cos = answer_cosines(self.original_question, texts, mode=mode, similarity=self.similarity)
        return affinity_from_cosine(cos, kind="shifted_cosine", tau=KERNEL_TAU)

    def same_answer(self, a: str, b: str) -> bool:
        """Bidirectional equivalence of two original answers: the rules first, then the judge.

        The rules of :func:`invent_core.responses.equivalence.rule_verdict` decide what
        they can (different numbers, letters or names are never merged, whatever the
        judge would say); :attr:`judge` decides the rest.
        """
        verdict = self._rule(a, b)
        if verdict is not None:
            return verdict
        return equivalent(self.judge, a, b, question=self.original_question)

    @cached_property
    def judge(self) -> Any:
        """The entailment judge of :attr:`entailment` (see :func:`invent_core.methods.entailment.get_judge`)."""
        spec = self.entailment
        embedding = spec is None or (isinstance(spec, str) and spec == "embedding")
        return get_judge(
            spec, similarity=self.similarity if embedding else None, llm=self.llm, seed=self.seed
        )

    @cached_property
    def response_weights(self) -> tuple[np.ndarray, str]:
        """The (r, r) symmetric weight matrix the graph baselines read, and its source.

        With the default embedding judge: :attr:`original_affinity` (the
        answers' block of the shared run matrix, so every method reads the
        same numbers), source ``"affinity"``. With a probability judge (NLI
        folder, LLM): the symmetrised directed entailment probabilities
        (:func:`invent_core.methods.entailment.entailment_weights`), source
        ``"entailment:<judge>"``.
        """
        judge = self.judge
        if getattr(judge, "gives_probabilities", False):
            w = entailment_weights(judge, self.original_responses, question=self.original_question)
            return self._ruled(w), f"entailment:{judge.name}"
        return np.asarray(self.original_affinity, dtype=np.float64), "affinity"

    def _rule(self, a: str, b: str) -> bool | None:
        """The rules' verdict, or None where they do not decide or the baselines compare as published."""
        if self.config.baseline_answers == "embedding":
            return None  # reproduction: the published judges alone
        return rule_verdict(self.original_question, a, b, choices=self.choices)

    def _ruled(self, w: np.ndarray) -> np.ndarray:
        """Entailment weights with the rules' verdicts imposed: 1 where same, 0 where different."""
        texts = self.original_responses
        w = np.array(w, dtype=np.float64)
        for i, j in zip(*np.triu_indices(len(texts), k=1), strict=True):
            verdict = self._rule(texts[i], texts[j])
            if verdict is not None:
                w[i, j] = w[j, i] = float(verdict)
        return w

    # -- LLM answers, asked once per run -----------------------------------------
    def ask_once(
        self,
        key: tuple[str, str, str],
        request_fn: Callable[[], T],
        *,
        settings: Mapping[str, Any] | None = None,
    ) -> T:
        """The answer stored under ``key`` in :attr:`extras`; ``request_fn()`` is called only when absent.

        Parameters
        ----------
        key : ``(store, table, item)``: the answer lives at
            ``extras[store][table][item]``, e.g. ``("p_true", "answers", "Paris")``.
            Answers must be JSON-ready: they are saved with the run.
        request_fn : asks the LLM; its value is stored and returned.
        settings : what the answers depend on (sample count, temperature,
            prompt mode …), kept at ``extras[store]["settings"]``; a store
            written under other settings is discarded and asked afresh.

        Returns
        -------
        The stored (or newly asked) answer.
        """
        store_name, table, item = key
        wanted = dict(settings) if settings is not None else None
        store = self.extras.get(store_name)
        if not isinstance(store, dict) or store.get("settings") != wanted:
            store = self.extras[store_name] = {"settings": wanted}
        answers = store.setdefault(table, {})
        if item not in answers:
            answers[item] = request_fn()
        return answers[item]
