"""invent_core — Inv-Entropy uncertainty quantification for LLM answers.

Importing this package is cheap: it pulls in neither torch nor any model
library. Public names are resolved lazily on first access.

>>> import invent_core
>>> res = invent_core.score_responses(questions, responses)  # doctest: +SKIP
>>> cfg = invent_core.RunConfig(n_perturbations=5).replace(affinity="abs_cosine")
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from typing import Any

from . import _env  # noqa: F401  (sets HF_HUB_OFFLINE before any HF import)

__version__ = "0.1.0"

#: public name -> module that defines it
_LAZY: dict[str, str] = {
    "measures_from_similarity": "invent_core.paper.scoring",
    "score_responses": "invent_core.paper.scoring",
    "ScoreResult": "invent_core.paper.scoring",
    "ScoreConfig": "invent_core.config",
    "RunConfig": "invent_core.config",
    "MEASURE_NAMES": "invent_core.paper.scoring",
    "get_embedder": "invent_core.embedders",
    "available_embedders": "invent_core.embedders",
    "get_method": "invent_core.methods.registry",
    "list_methods": "invent_core.methods.registry",
    "compute_methods": "invent_core.methods.registry",
    "ScoringContext": "invent_core.methods.registry",
    "run_question": "invent_core.engine.pipeline",
    "RunArtifact": "invent_core.engine.artifact",
    "gaap": "invent_core.perturb.gaap",
    "available_perturbers": "invent_core.perturb",
    "get_perturber": "invent_core.perturb",
    "batch_score": "invent_core.batch",
}


#: modules moved by issue 19, old name -> new name under invent_core: an old
#: import, pickle or mock target reaches the same module object (tests/test_layout.py).
_MOVED: dict[str, str] = {
    "random_walk": "paper.random_walk",
    "measures": "paper.measures",
    "scoring": "paper.scoring",
    "answers": "responses.answers",
    "cleaning": "responses.cleaning",
    "canonical": "responses.canonical",
    "pipeline": "engine.pipeline",
    "adaptive": "engine.adaptive",
    "inflight": "engine.inflight",
    "artifact": "engine.artifact",
    "datasets": "questions.datasets",
    "question_schema": "questions.schema",
    "testbed": "questions.testbed",
    "experiment": "experiments",
    "registry": "methods.registry",
    "context": "methods.context",
    "entailment": "methods.entailment",
    "reference": "evaluation.reference",
    "advice": "evaluation.advice",
    "spread": "evaluation.spread",
    "history": "workbench.history",
    "estimate": "workbench.estimate",
    "progress": "workbench.progress",
    "reask": "workbench.reask",
}


class _MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolve a moved module's old name to its new module (the same object, not a copy)."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        head, _, tail = fullname.partition(".")
        if head != __name__ or tail not in _MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: Any) -> None:
        return None  # a placeholder; exec_module swaps in the real module

    def exec_module(self, module: Any) -> None:
        tail = module.__name__.partition(".")[2]
        sys.modules[module.__name__] = importlib.import_module(f"{__name__}.{_MOVED[tail]}")


sys.meta_path.append(_MovedFinder())


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'invent_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_LAZY))


__all__ = sorted(_LAZY)
