"""``invent reference build DIR -o ref.json``, and ``--reference FILE`` on run, batch and score.

A reference set of one's own: an evaluation of the user's questions (with a
reviewer's relabels, ``DIR/relabels.jsonl``) becomes a file in the shipped
references' format; ``--reference FILE`` places a question among its questions
(percentile, P(correct)) instead of among the shipped ones. The file is checked
before any model loads or any file is written: a damaged file or one made with
other settings is refused with the option that differs. The file (or
``$INVENT_REFERENCE_DIR``, read once here: :func:`reference_path`) is passed down
as an argument.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..config import RunConfig, iter_options
from ..csv_safe import torn_rows
from ..env import reference_override
from ..llm.names import local_model
from ._outputs import check_output_file
from .exits import run_guarded


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``reference`` command (``reference build``)."""
    p = sub.add_parser(
        "reference",
        help="build a reference set of your own from an evaluation (for --reference)",
        description="Reference sets place a question's Inv-Entropy among reference questions "
        "(percentile, P(correct)). Build one from your own evaluation and pass it to run, "
        "batch or score with --reference FILE.",
    )
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    b = actions.add_parser(
        "build",
        help="turn an evaluate folder (and its relabels.jsonl) into a reference file",
        description="Turn an evaluate output folder into a reference set: each question's "
        "value of the measure, its label (the reviewer's where DIR/relabels.jsonl relabels "
        "it), its text and its embedding. No LLM call.",
    )
    b.add_argument("folder", type=Path, metavar="DIR", help="an evaluate output folder")
    b.add_argument("-o", "--output", type=Path, required=True, help="the reference file to write")
    b.add_argument("--measure", default="inv_entropy", help="the method whose values the set holds")
    b.add_argument(
        "--no-relabels", action="store_true", help="use the judge's labels even with relabels"
    )
    b.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    """Build the set; exit 2 on an unusable folder or relabel file."""
    return run_guarded(_build, args, writing=str(args.output))


def _build(args: argparse.Namespace) -> int:
    from ..batch.output import check_output_file as check_output_written
    from ..batch.output import output_file
    from ..experiments.own_reference import build_reference

    if args.output.is_dir():
        raise ValueError(f"-o {args.output}: a folder; name the reference file to write")
    check_output_file(args.output)  # a path it cannot write is named, not an errno
    check_output_written(args.output, [args.folder])  # not a file of the evaluation it reads
    ref = build_reference(args.folder, measure=args.measure, relabels=not args.no_relabels)
    with output_file(args.output, [args.folder]) as f:  # locked, atomic: a kill keeps the old
        f.write(json.dumps(ref.to_dict(), indent=1))
    for note in torn_rows(args.folder / "scores.csv"):
        print(f"warning: {note}; left out of the set", file=sys.stderr)
    labels = "labelled" if ref.has_labels else "no labels"
    relabelled = ref.settings.get("relabelled")
    by_hand = f", {relabelled} label(s) changed by hand" if relabelled is not None else ""
    print(f"{args.output}: {ref.size} questions of {args.folder.name}, {labels}{by_hand}")
    measure = ref.settings.get("measure", "inv_entropy")
    if measure != "inv_entropy":  # --reference places Inv-Entropy: no command would take it
        print(f"it holds {measure}; run, batch and score place inv_entropy among a reference")
        return 0
    print(f"use it with: invent run QUESTION --reference {args.output}{matching_options(ref)}")
    return 0


def matching_options(ref: Any) -> str:
    """The options a default ``run`` needs to be made with the set's settings (" --padding paper").

    ``--reference`` refuses a set made with other settings than the run's, and an
    evaluation made with older defaults (the shipped ones under docs/results) is
    one: the printed command must be one that works.
    """
    from ..evaluation.reference import settings_mismatch
    from ..evaluation.reference.shipped import LEGACY_SETTINGS

    flags = {o.name: o.long_flag for o in iter_options()}
    parts, note = [], ""
    for line in settings_mismatch(ref, RunConfig(), llm_identity="local"):
        key = line.split(":")[0]
        have = ref.settings.get(key, LEGACY_SETTINGS.get(key))
        if key == "llm" and local_model(str(have)) == have:
            parts.append(f"--llm {have}")
        elif key == "llm":  # a server's or a file's model: its spec is not recorded
            note = f"  (and --llm: the one it was made with, {have})"
        elif key in flags and have is not None:  # None: a setting that follows another
            parts.append(f"{flags[key]} {have}")  # (kernel_tau under --affinity shifted_cosine)
    return "".join(" " + p for p in parts) + note


def add_reference_arg(p: argparse.ArgumentParser) -> None:
    """``--reference FILE``: place questions among this set instead of the shipped ones."""
    p.add_argument(
        "--reference",
        type=Path,
        metavar="FILE",
        default=None,
        help="a reference set of your own (invent reference build): the percentile and "
        "P(correct) place the question among its questions instead of the shipped references",
    )


def check_reference(path: Path, config: Any, llm_identity: str | None) -> None:
    """Refuse an unreadable file, or one made with other settings (naming what differs)."""
    from ..evaluation.reference import load_own_reference, settings_mismatch

    try:
        ref = load_own_reference(path)
    except (OSError, ValueError) as err:
        raise ValueError(f"--reference {err}") from None
    differ = settings_mismatch(ref, config, llm_identity=llm_identity)
    if differ:
        raise ValueError(
            f"--reference {path}: made with other settings than this run "
            f"({'; '.join(differ)}); its percentiles would not be comparable"
        )


def reference_path(args: argparse.Namespace) -> Path | None:
    """Where this command places questions: ``--reference FILE``, else ``$INVENT_REFERENCE_DIR``.

    The one place the command line reads the variable (a folder of references, or
    one file); the path goes down as an argument. None: the shipped references.
    """
    given = getattr(args, "reference", None)
    return Path(given) if given is not None else reference_override()
