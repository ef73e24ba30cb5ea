"""``python -m invent_core export-samples SOURCE -o FILE.jsonl``: share the samples of a run.

Writes the questions, rewordings, answers, labels, model and settings of a run
artefact, a batch output or an evaluate folder (or converts UQLM's result
frame) as one samples file (docs/samples.md), which ``score`` and ``batch``
read back, and other tools can score on identical answers.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .exits import run_guarded


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``export-samples`` command."""
    p = sub.add_parser(
        "export-samples",
        help="write the samples of a run, batch or evaluation as one JSON Lines schema",
        description="Write question, rewordings, answers per state, labels where judged, model "
        "and settings, one line per question (schema invent.samples/1, docs/samples.md). "
        "SOURCE: a run artefact (run --save), a batch output with its .meta.json sidecar, an "
        "evaluate folder, or UQLM's result frame (CSV, JSON, Parquet).",
    )
    p.add_argument(
        "source", type=Path, help="run artefact, batch output, evaluate folder or UQLM frame"
    )
    p.add_argument("-o", "--output", type=Path, required=True, help="the samples file (*.jsonl)")
    p.set_defaults(func=main)


def _main(args: argparse.Namespace) -> int:
    from ..samples import check_output, read_source, write_samples

    out = check_output(args.output, args.source)  # before anything is read or written
    samples = read_source(args.source)  # whole, so a bad source writes nothing
    n = write_samples(samples, out, args.source)
    states = sorted({len(s.perturbations) + 1 for s in samples})
    print(f"{out}: {n} question(s), {'/'.join(map(str, states)) or 0} state(s) each")
    return 0


def main(args: argparse.Namespace) -> int:
    """Run the command: exit 0, 2 (unusable source or output) or 3 (disk full)."""
    return run_guarded(_main, args, writing=str(args.output))
