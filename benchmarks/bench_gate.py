"""What the default gate costs: the perturbation stage, the default against an earlier gate.

The default gate checks a rewording both ways (``GateConfig.both_ways``, since
2026-11-27) and keeps it only from an affinity δ = 0.845 (``GateConfig.delta``,
since 2026-11-28; the paper's GAAP δ, 0.7, before). Each rejects more rewordings
than what it replaced, so the paraphraser is asked again more often before
padding. Per question of the shipped samples (``--per`` each, drawn with
``--seed``, not an evaluation seed) the default and the gate named by
``--against`` (``paper_delta``: both ways with δ = 0.7; ``one_way``: the
question-to-rewording rules with δ = 0.7, the default until 2026-11-27;
``undecided_kept``: what the rules cannot decide kept when δ passes it, the
default until the third round of rewording rules on 2026-11-29; ``extra_9``: 9
re-asks, the default until the fourth round the same day) run in
turn on one packaged 0.5B server without a cache (the order flips every
question, so a change of load falls on both alike) and the script prints per
gate: seconds and paraphrase requests per question, and the median distinct
accepted rewordings of n = 9, overall and per sample — with the load average
beside each figure. The ratio of the stage's extra seconds to a whole question
(``--question-seconds``, the default the 15 s of a question measured by
``bench_answer_similarity.py``) is what the gate adds to a question's time.

    python benchmarks/bench_gate.py [--per 3] [--seed 13] [--against paper_delta]
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
#: The gates the default can be measured against: GateConfig fields that differ.
EARLIER = {
    "paper_delta": {"delta": 0.7},
    "one_way": {"delta": 0.7, "both_ways": False},
    # the third round of rewording rules (2026-11-29) made undecided rewordings rejected
    "undecided_kept": {"undecided_kept": True},
    # the fourth round (2026-11-29) doubled the re-asks to lift the distinct rewordings
    "extra_9": {"max_extra_requests": 9},
}


def _config(changes: dict):
    from invent_core.config import RunConfig

    cfg = RunConfig()
    g = replace(cfg.paraphrase.gate, **changes)
    return cfg.replace(paraphrase=replace(cfg.paraphrase, gate=g))


def _summary(name: str, rows: list[tuple]) -> float:
    """Print one gate's means; return its seconds per question."""
    mean = statistics.mean(r[0] for r in rows)
    per_sample = {
        s: statistics.median(r[2] for r in rows if r[4] == s)
        for s in dict.fromkeys(r[4] for r in rows)
    }
    print(
        f"{name:12s} {mean:5.1f} s/question, "
        f"{statistics.mean(r[1] for r in rows):4.1f} requests, "
        f"median distinct {statistics.median(r[2] for r in rows):.1f} of 9, "
        f"load {min(r[3] for r in rows):.1f}–{max(r[3] for r in rows):.1f}"
    )
    print(
        "             median distinct per sample: "
        + ", ".join(f"{s} {m:g}" for s, m in per_sample.items())
    )
    return mean


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per", type=int, default=3, help="questions per shipped sample")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--question-seconds", type=float, default=14.6)
    ap.add_argument("--against", choices=sorted(EARLIER), default="paper_delta")
    args = ap.parse_args()
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("benchmarks/bench_gate.py"))
    from invent_core import env  # noqa: F401  (offline before any model import)
    from invent_core.embedders import get_embedder
    from invent_core.llm import get_llm
    from invent_core.perturb import get_perturber
    from invent_core.questions.datasets import load_dataset

    print(f"bench_gate: {time.strftime('%Y-%m-%d %H:%M')}, load {os.getloadavg()[0]:.2f}")
    gates = ("default", args.against)
    configs = {"default": _config({}), args.against: _config(EARLIER[args.against])}
    llm = get_llm("local", cache=False)
    embedder = get_embedder(configs["default"].embedder)
    perturber = get_perturber("paraphrase")
    # untimed: starts the server and loads the embedder, which the first timed question paid
    perturber.perturb("What is 2 plus 2?", configs["default"], llm=llm, embedder=embedder)
    got: dict[str, list[tuple[float, int, int, float, str]]] = {g: [] for g in gates}
    i = 0
    for name in SAMPLES:
        for ex in load_dataset(name, limit=args.per, seed=args.seed):
            order = gates if i % 2 == 0 else gates[::-1]
            i += 1
            for gate in order:
                load, t0 = os.getloadavg()[0], time.perf_counter()
                res = perturber.perturb(ex.question, configs[gate], llm=llm, embedder=embedder)
                secs = time.perf_counter() - t0
                a = res.acceptance
                got[gate].append((secs, a.get("requests", 0), a.get("distinct", 0), load, name))
                print(
                    f"  {name:10s} {gate:11s} {secs:5.1f} s, {a.get('requests')} requests, "
                    f"{a.get('distinct')}/{a.get('states')} distinct (load {load:.1f})",
                    flush=True,
                )
    print(f"{i} questions, n = 9, no cache (a warm-up question first, untimed)")
    means = {gate: _summary(gate, got[gate]) for gate in gates}
    extra = means["default"] - means[args.against]
    requests = [statistics.mean(r[1] for r in got[g]) for g in gates]
    print(
        f"default / {args.against}, perturbation stage: "
        f"{means['default'] / means[args.against]:.2f}x; {extra:+.1f} s = "
        f"{100 * extra / args.question_seconds:+.0f} % of a {args.question_seconds:g} s question "
        f"(target: at most +30 %); paraphrase requests {requests[0] - requests[1]:+.1f} per question"
    )
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
