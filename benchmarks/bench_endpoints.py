"""Several endpoints and adaptive concurrency: `batch` against loopback servers with a capacity.

Every server is :mod:`loopback_server` in a process of its own on 127.0.0.1,
answering after ``--delay`` seconds. ``--questions`` TriviaQA questions (n = 9,
r = 5, no LLM cache) are scored by ``batch`` three ways:

1. **two endpoints vs one**, each serving ``--slots`` requests at once and
   queueing the rest (a GPU server's batch), the client at 4 × slots in flight
   (a load that saturates one): rows/s of two over one (target ≥ 1.8×);
2. **one endpoint killed** (SIGKILL) once a third of the requests were served:
   every row scored exactly once, none failed;
3. **adaptive vs fixed** against one endpoint that answers 429 (``Retry-After:
   1``) above ``--limit`` in flight: ``auto`` against fixed ½, 1 and 2 × the
   limit (targets: ≥ 0.9× the best fixed with no failed row, ≥ 2× the fixed
   setting twice too high).

    python benchmarks/bench_endpoints.py [--questions 12] [--delay 0.25] [--slots 4] [--limit 16]

Prints one line per run and the ratios, with the load average; measured
printouts are in ``docs/bench_endpoints_*.txt``.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import tempfile
import threading
import time
from collections import Counter
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_scaleout import question_file  # noqa: E402
from loopback_server import LoopbackProcess  # noqa: E402


def _batch(inp: Path, out: Path, base_urls: list[str], concurrency, embedder) -> tuple[float, int]:
    """(wall s, rows failed) of one ``batch`` run through ``base_urls``."""
    from invent_core.batch import batch_score
    from invent_core.config import RunConfig
    from invent_core.llm import get_llm

    llm = get_llm("openai", base_url=base_urls, model="loopback", cache=None,
                  concurrency=concurrency)  # fmt: skip
    t0 = time.perf_counter()
    summary = batch_score(inp, out, RunConfig(), llm=llm, embedder=embedder, methods="inv")
    wall = time.perf_counter() - t0
    llm.close()
    return wall, summary.n_failed


def _rows(out: Path) -> Counter:
    with open(out, newline="", encoding="utf-8") as fh:
        return Counter(row["id"] for row in csv.DictReader(fh))


def _line(label: str, n: int, wall: float, failed: int, served: int, extra: str = "") -> float:
    rate = (n - failed) / wall
    print(
        f"{label:<34} {n - failed:>4}/{n:<4} {failed:>6} {wall:>7.1f} {rate:>7.2f} {served:>8}"
        f" {served / wall:>7.1f}  {os.getloadavg()[0]:.2f} {extra}",
        flush=True,
    )
    return rate


def _two_vs_one(args, inp: Path, folder: Path, emb) -> float:
    rates = []
    load = 4 * args.slots  # saturates one endpoint (and two): the client is never the gap
    for n_endpoints in (1, 2):
        with ExitStack() as stack:
            srvs = [stack.enter_context(LoopbackProcess(args.delay, slots=args.slots))
                    for _ in range(n_endpoints)]  # fmt: skip
            urls = [s.base_url for s in srvs]
            wall, failed = _batch(inp, folder / f"ep{n_endpoints}.csv", urls, load, emb)
            served = sum(s.requests for s in srvs)
            label = f"{n_endpoints} endpoint(s) x {args.slots} slots, c={load}"
            rates.append(_line(label, args.questions, wall, failed, served))
    return rates[1] / rates[0]


def _one_killed(args, inp: Path, folder: Path, emb) -> bool:
    out = folder / "killed.csv"
    with (
        LoopbackProcess(args.delay, slots=args.slots) as a,
        LoopbackProcess(args.delay, slots=args.slots) as b,
    ):
        third = args.questions * 50 // 3 // 2  # A's share of a third of the requests

        def kill() -> None:
            while a.requests < third:
                time.sleep(0.05)
            a.kill()

        killer = threading.Thread(target=kill, daemon=True)
        killer.start()
        wall, failed = _batch(inp, out, [a.base_url, b.base_url], 4 * args.slots, emb)
        killer.join(timeout=1)
        rows = _rows(out)
        once = len(rows) == args.questions and set(rows.values()) == {1} and failed == 0
        note = f"A killed after {third} of its requests; every row once: {once}"
        _line("2 endpoints, one killed mid-batch", args.questions, wall, failed, b.requests, note)
    return once


def _adaptive(args, inp: Path, folder: Path, emb) -> tuple[float, float]:
    settings = [args.limit // 2, args.limit, 2 * args.limit, "auto:64"]
    rates: dict[str, float] = {}
    for c in settings:
        with LoopbackProcess(args.delay, limit=args.limit, retry_after=1) as srv:
            wall, failed = _batch(
                inp, folder / f"c{c}.csv".replace(":", "_"), [srv.base_url], c, emb
            )
            label = f"429 above {args.limit}, concurrency {c}"
            extra = f"429s: {srv.throttled}"
            rates[str(c)] = _line(label, args.questions, wall, failed, srv.requests, extra)
    best = max(rates[str(c)] for c in settings[:3])
    return rates["auto:64"] / best, rates["auto:64"] / rates[str(2 * args.limit)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--questions", type=int, default=12)
    ap.add_argument("--delay", type=float, default=0.25)
    ap.add_argument("--slots", type=int, default=4)
    ap.add_argument("--limit", type=int, default=16)
    args = ap.parse_args()
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("benchmarks/bench_endpoints.py"))
    from invent_core.embedders import get_embedder

    emb = get_embedder("minilm")
    emb.load()
    folder = Path(tempfile.mkdtemp(prefix="bench_endpoints_"))
    inp = question_file(args.questions, folder)
    print(f"cores: {os.cpu_count()}, load average at start: {os.getloadavg()}")
    print(f"{args.questions} TriviaQA questions, n=9, r=5, server delay {args.delay:g} s, no cache")
    with LoopbackProcess(0.0) as warm:  # the embedder's first texts: not in any timed run
        _batch(inp, folder / "warmup.csv", [warm.base_url], 16, emb)
    print(f"{'run':<34} {'rows ok':>9} {'failed':>6} {'wall s':>7} {'rows/s':>7} {'requests':>8}"
          f" {'req/s':>7}  load")  # fmt: skip
    two = _two_vs_one(args, inp, folder, emb)
    once = _one_killed(args, inp, folder, emb)
    vs_best, vs_high = _adaptive(args, inp, folder, emb)
    print(f"two endpoints / one: {two:.2f}x (target >= 1.8)")
    print(f"one endpoint killed: every row scored once and none failed: {once}")
    print(f"auto / best fixed: {vs_best:.2f}x (target >= 0.9)")
    print(f"auto / fixed {2 * args.limit} (twice too high): {vs_high:.2f}x (target >= 2)")
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
