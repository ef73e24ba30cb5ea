"""``python -m invent_core compare A [B]``: two evaluations (or two methods of one), paired."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .common import parse_optional
from .exits import run_guarded

#: Rewordings printed per side of a disagreement (the run holds them all).
SHOWN_REWORDINGS = 3

#: Most disagreements --top lists (a screenful many times over).
MAX_TOP = 10_000


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``compare`` command."""
    p = sub.add_parser(
        "compare",
        help="compare two evaluations question by question (or two methods of one)",
        description="Pair the questions of two evaluate folders (by id, else by question "
        "text), give each metric's paired difference A − B with its 95 % interval over the "
        "same bootstrap resamples, and list the questions where the two disagree most. "
        "With one folder and --methods X,Y: method X minus method Y. The reviewer's "
        "relabels (relabels.jsonl) are applied. No LLM call, no file written.",
    )
    p.add_argument("folders", nargs="+", metavar="FOLDER", help="one or two evaluate folders")
    p.add_argument(
        "--methods",
        default=None,
        help="comma list: the methods compared on both evaluations (default: every one both "
        "hold); with one folder exactly two, the first minus the second",
    )
    p.add_argument(
        "--metrics", default=None, help="comma list of metrics (default auroc,prr,brier)"
    )
    p.add_argument(
        "--intersection",
        action="store_true",
        help="compare evaluations over different questions on the ones they share",
    )
    p.add_argument(
        "--n-bootstrap-metrics",
        "--n-boot",
        type=int,
        default=None,
        help="paired bootstrap resamples of the metrics (default 1,000), as evaluate's option "
        "of the same name",
    )
    p.add_argument(  # its name until evaluate's -B (the walk's B) and this one were told apart
        "--n-bootstrap",
        dest="old_n_bootstrap",
        type=int,
        default=None,
        help="deprecated: the old name of --n-bootstrap-metrics",
    )
    p.add_argument("--seed", type=parse_optional(int), default=0, help="seed of the resamples")
    p.add_argument("--top", type=int, default=10, help="disagreements listed (default 10)")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    p.set_defaults(func=main)


def _names(text: str | None) -> list[str]:
    return [t.strip() for t in (text or "").split(",") if t.strip()]


def _same_folder(a: str, b: str) -> bool:
    return Path(a).resolve() == Path(b).resolve()


def metric_resamples(args: argparse.Namespace) -> tuple[str, int | None]:
    """The option that set the metric resamples and its value (None: the default).

    The old ``--n-bootstrap`` still works, with a one-line note on stderr: in ``run`` and
    ``evaluate`` that name is the walk's B, so here it now has evaluate's name for the
    metric resamples.
    """
    if args.old_n_bootstrap is None:
        return "--n-bootstrap-metrics", args.n_bootstrap_metrics
    if args.n_bootstrap_metrics is not None:
        raise ValueError("give --n-bootstrap-metrics only (--n-bootstrap is its old name)")
    print(
        "note: compare's --n-bootstrap is now --n-bootstrap-metrics (as in evaluate); "
        "the old name will go",
        file=sys.stderr,
        flush=True,
    )
    return "--n-bootstrap", args.old_n_bootstrap


def check_args(args: argparse.Namespace) -> dict[str, Any]:
    """The options as keyword arguments, refused naming the option before anything is read."""
    from ..evaluation.compare import COMPARE_METRICS
    from ..evaluation.metrics import METRICS, N_BOOTSTRAP
    from ..experiments.config import MAX_METRIC_BOOTSTRAP

    if len(args.folders) > 2:
        raise ValueError(f"compare takes one or two evaluate folders, got {len(args.folders)}")
    methods = _names(args.methods)
    if len(args.folders) == 2 and _same_folder(*args.folders):  # every difference would be 0
        raise ValueError(
            f"{args.folders[1]} is {args.folders[0]} again; to compare two methods of one "
            "evaluation, give it once with --methods X,Y"
        )
    if len(args.folders) == 1 and len(methods) != 2:
        raise ValueError("with one folder, --methods must name exactly two methods: X,Y")
    metrics = _names(args.metrics) or list(COMPARE_METRICS)
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        raise ValueError(f"--metrics: unknown {unknown[0]!r}; choose from {', '.join(METRICS)}")
    flag, n_bootstrap = metric_resamples(args)
    n_bootstrap = N_BOOTSTRAP if n_bootstrap is None else n_bootstrap
    if not 1 <= n_bootstrap <= MAX_METRIC_BOOTSTRAP:  # evaluate's bound on the same resamples
        raise ValueError(f"{flag} must be from 1 to {MAX_METRIC_BOOTSTRAP:,}, got {n_bootstrap:,}")
    seed = args.seed or 0
    if seed < 0:  # numpy refuses it only after the folders are read
        raise ValueError(f"--seed must be at least 0, got {seed}")
    if not 0 <= args.top <= MAX_TOP:
        raise ValueError(f"--top must be from 0 to {MAX_TOP:,}, got {args.top:,}")
    opts = {"metrics": metrics, "n_bootstrap": n_bootstrap, "seed": seed, "top": args.top}
    return opts | {"methods": methods}


def main(args: argparse.Namespace) -> int:
    """Print the comparison; exit 2 naming the problem (a folder, an option, different questions)."""
    return run_guarded(_main, args)  # piped to head: exit 141 quietly, as every command


def _main(args: argparse.Namespace) -> int:
    from ..experiments.comparison import compare_evaluations, compare_methods

    opts = check_args(args)
    methods = opts.pop("methods")
    if len(args.folders) == 1:
        res = compare_methods(args.folders[0], *methods, **opts)
    else:
        a, b = args.folders
        res = compare_evaluations(a, b, methods=methods, intersection=args.intersection, **opts)
    if args.json:
        print(json.dumps(res.to_dict(), indent=2))
    else:
        print_comparison(res)
    return 0


def _fmt(x: float) -> str:
    return "n/a" if x != x else f"{x:+.3f}"


def print_comparison(res: Any) -> None:
    """The counts, a table per method (A, B, A − B [95 %], verdict), then the disagreements."""
    a, b = res.names
    print(f"A = {a}; B = {b}")
    print(
        f"{res.n_shared} paired questions (A {res.n_a}, B {res.n_b}); A − B over "
        f"{res.n_bootstrap} paired bootstrap resamples, 95 % percentile interval"
    )
    for method, rows in res.results.items():
        print(f"\n{method}")
        for c in rows:
            d = c.difference
            lo, hi = d.ci95
            print(
                f"  {c.metric:<9} A {c.value_a:.3f}  B {c.value_b:.3f}  A − B {_fmt(d.difference)}"
                f" [{_fmt(lo)}, {_fmt(hi)}]  {d.verdict}"
            )
    for method, why in res.skipped.items():
        print(f"\n{method}: not compared ({why})")
    if res.disagreements:
        print(f"\nWhere A and B rank the uncertainty furthest apart ({len(res.disagreements)}):")
    for d in res.disagreements:
        print_disagreement(d, res.names)


def print_disagreement(d: Any, names: tuple[str, str]) -> None:
    """One question: the gap, each side's answer, label and run, and a few rewordings."""
    print(f"\n  [{d.gap:.2f}] {d.question}")
    words_a, words_b = d.rewordings()
    one_run = d.runs[0] == d.runs[1]  # two methods of one evaluation: the same run
    sides = zip(names, d.scores, d.rows, d.runs, (words_a, [] if one_run else words_b), strict=True)
    for i, (name, score, row, run, words) in enumerate(sides):
        mark = "right" if int(row["correct"]) else "wrong"
        hand = " (relabelled)" if row.get("relabel_reason") else ""
        answer = row.get("canonical") or row.get("response")
        print(f"    {name}: {answer!r} — {mark}{hand}; uncertainty {score:.3f}")
        for w in words[:SHOWN_REWORDINGS]:
            print(f"      reworded: {w}")
        if run is not None and not (one_run and i):
            print(f"      run: {run}")
