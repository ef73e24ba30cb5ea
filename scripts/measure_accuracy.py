"""How often does a local model answer the shipped samples right?

For each dataset, draws the same seeded sample of ``--limit`` questions,
asks the model each original question once (the answer prompt, temperature
and token budget of a run; the LLM cache on), turns the reply into its
canonical form and judges it with the dataset's rule. Prints accuracy per
dataset and writes ``--out`` (JSON) for the results report.

    python scripts/measure_accuracy.py --llm local qwen1.5b --limit 50 --out docs/accuracy.json

A dataset where accuracy lies between 25 % and 75 % is one where an
uncertainty method has something to predict.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def accuracy(llm_spec: str, dataset: str, *, limit: int, seed: int) -> dict:
    """Accuracy of one model on one dataset sample, with the per-question replies."""
    from invent_core.config import RunConfig
    from invent_core.engine.pipeline import ANSWER_STOP
    from invent_core.evaluation.correctness import judge_correct
    from invent_core.llm import Request, get_llm, user
    from invent_core.prompts import answer_prompt
    from invent_core.questions.datasets import load_dataset
    from invent_core.responses.canonical import canonical_answer
    from invent_core.responses.cleaning import clean_response

    cfg = RunConfig()
    llm = get_llm(llm_spec, timeout=600.0)  # a loaded 2-core machine is slow, not broken
    examples = load_dataset(dataset, limit=limit, seed=seed)
    requests = [
        Request(
            messages=user(answer_prompt(ex.question, ex.task, ex.choices or None)),
            temperature=cfg.temperature,
            seed=cfg.seed,
            max_tokens=cfg.answer_tokens(ex.task),  # what a run allows this task
            stop=ANSWER_STOP,
        )
        for ex in examples
    ]
    t0 = time.perf_counter()
    replies = llm.complete_many(requests)
    wall = time.perf_counter() - t0
    rows = []
    for ex, c in zip(examples, replies):
        cleaned = clean_response(c.text, ex.question)
        canon = canonical_answer(cleaned, task=ex.task, choices=ex.choices or None)
        ok = judge_correct(
            canon.text,
            list(ex.answers),
            dataset=ex.dataset,
            question=ex.question,
            choices=list(ex.choices) if ex.choices else None,
        )
        rows.append({"id": ex.id, "reply": c.text, "canonical": canon.text, "correct": bool(ok)})
    acc = sum(r["correct"] for r in rows) / len(rows)
    return {
        "llm": llm.identity,
        "dataset": dataset,
        "n": len(rows),
        "accuracy": acc,
        "seconds": wall,
        "rows": rows,
    }


def main() -> None:
    from invent_core.questions.datasets import available_datasets

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--llm", nargs="+", default=["local"])
    ap.add_argument("--datasets", nargs="+", default=available_datasets())
    ap.add_argument("--limit", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0, help="sample seed")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    from invent_core.provenance import provenance, provenance_line  # the code behind this printout

    print(provenance_line("scripts/measure_accuracy.py"))
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()}")
    from invent_core.errors import LLMError

    results = []
    for spec in args.llm:
        for ds in args.datasets:
            try:
                res = accuracy(spec, ds, limit=args.limit, seed=args.seed)
            except LLMError as err:  # report it and go on: the finished ones are kept
                print(f"{spec:<10} {ds:<11} failed: {err}", flush=True)
                continue
            results.append(res)
            if args.out:  # checkpoint after every dataset (answers are in the LLM cache too)
                args.out.parent.mkdir(parents=True, exist_ok=True)
                record = {
                    "provenance": provenance(),
                    "results": results,
                }  # the code behind the numbers
                args.out.write_text(json.dumps(record, indent=1, ensure_ascii=False))
            print(
                f"{spec:<10} {ds:<11} accuracy {res['accuracy']:6.1%} of {res['n']}"
                f"  ({res['seconds']:.0f} s, load {os.getloadavg()[0]:.2f})",
                flush=True,
            )


if __name__ == "__main__":
    main()
