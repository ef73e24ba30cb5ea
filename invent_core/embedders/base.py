"""The embedder Protocol and the shared text → vector cache.

The paper's ψ maps questions and answers into one space where
``a_Similarity`` is computed. An embedder here is anything with
``encode(texts) -> (k, d)`` unit vectors and ``similarity_matrix(texts) ->
(k, k)`` affinities; entailment models provide only the latter.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from ..paper.random_walk import AffinityKind, affinity_from_embeddings


@runtime_checkable
class Similarity(Protocol):
    """Anything that turns texts into a (k, k) non-negative affinity matrix."""

    name: str

    @property
    def identity(self) -> str:
        """Model name plus the sha256 of its weights: enough to reproduce a score."""
        ...

    def similarity_matrix(
        self,
        texts: Sequence[str],
        *,
        kind: AffinityKind,
        tau: float,
    ) -> np.ndarray:
        """(k, k) affinities in [0, 1].

        ``kind`` and ``tau`` pick the kernel, see
        :func:`invent_core.paper.random_walk.affinity_from_cosine`; no defaults:
        a run passes :class:`~invent_core.config.ScoreConfig`'s, and a caller with a
        kernel of its own (the gate's δ, LUQ, the entailment judge: the paper's
        shifted cosine) names it.
        """
        ...


@runtime_checkable
class Embedder(Similarity, Protocol):
    """A Similarity backed by sentence embeddings."""

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(k, d) float32, L2-normalised rows."""
        ...


@dataclass
class EncodeStats:
    """How many texts were asked for, how many the disk store gave, how many went through the model."""

    requested: int = 0
    encoded: int = 0
    model_calls: int = 0
    stored: int = 0

    @property
    def saved(self) -> int:
        """How many embeddings the cache answered instead of the model."""
        return self.requested - self.encoded


class CachedEmbedder:
    """Base class: each distinct text is embedded once per object (bounded cache).

    Subclasses implement ``_encode_batch(texts) -> (k, d)``; this class
    de-duplicates the request, looks up earlier vectors (in memory, then in
    ``store``, a :class:`~invent_core.embedders.store.VectorStore` keyed by
    :attr:`identity`), embeds only the new texts in one batch and returns rows
    in the caller's order. With every text found, the model is never loaded.
    """

    name: str = "embedder"
    max_cache: int = 200_000
    #: vectors on disk shared by processes and runs; None: memory only
    store = None

    def __init__(self) -> None:
        self._vectors: dict[str, np.ndarray] = {}
        self.stats = EncodeStats()
        # Several pipelined rows (batch) or pages (dashboard) may embed at once: the
        # cache dict and the model are shared, so one call runs at a time.
        self._encode_lock = threading.RLock()

    @property
    def identity(self) -> str:  # pragma: no cover - overridden
        """Model name plus the sha256 of its weights: what cache keys and runs record."""
        return self.name

    def _encode_batch(self, texts: list[str]) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), d) unit embeddings of ``texts`` (thread-safe)."""
        texts = [_check_text(t, i) for i, t in enumerate(texts)]
        with self._encode_lock:  # not ``_lock``: subclasses guard their model load with that
            return self._encode_locked(texts)

    def _encode_locked(self, texts: list[str]) -> np.ndarray:
        self.stats.requested += len(texts)
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if missing and self.store is not None:
            found = self.store.get(self.identity, missing, self.dimension)
            self._vectors.update(found)
            self.stats.stored += len(found)
            missing = [t for t in missing if t not in found]
        if missing:
            vecs = np.asarray(self._encode_batch(missing), dtype=np.float32)
            norms = np.linalg.norm(vecs, axis=1, keepdims=True)
            vecs = np.divide(vecs, norms, out=np.zeros_like(vecs), where=norms > 0)
            if len(self._vectors) + len(missing) > self.max_cache:
                # keep the vectors this call still needs, drop the rest
                keep = {t: self._vectors[t] for t in texts if t in self._vectors}
                self._vectors.clear()
                self._vectors.update(keep)
            self._vectors.update(zip(missing, vecs))
            if self.store is not None:
                self.store.put(self.identity, zip(missing, vecs))
            self.stats.encoded += len(missing)
            self.stats.model_calls += 1
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self._vectors[t] for t in texts])

    @property
    def dimension(self) -> int:  # pragma: no cover - overridden
        """d, the embedding size."""
        raise NotImplementedError

    def similarity_matrix(
        self,
        texts: Sequence[str],
        *,
        kind: AffinityKind,
        tau: float,
    ) -> np.ndarray:
        """(k, k) affinities of the texts' embeddings under the kernel ``kind`` (τ = ``tau``)."""
        return affinity_from_embeddings(self.encode(texts), kind=kind, tau=tau)


def _check_text(text: object, index: int) -> str:
    if not isinstance(text, str):
        raise TypeError(f"text #{index} is {type(text).__name__}, expected str")
    return text
