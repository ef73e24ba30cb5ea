"""GAAP speed: time per question at default settings with MiniLM.

Prints
- one-time loading, each part separately: MiniLM weights, WordNet (copy +
  index), KeyBERT (import + first call);
- per question (distinct TriviaQA questions, fresh texts for the embedder's
  cache): seconds, generations, distinct texts embedded, embedding requests
  the cache answered (``embedding_calls_saved``); target ≤ 5 s on 2 cores;
- a load-independent ratio: GAAP time / time to embed 50 fresh short
  sentences, measured in the same run (other processes on a shared machine
  slow both alike), and the process CPU time per question.

Run: python benchmarks/bench_gaap.py [--questions 5] [--threads 2]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FALLBACK = [
    "Which golfer became only the fifth in history to get both the British and US Open "
    "championships in the same year, in 1982?",
    "Who was the first woman to fly solo across the Atlantic Ocean?",
    "Which planet in our solar system has the most moons?",
]


def questions(k: int) -> list[str]:
    path = ROOT / "assets" / "datasets" / "triviaqa_sample300.jsonl"
    qs = list(FALLBACK)
    if path.is_file():
        with open(path, encoding="utf-8") as fh:
            qs += [json.loads(line)["question"] for line in fh if line.strip()]
    return qs[:k]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2, help="torch CPU threads")
    args = ap.parse_args()
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("benchmarks/bench_gaap.py"))

    import torch

    torch.set_num_threads(args.threads)
    from invent_core.embedders import get_embedder
    from invent_core.perturb.gaap import GaapConfig, gaap
    from invent_core.perturb.keywords import key_tokens
    from invent_core.text.wordnet import load_wordnet

    print(
        f"device {get_embedder('minilm').device}, torch threads {torch.get_num_threads()}, "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    t0 = time.perf_counter()
    emb = get_embedder("minilm")
    emb.load()
    t_model = time.perf_counter() - t0
    t0 = time.perf_counter()
    load_wordnet()
    t_wn = time.perf_counter() - t0
    t0 = time.perf_counter()
    key_tokens("A warm-up sentence about keyword extraction.", 0.2, embedder=emb)
    t_kb = time.perf_counter() - t0
    print(f"load: MiniLM {t_model:.2f} s, WordNet {t_wn:.2f} s, KeyBERT {t_kb:.2f} s")

    rng = np.random.default_rng(0)
    vocab = "alpha beta gamma delta river stone music light paper city garden window".split()
    fresh = [" ".join(rng.choice(vocab, size=12)) + f" {i}?" for i in range(50)]
    t0 = time.perf_counter()
    emb.encode(fresh)
    t_ref = time.perf_counter() - t0
    print(f"reference: embedding 50 fresh sentences {t_ref:.3f} s")

    cfg = GaapConfig()
    print(f"defaults: {cfg}")
    rows = []
    for q in questions(args.questions):
        c0 = time.process_time()
        res = gaap(q, seed=0, config=cfg)
        cpu = time.process_time() - c0
        tr = res.trace
        rows.append(
            (
                res.seconds,
                tr.embedding_encoded,
                tr.embedding_requested,
                res.embedding_calls_saved,
                cpu,
            )
        )
        print(
            f"{res.seconds:6.2f} s wall {cpu:5.2f} s CPU  gens {len(tr.generations) - 1}  pop0 {len(tr.generations[0].members):3d}"
            f"  embedded {tr.embedding_encoded:4d}/{tr.embedding_requested:4d} requested"
            f"  saved {res.embedding_calls_saved:4d}  stop {tr.stop_reason:15s} {q[:60]}"
        )
    secs = np.array([r[0] for r in rows])
    enc = np.array([r[1] for r in rows])
    saved = np.array([r[3] for r in rows])
    req = np.array([r[2] for r in rows])
    cpu = np.array([r[4] for r in rows])
    print(
        f"per question: median {np.median(secs):.2f} s, max {secs.max():.2f} s (target ≤ 5 s); "
        f"{np.median(secs) / t_ref:.1f}× the 50-sentence reference"
    )
    print(
        f"CPU time per question (all threads): median {np.median(cpu):.2f} s, max {cpu.max():.2f} s"
        f" — on {args.threads} idle cores wall ≈ CPU / {args.threads}"
    )
    print(
        f"embedding requests answered by the cache: {saved.sum()} of {req.sum()} "
        f"({saved.sum() / max(req.sum(), 1):.0%}); texts embedded per question median {np.median(enc):.0f}"
    )
    t0 = time.perf_counter()
    again = gaap(questions(1)[0], seed=0, config=cfg)
    print(
        f"same question again (everything cached): {time.perf_counter() - t0:.2f} s, "
        f"saved {again.embedding_calls_saved} of {again.trace.embedding_requested}"
    )


if __name__ == "__main__":
    main()
