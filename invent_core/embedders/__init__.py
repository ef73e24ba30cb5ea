"""Embedders and similarities (the paper's ψ and a_Similarity), behind one registry.

``get_embedder("minilm")`` returns a process-wide instance, so a model is
loaded once however many callers ask for it. Heavy libraries load on first use,
and not at all when every text's vector is in the embedding store on disk
(``<cache_dir>/embeddings.sqlite``, :mod:`invent_core.embedders.store`).
"""

from __future__ import annotations

import threading
from pathlib import Path

from ..config import ScoreConfig
from .base import CachedEmbedder, Embedder, EncodeStats, Similarity
from .nli import NLISimilarity
from .sbert import MINILM, MPNET, SbertEmbedder, SbertSpec, is_installed
from .store import VectorStore

#: name -> spec of the packaged sentence embedders.
EMBEDDERS: dict[str, SbertSpec] = {"minilm": MINILM, "mpnet": MPNET}
DEFAULT_EMBEDDER = ScoreConfig().embedder  # the default is written once, in invent_core.config
#: GAAP's key tokens (KeyBERT) and the embedding judge always use the packaged MiniLM,
#: whatever ψ the run measures with (paper, Appendix "GAAP Implementation Details").
KEYWORD_EMBEDDER = "minilm"

instances: dict[tuple[str, str | None], Similarity] = {}
_lock = threading.Lock()


def available_embedders() -> list[str]:
    """Names of the packaged embedders whose weights are installed."""
    return [name for name, spec in EMBEDDERS.items() if is_installed(spec)]


def resolve_embedder(embedder: str | Similarity | None, config: ScoreConfig) -> Similarity:
    """The one rule for "a name or an object": the object given, else the named or the config's ψ.

    Entry points (``run_question``, ``score_responses``, ``batch_score``, a perturber
    called on its own) resolve once and pass the loaded object down.
    """
    return get_embedder(embedder if embedder is not None else config.embedder)


def get_embedder(
    name: str | Similarity = DEFAULT_EMBEDDER, *, device: str | None = None
) -> Similarity:
    """The shared instance of a packaged embedder, or an NLI similarity for a model folder.

    Parameters
    ----------
    name : ``"minilm"``, ``"mpnet"``, a path to a local NLI model folder
        (``nli:/path`` or just the path), or an object already implementing
        :class:`Similarity` (returned unchanged).
    device : force ``"cpu"`` or ``"cuda"``; default picks CUDA when present.

    Raises
    ------
    ValueError
        For an unknown name, listing the known ones.
    """
    if not isinstance(name, str):
        if hasattr(name, "similarity_matrix"):
            return name
        raise TypeError(
            f"embedder must be a name or a Similarity object, got {type(name).__name__}"
        )
    key = (name, device)
    with _lock:
        if key in instances:
            return instances[key]
        if name in EMBEDDERS:
            inst: Similarity = SbertEmbedder(EMBEDDERS[name], device=device, store=VectorStore())
        else:
            path = Path(name[4:] if name.startswith("nli:") else name)
            if not path.is_dir():
                raise ValueError(
                    f"unknown embedder {name!r}: use one of {sorted(EMBEDDERS)} or a local NLI model folder"
                )
            inst = NLISimilarity(path, device=device)
        instances[key] = inst
        return inst


__all__ = [
    "CachedEmbedder",
    "DEFAULT_EMBEDDER",
    "EMBEDDERS",
    "KEYWORD_EMBEDDER",
    "EncodeStats",
    "Embedder",
    "NLISimilarity",
    "SbertEmbedder",
    "Similarity",
    "VectorStore",
    "available_embedders",
    "get_embedder",
    "resolve_embedder",
]
