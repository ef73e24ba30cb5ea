"""What the meaning check both ways costs: the perturbation stage, one way against both ways.

The gate both ways (``GateConfig.both_ways``, the default since 2026-11-27)
rejects more rewordings than the one-way check, so it asks the paraphraser
again more often before padding. Per question of the shipped samples (``--per``
each, drawn with ``--seed``, not an evaluation seed) the two gates run in turn
on one packaged 0.5B server without a cache (the order flips every question, so
a change of load falls on both alike) and the script prints per gate: seconds
and paraphrase requests per question, and the median distinct accepted
rewordings of n = 9 — with the load average beside each figure. The ratio of
the stage's extra seconds to a whole question (``--question-seconds``, the
default the 15 s of a question measured by ``bench_answer_similarity.py``)
is what the gate adds to a question's time.

    python benchmarks/bench_gate.py [--per 3] [--seed 13]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SAMPLES = ("arithmetic", "gsm8k", "mmlu", "nq_open", "sciq", "triviaqa")
GATES = ("one_way", "both_ways")


def _config(gate: str):
    from invent_core.config import RunConfig

    cfg = RunConfig()
    g = replace(cfg.paraphrase.gate, both_ways=gate == "both_ways")
    return cfg.replace(paraphrase=replace(cfg.paraphrase, gate=g))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per", type=int, default=3, help="questions per shipped sample")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--question-seconds", type=float, default=14.6)
    args = ap.parse_args()
    from invent_core import env  # noqa: F401  (offline before any model import)
    from invent_core.embedders import get_embedder
    from invent_core.llm import get_llm
    from invent_core.perturb import get_perturber
    from invent_core.questions.datasets import load_dataset

    print(f"bench_gate: {time.strftime('%Y-%m-%d %H:%M')}, load {os.getloadavg()[0]:.2f}")
    configs = {g: _config(g) for g in GATES}
    llm = get_llm("local", cache=False)
    embedder = get_embedder(configs["one_way"].embedder)
    perturber = get_perturber("paraphrase")
    # untimed: starts the server and loads the embedder, which the first timed question paid
    perturber.perturb("What is 2 plus 2?", configs["one_way"], llm=llm, embedder=embedder)
    got: dict[str, list[tuple[float, int, int, float]]] = {g: [] for g in GATES}
    i = 0
    for name in SAMPLES:
        for ex in load_dataset(name, limit=args.per, seed=args.seed):
            order = GATES if i % 2 == 0 else GATES[::-1]
            i += 1
            for gate in order:
                load, t0 = os.getloadavg()[0], time.perf_counter()
                res = perturber.perturb(ex.question, configs[gate], llm=llm, embedder=embedder)
                secs = time.perf_counter() - t0
                a = res.acceptance
                got[gate].append((secs, a.get("requests", 0), a.get("distinct", 0), load))
                print(
                    f"  {name:10s} {gate:9s} {secs:5.1f} s, {a.get('requests')} requests, "
                    f"{a.get('distinct')}/{a.get('states')} distinct (load {load:.1f})",
                    flush=True,
                )
    print(f"{i} questions, n = 9, no cache (a warm-up question first, untimed)")
    means = {}
    for gate in GATES:
        rows = got[gate]
        means[gate] = statistics.mean(r[0] for r in rows)
        print(
            f"{gate:9s} {means[gate]:5.1f} s/question, "
            f"{statistics.mean(r[1] for r in rows):4.1f} requests, "
            f"median distinct {statistics.median(r[2] for r in rows):.1f} of 9, "
            f"load {min(r[3] for r in rows):.1f}–{max(r[3] for r in rows):.1f}"
        )
    extra = means["both_ways"] - means["one_way"]
    print(
        f"both ways / one way, perturbation stage: {means['both_ways'] / means['one_way']:.2f}x; "
        f"{extra:+.1f} s = {100 * extra / args.question_seconds:+.0f} % of a "
        f"{args.question_seconds:g} s question (target: at most +30 %)"
    )
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
