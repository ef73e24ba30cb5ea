"""Pluggable entailment judges for Semantic Entropy and the graph baselines.

Semantic Entropy (Farquhar et al., 2024) clusters answers by *bidirectional
entailment*; LUQ, DegMat and KLE can weight their graphs by entailment
probabilities. The original papers use a DeBERTa-MNLI model, which is not
packaged with invent (it would have to be downloaded), so the judge is a
Protocol with three implementations:

``EmbeddingJudge`` (default, ``None`` / ``"embedding"``)
    a(p, h) ≥ threshold on the run's similarity (shifted cosine of MiniLM by
    default). Fast, no LLM, symmetric; a proxy for entailment, not entailment.
``LLMJudge`` (``"llm"``)
    the run's LLM asked a Yes/No question (prompts in :mod:`invent_core.prompts`);
    P("Yes") from the first token's top log-probabilities when the backend
    returns them, else the text (Yes → 1, No / anything else → 0).
``NLIJudge`` (a local NLI model folder, or ``"nli:/path"``)
    P(entailment | premise, hypothesis) from
    :meth:`invent_core.embedders.nli.NLISimilarity.entailment`.

:func:`get_judge` turns a spec into a judge;
:class:`~invent_core.methods.context.ScoringContext` builds one per run
(``ctx.judge``) and decides, in ``ctx.response_weights``, which (r, r) weight
matrix the graph baselines read (:func:`entailment_weights` under a
probability judge).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..embedders import KEYWORD_EMBEDDER, get_embedder
from ..errors import MethodUnavailable
from ..llm.base import user, yes_probability
from ..paper.random_walk import KERNEL_TAU, symmetrize
from ..prompts import directed_entailment_prompt, entailment_prompt

#: Shifted-cosine affinity (1 + cos) / 2 at or above which two answers count as
#: equivalent for the embedding judge: cos ≥ 0.7. Chosen on MiniLM pairs
#: (``all-MiniLM-L6-v2``): "Paris" / "Paris, France" 0.97, "Tom Watson" /
#: "Watson" 0.91, "Paris" / "London" 0.79, "London" / "Rome" 0.71,
#: "Jack Nicklaus" / "Tom Watson" 0.65. Known failure: near numbers
#: ("42" / "43" 0.89) merge — use the LLM or an NLI judge for GSM8K.
DEFAULT_EMBEDDING_THRESHOLD = 0.85

#: P(entailment) at or above which an NLI / LLM judge says "entails". The
#: papers take the argmax of three NLI classes; with P(entailment) alone, 0.5
#: is the threshold that is sufficient for that argmax.
DEFAULT_PROBABILITY_THRESHOLD = 0.5


@runtime_checkable
class EntailmentJudge(Protocol):
    """A judge of whether ``premise`` entails ``hypothesis`` (as answers to ``question``)."""

    name: str
    #: True when :meth:`probability` is a graded probability fit to be a graph
    #: weight (NLI, LLM); False for the embedding proxy.
    gives_probabilities: bool
    threshold: float

    def probability(self, premise: str, hypothesis: str, *, question: str | None = None) -> float:
        """A score in [0, 1]; higher = more entailed."""
        ...

    def entails(self, premise: str, hypothesis: str, *, question: str | None = None) -> bool:
        """``probability(...) >= threshold``."""
        ...


def equivalent(judge: Any, a: str, b: str, *, question: str | None = None) -> bool:
    """Bidirectional entailment: ``a ⇒ b`` and ``b ⇒ a`` (identical texts always are).

    Uses ``judge.equivalent`` when the judge has one (one symmetric LLM call
    instead of two directed ones), else two ``entails`` calls.
    """
    if a == b:
        return True
    if hasattr(judge, "equivalent"):
        return bool(judge.equivalent(a, b, question=question))
    return bool(judge.entails(a, b, question=question) and judge.entails(b, a, question=question))


def entailment_matrix(
    judge: Any, texts: Sequence[str], *, question: str | None = None
) -> np.ndarray:
    """(k, k) directed scores ``[i, j] = P(texts[i] ⇒ texts[j])``; 1 on the diagonal and for identical texts."""
    texts = list(texts)
    if hasattr(judge, "matrix"):
        return np.asarray(judge.matrix(texts, question=question), dtype=np.float64)
    k = len(texts)
    out = np.eye(k)
    memo: dict[tuple[str, str], float] = {}
    for i in range(k):
        for j in range(k):
            if i == j or texts[i] == texts[j]:
                out[i, j] = 1.0
                continue
            key = (texts[i], texts[j])
            if key not in memo:
                memo[key] = float(judge.probability(texts[i], texts[j], question=question))
            out[i, j] = memo[key]
    return out


class EmbeddingJudge:
    """Entailment proxy: similarity affinity ≥ ``threshold`` (symmetric).

    Parameters
    ----------
    similarity : a :class:`~invent_core.embedders.Similarity` (default: the
        packaged MiniLM, loaded on first use).
    threshold : see :data:`DEFAULT_EMBEDDING_THRESHOLD`.
    """

    gives_probabilities = False

    def __init__(
        self, similarity: Any = None, *, threshold: float = DEFAULT_EMBEDDING_THRESHOLD
    ) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"embedding-judge threshold must be in (0, 1], got {threshold}")
        self._similarity = similarity
        self.threshold = float(threshold)
        self.name = "embedding"

    @property
    def similarity(self) -> Any:
        """The Similarity object, loaded on first use (default: the packaged MiniLM)."""
        if self._similarity is None or isinstance(self._similarity, str):
            self._similarity = get_embedder(self._similarity or KEYWORD_EMBEDDER)
        return self._similarity

    def matrix(self, texts: Sequence[str], *, question: str | None = None) -> np.ndarray:
        """(k, k) symmetric affinities of ``texts`` (``question`` unused)."""
        return np.asarray(
            self.similarity.similarity_matrix(list(texts), kind="shifted_cosine", tau=KERNEL_TAU),
            dtype=np.float64,
        )

    def probability(self, premise: str, hypothesis: str, *, question: str | None = None) -> float:
        """The affinity a(premise, hypothesis); 1 for identical texts."""
        if premise == hypothesis:
            return 1.0
        return float(self.matrix([premise, hypothesis])[0, 1])

    def entails(self, premise: str, hypothesis: str, *, question: str | None = None) -> bool:
        """``probability(...) >= threshold``."""
        return self.probability(premise, hypothesis) >= self.threshold

    def equivalent(self, a: str, b: str, *, question: str | None = None) -> bool:
        """Same as :meth:`entails` (the affinity is symmetric)."""
        return self.entails(a, b)  # symmetric


class NLIJudge:
    """P(entailment) from a local NLI sequence-classification model folder.

    Parameters
    ----------
    model : a folder path, ``"nli:/path"``, or an
        :class:`~invent_core.embedders.nli.NLISimilarity`.
    threshold : see :data:`DEFAULT_PROBABILITY_THRESHOLD`.
    """

    gives_probabilities = True

    def __init__(self, model: Any, *, threshold: float = DEFAULT_PROBABILITY_THRESHOLD) -> None:
        if isinstance(model, (str, Path)):
            model = get_embedder(str(model))
        if not hasattr(model, "entailment"):
            raise TypeError(
                f"{type(model).__name__} has no entailment(premises, hypotheses) method"
            )
        self.nli = model
        self.threshold = float(threshold)
        self.name = getattr(model, "name", "nli")

    def matrix(self, texts: Sequence[str], *, question: str | None = None) -> np.ndarray:
        """(k, k) directed ``P(texts[i] ⇒ texts[j])`` from the NLI model."""
        return np.asarray(self.nli.directed_matrix(list(texts)), dtype=np.float64)

    def probability(self, premise: str, hypothesis: str, *, question: str | None = None) -> float:
        """P(entailment | premise, hypothesis); 1 for identical texts."""
        if premise == hypothesis:
            return 1.0
        return float(self.nli.entailment([premise], [hypothesis])[0])

    def entails(self, premise: str, hypothesis: str, *, question: str | None = None) -> bool:
        """``probability(...) >= threshold``."""
        return self.probability(premise, hypothesis) >= self.threshold


class LLMJudge:
    """The run's LLM as a Yes/No entailment judge.

    Parameters
    ----------
    llm : an :class:`invent_core.llm.LLM` (its persistent cache makes re-scoring free).
    seed : sent with each request (temperature 0, so it only matters for the cache key).
    threshold : see :data:`DEFAULT_PROBABILITY_THRESHOLD`.
    top_logprobs : alternatives of the first token to ask for.

    Notes
    -----
    ``equivalent`` asks :data:`invent_core.prompts.ENTAILMENT_TEMPLATE` (both
    directions in one question); ``probability`` asks the directed
    :data:`invent_core.prompts.DIRECTED_ENTAILMENT_TEMPLATE`.
    """

    gives_probabilities = True

    def __init__(
        self,
        llm: Any,
        *,
        seed: int = 0,
        threshold: float = DEFAULT_PROBABILITY_THRESHOLD,
        top_logprobs: int = 10,
    ) -> None:
        if llm is None:
            raise MethodUnavailable(
                "the LLM entailment judge needs an LLM backend; none was given for this run"
            )
        self.llm = llm
        self.seed = int(seed)
        self.threshold = float(threshold)
        self.top_logprobs = int(top_logprobs)
        self.name = "llm"
        self._memo: dict[tuple[str, str, str, str], float] = {}

    def _ask(self, kind: str, prompt: str, key: tuple[str, str, str, str]) -> float:
        if key not in self._memo:
            completion = self.llm.complete(
                user(prompt),
                temperature=0.0,
                seed=self.seed,
                max_tokens=3,
                logprobs=True,
                top_logprobs=self.top_logprobs,
            )
            self._memo[key] = yes_probability(completion)
        return self._memo[key]

    def probability(self, premise: str, hypothesis: str, *, question: str | None = None) -> float:
        """P(Yes) to the directed entailment prompt; 1 for identical texts."""
        if premise == hypothesis:
            return 1.0
        q = question or ""
        return self._ask(
            "directed",
            directed_entailment_prompt(q, premise, hypothesis),
            ("d", q, premise, hypothesis),
        )

    def entails(self, premise: str, hypothesis: str, *, question: str | None = None) -> bool:
        """``probability(...) >= threshold``."""
        return self.probability(premise, hypothesis, question=question) >= self.threshold

    def equivalent(self, a: str, b: str, *, question: str | None = None) -> bool:
        """Both directions in one question, once per unordered pair."""
        if a == b:
            return True
        q = question or ""
        lo, hi = sorted((a, b))  # one call per unordered pair, whatever the order asked
        return (
            self._ask("equivalent", entailment_prompt(q, lo, hi), ("e", q, lo, hi))
            >= self.threshold
        )


def get_judge(
    spec: Any = None,
    *,
    similarity: Any = None,
    llm: Any = None,
    threshold: float | None = None,
    seed: int = 0,
) -> EntailmentJudge:
    """An entailment judge from a spec.

    Parameters
    ----------
    spec : ``None`` or ``"embedding"`` (default: :class:`EmbeddingJudge`),
        ``"llm"`` (:class:`LLMJudge` on ``llm``), a local NLI model folder or
        ``"nli:/path"`` (:class:`NLIJudge`), or an object already
        implementing :class:`EntailmentJudge` (returned unchanged).
    similarity : for the embedding judge (default: packaged MiniLM).
    llm : for the LLM judge.
    threshold : override the judge's default threshold.

    Raises
    ------
    MethodUnavailable
        ``"llm"`` without an LLM.
    ValueError
        An unknown name that is not a folder.
    """
    if spec is None or spec == "embedding":
        kw = {} if threshold is None else {"threshold": threshold}
        return EmbeddingJudge(similarity, **kw)
    if isinstance(spec, str) and spec == "llm":
        if llm is None:
            raise MethodUnavailable(
                "entailment judge 'llm' needs an LLM backend; none was given for this run "
                "(use the default 'embedding' judge or an NLI model folder)"
            )
        kw = {} if threshold is None else {"threshold": threshold}
        return LLMJudge(llm, seed=seed, **kw)
    if isinstance(spec, (str, Path)):
        path = Path(str(spec)[4:] if str(spec).startswith("nli:") else str(spec))
        if not path.is_dir():
            raise ValueError(
                f"unknown entailment judge {str(spec)!r}: use 'embedding', 'llm' or a local NLI model folder"
            )
        kw = {} if threshold is None else {"threshold": threshold}
        return NLIJudge(str(path), **kw)
    if hasattr(spec, "entails") and hasattr(spec, "probability"):
        return spec
    raise TypeError(
        f"entailment must be a spec string or an EntailmentJudge, got {type(spec).__name__}"
    )


def entailment_weights(
    judge: Any, texts: Sequence[str], *, question: str | None = None
) -> np.ndarray:
    """(k, k) symmetric weights ``(P(i⇒j) + P(j⇒i)) / 2`` with 1 on the diagonal.

    The graph baselines' weight matrix under a probability judge (NLI
    folder, LLM): Lin et al. (2024), Eq. (W).
    """
    w = symmetrize(entailment_matrix(judge, texts, question=question))
    np.fill_diagonal(w, 1.0)
    return w


def response_weights(ctx: Any) -> tuple[np.ndarray, str]:
    """The (r, r) weights the graph baselines read and their source (``ctx.response_weights``).

    See :attr:`invent_core.methods.context.ScoringContext.response_weights`.
    """
    return ctx.response_weights


__all__ = [
    "DEFAULT_EMBEDDING_THRESHOLD",
    "DEFAULT_PROBABILITY_THRESHOLD",
    "EmbeddingJudge",
    "EntailmentJudge",
    "LLMJudge",
    "NLIJudge",
    "entailment_matrix",
    "entailment_weights",
    "equivalent",
    "get_judge",
    "response_weights",
    "yes_probability",
]
