"""``python -m invent_core batch INPUT -o OUTPUT``: score every question of a CSV/JSON Lines file.

Exit status: 0 when every row was scored, 1 when some rows failed (listed in
``OUTPUT.errors.jsonl``; the others are in the output), 2 when the file or
the options cannot be used at all (one line naming file, row and column).
Re-running the same command resumes after an interruption.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from functools import partial
from pathlib import Path

from ..llm import LazyLLM
from ._common import add_generation_args, add_llm_args, llm_from_args


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "batch",
        help="score every question of a CSV/JSONL file (resumable, shardable)",
        description="Score every question of a CSV or JSON Lines file. Columns: question (required), "
        "id, answer/value (then correctness, AUROC and PRR), and optionally pre-generated "
        "'perturbations' + 'responses' (JSON) or the long layout (perturbation_index, "
        "replication_index, perturbation, response), in which case no LLM is called. "
        "Each finished question is appended to OUTPUT at once; re-running the same command resumes.",
    )
    p.add_argument("input", type=Path, help="CSV (.csv/.tsv) or JSON Lines (.jsonl) file")
    p.add_argument(
        "-o",
        "--output",
        type=Path,
        required=True,
        help="result file: .csv, .jsonl, .json or .parquet",
    )
    p.add_argument(
        "--methods",
        default="inv",
        help="baselines besides the Inv measures: inv (none), all, baselines, or names",
    )
    add_llm_args(p)
    add_generation_args(p)
    p.add_argument(
        "--shard", default=None, help="i/N: score only part i of N (by a hash of the id)"
    )
    p.add_argument(
        "--dataset", default=None, help="correctness rule (triviaqa, sciq, mmlu, gsm8k, qa …)"
    )
    p.add_argument(
        "--encoding",
        default=None,
        help="input encoding, e.g. latin-1 (default: UTF-8 or the BOM's)",
    )
    p.add_argument("--no-resume", dest="resume", action="store_false", help="start the output over")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    p.set_defaults(func=main)


def _fmt_eta(seconds: float | None) -> str:
    if seconds is None or not math.isfinite(seconds):
        return "--:--"
    s = int(seconds)
    return (
        f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
    )


class _Printer:
    """A progress line on stderr: rewritten in place on a terminal, else every 5 s."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.last = 0.0

    def __call__(self, done: int, total: int, eta: float | None) -> None:
        now = time.monotonic()
        if not self.tty and now - self.last < 5 and done < total:
            return
        self.last = now
        pct = 100 * done / total if total else 100
        line = f"{done}/{total} rows ({pct:.0f}%)  ETA {_fmt_eta(eta)}"
        print(
            ("\r" + line) if self.tty else line,
            end="" if self.tty else "\n",
            file=sys.stderr,
            flush=True,
        )

    def close(self) -> None:
        if self.tty and self.last:
            print(file=sys.stderr)


def main(args: argparse.Namespace) -> int:
    from ..batch import batch_score

    # built on first use only: a file of pre-generated responses never starts an LLM
    llm = LazyLLM(partial(llm_from_args, args))
    printer = None if args.quiet else _Printer()
    try:
        summary = batch_score(
            args.input,
            args.output,
            methods=args.methods,
            embedder=args.embedder,
            llm=llm,
            n_perturbations=args.n_perturbations,
            n_replications=args.n_replications,
            temperature=args.temperature,
            n_bootstrap=args.n_bootstrap,
            seed=args.seed,
            perturber=args.perturber,
            shard=args.shard,
            progress=printer,
            resume=args.resume,
            dataset=args.dataset,
            encoding=args.encoding,
        )
    finally:
        if printer is not None:
            printer.close()
    print(
        f"{summary.output}: {summary.n_scored} rows scored, {summary.n_resumed} already there, "
        f"{summary.n_failed} failed"
        + (f", {summary.n_other_shards} left to other shards" if summary.n_other_shards else "")
        + f" ({summary.seconds:.1f} s)"
    )
    if summary.accuracy is not None:
        print(f"accuracy {summary.accuracy:.3f} over {summary.n_judged} judged rows")
        for name, m in summary.evaluation.items():
            print(f"  {name:<18} AUROC {m['auroc']:.3f}   PRR {m['prr']:.3f}")
    if not summary.ok:
        for e in summary.errors[:5]:
            print(f"error: {e['message']}", file=sys.stderr)
        more = summary.n_failed - min(5, len(summary.errors))
        print(
            f"{summary.n_failed} row(s) failed"
            + (f" ({more} more not shown)" if more > 0 else "")
            + f"; see {summary.errors_path}",
            file=sys.stderr,
        )
        return 1
    return 0
