"""``same_answer`` and ψ_y: answers compared by what they say.

:func:`same_answer` is the default verdict of whether two answers to one question
say the same thing: the rules of :mod:`invent_core.responses.equivalence` first
(canonical forms, then words), and for the pairs they leave undecided the packaged
MiniLM's cosine at :data:`UNDECIDED_COSINE`. Offline, no GPU, no LLM.

:func:`answer_affinity` is the answer similarity ψ_y of the walk
(``ScoreConfig.answer_similarity``), the one place its option is read:
:func:`answer_cosines` gives cosine-like values in [-1, 1] that the run's kernel
(``ScoreConfig.affinity``) then turns into affinities, so every option keeps the
kernel's scale. Both take the embedder itself (a ``Similarity`` of the floor below),
never a function of the caller's, and ask it only when the option needs it:

- ``"embedding"``: the embedder's cosine (the paper's SBERT ψ; for reproduction);
- ``"canonical"``: 1 for equal canonical answers, 0 (orthogonal) otherwise;
- ``"lexical"``: ROUGE-L F of the two answers;
- ``"rules"``: 1 / 0 where the rules decide, the embedder's cosine where they do not;
- ``"judge"``: 1 / 0 where the rules decide, 1 / 0 from the answer judge
  (:mod:`invent_core.responses.judge`: an LLM or a local NLI folder) where they do not.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import get_args

import numpy as np

from ..config import AnswerSimilarity, ScoreConfig
from ..embedders import KEYWORD_EMBEDDER, Similarity, get_embedder
from ..paper.random_walk import KERNEL_TAU, affinity_from_cosine
from .equivalence import rouge_l, rule_verdict
from .judge import get_answer_judge

__all__ = [
    "ANSWER_SIMILARITIES",
    "UNDECIDED_COSINE",
    "answer_affinity",
    "answer_cosines",
    "same_answer",
]

#: MiniLM cosine at or above which two answers the rules leave undecided are called the
#: same. Chosen on the tuning half of tests/data/answer_pairs.json (4 errors of its 25
#: undecided pairs; 0.7 made 7): partial overlaps such as "Water, carbon, nitrogen" /
#: "… and phosphorus" (0.89) are different answers. Re-checked 2026-11-29 on the tuning
#: halves of both labelled sets (120 undecided pairs): still the best of 0.5–0.92.
UNDECIDED_COSINE = 0.92

#: the choices of ``ScoreConfig.answer_similarity``, each described in the module docstring
ANSWER_SIMILARITIES: tuple[str, ...] = get_args(AnswerSimilarity)

_minilm = None


def _cosines(similarity: Similarity, texts: Sequence[str]) -> np.ndarray:
    """(k, k) the embedder's cosines of ``texts`` (the shifted kernel undone; τ plays no part)."""
    affinity = similarity.similarity_matrix(list(texts), kind="shifted_cosine", tau=KERNEL_TAU)
    return 2.0 * np.asarray(affinity, dtype=np.float64) - 1.0  # (1 + cos) / 2 → cos


def _cosine(similarity: Similarity, a: str, b: str) -> float:
    return float(_cosines(similarity, [a, b])[0, 1])


def same_answer(
    question: str,
    a: str,
    b: str,
    *,
    choices: Sequence[str] | None = None,
    similarity=None,
    judge=None,
) -> bool:
    """Do ``a`` and ``b`` say the same thing as answers to ``question``? The default verdict.

    Parameters
    ----------
    question : the question both answer.
    a, b : two answers (raw, cleaned or canonical).
    choices : the options of a multiple-choice question, in letter order.
    similarity : the embedder for undecided pairs (default: the packaged MiniLM,
        loaded on the first undecided pair only).
    judge : an :class:`~invent_core.responses.judge.AnswerJudge` (or its spec, e.g.
        ``"local"``) to decide undecided pairs instead of the cosine.

    Examples
    --------
    >>> same_answer("What is 6 times 9?", "6 times 9 equals 54.", "54")
    True
    >>> same_answer("What is 6 times 9?", "54", "56"), same_answer("Which?", "B", "C")
    (False, False)
    """
    verdict = rule_verdict(question, a, b, choices=choices)
    if verdict is not None:
        return verdict
    if judge is not None:
        judge = get_answer_judge(judge) if isinstance(judge, str) else judge
        return judge.same_many(question, [(a, b)])[0]
    global _minilm
    if similarity is None:
        _minilm = _minilm or get_embedder(KEYWORD_EMBEDDER)
        similarity = _minilm
    return _cosine(similarity, a, b) >= UNDECIDED_COSINE


def _pairwise(texts: Sequence[str], value: Callable[[str, str], float]) -> np.ndarray:
    """(k, k) symmetric ``value(a, b)`` over the distinct texts, 1 on the diagonal."""
    distinct = sorted(set(texts))
    index = {t: i for i, t in enumerate(distinct)}
    small = np.eye(len(distinct))
    for i, a in enumerate(distinct):
        for j in range(i + 1, len(distinct)):
            small[i, j] = small[j, i] = value(a, distinct[j])
    rows = np.array([index[t] for t in texts])
    return small[np.ix_(rows, rows)]


def answer_affinity(
    question: str,
    answers: Sequence[str],
    config: ScoreConfig,
    similarity: Similarity,
    embedded: np.ndarray,
) -> np.ndarray:
    """(k, k) ψ_y of the walk: ``config.answer_similarity`` under the run's kernel.

    ``embedded`` is the embedder's affinity of ``answers`` under the run's kernel, which
    the pipeline has already computed: ``"embedding"`` returns it as is; every other
    option's cosine-like values (:func:`answer_cosines`) are mapped by the same kernel.
    The answer judge (``config.answer_judge``) is looked up under ``"judge"`` only.
    """
    if config.answer_similarity == "embedding":
        return embedded
    cos = answer_cosines(
        question,
        answers,
        mode=config.answer_similarity,
        similarity=similarity,
        judge=config.answer_judge,
    )
    return affinity_from_cosine(cos, kind=config.affinity, tau=config.kernel_tau)


def answer_cosines(
    question: str,
    answers: Sequence[str],
    *,
    mode: str,
    similarity: Similarity,
    judge: str | Callable[[str, list[tuple[str, str]]], list[bool]] = ScoreConfig.answer_judge,
) -> np.ndarray:
    """(k, k) cosine-like ψ_y of ``answers`` under ``mode`` (see the module docstring).

    Parameters
    ----------
    question : the original question (the rules read its words).
    answers : the k answers (the walk's m·r canonical answers, state-major).
    mode : one of :data:`ANSWER_SIMILARITIES`.
    similarity : the run's embedder; asked for the answers' cosines only when ``mode``
        needs them (``"embedding"``, and ``"rules"`` with undecided pairs).
    judge : for ``mode="judge"``: an answer judge's spec (default ``ScoreConfig``'s,
        looked up with :func:`~invent_core.responses.judge.get_answer_judge` under this
        mode only) or ``judge(question, pairs) -> verdicts``; asked about undecided
        pairs only.

    Returns
    -------
    (k, k) symmetric array in [-1, 1] with 1 on the diagonal; rules are asked once per
    distinct pair of answers.
    """
    if mode == "embedding":
        return _cosines(similarity, answers)
    if mode == "canonical":
        return _pairwise(answers, lambda a, b: 0.0)  # distinct canonical texts differ
    if mode == "lexical":
        return _pairwise(answers, rouge_l)
    if mode == "rules":
        verdicts = _pairwise(answers, lambda a, b: _rule_value(question, a, b))
        undecided = np.isnan(verdicts)
        if not undecided.any():
            return verdicts
        return np.where(undecided, _cosines(similarity, answers), verdicts)
    if mode == "judge":
        verdicts = _pairwise(answers, lambda a, b: _rule_value(question, a, b))
        if isinstance(judge, str):
            judge = get_answer_judge(judge).same_many
        return _judged(question, answers, verdicts, judge)
    raise ValueError(
        f"unknown answer similarity {mode!r}: choose one of {', '.join(ANSWER_SIMILARITIES)}"
    )


def _judged(question: str, answers: Sequence[str], verdicts: np.ndarray, judge) -> np.ndarray:
    """``verdicts`` with its NaNs (undecided pairs) filled by ``judge``, once per distinct pair."""
    undecided = np.argwhere(np.triu(np.isnan(verdicts), 1))
    pairs = sorted({tuple(sorted((answers[i], answers[j]))) for i, j in undecided})
    if not pairs:
        return verdicts
    said = dict(zip(pairs, judge(question, pairs)))
    out = verdicts.copy()
    for i, j in np.argwhere(np.isnan(verdicts)):
        out[i, j] = float(said[tuple(sorted((answers[i], answers[j])))])
    return out


def _rule_value(question: str, a: str, b: str) -> float:
    verdict = rule_verdict(question, a, b)
    return float("nan") if verdict is None else float(verdict)
