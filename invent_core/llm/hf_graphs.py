"""The static decode path's pieces: bucketed batches, a prefilled cache copied out, CUDA graphs.

On a GPU a small model's decode step is set by the host, not the GPU: one
eager step of the 0.5B launches a few hundred kernels (19-33 ms per step on
the H200, :mod:`.hf_decode`), whatever the batch. A CUDA graph replays the
step's kernels with one launch. A graph is captured for fixed shapes and
fixed tensor addresses, so here:

- a batch of B sequences is padded to a **bucket** (:data:`BATCH_BUCKETS`:
  1, 2, 4, …, 256) and the KV cache to a **context bucket** (multiples of
  :data:`CONTEXT_STEP` tokens); the padding rows copy the last real row and
  are never read;
- the decode step reads and writes only **static buffers**
  (:class:`StepBuffers`: the token, the mask, the positions, the cache
  position, the cache itself) that are updated in place between steps;
- one :class:`StaticDecoder` per model and shape is made once and kept
  (:func:`decoder_for`): its graph is captured once (the warm-up it needs is
  counted apart, :attr:`StaticDecoder.capture_seconds`) and replayed by every
  later batch of that shape.

The prompts are evaluated once each (P prompts, one prefill) and their KV
copied into the B rows that continue them (:func:`copy_prefill`): the r
replications of a prompt share its evaluation on this path too.

Graphs are used only where ``torch.cuda.is_available()`` and the model is on
CUDA; everywhere else (every test on the CPU) the same buffers are stepped
eagerly, so the bucketing, padding and in-place updates are the ones the
graph replays. A capture that fails falls back to eager steps, and says why
(:attr:`StaticDecoder.path`).
"""

from __future__ import annotations

import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BATCH_BUCKETS",
    "CONTEXT_STEP",
    "StaticDecoder",
    "StepBuffers",
    "batch_bucket",
    "context_bucket",
    "copy_prefill",
    "decoder_for",
    "padded_index",
]

#: Batch sizes a graph is captured for; a batch of B sequences runs in the smallest ≥ B.
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
#: The KV cache's length is a multiple of this many tokens (one graph serves every
#: batch whose prompt and answer fit).
CONTEXT_STEP = 256
#: Shapes kept per model (each holds a KV cache of its bucket × context).
KEPT_SHAPES = 4


def batch_bucket(n: int) -> int:
    """The bucket a batch of ``n`` sequences runs in (``n`` itself above the largest).

    >>> [batch_bucket(n) for n in (1, 3, 16, 17, 300)]
    [1, 4, 16, 32, 300]
    """
    if n < 1:
        raise ValueError(f"a batch needs at least one sequence, got {n}")
    return next((b for b in BATCH_BUCKETS if b >= n), n)


def context_bucket(tokens: int) -> int:
    """The KV cache length for ``tokens`` (prompt width + longest answer): a multiple of 256.

    >>> context_bucket(1), context_bucket(256), context_bucket(257)
    (256, 256, 512)
    """
    return max(1, -(-int(tokens) // CONTEXT_STEP)) * CONTEXT_STEP


def padded_index(index: Sequence[int], size: int) -> list[int]:
    """``index`` (the prompt of each real row) padded to ``size`` rows with copies of its last.

    A padding row continues a real prompt, so its attention is well defined
    (an all-masked row would give NaNs); its tokens are never read.

    >>> padded_index([0, 0, 1], 4)
    [0, 0, 1, 1]
    """
    if size < len(index):
        raise ValueError(f"{len(index)} rows do not fit a bucket of {size}")
    return list(index) + [index[-1]] * (size - len(index))


@dataclass
class StepBuffers:
    """The tensors one decode step reads, updated in place (a graph's inputs stay put).

    ``ids`` (S, 1) the tokens fed; ``mask`` (S, T) 1 for every prompt token
    and every token fed so far; ``positions`` (S, 1) each row's position;
    ``cache_position`` (1,) the cache slot written.
    """

    ids: Any
    mask: Any
    positions: Any
    cache_position: Any


class StaticDecoder:
    """A StaticCache of ``size`` rows × ``length`` tokens and the decode step on it.

    ``graphs``: capture the step as a CUDA graph on first use (the model must
    be on CUDA); else step eagerly. :attr:`path` says which ran:
    ``"cuda_graph"``, ``"eager"``, or ``"eager (capture failed: …)"``.
    """

    def __init__(self, model: Any, size: int, length: int, *, graphs: bool) -> None:
        import torch
        from transformers import StaticCache

        self.model, self.size, self.length = model, size, length
        self.cache = StaticCache(config=model.config, max_cache_len=length)
        device = model.device
        self.buffers = StepBuffers(
            ids=torch.zeros((size, 1), dtype=torch.long, device=device),
            mask=torch.zeros((size, length), dtype=torch.long, device=device),
            positions=torch.zeros((size, 1), dtype=torch.long, device=device),
            cache_position=torch.zeros((1,), dtype=torch.long, device=device),
        )
        self.want_graph = bool(graphs)
        self.graph: Any = None
        self.logits: Any = None  # the graph's output, (size, V)
        self.path = "eager"
        self.capture_seconds = 0.0
        self.replays = 0
        self.lock = threading.Lock()  # one batch at a time on these buffers

    def _eager(self) -> Any:
        b = self.buffers
        out = self.model(
            input_ids=b.ids,
            attention_mask=b.mask,
            position_ids=b.positions,
            past_key_values=self.cache,
            cache_position=b.cache_position,
            use_cache=True,
        )
        return out.logits[:, -1, :]

    def step(self) -> Any:
        """One decode step on the buffers as they are now: logits (size, V), float."""
        if self.want_graph and self.graph is None and self.path == "eager":
            self._capture()
        if self.graph is not None:
            self.graph.replay()
            self.replays += 1
            return self.logits.float()
        return self._eager().float()

    def _capture(self) -> None:
        """Warm up and capture the step (its KV writes undone after); eager if it fails."""
        import torch

        t0 = time.perf_counter()
        saved = [(layer.keys.clone(), layer.values.clone()) for layer in self.cache.layers]
        length = [layer.cumulative_length.clone() for layer in self.cache.layers]
        try:
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(2):  # kernels chosen and memory pooled before the capture
                    self._restore(saved, length)
                    self._eager()
            torch.cuda.current_stream().wait_stream(side)
            self._restore(saved, length)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                self.logits = self._eager()
            self.graph, self.path = graph, "cuda_graph"
        except Exception as err:  # noqa: BLE001 - any failure: the eager step is still right
            self.graph, self.want_graph = None, False
            self.path = f"eager (capture failed: {type(err).__name__}: {str(err)[:120]})"
        self._restore(saved, length)
        self.capture_seconds = time.perf_counter() - t0

    def _restore(self, saved: list[tuple[Any, Any]], length: list[Any]) -> None:
        """Put the cache back as the prefill left it (in place: the addresses stay)."""
        for layer, (k, v), n in zip(self.cache.layers, saved, length, strict=True):
            layer.keys.copy_(k)
            layer.values.copy_(v)
            layer.cumulative_length.copy_(n)


def copy_prefill(decoder: StaticDecoder, prefill_cache: Any, index: Sequence[int]) -> None:
    """Copy the P prompts' KV (a DynamicCache, width L) into the decoder's rows, row i ← index[i].

    Expands the cache along the batch axis: each prompt was evaluated once,
    and the r rows that continue it start from copies. The rest of the static
    cache is zeroed, and its length set to L.
    """
    import torch

    rows = torch.tensor(list(index), dtype=torch.long, device=decoder.model.device)
    for layer, src in zip(decoder.cache.layers, prefill_cache.layers, strict=True):
        keys, values = src.keys.index_select(0, rows), src.values.index_select(0, rows)
        if not layer.is_initialized:
            empty = keys[:, :, :0, :]
            layer.lazy_initialization(empty, values[:, :, :0, :])
        width = keys.shape[2]
        layer.keys.zero_()
        layer.values.zero_()
        layer.keys[:, :, :width].copy_(keys)
        layer.values[:, :, :width].copy_(values)
        layer.cumulative_length.fill_(width)


_DECODERS: weakref.WeakKeyDictionary[Any, OrderedDict] = weakref.WeakKeyDictionary()
_DECODERS_LOCK = threading.Lock()


def decoder_for(model: Any, size: int, length: int, *, graphs: bool) -> StaticDecoder:
    """The model's decoder of that shape, made once and kept (the last ``KEPT_SHAPES``)."""
    with _DECODERS_LOCK:
        kept = _DECODERS.setdefault(model, OrderedDict())
        key = (size, length, bool(graphs))
        if key not in kept:
            kept[key] = StaticDecoder(model, size, length, graphs=graphs)
            while len(kept) > KEPT_SHAPES:
                kept.popitem(last=False)
        kept.move_to_end(key)
        return kept[key]
