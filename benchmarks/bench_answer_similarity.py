"""What the default ψ_y and padding cost per question: scoring time, one run of each, one process.

    python benchmarks/bench_answer_similarity.py [--runs docs/results/evaluate-mmlu-100/runs]

Re-scores saved runs (no LLM call) under the defaults (``rules`` + ``distinct``) and
under the paper's ways (``embedding`` + ``paper``), alternating per run so load
drifts hit both alike, with the embedder's vectors already in its store (as on a
question's second look; the first embedding is the same for both). Prints the
mean scoring time per question of each, their ratio, and the added time as a
share of a question's wall time on the default path (``--question-seconds``, the
14.6 s ``bench_llm.py`` measured for Explore's default run), with the load average.
The LLM's part of a question is the same under both: neither asks it anything.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=Path, default=ROOT / "docs/results/evaluate-mmlu-100/runs")
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--question-seconds", type=float, default=14.6)
    args = parser.parse_args()
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("benchmarks/bench_answer_similarity.py"))
    from invent_core import env  # noqa: F401
    from invent_core.engine.artifact import RunArtifact

    runs = [RunArtifact.load(p) for p in sorted(args.runs.glob("*.json"))[: args.limit]]
    for run in runs:  # warm the embedder and its store once
        run.rescore(answer_similarity="embedding", padding="paper")
    spent = {"rules+distinct": 0.0, "embedding+paper": 0.0}
    for run in runs:
        for label in spent:
            sim, pad = label.split("+")
            t0 = time.perf_counter()
            run.rescore(answer_similarity=sim, padding=pad)
            spent[label] += time.perf_counter() - t0
    new, old = (spent[k] / len(runs) for k in ("rules+distinct", "embedding+paper"))
    print(f"{len(runs)} saved runs of {args.runs}; load {os.getloadavg()[0]:.2f}")
    print(f"scoring per question: defaults {new * 1000:.0f} ms, the paper's ways {old * 1000:.0f} ms "
          f"(ratio {new / old:.2f})")  # fmt: skip
    share = (new - old) / args.question_seconds
    print(f"added to a {args.question_seconds:g} s question: {share:+.1%} (target ≤ +30 %)")


if __name__ == "__main__":
    main()
