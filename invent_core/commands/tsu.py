"""``python -m invent_core tsu``: Temperature Sensitivity of Uncertainty per method (paper Table 2)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..config import TSU_TEMPERATURES, check_temperatures
from ..errors import Cancelled
from .common import (
    CliProgress,
    add_config_args,
    add_llm_args,
    check_llm_args,
    identity_from_args,
    interrupted,
    llm_from_args,
    paraphrase_identity,
    print_estimate,
)
from .evaluate import (
    add_fresh_arg,
    add_sample_args,
    dataset_names,
    experiment_config_from_args,
    with_llms,
)
from .exits import run_guarded


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``tsu`` command."""
    p = sub.add_parser(
        "tsu",
        help="TSU: how often each method's uncertainty rises with temperature "
        "(the paper's TSU definition, §3 'Evaluation metrics')",
        description="For each question and temperature, generate (cached) a run, score every method, "
        "and report TSU for pairs (T_i, T_max) and chains T_i..T_max. No correctness labels needed.",
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--dataset", help=f"{dataset_names()} (shipped 300-question samples)")
    src.add_argument("--data", help="your CSV/JSONL with a question column")
    p.add_argument(
        "--temperatures",
        type=float,
        nargs="+",
        default=list(TSU_TEMPERATURES),
        help="strictly increasing (default: the paper's %(default)s)",
    )
    add_sample_args(p)
    p.add_argument(
        "--methods", default="all", help="all, inv, baselines, or a comma list of method names"
    )
    p.add_argument("-o", "--out", default=None, help="output folder (default runs/tsu-<dataset>)")
    add_fresh_arg(p)
    p.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    add_config_args(p, exclude=("temperature",))  # --temperatures sets it, one run each
    add_llm_args(p)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    """Sweep the temperatures and print the TSU table; a full disk exits 3, a busy folder 4."""
    return run_guarded(_main, args, writing=args.out or "")


def _main(args: argparse.Namespace) -> int:
    from ..batch.output import output_folder
    from ..experiments import TSU_FILES, draw_examples

    cfg = experiment_config_from_args(args)
    args.temperatures = check_temperatures(args.temperatures)  # before the folder is made
    out = args.out or f"runs/tsu-{args.dataset or 'data'}"
    examples, sample = draw_examples(cfg, require_answers=False)
    check_llm_args(args)  # an unusable --llm fails before the folder is made
    # checked and locked before any work: a second tsu into this folder exits 4 at once
    with output_folder(out, TSU_FILES, [args.data] if args.data else []):
        return _tsu_locked(args, cfg, out, examples, sample)


def _tsu_locked(args: argparse.Namespace, cfg: Any, out: str, examples, sample) -> int:
    from ..experiments import tsu

    llm = llm_from_args(args)
    cfg = with_llms(cfg, args, llm)
    print(f"questions: {sample}", file=sys.stderr)
    n_runs = len(examples) * len(args.temperatures)
    para = paraphrase_identity(args, llm)
    seconds = print_estimate(
        cfg.run, identity_from_args(args, llm), n_runs, para, llm=llm, reworded=len(examples)
    )  # one set of rewordings a question: its other temperatures read them from the cache
    try:
        with CliProgress(quiet=args.quiet, outer="runs", estimate=seconds, llm=llm) as progress:
            res = tsu(
                cfg,
                args.temperatures,
                out,
                llm_factory=lambda: llm,
                progress=progress,
                fresh=args.fresh,
            )
    except Cancelled as err:
        return interrupted(str(err))
    except KeyboardInterrupt:
        return interrupted(f"the finished runs are kept in {out}/runs")
    finally:
        llm.close()
    print(f"TSU (%), {res.sample}")
    print(res.table.to_text())
    for line in res.warnings:
        print(f"warning: {line}", file=sys.stderr)
    print("files: " + ", ".join(res.files.values()))
    return 1 if res.failed else 0  # as batch: some failed, listed, retried on the next run
