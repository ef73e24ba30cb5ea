"""One batch of sequences decoded by a transformers causal LM: the transformers engine's loop.

Why a loop of our own rather than ``model.generate``: each sequence keeps its
own seed (one uniform per step from ``random.Random(seed)``, inverse-CDF
sampling), its own temperature, ``max_tokens`` and stop strings, and leaves
the batch as soon as it is finished (its rows are dropped from the KV cache).
The prompts are evaluated once each, then the cache is repeated for the r
sequences of a prompt (what ``num_return_sequences`` does, without
evaluating the prompt r times).

Shapes: ``prompts`` is P token lists; ``rows`` is B :class:`Row` (B ≥ P),
each naming its prompt. The prefill is a (P, L) left-padded batch; decoding
is (B, 1) per step, B shrinking as sequences finish.

``static=True`` (the engine's default on CUDA) keeps the KV cache in one
preallocated :class:`~transformers.StaticCache` instead, of a bucketed
batch × context (:mod:`.hf_graphs`): the P prompts are evaluated once each
and their KV copied into the rows that continue them, finished rows ride
along unread, no tensor grows or is re-indexed per step, and on CUDA each
step is a CUDA graph replay (``StaticOptions.graphs``). Measured on the lent H200
(``benchmarks/bench_gpu.py --step-latency``, docs/bench_gpu_2026-11-27.txt):
one eager decode step took 54-92 ms with the dynamic cache and 19-33 ms
with the static one, at every batch from 1 to 128 and at the 0.5B and 7B
shapes alike; the host's kernel launches, not the GPU, set the pace. The
tokens a row draws are the same on both paths (its own seeded uniforms).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .hf_graphs import batch_bucket, context_bucket, copy_prefill, decoder_for, padded_index
from .hf_sampling import SamplerChain, sample


@dataclass(frozen=True)
class Row:
    """One sequence to decode: which prompt, and its sampling settings."""

    prompt: int  # index into the prompts
    seed: int
    temperature: float
    max_tokens: int
    stop: tuple[str, ...] = ()
    top_logprobs: int = 0  # > 0: the first token's top alternatives (P(True), VU)
    frequency_penalty: float = 0.0  # over the chain's penalty window (prompt and reply)


@dataclass
class Decoded:
    """What one row produced: its tokens, why it ended, its first token's top log-probabilities."""

    tokens: list[int] = field(default_factory=list)
    text: str | None = None  # set when a stop string cut it, else decoded at the end
    finish_reason: str = "length"
    logprobs: list[list[Any]] | None = None


@dataclass
class BatchStats:
    """Token counts and seconds of one batch (the benchmark reads them)."""

    sequences: int = 0
    prompt_tokens: int = 0
    decode_tokens: int = 0
    prefill_seconds: float = 0.0
    decode_seconds: float = 0.0
    path: str = ""  # the latest batch's decode step: "dynamic", "eager", "cuda_graph", …
    capture_seconds: float = 0.0  # capturing CUDA graphs (their warm-up), apart from decoding


@dataclass(frozen=True)
class StaticOptions:
    """How the static path decodes (:func:`decode_batch`).

    ``graphs``: replay each step as a CUDA graph (only on CUDA: the caller
    decides); ``bucketed``: pad the batch to :func:`.hf_graphs.batch_bucket`
    (what a graph needs; on by default so that eager runs the same shapes);
    ``shared_prefill``: one prompt evaluation per prompt, copied to its rows.
    """

    graphs: bool = False
    bucketed: bool = True
    shared_prefill: bool = True


def left_pad(prompts: Sequence[Sequence[int]], pad_id: int, device: Any) -> tuple[Any, Any]:
    """(input_ids, attention_mask), both (P, L) on ``device``, padded on the left."""
    import torch

    width = max(len(p) for p in prompts)
    ids = torch.full((len(prompts), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(prompts), width), dtype=torch.long)
    for i, p in enumerate(prompts):
        if p:
            ids[i, width - len(p) :] = torch.tensor(list(p), dtype=torch.long)
            mask[i, width - len(p) :] = 1
    return ids.to(device), mask.to(device)


def _positions(mask: Any) -> Any:
    """Position ids of a left-padded batch: 0 at each row's first real token (pads: 1)."""
    pos = mask.long().cumsum(-1) - 1
    return pos.masked_fill(mask == 0, 1)


def _prefill(model: Any, prompts: Sequence[Sequence[int]], pad_id: int) -> tuple[Any, Any, Any]:
    """Evaluate the P prompts once: last-position logits (P, V), the KV cache, the mask."""
    from transformers import DynamicCache

    device = model.device
    ids, mask = left_pad(prompts, pad_id, device)
    cache = DynamicCache()
    out = model(
        input_ids=ids,
        attention_mask=mask,
        position_ids=_positions(mask),
        past_key_values=cache,
        use_cache=True,
        logits_to_keep=1,
    )
    return out.logits[:, -1, :].float(), out.past_key_values, mask


def first_token_logprobs(logits: Any, k: int, tokenizer: Any) -> list[list[Any]]:
    """``[[token text, logprob], …]`` of the k most likely tokens of one (V,) logit row, best first."""
    import torch

    lp = torch.log_softmax(logits.float(), dim=-1)
    top = torch.topk(lp, k)
    return [
        [tokenizer.decode([int(i)]), float(v)]
        for v, i in zip(top.values.tolist(), top.indices.tolist(), strict=True)
    ]


_PIECES: dict[tuple[int, int], str] = {}  # (id(tokenizer), token) -> the token's text


def _may_end_a_stop(tokenizer: Any, token: int, stop: tuple[str, ...]) -> bool:
    """Whether ``token`` could complete a stop string: its text holds a stop's last character.

    Saves decoding every row's whole text at every step (most tokens end no
    stop). A token that is part of a multi-byte character decodes to U+FFFD
    on its own, so it is always checked.
    """
    key = (id(tokenizer), token)
    piece = _PIECES.get(key)
    if piece is None:
        piece = _PIECES[key] = tokenizer.decode([token], skip_special_tokens=True)
    return "\ufffd" in piece or any(s[-1] in piece for s in stop)


def record_token(out: Decoded, row: Row, token: int, eos: set[int], tokenizer: Any) -> bool:
    """Record ``token`` on ``out``; True (and ``finish_reason`` set) once the row is done."""
    if token in eos:
        out.finish_reason = "stop"
        return True
    out.tokens.append(token)
    if row.stop and _may_end_a_stop(tokenizer, token, row.stop):
        text = tokenizer.decode(out.tokens, skip_special_tokens=True)
        start = len(text) - len(text.lstrip())  # a stop before any text is skipped, as the
        cut = min(  # OpenAI client's ask-again does: the caller keeps the first non-empty line
            (i for i in (text.find(s, start) for s in row.stop) if i >= 0), default=-1
        )
        if cut >= 0 and text[:cut].strip():
            out.text, out.finish_reason = text[:cut], "stop"
            return True
    if len(out.tokens) >= row.max_tokens:
        out.finish_reason = "length"
        return True
    return False


def decode_batch(
    model: Any,
    tokenizer: Any,
    prompts: Sequence[Sequence[int]],
    rows: Sequence[Row],
    *,
    eos: set[int],
    stats: BatchStats | None = None,
    static: bool = False,
    chain: SamplerChain | None = None,
    options: StaticOptions | None = None,
) -> list[Decoded]:
    """Decode ``rows`` (each continuing one of ``prompts``) together; one :class:`Decoded` per row.

    ``static``: the preallocated-cache path (module docstring) with
    ``options`` (:class:`StaticOptions`); ``chain``: the sampler chain
    (:mod:`.hf_sampling`; None: plain temperature sampling).
    """
    import time

    import torch

    stats = stats if stats is not None else BatchStats()
    t0 = time.perf_counter()
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else min(eos)
    draw = _Drawer(rows, prompts, chain)
    with torch.inference_mode():
        if static:
            opts = options or StaticOptions()
            outs = _decode_static(model, tokenizer, prompts, rows, pad, eos, stats, draw, opts)
            return _texts(outs, tokenizer)
        stats.path = "dynamic"
        logits, cache, mask = _prefill(model, prompts, pad)
        index = torch.tensor([r.prompt for r in rows], device=model.device)
        cache.batch_select_indices(index)  # the r sequences of a prompt share its evaluation
        logits, mask = logits[index], mask[index]
        stats.sequences += len(rows)
        stats.prompt_tokens += sum(len(p) for p in prompts)
        stats.prefill_seconds += time.perf_counter() - t0
        outs = _decode_steps(model, tokenizer, rows, logits, cache, mask, eos, stats, draw)
    return _texts(outs, tokenizer)


def _texts(outs: list[Decoded], tokenizer: Any) -> list[Decoded]:
    """Decode the text of each row that no stop string cut."""
    for out in outs:
        if out.text is None:
            out.text = tokenizer.decode(out.tokens, skip_special_tokens=True)
    return outs


def _decode_steps(model, tokenizer, rows, logits, cache, mask, eos, stats, draw) -> list[Decoded]:
    """The decode loop: sample, record, drop finished rows from the cache, step the rest."""
    import time

    import torch

    t0 = time.perf_counter()
    outs = draw.outs
    _first_logprobs(outs, rows, logits, tokenizer)
    live = list(range(len(rows)))  # row indices still decoding, in batch order
    pos = mask.sum(dim=-1)
    while live:
        toks = draw(logits, live)
        stats.decode_tokens += len(live)
        keep = [
            j
            for j, i in enumerate(live)
            if not record_token(outs[i], rows[i], toks[j], eos, tokenizer)
        ]
        if not keep:
            break
        if len(keep) < len(live):
            sel = torch.tensor(keep, device=mask.device)
            cache.batch_select_indices(sel)
            mask, pos = mask[sel], pos[sel]
        live = [live[j] for j in keep]
        ids = torch.tensor([[toks[j]] for j in keep], device=mask.device)
        mask = torch.cat([mask, torch.ones_like(mask[:, :1])], dim=-1)
        out = model(
            input_ids=ids,
            attention_mask=mask,
            position_ids=pos[:, None],
            past_key_values=cache,
            use_cache=True,
        )
        cache, logits, pos = out.past_key_values, out.logits[:, -1, :].float(), pos + 1
    stats.decode_seconds += time.perf_counter() - t0
    return outs


def _first_logprobs(outs: list[Decoded], rows: Sequence[Row], logits: Any, tokenizer: Any) -> None:
    """Each asking row's first-token top log-probabilities, from the prefill's logits."""
    for i, r in enumerate(rows):
        if r.top_logprobs:
            outs[i].logprobs = first_token_logprobs(logits[i], r.top_logprobs, tokenizer)


def _decode_static(model, tokenizer, prompts, rows, pad, eos, stats, draw, opts) -> list[Decoded]:
    """Prefill once per prompt, copy it into the rows of a bucketed static cache, then decode.

    Every row steps until the last one is done (a finished row rides along
    unread); the step is a CUDA graph replay where ``opts.graphs`` and CUDA
    allow, else eager (:mod:`.hf_graphs`). ``opts.shared_prefill`` False
    evaluates each row's prompt in a row of its own (r prefills for r
    replications: the path before, kept to compare against).
    """
    import time

    import torch

    t0 = time.perf_counter()
    index = [r.prompt for r in rows]
    if opts.shared_prefill:
        logits, prefilled, mask = _prefill(model, prompts, pad)
    else:
        logits, prefilled, mask = _prefill(model, [prompts[i] for i in index], pad)
        index = list(range(len(rows)))
    width, real = mask.shape[1], len(rows)
    size = batch_bucket(real) if opts.bucketed else real
    dec = decoder_for(
        model, size, context_bucket(width + max(r.max_tokens for r in rows)), graphs=opts.graphs
    )
    with dec.lock:
        at_row = torch.tensor(padded_index(index, size), device=mask.device)
        copy_prefill(dec, prefilled, at_row.tolist())
        buf = dec.buffers
        buf.mask.zero_()
        buf.mask[:, :width] = mask[at_row]
        pos = mask[at_row].sum(dim=-1)
        logits = logits[at_row[:real]]
        stats.sequences += real
        evaluated = prompts if opts.shared_prefill else [prompts[r.prompt] for r in rows]
        stats.prompt_tokens += sum(len(p) for p in evaluated)
        stats.prefill_seconds += time.perf_counter() - t0
        t0 = time.perf_counter()
        outs = _static_steps(dec, tokenizer, rows, logits, pos, width, eos, stats, draw)
        stats.decode_seconds += time.perf_counter() - t0
        stats.path, stats.capture_seconds = dec.path, stats.capture_seconds + dec.capture_seconds
        dec.capture_seconds = 0.0  # counted once
    return outs


def _static_steps(dec, tokenizer, rows, logits, pos, width, eos, stats, draw) -> list[Decoded]:
    """The static decode loop on ``dec``'s buffers, updated in place between steps."""
    import torch

    outs, real, buf = draw.outs, len(rows), dec.buffers
    _first_logprobs(outs, rows, logits, tokenizer)
    done = [False] * real
    for step in range(max(r.max_tokens for r in rows)):
        # only the live rows draw: each uses the same uniforms, in the same order,
        # as on the dynamic path (a finished row's token is never read)
        live = [i for i, d in enumerate(done) if not d]
        toks = [0] * real
        for i, t in zip(live, draw(logits[live] if len(live) < real else logits, live)):
            toks[i] = t
        stats.decode_tokens += len(live)
        for i in live:
            done[i] = record_token(outs[i], rows[i], toks[i], eos, tokenizer)
        if all(done):
            break
        at = width + step
        fed = toks + [toks[-1]] * (dec.size - real)  # padding rows: never read
        buf.ids.copy_(torch.tensor(fed, device=buf.ids.device)[:, None])
        buf.mask[:, at] = 1
        buf.positions.copy_((pos + step)[:, None])
        buf.cache_position.fill_(at)
        logits = dec.step()[:real]
    return outs


class _Drawer:
    """Each row's seeded uniforms and penalty window; ``draw(logits, live)`` samples live rows.

    ``logits`` holds one row per live row, in ``live``'s order.
    """

    def __init__(self, rows: Sequence[Row], prompts, chain: SamplerChain | None) -> None:
        self.rows, self.prompts, self.chain = rows, prompts, chain
        self.outs = [Decoded() for _ in rows]
        self.rngs = [random.Random(r.seed) for r in rows]

    def __call__(self, logits: Any, live: list[int]) -> list[int]:
        temps = [self.rows[i].temperature for i in live]
        uniforms = [self.rngs[i].random() for i in live]
        return sample(logits, temps, uniforms, self.chain, self._windows(live))

    def _windows(self, live: list[int]) -> list[tuple[list[int], float] | None] | None:
        """Per live row with a frequency penalty: the last ``penalty_last_n`` prompt+reply tokens."""
        if not any(self.rows[i].frequency_penalty for i in live):
            return None
        n = (self.chain or SamplerChain.plain()).penalty_last_n
        out: list[tuple[list[int], float] | None] = []
        for i in live:
            r = self.rows[i]
            seen = list(self.prompts[r.prompt]) + self.outs[i].tokens
            out.append((seen[-n:], r.frequency_penalty) if r.frequency_penalty else None)
        return out
