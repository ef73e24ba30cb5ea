"""Loading WordNet: nltk's own reader against invent's (which skips a 3.0-onto-3.0 sense map).

Each load runs in a fresh process (what a ``run``, ``batch`` or GAAP process
pays once), the two alternating so that load on the machine falls on both:

- "nltk's reader": ``nltk.corpus.wordnet.ensure_loaded()`` over the same copy,
  which maps WordNet 3.0's senses onto itself (``map30``) while loading;
- "invent's reader": :func:`invent_core.text.wordnet.load_wordnet`.

Timed inside the process, after ``import nltk`` and the one-time copy, so the
figure is the load itself. The load average is printed beside each.

Run: python benchmarks/bench_wordnet.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SETUP = (
    "import time, nltk, invent_core\n"
    "from invent_core.text import wordnet as w\n"
    "w._copy_once()\n"
    "root = str(w.data_root())\n"
    "nltk.data.path.insert(0, root)\n"
)
LOADS = {
    "nltk's reader": (
        "from nltk.corpus import wordnet\n"
        "t = time.perf_counter(); wordnet.ensure_loaded(); wordnet.synsets('golfer')\n"
    ),
    "invent's reader": ("t = time.perf_counter(); w.load_wordnet().synsets('golfer')\n"),
}


def one_load(name: str) -> float:
    code = SETUP + LOADS[name] + "print(time.perf_counter() - t)\n"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # invent_core, for the header
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("benchmarks/bench_wordnet.py"))
    times: dict[str, list[float]] = {name: [] for name in LOADS}
    for k in range(1, args.repeat + 1):
        for name in LOADS:
            s = one_load(name)
            times[name].append(s)
            print(f"{k}. {name:16s} {s:6.2f} s  load {os.getloadavg()[0]:.2f}", flush=True)
    stock, ours = (statistics.median(times[name]) for name in LOADS)
    print(
        f"median over {args.repeat}: nltk's reader {stock:.2f} s, invent's {ours:.2f} s; "
        f"ratio {stock / ours:.2f}x (load {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores)"
    )


if __name__ == "__main__":
    main()
