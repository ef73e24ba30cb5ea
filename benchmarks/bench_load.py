"""Default questions on the packaged model while CPU burners keep the machine loaded.

What a shared, busy machine does to ``invent run``: N questions with the
default settings (``RunConfig()``, the packaged Qwen2.5-Coder-0.5B on the
embedded llama.cpp, a cold LLM cache of its own), answered one after the
other while ``--burners`` processes spin on the CPU so that the load average
stays at or above ``--min-load``. Printed per question, with the load average
beside every figure: the wall, whether it completed (or the error, one
line), and the stall interval its requests had (the default grows with the
load: ``invent_core.llm.stall``). Before the stall timeout a total of 120 s
per request failed three of twelve such questions at load 8–13; a question
now fails only when llama.cpp sends nothing for the whole interval.

    python benchmarks/bench_load.py                          # 3 questions, 8 burners, load >= 8
    python benchmarks/bench_load.py --questions 12 --burners 12
    python benchmarks/bench_load.py --questions 1 -n 2 -r 2  # a short smoke run

The burners are this script's own child processes, stopped (by their ids)
when it ends, however it ends.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

#: (dataset, how many of its first questions): the shipped samples, mixed tasks.
QUESTION_SET = (("triviaqa", 6), ("nq_open", 3), ("mmlu", 2), ("arithmetic", 1))


def load() -> str:
    """``load 8.42`` — the 1-minute load average, printed beside every figure."""
    return f"load {os.getloadavg()[0]:.2f}"


def questions(limit: int) -> list:
    """The first ``limit`` questions of the set."""
    from invent_core.questions.datasets import load_dataset

    return [ex for name, k in QUESTION_SET for ex in load_dataset(name, limit=k)][:limit]


def start_burners(k: int) -> list[subprocess.Popen]:
    """``k`` processes that keep a core busy each until they are killed."""
    code = "while True:\n    pass\n"
    return [subprocess.Popen([sys.executable, "-c", code]) for _ in range(k)]


def stop_burners(burners: list[subprocess.Popen]) -> None:
    """Kill the burners this script started (by their ids) and reap them."""
    for p in burners:
        p.kill()
    for p in burners:
        p.wait(timeout=30)


def wait_for_load(minimum: float, limit_s: float) -> None:
    """Wait until the 1-minute load average reaches ``minimum`` (at most ``limit_s`` seconds)."""
    t0 = time.monotonic()
    while os.getloadavg()[0] < minimum and time.monotonic() - t0 < limit_s:
        time.sleep(2)
    print(f"load after {time.monotonic() - t0:.0f} s of burning: {load()}", flush=True)


def run(args: argparse.Namespace) -> int:
    """Answer the questions under load; the number that failed."""
    from invent_core.config import RunConfig
    from invent_core.embedders import get_embedder
    from invent_core.engine.pipeline import run_question
    from invent_core.llm import get_llm

    cache = Path(tempfile.mkdtemp(prefix="bench_load_")) / "cache.sqlite"
    llm = get_llm("local", cache=cache, stall_timeout=args.stall_timeout)
    given = (("n_perturbations", args.n), ("n_replications", args.r))
    overrides = {k: v for k, v in given if v is not None}
    config = RunConfig(**overrides) if overrides else RunConfig()
    embedder = get_embedder("minilm")
    failed = 0
    try:
        for i, ex in enumerate(questions(args.questions)):
            before = load()
            t0 = time.perf_counter()
            try:
                art = run_question(
                    ex.question,
                    config,
                    llm=llm,
                    task=ex.task,
                    choices=list(ex.choices) if ex.choices else None,
                    embedder=embedder,
                )
                status = f"ok, Inv-Entropy {art.score.measures['inv_entropy']:.3f}"
            except Exception as err:  # noqa: BLE001 - a failed question is a figure here
                failed += 1
                status = f"FAILED {type(err).__name__}: {str(err)[:160]}"
            wall = time.perf_counter() - t0
            stall = llm.runtime.get("stall_seconds_last")
            print(
                f"  q{i + 1:<2} {ex.dataset:<10} {wall:7.1f} s  {status}  "
                f"(stall interval {stall or 0:.0f} s; {before} before, {load()} after)",
                flush=True,
            )
    finally:
        llm.close()
    return failed


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--questions", type=int, default=3)
    p.add_argument("--burners", type=int, default=8, help="CPU-spinning processes (0: none)")
    p.add_argument("--min-load", type=float, default=8.0)
    p.add_argument("--wait", type=float, default=90.0, help="most seconds to wait for the load")
    p.add_argument("-n", type=int, default=None, help="perturbations (default: RunConfig's)")
    p.add_argument("-r", type=int, default=None, help="replications (default: RunConfig's)")
    p.add_argument("--stall-timeout", type=float, default=None)
    args = p.parse_args(argv)
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("benchmarks/bench_load.py"))
    print(f"bench_load: {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores ({load()})")
    burners = start_burners(args.burners)
    try:
        wait_for_load(args.min_load, args.wait)
        t0 = time.perf_counter()
        failed = run(args)
        print(
            f"{args.questions - failed} of {args.questions} questions completed, {failed} failed, "
            f"in {time.perf_counter() - t0:.0f} s ({load()})"
        )
    finally:
        stop_burners(burners)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
