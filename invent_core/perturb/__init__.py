"""Perturbation strategies: the paper's Per(S_x0).

:mod:`invent_core.perturb.base` holds the :class:`Perturber` Protocol and the
registry (``paraphrase``, ``gaap``). The implementations load lazily and import
heavy libraries only when used: ``invent_core.perturb.gaap`` (the paper's
genetic-algorithm perturbation, §2.5), ``invent_core.perturb.keywords``
(KeyBERT key tokens), ``invent_core.perturb.substitutions`` (GAAP's
substitution sets from the offline WordNet 3.0 of ``invent_core.text.wordnet``)
and ``invent_core.perturb.paraphrase``. :func:`same_question`
(``invent_core.perturb.asks_same``) tells whether a rewording asks for the same
answer as the question.
"""

from __future__ import annotations

from .base import (
    Perturber,
    PerturbResult,
    available_perturbers,
    get_perturber,
    register_perturber,
    unregister_perturber,
)

__all__ = [
    "PerturbResult",
    "Perturber",
    "available_perturbers",
    "get_perturber",
    "register_perturber",
    "same_question",
    "unregister_perturber",
]


def __getattr__(name: str):
    """``same_question`` loads on first use (it reads WordNet's antonyms and may ask an LLM)."""
    if name == "same_question":
        from .asks_same import same_question

        return same_question
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
