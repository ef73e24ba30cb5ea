"""Score responses that were already generated: check their shapes, embed once, run the paper's maths.

Algorithm 1 of the paper minus the LLM calls. The checks name the offending index
(a file reader words them in its own terms); ψ embeds every distinct input and
response in one call, giving the (m, m) input affinity and the (m·r, m·r) response
affinity that :func:`invent_core.paper.scoring.score_from_similarity` turns into
the bootstrapped measures; ψ_y is :func:`invent_core.responses.same.answer_affinity`,
where the answer-similarity option is read. This is the pipeline's floor, not the
paper's: it loads an embedder through the registry (:func:`score_responses`), or takes
one an entry point loaded (:func:`score_with_embedder`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..config import ScoreConfig
from ..embedders import resolve_embedder
from ..paper.scoring import ScoreResult, score_from_similarity
from ..responses.same import answer_affinity


class ResponseShapeError(ValueError):
    """Questions and responses that do not fit together.

    ``kind`` says what ("questions", "count", "type", "empty", "ragged") and
    ``index`` / ``expected`` / ``got`` where, so a file reader can word the
    same check in its own terms (``invent_core.batch`` names list i of a cell).
    """

    def __init__(
        self,
        message: str,
        *,
        kind: str,
        index: int | None = None,
        expected: int | None = None,
        got: int | None = None,
    ) -> None:
        super().__init__(message)
        self.kind, self.index, self.expected, self.got = kind, index, expected, got


def _list_like(value: Any) -> bool:
    """A list, tuple or array — not a string, a mapping or None."""
    return not isinstance(value, str) and isinstance(value, Sequence | np.ndarray)


def _check_questions(questions: Any) -> list[str]:
    if not _list_like(questions):
        raise ResponseShapeError(
            "questions must be a list: the original question followed by its perturbations",
            kind="questions",
        )
    questions = list(questions)
    if not questions:
        raise ResponseShapeError(
            "questions is empty: need at least the original question", kind="questions"
        )
    for i, q in enumerate(questions):
        if not isinstance(q, str):
            raise ResponseShapeError(
                f"questions[{i}] is {type(q).__name__}, expected a string",
                kind="questions",
                index=i,
            )
    return questions


def _check_replications(i: int, reps: Any) -> list[str]:
    if isinstance(reps, str):
        reps = [reps]
    if not _list_like(reps):
        raise ResponseShapeError(
            f"responses[{i}] is {type(reps).__name__}, expected a list of strings",
            kind="type",
            index=i,
        )
    reps = list(reps)
    if not reps:
        raise ResponseShapeError(
            f"responses[{i}] is empty: every question needs at least one response",
            kind="empty",
            index=i,
        )
    for k, t in enumerate(reps):
        if not isinstance(t, str):
            raise ResponseShapeError(
                f"responses[{i}][{k}] is {type(t).__name__}, expected a string",
                kind="type",
                index=i,
            )
    return reps


def validate_responses(
    questions: Sequence[str], responses: Sequence[Sequence[str]]
) -> tuple[list[str], list[list[str]]]:
    """Check the shapes of a question set and its responses; return plain lists.

    Raises
    ------
    ResponseShapeError
        A ``ValueError`` naming the offending index: no questions, a count
        mismatch, a non-string, or a ragged replication count.
    """
    questions = _check_questions(questions)
    if not _list_like(responses):
        raise ResponseShapeError(
            f"responses is {type(responses).__name__}, expected a list of lists of strings",
            kind="type",
        )
    if len(responses) != len(questions):
        raise ResponseShapeError(
            f"got {len(questions)} questions but responses for {len(responses)}: "
            "responses[i] must hold the answers to questions[i]",
            kind="count",
            expected=len(questions),
            got=len(responses),
        )
    out = [_check_replications(i, reps) for i, reps in enumerate(responses)]
    r = len(out[0])
    for i, reps in enumerate(out):
        if len(reps) != r:
            raise ResponseShapeError(
                f"ragged responses: question 0 has {r} replications but question {i} has {len(reps)}; "
                "every question needs the same number r",
                kind="ragged",
                index=i,
                expected=r,
                got=len(reps),
            )
    return questions, out


def score_responses(
    questions: Sequence[str],
    responses: Sequence[Sequence[str]],
    config: ScoreConfig | None = None,
    *,
    embedder: Any = None,
) -> ScoreResult:
    """Score responses that were already generated — no LLM call.

    Parameters
    ----------
    questions : the original question followed by its n perturbations (m = n + 1).
    responses : ``responses[i]`` holds the r answers to ``questions[i]``;
        r must be the same for every question.
    config : ψ, B, seed, affinity, WD ground metric and MAX variant
        (default: the paper's; see :class:`~invent_core.config.ScoreConfig`).
    embedder : an already loaded Similarity object (or a name) used instead
        of ``config.embedder``; the result's config then names it.

    Returns
    -------
    ScoreResult; higher measures = more uncertain.

    Examples
    --------
    >>> from invent_core.config import ScoreConfig
    >>> res = score_responses(qs, rs, ScoreConfig(n_bootstrap=10))  # doctest: +SKIP
    """
    config = config or ScoreConfig()
    questions, responses = validate_responses(questions, responses)  # before any model loads
    sim, config = loaded_embedder(embedder, config)
    return score_with_embedder(questions, responses, config, sim)


def loaded_embedder(embedder: Any, config: ScoreConfig) -> tuple[Any, ScoreConfig]:
    """(ψ, loaded once; ``config`` naming it as a result records it) for an entry point.

    The object given, else the one named, else the config's
    (:func:`~invent_core.embedders.resolve_embedder`); a ψ given by the caller is
    named in the config by its ``name``.
    """
    similarity = resolve_embedder(embedder, config)
    if embedder is not None:
        config = dataclasses.replace(config, embedder=embedder_name(similarity))
    return similarity, config


def score_with_embedder(
    questions: list[str], responses: list[list[str]], config: ScoreConfig, similarity: Any
) -> ScoreResult:
    """:func:`score_responses` with ψ already loaded: an entry point resolves it once.

    ``questions`` and ``responses`` are well-formed (:func:`validate_responses`, or
    the pipeline's own lists); ``config.embedder`` names ψ as the result records it.
    """
    m = len(questions)
    # One call embeds every distinct input and response once.
    flat_responses = [t for reps in responses for t in reps]  # state-major, (m·r,)
    all_sim = similarity.similarity_matrix(
        questions + flat_responses, kind=config.affinity, tau=config.kernel_tau
    )
    sim_x = all_sim[:m, :m]
    sim_y = answer_affinity(questions[0], flat_responses, config, similarity, all_sim[m:, m:])
    return score_from_similarity(
        questions, responses, sim_x, sim_y, embedder=similarity.identity, config=config
    )


def embedder_name(embedder: Any) -> str:
    """Return the name a config records for ψ: the name given, or a Similarity object's ``name``."""
    if isinstance(embedder, str):
        return embedder
    return str(getattr(embedder, "name", type(embedder).__name__))
