"""Regenerate the Evaluation page's demo: a small real evaluation on a dataset sample.

    cp -r docs/results/evaluate-arithmetic-100 /tmp/work   # evaluate rewrites its summary files
    python scripts/make_demo_eval.py --limit 100 --work /tmp/work
    python scripts/make_demo_eval.py --limit 20 --dataset mmlu --llm qwen1.5b

Runs ``invent_core.experiments.evaluate`` (every registered method on the same
runs, correctness by the dataset's matching rule) with the local default LLM
and the default run settings (paraphrase, n = 9, r = 5), then writes the
per-question payload the page reads (:func:`invent_ui.data.experiments.eval_payload`).
The default is the arithmetic testbed, the shipped sample where the packaged
0.5B is right about as often as wrong (62 % of 50; MMLU 30 %, the knowledge
sets 2–6 %: ``docs/accuracy_qwen0.5b.json``). Pointing ``--work`` at a saved
evaluation of the same questions and settings (the one the results report is
made from) makes no LLM call; otherwise the runs are made and kept there.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    # MMLU: the small local model answers a useful share of its questions correctly (on
    # TriviaQA it gets almost none right, and AUROC needs both kinds of answers)
    parser.add_argument("--dataset", default="arithmetic")
    parser.add_argument("--limit", type=int, default=30)
    parser.add_argument("--perturber", choices=("gaap", "paraphrase"), default="paraphrase")
    parser.add_argument("-n", "--n-perturbations", type=int, default=9)
    parser.add_argument("-r", "--n-replications", type=int, default=5)
    parser.add_argument("--llm", default="local")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", type=Path, default=None, help="evaluation folder")
    parser.add_argument("--out", type=Path, default=ROOT / "assets" / "demo_eval.json")
    args = parser.parse_args(argv)
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("scripts/make_demo_eval.py"))

    from invent_core.config import RunConfig
    from invent_core.experiments import ExperimentConfig, evaluate
    from invent_core.llm import get_llm
    from invent_ui.data.experiments import eval_payload

    run = RunConfig(
        perturber=args.perturber,
        n_perturbations=args.n_perturbations,
        n_replications=args.n_replications,
    ).replace(seed=args.seed)
    cfg = ExperimentConfig(run=run, dataset=args.dataset, limit=args.limit)
    t0 = time.perf_counter()
    folder = args.work or (
        ROOT / ".cache" / "demo_eval" / f"{args.dataset}_{args.perturber}"
        f"_n{args.n_perturbations}_r{args.n_replications}"
    )
    result = evaluate(
        cfg,
        folder,
        llm_factory=lambda: get_llm(args.llm),
        progress=lambda ev: print(f"{ev.done}/{ev.total} {ev.note[:70]}", flush=True),
    )
    payload = eval_payload(result, cfg, out=folder)
    args.out.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    acc = sum(r["correct"] for r in payload["rows"]) / len(payload["rows"])
    print(
        f"{len(payload['rows'])} questions, accuracy {acc:.0%}, {time.perf_counter() - t0:.0f} s; wrote {args.out}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
