"""A fully cached re-run of ``run``: with and without the embedding store.

Every LLM answer of the question comes from the LLM cache in both cases:
- "embedder loaded": ``embeddings.sqlite`` removed before the run, so the run
  imports sentence-transformers + torch and loads MiniLM (what every cached
  re-run did before the store existed; it also refills the store);
- "from the store": the same command again, every vector read from the store.

The runs take place in a scratch cache folder that shares the source cache's
assembled model files (symlink) and a copy of its LLM cache; the source cache
is only read. The first run fills the LLM cache if the question was never
asked (minutes with the packaged model). Wall times of whole processes; the
load average is printed beside each.

Run: python benchmarks/bench_cached_run.py ["question"] [--repeat 3]

Measured on the development machine (2 shared cores, 2026-11-25):

    1. embedder loaded:   22.09 s  load 8.77  (perturb 16.2s: the gate's first encode loads MiniLM)
    1. from the store:     5.49 s  load 9.12
    2. embedder loaded:   26.29 s  load 9.81
    2. from the store:     5.22 s  load 9.99
    3. embedder loaded:   27.55 s  load 9.80
    3. from the store:     5.21 s  load 9.66
    median over 3: embedder loaded 26.29 s, from the store 5.22 s; ratio 5.0×

What is left (5.2 s at load ~9.7, 1.6 s of CPU) is importing numpy, scipy,
scikit-learn and the CLI; no torch.
"""

from __future__ import annotations

import argparse
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "What is 17 plus 25?"


def source_cache() -> Path:
    return Path(os.environ.get("INVENT_CACHE") or Path.home() / ".cache" / "invent")


def scratch_cache(src: Path, dest: Path) -> None:
    """Models and WordNet by symlink, the LLM cache by SQLite backup (consistent copy)."""
    for name in ("models", "nltk_data"):
        if (src / name).exists():
            (dest / name).symlink_to(src / name)
    if (src / "llm_cache.sqlite").exists():
        with (
            sqlite3.connect(src / "llm_cache.sqlite") as a,
            sqlite3.connect(dest / "llm_cache.sqlite") as b,
        ):
            a.backup(b)


def run_once(question: str, cache: Path) -> tuple[float, str]:
    env = {**os.environ, "INVENT_CACHE": str(cache), "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "invent_core", "run", question],
        env=env,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        sys.exit(f"run failed: {proc.stderr[-2000:]}")
    timing = next((ln for ln in proc.stdout.splitlines() if ln.startswith("time:")), "")
    return seconds, timing


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("question", nargs="?", default=QUESTION)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # invent_core, for the header
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("benchmarks/bench_cached_run.py"))
    print(f"cores: {os.cpu_count()}, {load()} at start; question: {args.question!r}")
    with tempfile.TemporaryDirectory(prefix="invent-bench-") as tmp:
        cache = Path(tmp)
        scratch_cache(source_cache(), cache)
        seconds, timing = run_once(args.question, cache)
        print(f"warm-up (fills the LLM cache if needed): {seconds:6.1f} s  {load()}  {timing}")
        loaded, stored = [], []
        for i in range(args.repeat):
            for f in cache.glob("embeddings.sqlite*"):
                f.unlink()
            seconds, timing = run_once(args.question, cache)
            loaded.append(seconds)
            print(f"{i + 1}. embedder loaded:  {seconds:6.2f} s  {load()}  {timing}")
            m = re.search(r"(\d+) answers \((\d+) from cache\)", timing)
            if not m or m.group(1) != m.group(2):
                print("   warning: not every answer came from the LLM cache")
            seconds, timing = run_once(args.question, cache)
            stored.append(seconds)
            print(f"{i + 1}. from the store:   {seconds:6.2f} s  {load()}  {timing}")
    a, b = statistics.median(loaded), statistics.median(stored)
    print(
        f"median over {args.repeat}: embedder loaded {a:.2f} s, from the store {b:.2f} s; "
        f"ratio {a / b:.1f}×  ({load()} at the end)"
    )


if __name__ == "__main__":
    main()
