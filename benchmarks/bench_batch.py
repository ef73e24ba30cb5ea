"""Batch scoring throughput and memory: pre-generated responses, MiniLM, 2 CPU threads.

Each file size runs in a fresh subprocess: load MiniLM and score 20 warm-up
rows, then score the file while a thread samples the process RSS every
20 ms. Printed: questions per second and the peak RSS above the warmed-up
baseline, which should stay flat as the file grows (the input is streamed,
the output appended, and the embedding cache bounded).

Usage: python benchmarks/bench_batch.py [--sizes 100 1000 10000] [-n 3] [-r 3] [-B 10]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

WORDS = (
    "red blue green river mountain city island north south old new great little king queen "
    "paris london rome berlin tokyo nile amazon everest mars venus copper iron gold silver "
    "oak pine whale eagle lion tiger 1066 1492 1815 1969 shakespeare newton darwin curie"
).split()


def make_file(path: Path, n_rows: int, n: int, r: int, seed: int = 0) -> None:
    """Wide-layout JSON Lines with short varied answers.

    Questions and perturbations are unique per row; answers (1–3 words) come
    from a pool of 400, as short QA answers ("Paris") repeat across questions.
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    pool = [" ".join(rng.choice(WORDS, size=int(rng.integers(1, 4)))) for _ in range(400)]
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n_rows):
            q = f"Question {i}: which {rng.choice(WORDS)} is linked to {rng.choice(WORDS)}?"
            perts = [
                f"Variant {k} of question {i}: what {rng.choice(WORDS)} relates to it?"
                for k in range(n)
            ]
            reps = [[str(rng.choice(pool)) for _ in range(r)] for _ in range(n + 1)]
            row = {
                "id": f"q{i}",
                "question": q,
                "answer": reps[0][0],
                "perturbations": perts,
                "responses": reps,
            }
            f.write(json.dumps(row) + "\n")


CHILD = r"""
import json, sys, threading, time
import psutil, torch
torch.set_num_threads(2)
from invent_core.batch import batch_score
from invent_core.config import RunConfig
warm, inp, out, B = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
config = RunConfig().replace(n_bootstrap=B)
batch_score(warm, out + ".warm.jsonl", config)   # load MiniLM, warm caches
proc = psutil.Process()
base = proc.memory_info().rss
peak = [base]
stop = threading.Event()
def sample():
    while not stop.is_set():
        peak[0] = max(peak[0], proc.memory_info().rss)
        time.sleep(0.02)
t = threading.Thread(target=sample, daemon=True); t.start()
t0 = time.perf_counter()
s = batch_score(inp, out, config)
dt = time.perf_counter() - t0
stop.set(); t.join()
print(json.dumps({"rows": s.n_scored, "seconds": dt, "qps": s.n_scored / dt,
                  "rss_base_mb": base / 2**20, "rss_peak_delta_mb": (peak[0] - base) / 2**20}))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10000])
    ap.add_argument("-n", type=int, default=3, help="perturbations per question")
    ap.add_argument("-r", type=int, default=3, help="replications")
    ap.add_argument("-B", type=int, default=10, help="bootstrap resamples")
    args = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # invent_core, for the header
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("benchmarks/bench_batch.py"))
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="2", MKL_NUM_THREADS="2")
    print(
        f"batch_score on pre-generated responses (wide JSON Lines), MiniLM, 2 threads; "
        f"n={args.n}, r={args.r}, B={args.B}, {os.cpu_count()} CPUs visible"
    )
    print(f"{'rows':>7} {'seconds':>8} {'q/s':>7} {'RSS base MB':>12} {'peak ΔRSS MB':>13}")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        make_file(tmp / "warm.jsonl", 20, args.n, args.r, seed=99)
        for size in args.sizes:
            inp = tmp / f"in{size}.jsonl"
            make_file(inp, size, args.n, args.r)
            out = tmp / f"out{size}.csv"
            t0 = time.perf_counter()
            res = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    CHILD,
                    str(tmp / "warm.jsonl"),
                    str(inp),
                    str(out),
                    str(args.B),
                ],
                env=env,
                capture_output=True,
                text=True,
            )
            if res.returncode != 0:
                sys.exit(f"size {size} failed:\n{res.stderr[-3000:]}")
            row = json.loads(res.stdout.strip().splitlines()[-1])
            row["wall_with_startup"] = time.perf_counter() - t0
            results.append((size, row))
            print(
                f"{size:>7} {row['seconds']:>8.1f} {row['qps']:>7.1f} {row['rss_base_mb']:>12.0f} "
                f"{row['rss_peak_delta_mb']:>13.1f}",
                flush=True,
            )
    if len(results) > 1:
        (s0, a), (s1, b) = results[0], results[-1]
        print(
            f"rows ×{s1 / s0:.0f}: q/s ratio {b['qps'] / a['qps']:.2f}, "
            f"peak ΔRSS {a['rss_peak_delta_mb']:.1f} → {b['rss_peak_delta_mb']:.1f} MB"
        )
    qps = min(r["qps"] for _, r in results)
    print(f"target ≥ 5 q/s: {'met' if qps >= 5 else 'NOT met'} (slowest {qps:.1f} q/s)")


if __name__ == "__main__":
    main()
