"""``invent report DIR -o report.html``: one self-contained HTML file of an evaluation or a run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..csv_safe import torn_rows
from .exits import run_guarded


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``report`` command."""
    p = sub.add_parser(
        "report",
        help="write one self-contained HTML report of an evaluation folder or a run (no network)",
        description="Write one HTML file anyone can open in a browser, offline: the "
        "evaluation's table, interactive curves, every question (rewordings, answers, "
        "scores), the settings and the provenance. SOURCE: an evaluate folder or one run's "
        "JSON artefact (run --save).",
    )
    p.add_argument("source", type=Path, metavar="SOURCE", help="evaluate folder or run JSON")
    p.add_argument("-o", "--output", type=Path, required=True, help="the HTML file to write")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    """Write the report; exit 2 on an unusable source or output."""
    return run_guarded(_main, args, writing=str(args.output))


def _main(args: argparse.Namespace) -> int:
    from ..report import write_report

    if args.output.is_dir():
        raise ValueError(f"-o {args.output}: a folder; name the HTML file to write")
    if args.output.suffix.lower() not in (".html", ".htm"):  # not a PDF named so
        raise ValueError(f"-o {args.output}: the report is one HTML file; name it *.html")
    path = write_report(args.source, args.output)
    for note in torn_rows(args.source / "scores.csv") if args.source.is_dir() else []:
        print(f"warning: {note}; left out of the report", file=sys.stderr)
    print(f"{path}: {path.stat().st_size / 1e6:.1f} MB, opens in any browser without a network")
    return 0
