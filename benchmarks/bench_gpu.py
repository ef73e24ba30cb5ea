"""The transformers engine on a GPU: full questions (n = 9, r = 5), per question.

A question's LLM work is replayed from ``benchmarks/gpu_workload.json``: every
request ``run_question`` sent for it (the paraphrase rounds and the r answers
of the n + 1 states), recorded on the packaged Qwen2.5-Coder-0.5B (llama.cpp,
CPU) with how many tokens each reply had. The calls go in the order they
started: a paraphrase round waits for the one before (the gate's verdict), a
state's answers are queued as soon as their turn comes, and the pipeline's
own request pool sends them (the backend's slots, paraphrases first); the
engine batches what meets. The
embedder, the gate and the scoring are not in the replay: the LLM's part only.

Printed per model and question, with the load average beside every figure:
wall, prompt and decode tokens/s, the batch sizes, the peak GPU memory; and
the ratio to the wall the same question took through llama.cpp on the CPU
when it was recorded (its load average beside it); the question's critical
path (each paraphrase round, then what is left of the answers) and, with
``--sequential``, the same question again with every answer after the last
paraphrase round (``run_question(overlap=False)``'s order): what the overlap
of the stages saves, measured in the same run.

    python benchmarks/bench_gpu.py --random-weights              # 0.5b, 1.5b, 7b shapes, CUDA
    python benchmarks/bench_gpu.py --random-weights --step-latency 1,32,128 --concurrent 16
    python benchmarks/bench_gpu.py --model hf:/path/to/Qwen2.5-7B-Instruct
    python benchmarks/bench_gpu.py --device cpu --quick          # the tiny test model: seconds
    python benchmarks/bench_gpu.py --compare-cpu --questions 2   # packaged 0.5B: transformers vs llama.cpp
    python benchmarks/bench_gpu.py --record --questions 5        # re-record the workload
    python benchmarks/bench_gpu.py --random-weights --sequential --graphs auto,off --warm-second

``--random-weights`` builds each Qwen2.5 shape from its config with random
weights on the device (speed does not depend on weight values) and the
packaged tokenizer (``--tokenizer``, default: saved from the packaged GGUF),
and forces the recorded reply lengths (end-of-sequence off, ``max_tokens`` =
the recorded length). No model file has to travel to the GPU machine: carry
the tokenizer folder (about 11 MB).

Targets on one H100: ≤ 1.5 s per question at the 0.5B shape, ≤ 4 s
at 7B; 300 questions at 7B ≤ 15 min. Measured on a lent H200 on 2026-11-27
(``docs/bench_gpu_2026-11-27.txt``): one question at a time 4.0-11.6 s (missed:
a question is a chain of small batches, each paced by the decode step's
kernel launches, 55-90 ms eager whatever the batch or size); 16 questions in
flight, as ``batch`` runs them, 96 questions/min at 0.5B and 73 at 7B (300 at
7B ≈ 4.1 min: met). ``--step-latency`` shows the step eager on both KV caches
and as a CUDA graph (3-8 ms at 0.5B), ``--concurrent`` the throughput,
``--kv-cache static,dynamic`` both decode paths in one run.

Measured on the CPU (``--compare-cpu --questions 2``, 2 shared cores,
2026-11-25, the two TriviaQA questions of the workload, natural reply
lengths, packaged 0.5B; transformers de-quantised to fp32, loaded in 74 s):

    llama.cpp      56.78 s (load 3.85)   14.59 s (load 2.62)
    transformers   85.96 s (load 2.57)   41.24 s (load 2.50)
    wall, transformers / llama.cpp: 1.78 (127.2 s / 71.4 s)

So on a CPU llama.cpp stays the default (``--llm-engine auto``). An earlier
run with the engines one after the other, at load 4–13, gave llama.cpp
508 s on the first question (its 2 threads starved at load 12.6): on a busy
machine these walls say more about the neighbours than about the engines.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

WORKLOAD = Path(__file__).with_name("gpu_workload.json")

#: Qwen2.5 shapes (the public configs of Qwen2.5-0.5B/1.5B/7B-Instruct), and a tiny one.
SHAPES: dict[str, dict[str, Any]] = {
    "0.5b": dict(
        hidden_size=896,
        intermediate_size=4864,
        num_hidden_layers=24,
        num_attention_heads=14,
        num_key_value_heads=2,
        tie_word_embeddings=True,
    ),
    "1.5b": dict(
        hidden_size=1536,
        intermediate_size=8960,
        num_hidden_layers=28,
        num_attention_heads=12,
        num_key_value_heads=2,
        tie_word_embeddings=True,
    ),
    "7b": dict(
        hidden_size=3584,
        intermediate_size=18944,
        num_hidden_layers=28,
        num_attention_heads=28,
        num_key_value_heads=4,
        tie_word_embeddings=False,
    ),
    "tiny": dict(
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        tie_word_embeddings=True,
    ),
}


def load() -> str:
    """``load 1.23``: the 1-minute load average, printed beside every figure."""
    return f"load {os.getloadavg()[0]:.2f}"


# -- recording the workload on the packaged model -------------------------------------


class Recorder:
    """An LLM that passes every ``complete_many`` on and records its requests and reply lengths."""

    def __init__(self, inner: Any) -> None:
        self._inner, self.calls, self._t0 = inner, [], time.perf_counter()
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def complete_many(self, requests, progress=None, **kw) -> list:
        t = time.perf_counter() - self._t0
        out = self._inner.complete_many(requests, progress, **kw)
        call = {"t": round(t, 3), "requests": [_request_dict(r, c) for r, c in zip(requests, out)]}
        with self._lock:
            self.calls.append(call)
        return out

    def complete(self, messages, **kw):
        from invent_core.llm import Request

        return self.complete_many([Request(messages, **kw)])[0]

    def close(self) -> None:
        self._inner.close()


def _request_dict(r: Any, c: Any) -> dict[str, Any]:
    return {
        "messages": r.message_list,
        "temperature": r.temperature,
        "seed": r.seed,
        "replication": r.replication,
        "state": r.state,
        "max_tokens": r.max_tokens,
        "stop": list(r.stop),
        "logprobs": r.logprobs,
        "top_logprobs": r.top_logprobs,
        "tokens": int(c.usage.get("completion_tokens", 0) or 0),
    }


def record(n_questions: int) -> None:
    """Run the benchmark questions on the packaged 0.5B (llama.cpp, cold cache); write the workload."""
    from bench_llm import questions

    from invent_core.config import RunConfig
    from invent_core.engine.pipeline import run_question
    from invent_core.llm import get_llm

    config = RunConfig(n_perturbations=9, n_replications=5)
    out = {
        "model": "qwen0.5b (llama.cpp, CPU)",
        "recorded": time.strftime("%Y-%m-%d"),
        "questions": [],
    }
    with tempfile.TemporaryDirectory() as tmp:
        for ex in questions(n_questions):
            rec = Recorder(
                get_llm(
                    "local", engine="llamacpp", cache=Path(tmp) / f"{len(out['questions'])}.sqlite"
                )
            )
            t0 = time.perf_counter()
            run_question(
                ex.question, config, llm=rec, task=ex.task, choices=list(ex.choices or []) or None
            )
            wall = time.perf_counter() - t0
            out["questions"].append(
                {
                    "dataset": ex.dataset,
                    "question": ex.question,
                    "llamacpp_wall": round(wall, 2),
                    "llamacpp_load": round(os.getloadavg()[0], 2),
                    "calls": rec.calls,
                }
            )
            print(
                f"  recorded {ex.dataset:<10} wall {wall:6.2f} s, {len(rec.calls)} calls ({load()})"
            )
            rec.close()
    WORKLOAD.write_text(json.dumps(out, indent=1, ensure_ascii=False))
    print(f"wrote {WORKLOAD}")


# -- replaying it -----------------------------------------------------------------------


def _requests(call: dict[str, Any], forced: bool) -> list:
    """The call's requests; ``forced``: ``max_tokens`` = the recorded length, no stop strings."""
    from invent_core.llm import Request

    out = []
    for r in call["requests"]:
        tokens = max(1, r["tokens"])
        out.append(
            Request(
                r["messages"],
                temperature=r["temperature"],
                seed=r["seed"],
                replication=r["replication"],
                state=r["state"],
                max_tokens=tokens if forced else r["max_tokens"],
                stop=() if forced else tuple(r["stop"]),
                logprobs=r["logprobs"],
                top_logprobs=r["top_logprobs"],
            )
        )
    return out


def _copy(question: dict[str, Any], k: int) -> dict[str, Any]:
    """The question's calls with every seed moved by ``k`` (copy k is a different question's work)."""
    calls = [
        {**c, "requests": [{**r, "seed": (r["seed"] or 0) + 7919 * k} for r in c["requests"]]}
        for c in question["calls"]
    ]
    return {**question, "calls": calls}


def concurrent(llm: Any, questions: list[dict[str, Any]], k: int, forced: bool) -> None:
    """``k`` questions in flight at once (the workload's, cycled): what a batch run sees.

    One thread per question, as ``batch`` runs questions; the engine's
    batcher decodes whatever meets. Prints questions per minute and the ratio
    to one question at a time.
    """
    work = [_copy(questions[i % len(questions)], i) for i in range(k)]
    walls: list[float] = [0.0] * k
    s0 = _stats(llm)

    def one(i: int) -> None:
        walls[i] = replay(llm, work[i], forced)

    t0 = time.perf_counter()
    threads = [threading.Thread(target=one, args=(i,)) for i in range(k)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    s1 = _stats(llm)
    print(
        f"  {k:3d} in flight: {wall:6.2f} s for {k} questions = {60 * k / wall:6.1f} questions/min "
        f"(each {min(walls):.2f}-{max(walls):.2f} s), decode {(s1[1] - s0[1]) / max(wall, 1e-9):7.0f} "
        f"tok/s of wall; 300 questions ≈ {300 * wall / k / 60:.1f} min ({load()})"
    )


def step_latency(llm: Any, sizes: list[int], context: int = 256, steps: int = 20) -> None:
    """Seconds of one decode step (B sequences, ``context`` tokens cached): the engine's floor."""
    import torch
    from transformers import DynamicCache

    model = llm.loaded.model
    for b in sizes:
        ids = torch.randint(100, 1000, (b, context), device=model.device)
        with torch.inference_mode():
            cache = DynamicCache()
            model(input_ids=ids, past_key_values=cache, use_cache=True, logits_to_keep=1)
            step = functools.partial(_dynamic_step, model, ids[:, -1:], cache)
            med = _timed(step, model.device, steps, warmup=0)
        print(
            f"  decode step, batch {b:3d}: {1000 * med:6.1f} ms (median of {steps}), "
            f"{b / med:8.0f} tok/s ({load()})"
        )


def step_latency_graph(llm: Any, sizes: list[int], context: int = 256, steps: int = 20) -> None:
    """One decode step with a static KV cache, eager and replayed as a CUDA graph (on CUDA).

    The eager step's time hardly depends on the batch or the model's size on
    the lent H200 (about 60-78 ms from 1 to 128 sequences, 0.5B and 7B
    alike): the host's kernel launches, not the GPU's work. A CUDA graph
    launches the step's kernels at once; this shows what that would buy.
    """
    import torch
    from transformers import StaticCache

    model = llm.loaded.model
    cuda = str(model.device).startswith("cuda")
    for b in sizes:
        ids = torch.randint(100, 1000, (b, context), device=model.device)
        with torch.inference_mode():
            cache = StaticCache(config=model.config, max_cache_len=context + 4 * steps + 8)
            first = torch.arange(context, device=model.device)
            model(input_ids=ids, past_key_values=cache, cache_position=first, logits_to_keep=1)
            one, at = ids[:, -1:].clone(), torch.tensor([context], device=model.device)
            step = functools.partial(model, input_ids=one, past_key_values=cache, cache_position=at)
            eager = _timed(step, model.device, steps)
            graph = float("nan")
            if cuda:
                try:
                    graph = _graph_timed(step, model.device, steps)
                except Exception as err:  # noqa: BLE001 - a probe: say why and go on
                    print(f"  CUDA graph capture failed at batch {b}: {type(err).__name__}: {err}")
        print(
            f"  static-cache step, batch {b:3d}: eager {1000 * eager:6.1f} ms, CUDA graph "
            f"{1000 * graph:6.2f} ms ({load()})"
        )


def _dynamic_step(model: Any, one: Any, cache: Any) -> None:
    """One eager step on a growing DynamicCache, its next token read back (as the engine does)."""
    out = model(input_ids=one, past_key_values=cache, use_cache=True)
    out.logits[:, -1, :].float().argmax(-1).tolist()


def _timed(fn: Any, device: Any, steps: int, warmup: int = 2) -> float:
    """Median seconds of ``fn()`` (synchronised), after ``warmup`` untimed calls."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(steps):
        _sync(device)
        t0 = time.perf_counter()
        fn()
        _sync(device)
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2]


def _graph_timed(step: Any, device: Any, steps: int) -> float:
    """Capture ``step`` as a CUDA graph (warmed on a side stream) and time its replay."""
    import torch

    side = torch.cuda.Stream(device)
    side.wait_stream(torch.cuda.current_stream(device))
    with torch.cuda.stream(side):
        for _ in range(3):
            step()
    torch.cuda.current_stream(device).wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step()
    return _timed(graph.replay, device, steps)


def launch_overhead(device: str = "cuda", n: int = 2000) -> None:
    """Microseconds per tiny kernel launch, and a pure-Python loop: the host's speed."""
    import torch

    t0 = time.perf_counter()
    sum(range(10**7))
    py = time.perf_counter() - t0
    line = f"host: sum(range(1e7)) {1000 * py:.0f} ms"
    if torch.cuda.is_available() and device != "cpu":
        x = torch.zeros(1, device="cuda")
        _sync("cuda")
        t0 = time.perf_counter()
        for _ in range(n):
            x.add_(1)
        _sync("cuda")
        line += f"; {1e6 * (time.perf_counter() - t0) / n:.1f} µs per tiny kernel launch"
    print(f"{line} ({load()})")


def _sync(device: Any) -> None:
    import torch

    if str(device).startswith("cuda"):
        torch.cuda.synchronize(device)


def _is_answer(call: dict[str, Any]) -> bool:
    return any(r["state"] is not None for r in call["requests"])


def replay(
    llm: Any,
    question: dict[str, Any],
    forced: bool,
    path: list[tuple[str, float, int]] | None = None,
    *,
    overlap: bool = True,
) -> float:
    """Send one question's recorded calls through the pipeline's request pool; the wall seconds.

    In the order they started: a paraphrase round waits for the one before
    (the gate's verdict), a state's answers are queued as soon as their turn
    comes; the pool (:class:`~invent_core.llm.pool.RequestPool`, the backend's
    slots, paraphrases first) sends them as ``run_question`` does.

    ``path`` receives the question's critical path: each paraphrase round
    (nothing after it starts before it ends) and then what is left of the
    answers, as ``(stage, seconds, decode steps)``; the steps are the longest
    reply of the stage, the sequential decode steps no batching can shorten.

    ``overlap=False``: every answer waits for the last paraphrase round (the
    stages one after the other, as ``run_question(overlap=False)``).
    """
    from invent_core.llm.pool import ANSWER, PERTURB, RequestPool, gather

    calls = sorted(question["calls"], key=lambda c: c["t"])
    t0 = time.perf_counter()
    with RequestPool(llm) as pool:
        answers, answer_steps, deferred = [], 0, []
        for c in calls:
            reqs = _requests(c, forced)
            steps = max(r.max_tokens if forced else 0 for r in reqs) if forced else 0
            if _is_answer(c):
                if overlap:
                    answers += pool.submit_many(reqs, priority=ANSWER)
                else:
                    deferred.append(reqs)
                answer_steps = max(answer_steps, steps)
            else:
                t1 = time.perf_counter()
                gather(pool.submit_many(reqs, priority=PERTURB, kind="perturb"))
                if path is not None:
                    path.append(("paraphrase", time.perf_counter() - t1, steps))
        t1 = time.perf_counter()
        for reqs in deferred:
            answers += pool.submit_many(reqs, priority=ANSWER)
        gather(answers)
        if path is not None:
            path.append(("answers", time.perf_counter() - t1, answer_steps))
    return time.perf_counter() - t0


@dataclass
class Row:
    """One model's figures on one question."""

    wall: float
    prompt_tps: float
    decode_tps: float
    batches: list[int] = field(default_factory=list)
    peak_gib: float = float("nan")
    load: float = 0.0
    decode_tokens: int = 0
    path: list[tuple[str, float, int]] = field(default_factory=list)  # the critical path
    decode_path: str = ""
    capture_s: float = 0.0  # CUDA graph capture (warm-up) during this question, apart
    sequential: float = float("nan")  # the same question, every answer after the paraphrases


def measure(llm: Any, question: dict[str, Any], forced: bool, sequential: bool = False) -> Row:
    """Replay one question through an ``HFLLM`` and read its counters.

    With ``sequential``, the question is replayed again with the stages one
    after the other (its wall only): what the overlap saves, in the same run.
    """
    import torch

    s0, b0 = _stats(llm), len(llm.batch_sizes)
    c0 = llm.stats.capture_seconds
    cuda = llm.device.startswith("cuda")
    if cuda:
        torch.cuda.reset_peak_memory_stats(llm.device)
    path: list[tuple[str, float, int]] = []
    wall = replay(llm, question, forced, path)
    s1 = _stats(llm)
    prompt, decode = s1[0] - s0[0], s1[1] - s0[1]
    pre_s, dec_s = s1[2] - s0[2], s1[3] - s0[3]
    peak = torch.cuda.max_memory_allocated(llm.device) / 2**30 if cuda else float("nan")
    seq = replay(llm, question, forced, overlap=False) if sequential else float("nan")
    return Row(
        wall,
        prompt / max(pre_s, 1e-9),
        decode / max(dec_s, 1e-9),
        llm.batch_sizes[b0:],
        peak,
        os.getloadavg()[0],
        decode,
        path,
        llm.runtime["decode_path"],
        llm.stats.capture_seconds - c0,
        seq,
    )


def _stats(llm: Any) -> tuple[int, int, float, float]:
    s = llm.stats
    return s.prompt_tokens, s.decode_tokens, s.prefill_seconds, s.decode_seconds


# -- building the models ------------------------------------------------------------------


def random_model(
    shape: str,
    device: str,
    dtype: str,
    tokenizer: Path,
    kv_cache: str = "auto",
    graphs: str = "auto",
) -> Any:
    """An ``HFLLM`` on a Qwen2.5 shape with random weights, built on ``device``."""
    import torch
    from transformers import AutoTokenizer, Qwen2Config, Qwen2ForCausalLM

    from invent_core.llm.hf import HFLLM, HFConfig, HFSource, preload

    tok = AutoTokenizer.from_pretrained(str(tokenizer))
    cfg = Qwen2Config(
        vocab_size=151936, max_position_embeddings=32768, rope_theta=1e6, **SHAPES[shape]
    )
    llm = HFLLM(
        HFSource(tokenizer, name=f"random Qwen2.5-{shape}", sha256="0" * 64),
        config=HFConfig(device=device, dtype=dtype, kv_cache=kv_cache, cuda_graphs=graphs),
    )
    torch_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[llm.dtype]
    torch.manual_seed(0)
    with torch.device(llm.device):
        model = Qwen2ForCausalLM(cfg).to(torch_dtype)
    preload(llm.source, llm.device, llm.dtype, model, tok)
    llm.loaded.eos = {-1}  # random weights: the recorded lengths are forced
    return llm


def spec_model(spec: str, device: str, dtype: str) -> Any:
    """An ``HFLLM`` from a ``get_llm`` spec (``hf:PATH``; ``local`` on transformers), loaded now."""
    from invent_core.llm import get_llm
    from invent_core.llm.hf import HFConfig

    llm = get_llm(spec, engine="transformers", dtype=dtype, cache=None)
    if device != "auto":
        from invent_core.llm.hf import HFLLM

        llm = HFLLM(
            llm.source, config=HFConfig(device=device, dtype=dtype), prefers_single_paraphrase=True
        )
    t0 = time.perf_counter()
    llm.loaded  # noqa: B018 - load now, outside the timed questions
    print(f"  {llm.label}: loaded in {time.perf_counter() - t0:.1f} s ({load()})")
    return llm


# -- printing -------------------------------------------------------------------------------


def report(name: str, rows: list[Row], questions: list[dict[str, Any]]) -> None:
    """Per-question lines, then the mean and the ratio to llama.cpp on the CPU."""
    print(f"\n{name}")
    for q, r in zip(questions, rows, strict=True):
        cpu = q.get("llamacpp_wall")
        ratio = (
            f", llama.cpp CPU {cpu:.2f} s ({cpu / r.wall:.1f}x; load then {q.get('llamacpp_load', 0):.2f})"
            if cpu
            else ""
        )
        sizes = ",".join(map(str, r.batches))
        print(
            f"  {q['dataset']:<10} wall {r.wall:6.2f} s, prompt {r.prompt_tps:8.0f} tok/s, decode "
            f"{r.decode_tps:7.0f} tok/s, batches [{sizes}], peak GPU {r.peak_gib:.2f} GiB{ratio} (load {r.load:.2f})"
        )
        print_path(r)
    decoded = sum(r.decode_tokens for r in rows)
    mean = sum(r.wall for r in rows) / len(rows)
    print(f"  decoded {decoded} tokens in all")
    print(
        f"  mean wall {mean:.2f} s per question; 300 questions ≈ {300 * mean / 60:.1f} min ({load()})"
    )


def print_path(r: Row) -> None:
    """The question's critical path, its decode path and the graph capture it paid for."""
    stages = " + ".join(f"{name} {sec:.2f} s/{steps} steps" for name, sec, steps in r.path)
    steps = sum(n for _, _, n in r.path)
    per_step = sum(sec for _, sec, _ in r.path) / max(steps, 1)
    print(
        f"    critical path: {stages} = {steps} sequential decode steps, "
        f"{1000 * per_step:.1f} ms a step on it; decode path {r.decode_path}, graph capture "
        f"{r.capture_s:.2f} s (apart from the wall's decoding)"
    )
    if r.sequential == r.sequential:  # measured (not nan)
        print(
            f"    overlapped {r.wall:.2f} s vs sequential {r.sequential:.2f} s (every answer "
            f"after the last paraphrase round): {r.sequential / r.wall:.2f}x ({load()})"
        )


def warm_second(llm: Any, questions: list[dict[str, Any]], forced: bool) -> None:
    """The dashboard's case: a first question (cold), then a second one on the warm engine.

    The second is another question's work (its seeds moved): what a person
    asking two questions in a row waits for the second time.
    """
    first = measure(llm, questions[0], forced)
    second = measure(llm, _copy(questions[-1], 1), forced)
    print(
        f"  dashboard: first question {first.wall:.2f} s (capture {first.capture_s:.2f} s), "
        f"warm second {second.wall:.2f} s (capture {second.capture_s:.2f} s; "
        f"{second.decode_path}) ({load()})"
    )


def compare_cpu(questions: list[dict[str, Any]]) -> None:
    """The packaged 0.5B, same requests (natural lengths): llama.cpp vs transformers on the CPU.

    Both engines are up at once and take the questions in turn (the order
    reversed on every other question), so a change of load falls on both.
    """
    from invent_core.llm import get_llm

    ll = get_llm("local", engine="llamacpp", cache=None, timeout=900)  # shared cores are slow
    ll.server.start()
    tf = spec_model("local", "cpu", "fp32")
    walls: dict[str, list[float]] = {ll.label: [], tf.label: []}
    for j, q in enumerate(questions):
        for llm in (ll, tf) if j % 2 == 0 else (tf, ll):
            walls[llm.label].append(replay(llm, q, forced=False))
            print(f"  {llm.label:<45} {q['dataset']:<10} {walls[llm.label][-1]:7.2f} s ({load()})")
    ll.close()
    a, b = sum(walls[ll.label]), sum(walls[tf.label])
    print(f"wall, transformers / llama.cpp: {b / a:.2f} ({b:.1f} s / {a:.1f} s; {load()})")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--random-weights", action="store_true", help="Qwen2.5 shapes with random weights"
    )
    p.add_argument("--shapes", default="0.5b,1.5b,7b")
    p.add_argument("--model", action="append", default=[], help="a get_llm spec (hf:PATH, local)")
    p.add_argument("--device", default="auto")
    p.add_argument("--dtype", default="auto")
    p.add_argument("--questions", type=int, default=5)
    p.add_argument("--tokenizer", type=Path, default=None)
    p.add_argument("--quick", action="store_true", help="the tiny shape, one question")
    p.add_argument(
        "--smoke",
        action="store_true",
        help="the tiny shape, one question, every path (static/dynamic, graphs auto/off, the "
        "warm second question, step latency, sequential): seconds on a CPU, to know the script "
        "works",
    )
    p.add_argument(
        "--graphs", default="auto", help="comma-separated: auto (CUDA graphs on CUDA), off"
    )
    p.add_argument(
        "--warm-second", action="store_true", help="the dashboard's warm second question"
    )
    p.add_argument(
        "--kv-cache", default="auto", help="comma-separated: auto, static, dynamic (random weights)"
    )
    p.add_argument(
        "--concurrent",
        default="",
        help="comma-separated counts of questions in flight at once (e.g. 8,32): throughput",
    )
    p.add_argument(
        "--step-latency", default="", help="comma-separated batch sizes: one decode step's time"
    )
    p.add_argument(
        "--sequential",
        action="store_true",
        help="each question again with every answer after the paraphrases: what the overlap saves",
    )
    p.add_argument("--record", action="store_true", help="re-record the workload (packaged 0.5B)")
    p.add_argument("--compare-cpu", action="store_true", help="llama.cpp vs transformers, CPU")
    args = p.parse_args(argv)
    if args.smoke:
        args.quick, args.warm_second, args.graphs = True, True, "auto,off"
        args.kv_cache, args.step_latency = "static,dynamic", args.step_latency or "1,4"
        args.sequential = True
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("benchmarks/bench_gpu.py"))
    print(f"bench_gpu: {time.strftime('%Y-%m-%d %H:%M')} ({load()})")
    if args.record:
        return record(args.questions)
    work = json.loads(WORKLOAD.read_text())
    questions = work["questions"][: 1 if args.quick else args.questions]
    print(f"workload: {len(questions)} question(s) recorded {work['recorded']} on {work['model']}")
    if args.compare_cpu:
        return compare_cpu(questions)
    _device_line(args.device)
    launch_overhead(args.device)
    if args.quick or args.random_weights:
        from invent_core.llm.hf import packaged_tokenizer

        tok = args.tokenizer or packaged_tokenizer()
        for kv, graphs, shape in _settings(args):
            llm = random_model(shape, args.device, args.dtype, tok, kv, graphs)
            name = f"{llm.label} · {'static' if llm.static else 'dynamic'} KV cache"
            name += f" · graphs {graphs}" if llm.static else ""
            rows = [measure(llm, q, True, args.sequential) for q in questions]
            report(name, rows, questions)
            _extras(llm, args, questions, forced=True)
    for spec in args.model:
        llm = spec_model(spec, args.device, args.dtype)
        rows = [measure(llm, q, False, args.sequential) for q in questions]
        report(llm.label, rows, questions)
        _extras(llm, args, questions, forced=False)
    return None


def _extras(
    llm: Any, args: argparse.Namespace, questions: list[dict[str, Any]], forced: bool
) -> None:
    """``--step-latency`` and ``--concurrent``, after the one-at-a-time questions."""
    if args.step_latency:
        sizes = [int(b) for b in args.step_latency.split(",")]
        step_latency(llm, sizes)
        step_latency_graph(llm, sizes)
    for k in [int(k) for k in args.concurrent.split(",") if k]:
        concurrent(llm, questions, k, forced)
    if args.warm_second:
        warm_second(llm, questions, forced)


def _settings(args: argparse.Namespace) -> list[tuple[str, str, str]]:
    """(KV cache, graphs, shape) to run: graphs only vary on the static cache."""
    shapes = ["tiny"] if args.quick else args.shapes.split(",")
    out = []
    for kv in args.kv_cache.split(","):
        for graphs in args.graphs.split(",") if kv != "dynamic" else ["off"]:
            out += [(kv, graphs, shape) for shape in shapes]
    return out


def _device_line(device: str) -> None:
    import torch

    if torch.cuda.is_available() and device != "cpu":
        print(f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}")
    else:
        print(f"device: CPU, {os.cpu_count()} cores, torch {torch.__version__}")


if __name__ == "__main__":
    main()
