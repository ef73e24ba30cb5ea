"""Questions in flight with the packaged local model: does ``evaluate`` gain from overlapping questions?

Against a served model, ``evaluate`` / ``tsu`` / ``batch`` keep several
questions in flight (:mod:`invent_core.engine.inflight`, measured by
``bench_scaleout.py``). With the packaged llama.cpp server on 2 cores, one
question already fills the 16 slots for most of its time; this benchmark
measures whether more questions in flight help there, and decides the
``LocalLLM.units_in_flight`` default.

One local server, no LLM cache (every request decoded), the same
``--questions`` questions of ``--dataset`` evaluated with n = 9, r = 5 (the
paper's defaults) at each width of ``--widths``, one after another, in a
fresh folder each time. Printed: wall time, seconds per question, failed
questions (a request past the local timeout fails its question), with the
load average beside each figure.

    python benchmarks/bench_inflight.py [--dataset arithmetic] [--questions 6] [--widths 1 4]

Measured (2 cores, shared, Qwen2.5-Coder-0.5B Q4_K_M, 16 slots; 2026-11-23):

     width   wall s  s/question  failed  load
         1     59.9        10.0       0  load 1.51
         4     57.3         9.5       0  load 1.65

Four questions in flight gain 4 %, within the noise of a shared machine: the
cores are already saturated by one question. ``LocalLLM.units_in_flight`` is
therefore 1 (the pipeline's own stage progress stays visible, and no request
waits in the server's queue near its 120 s timeout).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _evaluate(llm, dataset: str, questions: int, seed: int, folder: Path) -> tuple[float, int]:
    from invent_core.experiments import ExperimentConfig, evaluate

    cfg = ExperimentConfig(dataset=dataset, limit=questions, sample_seed=seed, methods=("inv",))
    t0 = time.perf_counter()
    result = evaluate(cfg, folder, llm_factory=lambda: llm)
    return time.perf_counter() - t0, len(result.failed)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dataset", default="arithmetic")
    ap.add_argument("--questions", type=int, default=6)
    ap.add_argument("--sample-seed", type=int, default=7, help="a draw no shipped run used")
    ap.add_argument("--widths", type=int, nargs="+", default=[1, 4])
    args = ap.parse_args()
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("benchmarks/bench_inflight.py"))

    from invent_core.embedders import get_embedder
    from invent_core.llm import get_llm

    get_embedder("minilm").load()
    llm = get_llm("local", cache=None)
    llm.complete([{"role": "user", "content": "Say OK."}], max_tokens=2)  # server up, warm
    folder = Path(tempfile.mkdtemp(prefix="bench_inflight_"))
    print(f"cores: {os.cpu_count()}, load average at start: {os.getloadavg()}")
    print(f"{args.questions} {args.dataset} questions (sample seed {args.sample_seed}), n=9, r=5")
    print(f"{'width':>6} {'wall s':>8} {'s/question':>11} {'failed':>7}  load")
    for width in args.widths:
        llm.units_in_flight = width
        wall, failed = _evaluate(
            llm, args.dataset, args.questions, args.sample_seed, folder / f"w{width}"
        )
        print(
            f"{width:>6} {wall:>8.1f} {wall / args.questions:>11.1f} {failed:>7}  "
            f"load {os.getloadavg()[0]:.2f}",
            flush=True,
        )
    llm.close()


if __name__ == "__main__":
    main()
