"""invent_core — Inv-Entropy uncertainty quantification for LLM answers.

Importing this package is cheap: it pulls in neither torch nor any model
library. Public names are resolved lazily on first access.

>>> import invent_core
>>> res = invent_core.score_responses(questions, responses)  # doctest: +SKIP
>>> cfg = invent_core.RunConfig(n_perturbations=5).replace(affinity="abs_cosine")
"""

from __future__ import annotations

import importlib
from typing import Any

from . import env  # noqa: F401  (sets HF_HUB_OFFLINE before any HF import)

__version__ = "0.1.0"

#: public name -> module that defines it
_LAZY: dict[str, str] = {
    "measures_from_similarity": "invent_core.paper.scoring",
    "score_responses": "invent_core.engine.scoring",
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
