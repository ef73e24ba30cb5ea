"""LLM-layer benchmark: per-question wall time and decode throughput of the local model.

One run prints, with the load average beside every figure (2 cores shared
with other work make every figure a snapshot, not a constant):

1. **decode throughput per slot count**: 2·S one-sentence replies (distinct
   prompts, no stop) sent S at a time to a fresh server with S slots, for S
   in 2, 4, 8, 16: aggregate completion tokens per second, prompt included;
2. **per-question wall**, n = 9, r = 5, on questions from the shipped samples
   (2 TriviaQA, NQ-Open, MMLU, arithmetic), each configuration with its own
   cold cache file: *today* (the engine before issue #11: 2 slots,
   perturbations first, then every answer request as it comes) against *new*
   (``run_question``'s default: the default slots, stages overlapped, the
   replications of a prompt as one request with n choices). The
   configurations alternate question by question, each on its own server
   (one at a time), so a change of load falls on all alike. Also the share
   of identical raw answers between the two (llama.cpp's batched sampling is
   not bit-reproducible, and grouped replications are seeded by the server);
3. the new engine with the optional 1.5B model (``get_llm("qwen1.5b")``) when
   installed, on the first question (``--full``: on all, and its today's engine too);
4. (``--full``) per-question wall of the new engine for every slot count.

    python benchmarks/bench_llm.py            # --quick: 1, 2 and 3 (about 6 min quiet)
    python benchmarks/bench_llm.py --full     # also 4
    python benchmarks/bench_llm.py --questions 5 -n 9 -r 5 --slots 2,4,8,16

Measured with ``--quick`` (2 cores, shared, load average 1.5–1.9;
2026-11-23, after the validity gate, canonical answers and per-state seeds
landed), Qwen2.5-Coder-0.5B Q4_K_M; the full printout is
``docs/bench_llm_2026-11-23.txt``:

    decode, one-sentence replies      slots 2: 22.2   4: 28.9   8: 31.8   16: 35.1 tokens/s

    per question, cold cache, n = 9, r = 5   today (2 slots, seq.)   new (16 slots)
      TriviaQA 1                              35.29 s                17.89 s
      TriviaQA 2                              23.70 s                13.07 s
      NQ-Open                                 36.52 s                15.14 s
      MMLU (a long stem)                      41.23 s                23.76 s
      arithmetic                              14.81 s                 7.61 s
      mean                                    30.31 s                15.50 s   (1.96x)
    1.5B, new (16 slots), TriviaQA 1: 28.15 s
    identical raw answers, today vs new: 30 %

An earlier run (load 0.5–1.8, before the gate) gave 25.91 s against 13.89 s
(1.87x). Targets: ≤ 10 s per question is met on the arithmetic question
only; ≥ 2x is met on TriviaQA 1, NQ-Open and arithmetic, and missed on
average (1.96x).

Where the time goes: prompt evaluation (about 120 tokens/s) costs as much as
decoding on 2 cores, so the gain comes from evaluating each prompt once —
the r replications (and the n + 1 single paraphrase requests) as one request
with n choices: ten paraphrase requests sent apart to 8 slots took 14.5 s
(1226 prompt tokens), as one request with n = 10 5.2 s (153) — and from
decoding up to 16 sequences per step (2.9x one sequence's rate). Sixteen
slots beat eight on every question of an earlier run (9.8 against 11.8 s,
15.6 against 22.2 s), so the default is 16. The MMLU question is slow in
both: its ten paraphrases of a 60-word stem are long (and the gate re-asks
the ones that drop an entity).

On a shared machine: with another llama.cpp process busy on the same 2
cores, llama.cpp's default of 2 threads collapsed to 5.8 tokens/s (16
sequences) where 1 thread kept 41; on a quiet machine 2 threads give 80.
``ServerConfig(n_threads=1)`` is the setting for a loaded machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

#: (dataset, how many of its first questions) — mixed tasks, the shipped samples.
QUESTION_SET = (("triviaqa", 2), ("nq_open", 1), ("mmlu", 1), ("arithmetic", 1))


def load() -> str:
    """``load 1.23`` — the 1-minute load average, printed beside every figure."""
    return f"load {os.getloadavg()[0]:.2f}"


@dataclass
class Outcome:
    """One configuration on the question set."""

    name: str
    model: str = "local"
    walls: list[float] = field(default_factory=list)
    raw: list[list[list[str]]] = field(default_factory=list)
    calls: int = 0
    loads: list[float] = field(default_factory=list)

    @property
    def mean_wall(self) -> float:
        return sum(self.walls) / max(1, len(self.walls))


def questions(limit: int):
    """The benchmark questions, at most ``limit`` of them."""
    from invent_core.datasets import load_dataset

    out = [ex for name, k in QUESTION_SET for ex in load_dataset(name, limit=k)]
    return out[:limit]


def fresh_llm(spec: str, slots: int, workdir: Path):
    """A backend with a new, empty cache file; its server (``slots`` slots) starts on use."""
    from invent_core.llm import ServerConfig, get_llm

    cache = Path(tempfile.mkdtemp(dir=workdir)) / "cache.sqlite"
    return get_llm(spec, cache=cache, server_config=ServerConfig(n_parallel=slots))


def start_server(llm) -> None:
    """Start ``llm``'s server now, so that its start is not in a timed run."""
    t0 = time.perf_counter()
    llm.server.start()
    print(
        f"  server {llm.spec.name}, {llm.server_config.n_parallel} slots: up in "
        f"{time.perf_counter() - t0:.1f} s ({load()})"
    )


@dataclass
class Config:
    """One configuration: its name, model, slots, engine and (cold) cache."""

    name: str
    spec: str
    slots: int
    overlap: bool
    llm: object = None


def run_configs(configs: list[Config], exs, args, emb, workdir: Path) -> list[Outcome]:
    """Every question once per configuration, cold caches, the configurations alternating.

    Question j runs the configurations in turn (the order reversed on every
    other question), each on its own server (one at a time: the previous one
    is stopped first), so that a change of load on the shared machine falls on
    all of them alike.
    """
    from invent_core.config import RunConfig

    config = RunConfig(n_perturbations=args.n, n_replications=args.r)
    outcomes = {c.name: Outcome(c.name, c.spec) for c in configs}
    for c in configs:
        c.llm = fresh_llm(c.spec, c.slots, workdir)
    for j, ex in enumerate(exs):
        for c in configs if j % 2 == 0 else configs[::-1]:
            start_server(c.llm)
            try:
                _one_question(outcomes[c.name], c, ex, config, emb)
            finally:
                c.llm.close()  # one llama.cpp server at a time
    return [outcomes[c.name] for c in configs]


def _one_question(out: Outcome, c: Config, ex, config, emb) -> None:
    from invent_core.pipeline import run_question

    t0 = time.perf_counter()
    run = run_question(
        ex.question,
        config,
        llm=c.llm,
        task=ex.task,
        choices=list(ex.choices) if ex.choices else None,
        embedder=emb,
        _overlap=c.overlap,
    )
    wall = time.perf_counter() - t0
    t = run.timings
    out.walls.append(wall)
    out.raw.append(run.raw_responses)
    out.calls += run.usage["llm_calls"]
    out.loads.append(os.getloadavg()[0])
    print(
        f"  {c.name:<22} {ex.dataset:<10} wall {wall:6.2f} s (perturb {t['perturb']:.2f}, "
        f"generate {t['generate']:.2f}, score {t['score']:.2f}; "
        f"{run.usage['llm_calls']} calls) ({load()})"
    )


def decode_throughput(spec: str, slots: int, workdir: Path) -> tuple[float, int, float]:
    """(aggregate completion tokens/s, tokens, seconds) of 2·S one-sentence replies, S at a time."""
    from invent_core.llm import Request, user

    llm = fresh_llm(spec, slots, workdir)
    start_server(llm)
    topics = (
        "rivers mountains bread music glass paper iron salt wool clocks bees maps ice tea".split()
    )
    reqs = [
        Request(
            user(f"Describe {topics[i % len(topics)]} in one sentence of about 25 words."),
            temperature=0.7,
            seed=i,
            max_tokens=32,
        )
        for i in range(2 * slots)
    ]
    try:
        t0 = time.perf_counter()
        done = llm.complete_many(reqs, concurrency=slots)
        secs = time.perf_counter() - t0
    finally:
        llm.close()
    tokens = sum(int(c.usage.get("completion_tokens", 0)) for c in done)
    return tokens / secs, tokens, secs


def same_answers(a: Outcome, b: Outcome) -> float:
    """Share of raw answers that are identical between two configurations."""
    pairs = [
        (x, y)
        for qa, qb in zip(a.raw, b.raw, strict=True)
        for ra, rb in zip(qa, qb, strict=False)
        for x, y in zip(ra, rb, strict=True)
    ]
    return sum(x == y for x, y in pairs) / max(1, len(pairs))


def summary(outcomes: list[Outcome], base: Outcome) -> None:
    """The per-question table: mean wall, speed-up against today's engine."""
    print("\nper-question wall (cold cache), n = {}, r = {}".format(*_nr(outcomes)))
    print(
        f"  {'configuration':<22} {'mean s':>7} {'min':>6} {'max':>6} {'speed-up':>9} {'load':>6}"
    )
    for o in outcomes:
        mean_load = sum(o.loads) / max(1, len(o.loads))
        speedup = f"{base.mean_wall / o.mean_wall:8.2f}x" if o.model == base.model else "       --"
        print(
            f"  {o.name:<22} {o.mean_wall:7.2f} {min(o.walls):6.2f} {max(o.walls):6.2f} "
            f"{speedup} {mean_load:6.2f}"
        )


def _nr(outcomes: list[Outcome]) -> tuple[int, int]:
    raw = outcomes[0].raw[0]
    return len(raw) - 1, len(raw[0])


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="1, 2, 3 (the default)")
    mode.add_argument("--full", action="store_true", help="also the wall per slot count")
    ap.add_argument("--questions", type=int, default=5)
    ap.add_argument("-n", type=int, default=9)
    ap.add_argument("-r", type=int, default=5)
    ap.add_argument("--slots", default="2,4,8,16")
    ap.add_argument("--no-strong", action="store_true", help="skip the optional 1.5B model")
    args = ap.parse_args(argv)

    from invent_core.embedders import get_embedder
    from invent_core.llm import ServerConfig, installed_local_models

    slot_counts = [int(s) for s in args.slots.split(",")]
    default_slots = ServerConfig().n_parallel
    print(f"cores: {os.cpu_count()}, default slots {default_slots} ({load()})")
    workdir = Path(tempfile.mkdtemp(prefix="bench_llm_"))
    emb = get_embedder("minilm")
    emb.load()
    exs = questions(args.questions)

    print("\n1. decode throughput, 2·S one-sentence replies sent S at a time")
    for s in slot_counts:
        rate, tokens, secs = decode_throughput("local", s, workdir)
        print(f"  slots {s:>2}: {rate:6.1f} tokens/s ({tokens} tokens in {secs:.1f} s) ({load()})")

    print(f"\n2. {len(exs)} questions, n = {args.n}, r = {args.r}, cache cold per configuration")
    configs = [
        Config("today (2 slots, seq.)", "local", 2, False),
        Config(f"new ({default_slots} slots)", "local", default_slots, True),
    ]
    if args.full:
        configs += [
            Config(f"new ({s} slots)", "local", s, True) for s in slot_counts if s != default_slots
        ]
    outcomes = run_configs(configs, exs, args, emb, workdir)
    today, new = outcomes[0], outcomes[1]
    if not args.no_strong and "qwen1.5b" in installed_local_models():
        print("\n3. the optional 1.5B model")
        strong = [Config(f"1.5B new ({default_slots} slots)", "qwen1.5b", default_slots, True)]
        if args.full:
            strong.insert(0, Config("1.5B today (2 slots)", "qwen1.5b", 2, False))
        outcomes += run_configs(strong, exs if args.full else exs[:1], args, emb, workdir)
    summary(outcomes, today)
    print(f"\nidentical raw answers, today vs new: {same_answers(today, new):.0%} ({load()})")


if __name__ == "__main__":
    main()
