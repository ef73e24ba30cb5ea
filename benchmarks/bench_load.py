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

``--compare`` runs each question twice, in turn (the order alternates):
overlapped (the default engine: a rewording's answers start as the gate keeps
it) and sequential (``run_question(overlap=False)``: perturb, then answer,
then score), without an LLM cache, after a small warm-up question; each line
has the question's critical path (:func:`invent_core.engine.answers.critical_path`):
perturb + the answers still waited for + score, and how many answers were
in before the last perturbation was known. The cold start (the llama.cpp server, MiniLM) comes
first; last, a question against a port nothing listens on shows how soon a
dead server fails and what it says.

    python benchmarks/bench_load.py --compare --questions 4 --burners 0 --min-load 0

The second run of a question finds its prompts still in llama.cpp's slots and
was the faster in 8 of 10 pairs measured (2026-11-29), whichever way it ran:
the order alternates, so take an even number of questions.

The packaged llama.cpp does not give the same sampled answers to the same
seeded requests twice (two sequential runs differ too: its batches), so
"same answers: no" there says nothing about the order; that the overlap
changes no request is tested against a deterministic server
(``tests/engine/test_answers.py``).

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
from typing import Any

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


def cold_start(args: argparse.Namespace) -> tuple[Any, Any]:
    """Start the packaged model's server and load the embedder, each timed with the load beside it."""
    from invent_core.embedders import get_embedder
    from invent_core.llm import get_llm

    cache = None if args.compare else Path(tempfile.mkdtemp(prefix="bench_load_")) / "cache.sqlite"
    llm = get_llm("local", cache=cache, stall_timeout=args.stall_timeout)
    t0 = time.perf_counter()
    llm.server.start()
    t1 = time.perf_counter()
    embedder = get_embedder("minilm")
    embedder.encode([f"cold start at {time.time()}"])  # a text no store holds: MiniLM loads
    t2 = time.perf_counter()
    print(
        f"cold start: llama.cpp server {t1 - t0:.1f} s, MiniLM loaded and first encode "
        f"{t2 - t1:.1f} s ({load()})",
        flush=True,
    )
    return llm, embedder


def answer(ex: Any, config: Any, llm: Any, embedder: Any, *, overlap: bool) -> tuple[Any, str]:
    """Run one question; (its artefact or None, the status: Inv-Entropy or the error, one line)."""
    from invent_core.engine.pipeline import run_question

    try:
        art = run_question(
            ex.question,
            config,
            llm=llm,
            task=ex.task,
            choices=list(ex.choices) if ex.choices else None,
            embedder=embedder,
            overlap=overlap,
        )
    except Exception as err:  # noqa: BLE001 - a failed question is a figure here
        return None, f"FAILED {type(err).__name__}: {str(err)[:160]}"
    return art, f"ok, Inv-Entropy {art.score.measures['inv_entropy']:.3f}"


def path_text(art: Any) -> str:
    """``; path perturb 80.1 + answers 30.2 + score 1.1 s, 31 of 50 answers in while perturbing, 64 LLM calls``."""
    from invent_core.engine.answers import critical_path

    if art is None:
        return ""
    p = critical_path(art.timings)
    return (
        f"; path perturb {p['perturb']:.1f} + answers {p['answer_wait']:.1f} + score "
        f"{p['score']:.1f} s, {art.usage.get('answers_while_perturbing', 0)} of "
        f"{art.usage['requests']} answers in while perturbing, {art.usage['llm_calls']} LLM calls"
    )


def run(args: argparse.Namespace) -> int:
    """Answer the questions under load (with ``--compare``, both ways in turn); the number failed."""
    from invent_core.config import RunConfig

    given = (("n_perturbations", args.n), ("n_replications", args.r))
    overrides = {k: v for k, v in given if v is not None}
    config = RunConfig(**overrides) if overrides else RunConfig()
    llm, embedder = cold_start(args)
    failed, walls = 0, {True: [], False: []}
    try:
        if args.compare:
            warm_up(config, llm, embedder)
        for i, ex in enumerate(questions(args.questions)):
            order = (
                (True,) if not args.compare else ((True, False) if i % 2 == 0 else (False, True))
            )
            arts = {}
            for overlap in order:
                before = load()
                t0 = time.perf_counter()
                arts[overlap], status = answer(ex, config, llm, embedder, overlap=overlap)
                wall = time.perf_counter() - t0
                failed += arts[overlap] is None
                walls[overlap].append(wall)
                stall = llm.runtime.get("stall_seconds_last")
                mode = ("overlapped " if overlap else "sequential ") if args.compare else ""
                print(
                    f"  q{i + 1:<2} {ex.dataset:<10} {mode}{wall:7.1f} s  {status}{path_text(arts[overlap])}  "
                    f"(stall interval {stall or 0:.0f} s; {before} before, {load()} after)",
                    flush=True,
                )
            if args.compare:
                print(f"      {same_text(arts)}; sequential / overlapped wall "
                      f"{walls[False][-1] / walls[True][-1]:.2f}x", flush=True)  # fmt: skip
    finally:
        llm.close()
    if args.compare and walls[True]:
        s, o = sum(walls[False]), sum(walls[True])
        print(f"sequential {s:.0f} s, overlapped {o:.0f} s in all: {s / o:.2f}x ({load()})")
    return failed


def warm_up(config: Any, llm: Any, embedder: Any) -> None:
    """A small first question (n = 2, r = 1), not compared: the one-time loads of a process.

    The first question of a process loads what the gate and the cleaner read
    once (word lists, WordNet's tables); whichever way ran first would pay it.
    """
    ex = questions(1)[0]
    small = config.replace(n_perturbations=2, n_replications=1)
    t0 = time.perf_counter()
    _, status = answer(ex, small, llm, embedder, overlap=True)
    print(
        f"warm-up (first question at n = 2, r = 1; not compared): "
        f"{time.perf_counter() - t0:.1f} s, {status} ({load()})",
        flush=True,
    )


def same_text(arts: dict[bool, Any]) -> str:
    """Whether both ways asked the same perturbations and got the same answers."""
    a, b = arts.get(True), arts.get(False)
    if a is None or b is None:
        return "not compared (a run failed)"
    same_p = a.perturbations == b.perturbations
    same_r = a.raw_responses == b.raw_responses
    yes = {True: "yes", False: "no"}
    # the requests (texts and seeds) are the same either way; llama.cpp's sampled answers
    # differ between two sequential runs too (its batches), so "no" says nothing of the order
    return f"same perturbations: {yes[same_p]}, same answers: {yes[same_r]}"


def dead_server() -> None:
    """A question against a port nothing listens on: how soon it fails, and what it says."""
    import socket

    from invent_core.config import RunConfig
    from invent_core.engine.pipeline import run_question
    from invent_core.llm import get_llm

    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    llm = get_llm("openai", base_url=f"http://127.0.0.1:{port}/v1", model="gone", cache=None)
    t0 = time.perf_counter()
    try:
        run_question("What is the capital of France?", RunConfig(), llm=llm)
        said = "it did NOT fail"
    except Exception as err:  # noqa: BLE001 - the message is the figure
        said = f"{type(err).__name__}: {str(err)[:200]}"
    finally:
        llm.close()
    print(f"dead server: failed after {time.perf_counter() - t0:.2f} s ({load()}): {said}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--questions", type=int, default=3)
    p.add_argument("--burners", type=int, default=8, help="CPU-spinning processes (0: none)")
    p.add_argument("--min-load", type=float, default=8.0)
    p.add_argument("--wait", type=float, default=90.0, help="most seconds to wait for the load")
    p.add_argument("-n", type=int, default=None, help="perturbations (default: RunConfig's)")
    p.add_argument("-r", type=int, default=None, help="replications (default: RunConfig's)")
    p.add_argument("--stall-timeout", type=float, default=None)
    p.add_argument(
        "--compare",
        action="store_true",
        help="each question overlapped and sequential in turn (no LLM cache): the critical path",
    )
    args = p.parse_args(argv)
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("benchmarks/bench_load.py"))
    print(f"bench_load: {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores ({load()})")
    burners = start_burners(args.burners)
    try:
        wait_for_load(args.min_load, args.wait)
        t0 = time.perf_counter()
        failed = run(args)
        runs = args.questions * (2 if args.compare else 1)
        print(
            f"{runs - failed} of {runs} question runs completed, {failed} failed, "
            f"in {time.perf_counter() - t0:.0f} s ({load()})"
        )
        dead_server()
    finally:
        stop_burners(burners)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
