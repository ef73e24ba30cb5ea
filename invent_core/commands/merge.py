"""``python -m invent_core merge PART... -o OUT``: join shard outputs (or convert one output).

Configurations must match (apart from the shard), ids are de-duplicated and
rows ordered by their original row number. With a single part this converts
a result file to another format (``-o results.parquet``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .batch import print_evaluation
from .exits import run_guarded


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``merge`` command to the CLI."""
    p = sub.add_parser(
        "merge",
        help="join the outputs of 'batch --shard i/N' runs (or convert one output)",
        description="Join batch outputs made with --shard i/N into one file (.csv, .jsonl, .json or .parquet). "
        "Each part needs its .meta.json sidecar; configurations must match.",
    )
    p.add_argument("parts", nargs="+", type=Path, help="batch outputs to join")
    p.add_argument(
        "-o",
        "--output",
        type=Path,
        required=True,
        help="merged file: .csv, .jsonl, .json or .parquet",
    )
    p.add_argument(
        "--allow-partial", action="store_true", help="merge even if some shards are missing"
    )
    p.set_defaults(func=main)


def _main(args: argparse.Namespace) -> int:
    from ..batch import merge_outputs

    s = merge_outputs(args.parts, args.output, allow_partial=args.allow_partial)
    print(
        f"{s.output}: {s.n_rows} rows from {len(s.parts)} part(s)"
        + (f", {s.n_duplicates} duplicate ids dropped" if s.n_duplicates else "")
        + (f", {s.n_errors} failed rows listed in the errors sidecar" if s.n_errors else "")
    )
    for warning in s.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    ev = s.evaluation
    print_evaluation(ev.get("accuracy"), ev.get("n_judged", 0), ev.get("methods", {}))
    return 0


def main(args: argparse.Namespace) -> int:
    """Run the command: exit 0, 2 (unusable part or output), 3 (disk full) or 4 (output busy)."""
    return run_guarded(_main, args, writing=str(args.output))
