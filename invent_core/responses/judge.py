"""The answer judge of ψ_y: who decides the answer pairs the rules leave undecided.

Under ``ScoreConfig.answer_similarity = "judge"`` the rules of
:mod:`invent_core.responses.equivalence` decide first; the distinct pairs they
leave undecided go to the judge named by ``ScoreConfig.answer_judge``:

- an LLM spec (``"local"``, ``"qwen1.5b"``, ``gguf:…``, ``hf:…``, a served model):
  the paper-style Yes/No question :data:`invent_core.prompts.ENTAILMENT_TEMPLATE`
  (does each answer entail the other, as answers to the question?), temperature 0,
  one request per unordered pair, all of a run's pairs sent together; the backend's
  persistent cache answers a pair asked before, so re-scoring a saved run asks nothing
  new. P("Yes") by :func:`invent_core.llm.yes_probability` (the first token's
  log-probabilities, renormalised over Yes / No, else the reply's words), as the
  entailment judge of the baselines reads it.
- a served model (``"openai"``): the server the command (or the dashboard) names for its
  own served model, bound with :func:`use_answer_judge`; never a default one. Unbound,
  it is refused: a question and its answers (and a key) must not go to a server the
  user did not name, e.g. because a samples file records ``openai`` as its judge.
- ``nli:/path``: a local NLI model folder; the pair is the same when each answer
  entails the other with P(entailment) ≥ :data:`SAME_PROBABILITY` (Semantic Entropy's
  bidirectional test).

Shape: :meth:`AnswerJudge.same_many` takes ``[(a, b), …]`` and returns ``[bool, …]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..embedders import get_embedder
from ..llm import Request, get_llm, spec_problem, user, yes_probability
from ..prompts import entailment_prompt

__all__ = [
    "SAME_PROBABILITY",
    "AnswerJudge",
    "answer_judge_problem",
    "get_answer_judge",
    "use_answer_judge",
]

#: The spec of a served judge: it goes where the command's ``--base-url`` points, or nowhere.
SERVED = "openai"

#: P(Yes) or P(entailment) at or above which the judge calls two answers the same: the
#: argmax of a two-way question (no tuning: the judge is asked a Yes/No question).
SAME_PROBABILITY = 0.5

_judges: dict[str, AnswerJudge] = {}


class AnswerJudge:
    """Decides whether two answers to one question say the same thing (see the module).

    Parameters
    ----------
    spec : an LLM spec or ``nli:/path``.
    model : the LLM object or NLI similarity to use instead of loading ``spec`` (tests,
        a backend already open).
    """

    def __init__(self, spec: str, *, model: Any = None) -> None:
        self.spec = str(spec)
        self.nli = self.spec.startswith("nli:")
        self._model = model
        self._memo: dict[tuple[str, str, str], bool] = {}

    @property
    def model(self) -> Any:
        """The LLM or NLI model, loaded on first use."""
        if self._model is None:
            if self.nli:
                path = Path(self.spec[4:])
                if not path.is_dir():
                    raise ValueError(
                        f"answer judge {self.spec!r}: {path} is not a folder; give "
                        "nli:/path/to/a/local/NLI/model or an LLM spec"
                    )
                self._model = get_embedder(str(path))
            elif self.spec.strip().lower() == SERVED:
                raise ValueError(
                    f"answer judge {self.spec!r} names no server: a served judge goes to the "
                    "server the command names (--base-url, --model), never to a default one"
                )
            else:
                self._model = get_llm(self.spec)
        return self._model

    def same_many(self, question: str, pairs: Sequence[tuple[str, str]]) -> list[bool]:
        """One verdict per ``(a, b)``; each unordered pair asked once, all in one batch."""
        keys = [(question, *sorted(p)) for p in pairs]
        todo = list(dict.fromkeys(k for k in keys if k not in self._memo))
        if todo:
            for key, same in zip(todo, self._ask(todo)):
                self._memo[key] = same
        return [self._memo[k] for k in keys]

    def _ask(self, keys: list[tuple[str, str, str]]) -> list[bool]:
        if self.nli:
            a = [k[1] for k in keys] + [k[2] for k in keys]
            b = [k[2] for k in keys] + [k[1] for k in keys]
            p = list(self.model.entailment(a, b))
            n = len(keys)
            return [min(p[i], p[n + i]) >= SAME_PROBABILITY for i in range(n)]
        requests = [
            Request(
                messages=user(entailment_prompt(q, a, b)),
                temperature=0.0,
                max_tokens=3,
                logprobs=True,
                top_logprobs=10,
                tag="answer-judge",
            )
            for q, a, b in keys
        ]
        return [yes_probability(c) >= SAME_PROBABILITY for c in self.model.complete_many(requests)]


def answer_judge_problem(spec: str) -> str | None:
    """Why ``spec`` names no answer judge (``None``: fine so far); loads nothing.

    ``nli:/path`` must be a folder; an LLM spec is checked as ``--llm`` is
    (:func:`invent_core.llm.spec_problem`).
    """
    text = str(spec).strip()
    if text.startswith("nli:"):
        path = Path(text[4:])
        return None if path.is_dir() else f"{text}: {path} is not a folder (a local NLI model)"
    return spec_problem(text)


def get_answer_judge(spec: str) -> AnswerJudge:
    """The judge for ``spec``, one per spec per process (its memo and model are reused)."""
    if spec not in _judges:
        _judges[spec] = AnswerJudge(spec)
    return _judges[spec]


def use_answer_judge(spec: str, model: Any) -> None:
    """From now on, ``spec`` judges with ``model`` (a served judge: the command's own server).

    A new binding starts a new memo: verdicts of another server are not reused.
    """
    current = _judges.get(spec)
    if current is None or current._model is not model:
        _judges[spec] = AnswerJudge(spec, model=model)
