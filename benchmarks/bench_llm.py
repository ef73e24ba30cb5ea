"""LLM layer benchmark: one question end to end with the local default model.

Prints, from one run: per-question wall time for n=9, r=5 (target <= 20 s on 2
cores), generation tokens/s, cold versus cached re-run (target ratio >= 50x)
and sequential versus concurrent answer requests.

    python benchmarks/bench_llm.py [--question "..."] [-n 9] [-r 5]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--question",
        default="Which golfer became only the fifth in history to get both the British and US Open championships in the same year, in 1982?",
    )
    ap.add_argument("-n", type=int, default=9)
    ap.add_argument("-r", type=int, default=5)
    ap.add_argument(
        "--requests", type=int, default=10, help="answers for the sequential/concurrent test"
    )
    args = ap.parse_args()

    from invent_core.config import RunConfig
    from invent_core.embedders import get_embedder
    from invent_core.llm import Request, get_llm, user
    from invent_core.pipeline import run_question
    from invent_core.prompts import answer_prompt

    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()}")
    emb = get_embedder("minilm")
    emb.load()
    tmp = Path(tempfile.mkdtemp()) / "bench_cache.sqlite"
    llm = get_llm("local", cache=tmp)
    t0 = time.perf_counter()
    llm.complete(user("Hi"), max_tokens=1)
    print(f"server start (incl. verify): {time.perf_counter() - t0:.2f} s")

    t0 = time.perf_counter()
    config = RunConfig(n_perturbations=args.n, n_replications=args.r)
    cold = run_question(args.question, config, llm=llm, embedder=emb)
    t_cold = time.perf_counter() - t0
    gen_tokens = cold.usage["completion_tokens"]
    t = cold.timings
    print(
        f"cold run n={args.n} r={args.r}: {t_cold:.2f} s (perturb {t['perturb']:.2f}, generate {t['generate']:.2f}, score {t['score']:.2f})"
    )
    print(
        f"answer tokens: {gen_tokens} in {t['generate']:.2f} s = {gen_tokens / max(t['generate'], 1e-9):.1f} tokens/s "
        f"({cold.usage['requests']} requests, {t['generate'] / cold.usage['requests']:.3f} s/request)"
    )
    print(
        f"inv_entropy = {cold.score.measures['inv_entropy']:.4f}; perturbations: {cold.perturbations[:3]} ..."
    )

    llm2 = get_llm("local", cache=tmp)
    t0 = time.perf_counter()
    warm = run_question(args.question, config, llm=llm2, embedder=emb)
    t_warm = time.perf_counter() - t0
    assert llm2.completions_made == 0 and warm.usage["cached"] == warm.usage["requests"]
    print(
        f"cached re-run: {t_warm:.3f} s (LLM part {t_warm - warm.timings['score']:.3f} s); "
        f"ratio cold/cached = {t_cold / t_warm:.0f}x (target >= 50x)"
    )

    nocache = get_llm("local", cache=None)
    reqs = [
        Request(
            user(answer_prompt(f"{args.question} ({i})")), temperature=0.7, seed=0, max_tokens=32
        )
        for i in range(args.requests)
    ]
    t0 = time.perf_counter()
    nocache.complete_many(reqs, concurrency=1)
    t_seq = time.perf_counter() - t0
    reqs2 = [Request(r.messages, temperature=0.7, seed=1, max_tokens=32) for r in reqs]
    t0 = time.perf_counter()
    nocache.complete_many(reqs2, concurrency=2)
    t_par = time.perf_counter() - t0
    print(
        f"{args.requests} answers: sequential {t_seq:.2f} s, concurrent(2) {t_par:.2f} s, speed-up {t_seq / t_par:.2f}x"
    )
    llm.close()


if __name__ == "__main__":
    main()
