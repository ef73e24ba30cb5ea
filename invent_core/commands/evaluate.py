"""``python -m invent_core evaluate``: Table 1 (AUROC / PRR / Brier / ECE) for a dataset."""

from __future__ import annotations

import argparse
from functools import partial

from ._common import ProgressLine, add_config_args, add_llm_args, config_from_args, llm_from_args


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``evaluate`` command."""
    p = sub.add_parser(
        "evaluate",
        help="score every method on a dataset and report AUROC/PRR/Brier/ECE (paper Table 1)",
        description="Generate (cached) runs for each question, score every method on the same "
        "responses, judge correctness, and write scores.csv and results.{csv,md,tex,json}. "
        "Re-running with the same settings makes no LLM call.",
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument(
        "--dataset", help="triviaqa, sciq, nq_open, mmlu or gsm8k (shipped 300-question samples)"
    )
    src.add_argument("--data", help="your CSV/JSONL with question and answer columns")
    p.add_argument("--limit", type=int, default=None, help="first N questions")
    p.add_argument(
        "--sample-seed", type=int, default=None, help="shuffle with this seed before --limit"
    )
    p.add_argument(
        "--methods", default="all", help="all, inv, baselines, or a comma list of method names"
    )
    p.add_argument(
        "--judge",
        choices=("match", "llm"),  # experiment.JUDGES (checked by tests/test_config.py)
        default="match",
        help="correctness by rules per dataset (default) or the paper's LLM judge prompt",
    )
    p.add_argument(
        "--n-boot", type=int, default=40, help="bootstrap resamples of the metrics (paper: 40)"
    )
    p.add_argument(
        "-o", "--out", default=None, help="output folder (default runs/evaluate-<dataset>)"
    )
    p.add_argument("-q", "--quiet", action="store_true")
    add_config_args(p)
    add_llm_args(p)
    p.set_defaults(func=main)


def experiment_config_from_args(args: argparse.Namespace, **extra):
    """Build the :class:`~invent_core.experiment.ExperimentConfig` of ``evaluate``/``tsu``'s options."""
    from ..experiment import ExperimentConfig

    return ExperimentConfig(
        run=config_from_args(args),
        dataset=args.dataset,
        data=args.data,
        limit=args.limit,
        sample_seed=args.sample_seed,
        methods=tuple(m.strip() for m in args.methods.split(",") if m.strip()),
        **extra,
    )


def main(args: argparse.Namespace) -> int:
    """Evaluate every method on the dataset and print the table."""
    from ..experiment import evaluate

    cfg = experiment_config_from_args(args, judge=args.judge, n_boot_metrics=args.n_boot)
    out = args.out or f"runs/evaluate-{args.dataset or 'data'}"
    bar = ProgressLine("evaluate", quiet=args.quiet)
    try:
        res = evaluate(cfg, out, llm_factory=partial(llm_from_args, args), progress=bar)
    finally:
        bar.close()
    ev = res.evaluation
    print(
        f"{ev.n_questions} questions, accuracy {ev.accuracy:.3f} ({ev.n_correct} correct); "
        f"mean ± std over {ev.n_boot} paired bootstrap resamples"
    )
    print(open(res.files["markdown"]).read())
    for method, why in ev.skipped.items():
        print(f"  {method}: skipped ({why})")
    print("files: " + ", ".join(res.files.values()))
    return 0
