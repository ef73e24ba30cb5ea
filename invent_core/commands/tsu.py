"""``python -m invent_core tsu``: Temperature Sensitivity of Uncertainty per method (paper Table 2)."""

from __future__ import annotations

import argparse
from functools import partial

from ..config import TSU_TEMPERATURES
from ._common import ProgressLine, add_config_args, add_llm_args, llm_from_args
from .evaluate import experiment_config_from_args


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``tsu`` command."""
    p = sub.add_parser(
        "tsu",
        help="TSU: how often each method's uncertainty rises with temperature (paper Eq. tsudefinition)",
        description="For each question and temperature, generate (cached) a run, score every method, "
        "and report TSU for pairs (T_i, T_max) and chains T_i..T_max. No correctness labels needed.",
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--dataset", help="triviaqa, sciq, nq_open, mmlu or gsm8k")
    src.add_argument("--data", help="your CSV/JSONL with a question column")
    p.add_argument(
        "--temperatures",
        type=float,
        nargs="+",
        default=list(TSU_TEMPERATURES),
        help="strictly increasing (default: the paper's %(default)s)",
    )
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--sample-seed", type=int, default=None)
    p.add_argument("--methods", default="all")
    p.add_argument("-o", "--out", default=None, help="output folder (default runs/tsu-<dataset>)")
    p.add_argument("-q", "--quiet", action="store_true")
    add_config_args(p, exclude=("temperature",))  # --temperatures sets it, one run each
    add_llm_args(p)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    """Sweep the temperatures and print the TSU table."""
    from ..experiment import tsu

    cfg = experiment_config_from_args(args)
    out = args.out or f"runs/tsu-{args.dataset or 'data'}"
    bar = ProgressLine("tsu", quiet=args.quiet)
    try:
        res = tsu(
            cfg, args.temperatures, out, llm_factory=partial(llm_from_args, args), progress=bar
        )
    finally:
        bar.close()
    print(open(res.files["md"]).read())
    print("files: " + ", ".join(res.files.values()))
    return 0
