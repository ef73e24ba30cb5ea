"""The static decode path on the CPU: one prefill per prompt, bucketed batches, the eager fallback.

A tiny random-weight Qwen2 (built from a config, the packaged tokenizer) runs
every path the GPU engine may take; CUDA graphs themselves need a GPU
(``benchmarks/bench_gpu.py`` checks them there), but the buffers, the
padding and the bucketing they replay are the ones stepped eagerly here.
"""

from __future__ import annotations

import pytest
from test_llm_hf import build_tiny_qwen2

from invent_core.llm import Request, get_llm, user
from invent_core.llm.hf import HFLLM, HFConfig
from invent_core.llm.hf_decode import BatchStats, Row, StaticOptions, decode_batch
from invent_core.llm.hf_graphs import (
    StaticDecoder,
    batch_bucket,
    context_bucket,
    decoder_for,
    padded_index,
)


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    """(model, tokenizer, eos) of a tiny random Qwen2 on the CPU."""
    from invent_core.llm.hf import packaged_tokenizer

    folder = build_tiny_qwen2(tmp_path_factory.mktemp("tiny") / "m", packaged_tokenizer(), seed=3)
    llm = get_llm(f"hf:{folder}", cache=None)
    ld = llm.loaded
    return ld.model, ld.tokenizer, ld.eos


def _prompts(tokenizer) -> list[list[int]]:
    texts = ["What is 2+2?", "Name the capital of France, please, in one word.", "Hi"]
    return [tokenizer(t, add_special_tokens=False)["input_ids"] for t in texts]


def _rows(temperature: float, r: int = 3, top_logprobs: int = 0) -> list[Row]:
    """r replications of each of the three prompts, each with its own seed."""
    return [
        Row(
            prompt=p,
            seed=100 * p + k,
            temperature=temperature,
            max_tokens=7 + p,
            top_logprobs=top_logprobs,
        )
        for p in range(3)
        for k in range(r)
    ]


def _decode(loaded, rows, *, static: bool, stats=None, **opts):
    model, tok, eos = loaded
    return decode_batch(
        model,
        tok,
        _prompts(tok),
        rows,
        eos=eos,
        static=static,
        stats=stats,
        options=StaticOptions(**opts),
    )


def test_one_prefill_per_prompt_gives_the_tokens_of_one_prefill_per_row(loaded):
    shared, per_row = BatchStats(), BatchStats()
    rows = _rows(0.0)
    a = _decode(loaded, rows, static=True, stats=shared)
    b = _decode(loaded, rows, static=True, stats=per_row, shared_prefill=False)
    assert [d.tokens for d in a] == [d.tokens for d in b]
    assert sum(len(d.tokens) for d in a) > 3 * 3  # several steps decoded, not only the first
    lengths = [len(p) for p in _prompts(loaded[1])]
    assert shared.prompt_tokens == sum(lengths)  # each prompt evaluated once
    assert per_row.prompt_tokens == 3 * sum(lengths)  # r times each prompt


def test_one_prefill_per_prompt_samples_from_the_same_distributions(loaded):
    rows = _rows(0.9, r=4, top_logprobs=5)
    a = _decode(loaded, rows, static=True)
    b = _decode(loaded, rows, static=True, shared_prefill=False)
    for x, y in zip(a, b, strict=True):  # the first token's distribution, row by row
        assert [t for t, _ in x.logprobs] == [t for t, _ in y.logprobs]
        assert all(abs(p - q) < 1e-4 for (_, p), (_, q) in zip(x.logprobs, y.logprobs))
    same = sum(x.tokens == y.tokens for x, y in zip(a, b))
    assert same >= len(rows) - 1  # the same seeds draw the same samples (rounding aside)
    assert len({tuple(d.tokens) for d in a[:4]}) > 1  # and the seeds differ


@pytest.mark.parametrize("r", [1, 3, 5])  # 3, 9, 15 rows: buckets of 4, 16, 16
def test_padding_to_a_bucket_gives_the_tokens_of_unpadded_decoding(loaded, r):
    rows = _rows(0.0, r=r)
    stats = BatchStats()
    padded = _decode(loaded, rows, static=True, stats=stats)
    unpadded = _decode(loaded, rows, static=True, bucketed=False)
    dynamic = _decode(loaded, rows, static=False)
    assert [d.tokens for d in padded] == [d.tokens for d in unpadded] == [d.tokens for d in dynamic]
    assert [d.finish_reason for d in padded] == [d.finish_reason for d in dynamic]
    assert stats.path == "eager" and stats.sequences == len(rows)


def test_graphs_asked_for_without_cuda_fall_back_to_eager_and_say_why(loaded):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA: benchmarks/bench_gpu.py checks the graphs")
    model = loaded[0]
    rows = _rows(0.0)
    stats = BatchStats()
    got = _decode(loaded, rows, static=True, stats=stats, graphs=True)
    assert [d.tokens for d in got] == [d.tokens for d in _decode(loaded, rows, static=False)]
    assert stats.path.startswith("eager (capture failed:")
    size = batch_bucket(len(rows))
    length = context_bucket(max(len(p) for p in _prompts(loaded[1])) + 9)
    dec = decoder_for(model, size, length, graphs=True)
    assert dec.graph is None and not dec.want_graph  # not tried again for every batch


def test_a_decoder_is_made_once_per_model_and_shape(loaded):
    model = loaded[0]
    a = decoder_for(model, 4, 256, graphs=False)
    assert decoder_for(model, 4, 256, graphs=False) is a
    assert decoder_for(model, 8, 256, graphs=False) is not a
    assert isinstance(a, StaticDecoder) and a.path == "eager"


def test_buckets():
    assert [batch_bucket(n) for n in (1, 2, 3, 5, 9, 129, 256, 257)] == [
        1,
        2,
        4,
        8,
        16,
        256,
        256,
        257,
    ]
    assert context_bucket(300) == 512 and padded_index([2], 3) == [2, 2, 2]
    with pytest.raises(ValueError, match="do not fit"):
        padded_index([0, 1, 2], 2)
    with pytest.raises(ValueError, match="at least one"):
        batch_bucket(0)


def test_the_engine_records_its_decode_path(tmp_path):
    from invent_core.llm.hf import packaged_tokenizer

    folder = build_tiny_qwen2(tmp_path / "m", packaged_tokenizer(), seed=4)
    source = get_llm(f"hf:{folder}", cache=None).source
    for kv, path in (("dynamic", "dynamic"), ("static", "eager")):
        llm = HFLLM(source, config=HFConfig(kv_cache=kv))
        assert llm.graphs is False  # no CUDA here: never graphs
        llm.complete_many([Request(user("Hi"), temperature=0.0, max_tokens=3)])
        assert llm.runtime["decode_path"] == path
    with pytest.raises(ValueError, match="cuda_graphs must be auto or off"):
        HFConfig(cuda_graphs="on")
