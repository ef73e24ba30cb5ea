"""Scale-out to a served model: how full does `batch` keep a server's request pool?

Starts :mod:`loopback_server` in a process of its own on 127.0.0.1 (so that
its HTTP handling does not share the client's GIL; every request answered after
``--delay`` seconds, whatever the load, as a large cluster would), scores
``--questions`` TriviaQA questions with n = 9, r = 5 through the
OpenAI-compatible backend at several ``--concurrency`` values, with ``batch``
and with ``evaluate`` (both keep several questions in flight:
:mod:`invent_core.engine.inflight`), and prints requests/s against the ideal
``concurrency / delay``. The LLM cache is off so every request reaches the
server.

    python benchmarks/bench_scaleout.py [--questions 24] [--delay 0.5] \
        [--concurrency 1 8 32 64] [--engine batch evaluate]

Target: ≥ 70 % of the ideal request rate at --concurrency 64.

Measured (2 cores, shared; 2026-11-23; 24 TriviaQA questions, delay 0.5 s):

      engine concurrency  requests   wall s   req/s   ideal  share max in flight  load
       batch           8      1440     94.1    15.3    16.0    96%             8  0.55
       batch          32      1440     26.7    53.9    64.0    84%            32  0.55
       batch          64      1440     13.9   103.4   128.0    81%            64  0.73
    evaluate           8      1440     93.3    15.4    16.0    96%             8  0.48
    evaluate          32      1440     27.1    53.2    64.0    83%            32  0.45
    evaluate          64      1440     13.8   104.2   128.0    81%            64  0.43

Before the pipelining (one row at a time): 1.7, 6.4 and 13.5 requests/s at 1, 8
and 32. With four requests per row in flight and the server in the client's
process, the same machine gave 60-62 % at 64; two per row and a server process
of its own give 81 %. What is left at 64 is the start (every question's first
request is its paraphrase list, so the first 0.5 s carries 24 requests) and
the tail (the last rows' answers), both a larger share of a 14 s run.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from loopback_server import LoopbackProcess  # noqa: E402


def question_file(n: int, folder: Path) -> Path:
    from invent_core.questions.datasets import load_dataset

    path = folder / "questions.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "question", "answer"])  # batch ignores the answer; evaluate judges it
        for ex in load_dataset("triviaqa", limit=n):
            w.writerow([ex.id, ex.question, ex.answers[0]])
    return path


def _batch(inp: Path, folder: Path, llm) -> None:
    from invent_core.batch import batch_score
    from invent_core.config import RunConfig
    from invent_core.embedders import get_embedder

    out = folder / f"out_c{llm.concurrency}.csv"
    summary = batch_score(
        inp, out, RunConfig(), llm=llm, embedder=get_embedder("minilm"), methods="inv"
    )
    if not summary.ok:
        print(f"  warning: {summary.failed} rows failed", file=sys.stderr)


def _evaluate(inp: Path, folder: Path, llm) -> None:
    from invent_core.experiments import ExperimentConfig, evaluate

    cfg = ExperimentConfig(data=str(inp), methods=("inv",))
    result = evaluate(cfg, folder / f"eval_c{llm.concurrency}", llm_factory=lambda: llm)
    if result.failed:
        print(f"  warning: {len(result.failed)} questions failed", file=sys.stderr)


ENGINES = {"batch": _batch, "evaluate": _evaluate}


def _one(engine: str, inp: Path, folder: Path, concurrency: int, delay: float):
    """(wall s, requests served, most requests in flight at once) of one engine at one concurrency."""
    from invent_core.llm import get_llm

    with LoopbackProcess(delay=delay) as srv:
        llm = get_llm(
            "openai", base_url=srv.base_url, model="loopback", cache=None, concurrency=concurrency
        )
        t0 = time.perf_counter()
        ENGINES[engine](inp, folder, llm)
        wall = time.perf_counter() - t0
        llm.close()
        return wall, srv.requests, srv.max_in_flight


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--questions", type=int, default=24)
    ap.add_argument("--delay", type=float, default=0.5)
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32, 64])
    ap.add_argument("--engine", nargs="+", choices=sorted(ENGINES), default=["batch", "evaluate"])
    args = ap.parse_args()
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("benchmarks/bench_scaleout.py"))
    from invent_core.embedders import get_embedder

    get_embedder("minilm").load()
    folder = Path(tempfile.mkdtemp(prefix="bench_scaleout_"))
    inp = question_file(args.questions, folder)
    print(f"cores: {os.cpu_count()}, load average at start: {os.getloadavg()}")
    print(f"{args.questions} questions, n=9, r=5, server delay {args.delay:g} s")
    print(
        f"{'engine':>8} {'concurrency':>11} {'requests':>9} {'wall s':>8} {'req/s':>7} {'ideal':>7} "
        f"{'share':>6} {'max in flight':>13}  load"
    )
    for engine in args.engine:
        for c in args.concurrency:
            wall, n_req, peak = _one(engine, inp, folder, c, args.delay)
            rate, ideal = n_req / wall, c / args.delay
            print(
                f"{engine:>8} {c:>11} {n_req:>9} {wall:>8.1f} {rate:>7.1f} {ideal:>7.1f} "
                f"{rate / ideal:>6.0%} {peak:>13}  {os.getloadavg()[0]:.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
