"""``python -m invent_core evaluate``: Table 1 (AUROC / PRR / Brier / ECE) for a dataset."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from ..config import DEFAULT_PROFILE, get_profile
from ..errors import Cancelled
from ..questions.datasets import available_datasets
from .common import (
    CliProgress,
    add_config_args,
    add_llm_args,
    check_llm_args,
    check_methods,
    config_from_args,
    identity_from_args,
    interrupted,
    llm_from_args,
    paraphrase_identity,
    parse_optional,
    print_estimate,
)
from .exits import run_guarded


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``evaluate`` command."""
    p = sub.add_parser(
        "evaluate",
        help="score every method on a dataset and report AUROC/PRR/Brier/ECE (paper Table 1)",
        description="Generate (cached) runs for each question, score every method on the same "
        "responses, judge correctness, and write scores.csv and results.{csv,md,tex,json}. "
        "Re-running with the same settings makes no LLM call.",
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--dataset", help=f"{dataset_names()} (shipped 300-question samples)")
    src.add_argument("--data", help="your CSV/JSONL with question and answer columns")
    src.add_argument(
        "--from",
        dest="from_folder",
        metavar="FOLDER",
        help="re-run the evaluation FOLDER/config.json records (its sample, every option and its "
        "model; the LLM cache answers what it holds); -o names the new folder",
    )
    add_sample_args(p)
    p.add_argument(
        "--methods", default="all", help="all, inv, baselines, or a comma list of method names"
    )
    p.add_argument(
        "--judge",
        # experiment.JUDGES and evaluation.correctness.DEFAULT_JUDGE (checked by tests/test_config.py)
        choices=("paraphrase", "match", "paraphrase-llm", "llm"),
        default="paraphrase",
        help="correctness: the rules per dataset, also accepting the reference in other words "
        "(paraphrase, default, offline); the rules alone (match); paraphrase with the LLM "
        "deciding the unclear answers (paraphrase-llm); or the paper's LLM judge prompt (llm). "
        "scores.csv's judge_reason says why each answer was judged so",
    )
    p.add_argument(
        "--n-bootstrap-metrics",
        "--n-boot",  # its older name; still accepted
        dest="n_bootstrap_metrics",
        type=int,
        default=None,
        help="bootstrap resamples of the metrics (default: 1,000, metrics.N_BOOTSTRAP; "
        "the paper's 40 with --profile paper or released-code)",
    )
    p.add_argument(
        "-o", "--out", default=None, help="output folder (default runs/evaluate-<dataset>)"
    )
    add_fresh_arg(p)
    p.add_argument(
        "--labels",
        default=None,
        metavar="FILE",
        help="a relabel file (JSON Lines: id, label, answer, reason, when, who): added to the "
        "folder's relabels.jsonl; the metrics apply it, scores.csv keeps the judge's labels",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    add_config_args(p)
    add_llm_args(p)
    p.set_defaults(func=main)


def dataset_names() -> str:
    """The shipped samples, from ``datasets.DATASETS``: ``"triviaqa, …, gsm8k or arithmetic"``."""
    *head, last = available_datasets()
    return f"{', '.join(head)} or {last}"


def add_sample_args(p: argparse.ArgumentParser) -> None:
    """--limit and --sample-seed (a seeded shuffled draw by default)."""
    p.add_argument(
        "--limit", type=int, default=None, help="N questions, drawn at random with --sample-seed"
    )
    p.add_argument(
        "--sample-seed",
        type=parse_optional(int),
        default=0,
        help="seed of the --limit draw (default 0; 'none': the first N in file order)",
    )
    p.add_argument(
        "--difficulty",
        type=parse_levels,
        default=None,
        metavar="LEVELS",
        help="only questions of these difficulty levels, before the draw: '4-5' or '3,5' "
        "(the arithmetic testbed's levels 1 easy … 5 hard)",
    )


def add_fresh_arg(p: argparse.ArgumentParser) -> None:
    """--fresh: start over in a folder made with another LLM (refused without it)."""
    p.add_argument(
        "--fresh",
        action="store_true",
        help="use an output folder made with another LLM: none of its runs or scores is "
        "reused (without it such a folder is refused)",
    )


def with_llms(cfg: Any, args: argparse.Namespace, llm: Any) -> Any:
    """The experiment config with the LLM identities it runs with (None where not known)."""
    known = not (args.llm == "openai" and not args.model)  # else the server names it
    para = paraphrase_identity(args, llm)
    return dataclasses.replace(
        cfg,
        llm=identity_from_args(args, llm) if known else None,
        paraphrase_llm=None if para == "openai" else para,
    )


#: Highest difficulty level --difficulty accepts (a file's own levels included).
MAX_LEVEL = 1_000


def parse_levels(text: str) -> tuple[int, ...]:
    """``"4-5"`` -> ``(4, 5)``, ``"3,5"`` -> ``(3, 5)``, ``"2"`` -> ``(2,)``; anything else is refused."""
    levels: set[int] = set()
    for part in text.split(","):
        lo, sep, hi = part.strip().partition("-")
        try:
            first, last = int(lo), int(hi if sep else lo)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not a list of levels (write e.g. 4-5 or 3,5)"
            ) from None
        if first < 1 or last < first:
            raise argparse.ArgumentTypeError(f"{part.strip()!r} is not a range of levels >= 1")
        if last > MAX_LEVEL:  # checked before the range is made: 1-99999999999 filled memory
            raise argparse.ArgumentTypeError(
                f"{part.strip()!r}: levels go up to {MAX_LEVEL:,} at most (the testbed's are 1 … 5)"
            )
        levels.update(range(first, last + 1))
    return tuple(sorted(levels))


def experiment_config_from_args(args: argparse.Namespace, **extra):
    """Build the :class:`~invent_core.experiments.ExperimentConfig` of ``evaluate``/``tsu``'s options."""
    from ..evaluation.metrics import CONVENTIONS
    from ..experiments import ExperimentConfig

    methods = tuple(m.strip() for m in args.methods.split(",") if m.strip())
    check_methods(methods)  # an unknown name is refused before the folder or the estimate
    profile = getattr(args, "profile", None) or DEFAULT_PROFILE
    extra.setdefault("n_bootstrap_metrics", CONVENTIONS[get_profile(profile).intervals].n_bootstrap)
    return ExperimentConfig(
        run=config_from_args(args),
        profile=profile,
        dataset=args.dataset,
        data=args.data,
        limit=args.limit,
        sample_seed=args.sample_seed,
        difficulty=args.difficulty,
        methods=methods,
        **extra,
    )


def config_from_folder(args: argparse.Namespace) -> Any:
    """The experiment config FOLDER/config.json records, with ``args``' LLM set to its model.

    The model comes from ``config.llm`` (an identity ``local:…|model=qwen1.5b`` gives the
    spec ``qwen1.5b``); a folder that names none is refused (``recompute_results.py
    --record-model`` names it from the runs). Options typed beside ``--from`` are not
    mixed in: the folder's own are the evaluation.
    """
    from ..experiments import ExperimentConfig
    from ..experiments.recompute import model_spec

    path = Path(args.from_folder) / "config.json"
    if not path.is_file():
        raise SystemExit(
            f"evaluate: --from {args.from_folder}: {path} not found (not an evaluate folder)"
        )
    cfg = ExperimentConfig.from_dict(json.loads(path.read_text(encoding="utf-8"))["config"])
    if not cfg.llm:
        raise SystemExit(
            f"evaluate: --from {args.from_folder}: config.json names no model (made before it was "
            "recorded); run scripts/recompute_results.py --record-model on it first"
        )
    args.llm = model_spec(cfg.llm)
    if cfg.paraphrase_llm:
        args.paraphrase_llm = model_spec(cfg.paraphrase_llm)
    args.dataset, args.data, args.judge = cfg.dataset, cfg.data, cfg.judge
    return cfg


def main(args: argparse.Namespace) -> int:
    """Evaluate every method and print the table; a full disk exits 3, a busy folder 4 (as batch)."""
    return run_guarded(_main, args, writing=args.out or "")


def _main(args: argparse.Namespace) -> int:
    from ..batch.output import output_folder
    from ..experiments import EVALUATE_FILES, draw_examples
    from ..experiments.relabel import read_relabels

    if args.labels is not None:
        read_relabels(args.labels)  # a bad line is refused (file, line, field) before any work
    if args.from_folder is not None:
        cfg = config_from_folder(args)  # checked (and the model set) before any file is touched
    else:
        boot = (
            {}
            if args.n_bootstrap_metrics is None
            else {"n_bootstrap_metrics": args.n_bootstrap_metrics}
        )
        cfg = experiment_config_from_args(args, judge=args.judge, **boot)
    out = args.out or f"runs/evaluate-{cfg.dataset or 'data'}"
    examples, sample = draw_examples(cfg)
    check_llm_args(args)  # an unusable --llm fails before the folder is made
    # checked and locked before any work: a second evaluate of this folder exits 4 at once
    with output_folder(out, EVALUATE_FILES, [args.data] if args.data else []):
        return _evaluate_locked(args, cfg, out, examples, sample)


def _evaluate_locked(args: argparse.Namespace, cfg: Any, out: str, examples, sample) -> int:
    from ..experiments import evaluate

    llm = llm_from_args(args)
    identity = identity_from_args(args, llm)
    cfg = with_llms(cfg, args, llm)
    print(f"questions: {sample}", file=sys.stderr)
    para = paraphrase_identity(args, llm)
    seconds = print_estimate(cfg.run, identity, len(examples), para, llm=llm)
    try:
        with CliProgress(
            quiet=args.quiet, outer="questions", estimate=seconds, llm=llm
        ) as progress:
            res = evaluate(
                cfg,
                out,
                llm_factory=lambda: llm,
                progress=progress,
                fresh=args.fresh,
                labels=args.labels,
            )
    except Cancelled as err:
        return interrupted(str(err))
    except KeyboardInterrupt:
        return interrupted(f"the finished questions are kept in {out}/scores.csv")
    finally:
        llm.close()
    print_evaluation(res, identity)
    return 1 if res.failed else 0  # as batch: some failed, listed, retried on the next run


def print_evaluation(res: Any, identity: str) -> None:
    """Print the accuracy, the table (plain text), warnings, model advice and the files."""
    from ..evaluation.advice import model_advice
    from ..experiments import accuracy_line

    ev = res.evaluation
    centre = "value on the sample" if ev.centre == "sample" else "bootstrap mean"
    print(
        f"{accuracy_line(ev)}; {res.sample}; {centre} ± std [95 % interval] over "
        f"{ev.n_bootstrap} paired bootstrap resamples"
    )
    print(res.table.to_text())
    for line in res.warnings:
        print(f"warning: {line}", file=sys.stderr)
    if ev.n_questions:
        advice = model_advice(ev.accuracy, ev.n_questions, identity, surface="cli")
        if advice:
            print(f"advice: {advice}")
    print("files: " + ", ".join(res.files.values()))
