"""``python -m invent_core batch INPUT -o OUTPUT``: score every question of a CSV/JSON Lines file.

Exit status (:mod:`invent_core.commands.exits`): 0 when every row was
scored, 1 when some rows failed (listed in ``OUTPUT.errors.jsonl``; the
others are in the output), 2 when the file or the options cannot be used at
all (one line naming file, row and column, or the option), 3 when the disk
is full, 4 when another run is writing the same output. Re-running the same
command resumes after an interruption.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

from ..llm import LazyLLM
from ..questions.files import require_file
from .common import (
    add_config_args,
    add_llm_args,
    check_llm_args,
    check_methods,
    concurrency_note,
    config_from_args,
    llm_from_args,
)
from .exits import ROWS_FAILED, run_guarded
from .reference import add_reference_arg, check_reference, reference_path


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``batch`` command to the CLI."""
    p = sub.add_parser(
        "batch",
        help="score every question of a CSV/JSONL file (resumable, shardable)",
        description="Score every question of a CSV or JSON Lines file. Columns: question (required), "
        "id, answer/value (then correctness, AUROC and PRR), and optionally pre-generated "
        "'perturbations' + 'responses' (JSON) or the long layout (perturbation_index, "
        "replication_index, perturbation, response), in which case no LLM is called; "
        "'perturbations' alone: the LLM answers them and rewords nothing. "
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
    add_reference_arg(p)
    add_llm_args(p)
    add_config_args(p)
    p.add_argument(
        "--shard",
        default=None,
        help="i/N: score only part i of N (by a hash of the id); auto: i and N from a Slurm "
        "array or a Kubernetes indexed Job (with INVENT_SHARD_COUNT), see docs/cluster.md",
    )
    p.add_argument(
        "--dataset",
        default=None,
        help="correctness rule (triviaqa, sciq, mmlu, gsm8k, arithmetic, qa …)",
    )
    p.add_argument(
        "--judge",
        choices=("paraphrase", "match"),  # batch.scorer.BATCH_JUDGES (checked by tests)
        default="paraphrase",
        help="correctness: the rule, also accepting the reference in other words (default), "
        "or the rule alone; the output's judge_reason says why",
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


class BatchPrinter:
    """A progress line on stderr: rewritten in place on a terminal, else every 5 s."""

    def __init__(self, llm: Any = None) -> None:
        self.tty = sys.stderr.isatty()
        self.last = 0.0
        self.llm = llm  # under --concurrency auto, its limit now ends the line

    def __call__(self, event: Any) -> None:
        """Print one :class:`~invent_core.progress.Progress` event (stage ``"rows"``)."""
        done, total, eta = event.done, event.total, event.eta_seconds
        now = time.monotonic()
        if not self.tty and now - self.last < 5 and done < total:
            return
        self.last = now
        pct = 100 * done / total if total else 100
        line = f"{done}/{total} rows ({pct:.0f}%)  ETA {_fmt_eta(eta)}"
        note = concurrency_note(self.llm)
        line += f"  {note}" if note else ""
        print(
            ("\r" + line) if self.tty else line,
            end="" if self.tty else "\n",
            file=sys.stderr,
            flush=True,
        )

    def close(self) -> None:
        """End the progress line on a terminal, so what follows starts a line of its own."""
        if self.tty and self.last:
            print(file=sys.stderr)


def format_metric(value: float | None, undefined: str | None) -> str:
    """``0.712``, or ``n/a — all answers right`` when the metric is undefined (never a bare nan)."""
    if value is None or not math.isfinite(value):
        return f"n/a — {undefined or 'no value'}"
    return f"{value:.3f}"


def print_evaluation(accuracy: float | None, n_judged: int, methods: dict[str, Any]) -> None:
    """Accuracy, then AUROC and PRR per method (shared with ``merge``).

    A sample too small to judge gets the caveat ``evaluate`` and the dashboard
    show (:func:`~invent_core.evaluation.sample_size.judgeable`, one rule everywhere).
    """
    from ..evaluation.sample_size import judgeable

    if accuracy is None:
        return
    print(f"accuracy {accuracy:.3f} over {n_judged} judged rows")
    shown = False
    for name, m in methods.items():
        why = m.get("undefined")
        auroc, prr = format_metric(m.get("auroc"), why), format_metric(m.get("prr"), why)
        shown = shown or not (auroc.startswith("n/a") and prr.startswith("n/a"))
        print(f"  {name:<18} AUROC {auroc}   PRR {prr}")
    ok, reason = judgeable(n_judged, round(accuracy * n_judged), unit="row")
    if shown and not ok:
        print(f"Not judged: {reason}; AUROC and PRR this small are not evidence.")


def _check_options(args: argparse.Namespace) -> Any:
    """The run config, after every option is checked (before any file is touched)."""
    config = config_from_args(args)
    if isinstance(args.concurrency, int) and args.concurrency < 1:
        raise ValueError(f"--concurrency must be at least 1, got {args.concurrency}")
    check_llm_args(args)  # a missing hf: path fails now, not at the first row needing an LLM
    if args.shard is not None and args.shard.strip().lower() == "auto":
        args.shard = _auto_shard()
    if args.reference is not None:  # the spec: a file of responses never starts the LLM
        check_reference(args.reference, config, args.model or args.llm)
    return config


def _auto_shard() -> tuple[int, int]:
    """The array task's part, from the scheduler's variables, said on stderr."""
    from ..batch.shards import shard_from_env

    i, n, where = shard_from_env(os.environ)
    print(f"shard {i}/{n} ({where})", file=sys.stderr, flush=True)
    return i, n


def report_batch(summary: Any) -> int:
    """Print the batch's summary and its warnings; the exit status it calls for."""
    print(
        f"{summary.output}: {summary.n_scored} rows scored, {summary.n_resumed} already there, "
        f"{summary.n_failed} failed"
        + (f", {summary.n_other_shards} left to other shards" if summary.n_other_shards else "")
        + f" ({summary.seconds:.1f} s)"
    )
    for note in summary.dropped:
        print(f"warning: {summary.checkpoint}: {note}", file=sys.stderr)
    if summary.n_degenerate:  # scores that say nothing: named, not mixed in silently
        print(
            f"warning: {summary.n_degenerate} row(s) are degenerate (every perturbation a copy "
            "of the question): their scores measure nothing; see the degenerate column",
            file=sys.stderr,
        )
    for name, (n, why) in summary.method_gaps.items():  # a column left empty, said aloud
        print(
            f"warning: {name} gave no value on {n} row(s): {why} (see method_errors)",
            file=sys.stderr,
        )
    print_evaluation(summary.accuracy, summary.n_judged, summary.evaluation)
    if summary.ok:
        return 0
    for e in summary.errors[:5]:
        print(f"error: {e['message']}", file=sys.stderr)
    more = summary.n_failed - min(5, len(summary.errors))
    print(
        f"{summary.n_failed} row(s) failed"
        + (f" ({more} more not shown)" if more > 0 else "")
        + f"; see {summary.errors_path}",
        file=sys.stderr,
    )
    return ROWS_FAILED


def _main(args: argparse.Namespace) -> int:
    config = _check_options(args)
    require_file(args.input)  # a wrong name is told before the scoring code loads (0.5 s)
    check_methods(args.methods)  # loads the methods: after the cheap check above
    from ..batch import batch_score

    # built on first use only: a file of pre-generated responses never starts an LLM
    llm = LazyLLM(partial(llm_from_args, args))
    printer = None if args.quiet else BatchPrinter(llm)
    try:
        summary = batch_score(
            args.input,
            args.output,
            config,
            llm=llm,
            methods=args.methods,
            shard=args.shard,
            progress=printer,
            resume=args.resume,
            dataset=args.dataset,
            judge=args.judge,
            encoding=args.encoding,
            reference_path=reference_path(args),  # every row placed among these
        )
    finally:
        if printer is not None:
            printer.close()
    return report_batch(summary)


def main(args: argparse.Namespace) -> int:
    """Run the command; see the module docstring for the exit statuses."""
    return run_guarded(_main, args, writing=str(args.output))
