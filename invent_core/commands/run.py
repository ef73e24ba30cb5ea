"""``python -m invent_core run "question"``: perturb, answer, score one question."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from ..errors import Cancelled
from ..perturb.gate import acceptance_line
from ..questions.schema import MAX_QUESTION_CHARS
from ..workbench.estimate import record_artifact
from ._outputs import check_output_file
from .common import (
    CliProgress,
    add_config_args,
    add_llm_args,
    config_from_args,
    identity_from_args,
    interrupted,
    llm_from_args,
    paraphrase_identity,
    print_estimate,
)
from .exits import run_guarded
from .reference import add_reference_arg, check_reference, reference_path


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``run`` command."""
    p = sub.add_parser(
        "run",
        help="perturb a question, ask the LLM (local by default) and score the answers",
        description="Run the whole Inv-Entropy pipeline on one question: n perturbations, "
        "r answers to each, cleaned and scored. Default LLM: the packaged local model "
        "(no key, no network).",
    )
    p.add_argument("question", help="the question to score")
    add_config_args(p)
    p.add_argument(
        "--task",
        choices=["qa", "mmlu", "gsm8k"],
        default="qa",
        help="the answer prompt: qa (a short answer), mmlu (the question with its "
        "--choice options), gsm8k (a result); it also sets the answer's token budget "
        "(default: qa)",
    )
    p.add_argument("--choice", action="append", dest="choices", help="an MMLU option (repeat)")
    p.add_argument("--save", type=Path, help="write the run artifact (JSON) here")
    p.add_argument("--json", action="store_true", help="print the run artifact as JSON")
    add_reference_arg(p)
    add_llm_args(p)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    """Run one question; a full disk exits 3, a busy ``--save`` file 4 (as ``batch``)."""
    return run_guarded(_main, args, writing=str(args.save or ""))


def _check_question(question: str, task: str, choices: list[str] | None) -> None:
    """Batch's limit on a question's length; ``--choice`` with ``--task mmlu``, two at least.

    Before any model loads: a 20,000-character question would be echoed and
    answered for minutes; a ``--choice`` without the task would be ignored.
    """
    if len(question.strip()) > MAX_QUESTION_CHARS:
        raise ValueError(
            f"question is {len(question.strip()):,} characters; the limit is {MAX_QUESTION_CHARS:,}"
        )
    if choices and task != "mmlu":
        raise ValueError(
            f"--choice goes with --task mmlu (the task is {task!r}: it has no options)"
        )
    if task == "mmlu" and choices is not None and len(choices) < 2:
        raise ValueError(f"--task mmlu needs at least two --choice options, got {len(choices)}")


def _main(args: argparse.Namespace) -> int:
    from ..batch.output import OutputLock, lock_path
    from ..engine.pipeline import checked_question

    config = config_from_args(args)  # an invalid option fails here, before any model loads
    checked_question(args.question, args.task, args.choices)  # an empty one before the estimate
    _check_question(args.question, args.task, args.choices)
    llm = llm_from_args(args)  # an unusable --llm fails here, before any file is touched
    if args.reference is not None:
        check_reference(args.reference, config, identity_from_args(args, llm))
    if not args.save:
        return _run(args, config, llm)
    check_output_file(args.save)
    # held from before the work until the file is saved: a second run to it exits 4 at once
    with OutputLock(lock_path(args.save), args.save):
        return _run(args, config, llm)


def _run(args: argparse.Namespace, config, llm) -> int:
    from ..engine.pipeline import run_question

    para = paraphrase_identity(args, llm)
    seconds = (
        None
        if args.json
        else print_estimate(config, identity_from_args(args, llm), 1, para, llm=llm)
    )
    try:
        with CliProgress(quiet=args.json, estimate=seconds, llm=llm) as progress:
            art = run_question(
                args.question,
                config,
                llm=llm,
                task=args.task,
                choices=args.choices,
                progress=progress,
                reference_path=reference_path(args),
            )
    except (Cancelled, KeyboardInterrupt):
        kept = "the LLM cache" if not args.no_cache else "nothing (--no-cache)"
        return interrupted(
            f"the answers received so far are kept in {kept}; the same command asks only the rest"
        )
    finally:
        llm.close()

    record_artifact(art)
    if args.save:
        art.save(args.save)
    if args.json:
        print(art.to_json(indent=2))
        return 0
    print_run(art)
    if args.save:
        print(f"saved {args.save}")
    return 0


def reference_lines(art) -> list[str]:
    """The line of Inv-Entropy among the reference questions like the run's: its stored placement."""
    from ..evaluation.reference import record_line, reference_line

    value = art.score.measures.get("inv_entropy") if art.score is not None else None
    if value is None:
        return []
    if art.reference is not None:  # placed by the pipeline, once
        return [record_line(art.reference, measure="inv_entropy")]
    if not math.isfinite(value):
        return ["inv_entropy: no value, so no percentile"]
    return [reference_line(float(value), None)]  # no reference made with the run's settings


def print_run(art) -> None:
    """Print the question, perturbations, answers, scores against the reference, and times."""
    cfg = art.config
    print(f"question: {art.question}")
    print(f"llm: {art.identities['llm']}   embedder: {art.identities['embedder']}")
    para = art.paraphrase_identity
    if para is not None and para != art.identities.get("llm"):
        print(f"paraphrase llm: {para}")
    print(f"perturbations ({cfg.perturber}):")
    for i, q in enumerate(art.perturbations, 1):
        print(f"  {i:>2}. {q}")
    gate = acceptance_line(getattr(art, "acceptance", None))
    if gate:
        print(gate)
    print("responses (cleaned):")
    for i, (q, reps) in enumerate(zip(art.questions, art.responses, strict=True)):
        label = "x0" if i == 0 else f"x{i}"
        print(f"  {label:>3}: " + " | ".join(reps) + ("" if i else f"   ← {q[:60]}"))
    flagged = sum(map(sum, getattr(art, "unmapped", None) or []))
    if flagged:  # echoes, operations named, no option/number found
        total = sum(map(len, art.responses))
        print(f"non-answers (echo, operation named, or unparsed): {flagged} of {total} replies")
    print(
        f"scores (n = {cfg.n_perturbations}, r = {cfg.n_replications}, "
        f"B = {cfg.score.n_bootstrap}; higher = more uncertain):"
    )
    for name, value in art.score.measures.items():
        lo, hi = art.score.interval(name)
        print(f"  {name:<16} {value:8.4f}   90% [{lo:.4f}, {hi:.4f}]")
    if art.degenerate:  # beside the scores it invalidates, and on stderr with the warnings
        print(f"warning: {art.degenerate}")
    for line in reference_lines(art):
        print(line)
    t = art.timings
    u = art.usage
    print(
        f"time: perturb {t.get('perturb', 0):.1f}s, generate {t.get('generate', 0):.1f}s, "
        f"score {t.get('score', 0):.1f}s; {u.get('requests', 0)} answers "
        f"({u.get('cached', 0)} from cache), {u.get('completion_tokens', 0)} tokens generated"
    )
