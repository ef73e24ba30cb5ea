"""``python -m invent_core score FILE.json``: score responses you already have."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..config import RunConfig, ScoreConfig
from ..embedders import resolve_embedder
from ..llm.names import local_model
from ..perturb.gate import copies_warning
from ..questions import schema
from ..questions.samples import is_samples_file, read_samples, read_uqlm
from ..questions.schema import parse_json
from .common import add_config_args, add_llm_args, config_from_args
from .exits import run_guarded
from .reference import add_reference_arg, check_reference, reference_path
from .served import check_judge_server

#: The options of a served answer judge's server (``--answer-judge openai``).
JUDGE_SERVER = ("base_url", "model", "api_key_env", "concurrency")


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``score`` command."""
    p = sub.add_parser(
        "score",
        help="score already-generated responses (no LLM call)",
        description="Score a JSON file with keys 'questions' (original first, then its "
        "perturbations) and 'responses' (one list of r answers per question), or every "
        "question of a samples file (export-samples, docs/samples.md) with the settings it "
        "records; an option typed here wins.",
    )
    p.add_argument(
        "file", type=Path, help="JSON file with 'questions' and 'responses', or a samples file"
    )
    add_config_args(p, ScoreConfig)
    p.add_argument(
        "--made-by",
        metavar="LLM",
        default=None,
        help="the packaged model that generated the responses (qwen0.5b, qwen1.5b) with the "
        "default paraphrase perturber and temperature: Inv-Entropy is then also placed among "
        "the shipped reference runs of those settings (percentile, P(correct))",
    )
    add_reference_arg(p)
    add_llm_args(p, JUDGE_SERVER, "the server of a served answer judge (--answer-judge openai)")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.set_defaults(func=main)


def load_score_input(path: Path) -> tuple[list[str], list[list[str]]]:
    """Read and check the JSON input; errors name the file and the key.

    The file may start with a UTF-8 byte-order mark, holds at most
    :data:`~invent_core.questions.schema.FIELD_SIZE_LIMIT` bytes (one question
    set; the limit of one batch cell), and its shapes are checked by
    :func:`invent_core.engine.scoring.validate_responses`.
    """
    if not path.is_file():  # before any import: a wrong name is told at once
        raise FileNotFoundError(
            f"{path}: no such file" if not path.exists() else f"{path}: not a file"
        )
    from ..engine.scoring import validate_responses

    size = path.stat().st_size
    if size > schema.FIELD_SIZE_LIMIT:  # read at call time: one limit for every reader
        raise ValueError(
            f"{path}: the file is {size:,} bytes; the limit for one question set is "
            f"{schema.FIELD_SIZE_LIMIT:,} (score many question sets with the batch command)"
        )
    try:
        data = parse_json(path.read_bytes().decode("utf-8-sig"))
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from None
    except ValueError as err:  # parse_json's "invalid JSON (why at where)", said once
        why = str(err).removeprefix("invalid JSON (").removesuffix(")")
        raise ValueError(f"{path}: not valid JSON: {why}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object with keys 'questions' and 'responses'")
    for key in ("questions", "responses"):
        if key not in data:
            raise ValueError(f"{path}: missing key {key!r}")
    try:
        questions, responses = validate_responses(data["questions"], data["responses"])
    except ValueError as err:
        raise ValueError(f"{path}: {err}") from None
    blank = next((i for i, q in enumerate(questions) if not q.strip()), None)
    if blank is not None:  # batch refuses a blank question too; a blank wording asks nothing
        raise ValueError(f"{path}: questions[{blank}] is blank: every wording must ask something")
    return questions, responses


def load_samples(path: Path) -> list | None:
    """The samples of a samples file; None for any other file; UQLM's frame refused.

    UQLM's result frame has no rewordings, and every measure ``score`` prints
    needs them, so it is refused here, pointing to ``batch``, which scores its
    answers with the methods that need only replications.
    """
    if is_samples_file(path):
        return list(read_samples(path))
    if path.is_file() and path.suffix.lower() in (".csv", ".parquet", ".jsonl"):
        read_uqlm(path)  # refuses anything that is not UQLM's frame, naming the row and column
        raise ValueError(
            f"{path}: UQLM's result frame has no rewordings (each prompt is the original "
            "question alone, n = 0), and Inv-Entropy and its variants need the answers to "
            "reworded questions; score its answers with the methods that need only "
            f"replications: batch {path} -o scores.csv --methods semantic_entropy,lexsim,degmat"
        )
    return None


def main(args: argparse.Namespace) -> int:
    """Run the command; exit 2 on an unusable file, 141 when stdout is closed early."""
    return run_guarded(_main, args)


def _reference(
    res, config: ScoreConfig, made_by: str | None, question: str, *, embedder, where, own: bool
) -> tuple:
    """(line, describe dict or None) of Inv-Entropy among ``made_by``'s reference questions like ``question``.

    ``embedder``: the ψ that scored the answers (loaded once); ``where``: the
    references (:func:`~invent_core.commands.reference.reference_path`: ``--reference``
    or ``$INVENT_REFERENCE_DIR``; None, the shipped ones); ``own``: ``where`` is
    ``--reference``'s file, which places answers of an unknown model too.
    """
    from ..evaluation.reference import for_settings, own_placed, question_task, reference_line

    value = float(res.measures["inv_entropy"])
    task = question_task(question)  # answers given with no task: the question's answer format
    if own:  # --reference: the user's set, whoever made the answers
        ref = own_placed(question, embedder, task=task, path=where)  # (its settings checked)
        return reference_line(value, ref), ref.describe(value)
    if made_by is None:
        line = (
            "inv_entropy: responses from an unknown LLM, so no reference percentile "
            "(--made-by qwen0.5b if the packaged model made them)"
        )
        return line, None
    run = RunConfig(
        n_perturbations=res.n_perturbations, n_replications=res.n_replications, score=config
    )
    ref = for_settings(
        run, llm_identity=made_by, directory=where, question=question, embedder=embedder, task=task
    )
    described = ref.describe(value) if ref is not None else None
    return reference_line(value, ref), described


def _main(args: argparse.Namespace) -> int:
    check_judge_server(args)  # the key's variable and the URLs, before any file is read
    config = config_from_args(args, ScoreConfig)
    if args.made_by is not None and local_model(args.made_by) is None:
        raise ValueError(
            f"--made-by: {args.made_by!r} is not a packaged model (qwen0.5b, qwen1.5b)"
        )
    samples = load_samples(args.file)
    if samples is not None:
        return _score_samples(args, samples)
    questions, responses = load_score_input(args.file)
    if len(questions) < 2:  # one state: Inv-Entropy is 0 whatever the answers
        raise ValueError(
            f"{args.file}: questions holds the question alone (n = 0); Inv-Entropy and its "
            "variants need its rewordings after it (batch scores such answers with --methods "
            "that need only replications)"
        )
    if args.reference is not None:  # n and r are the file's: checked once it is read
        shape = RunConfig(
            n_perturbations=len(questions) - 1, n_replications=len(responses[0]), score=config
        )
        check_reference(args.reference, shape, args.made_by)
    from ..engine.scoring import score_responses

    similarity = resolve_embedder(None, config)  # once: the scores and the placement
    res = score_responses(questions, responses, config, embedder=similarity)
    _report(args, res, config, embedder=similarity)
    return 0


def _score_samples(args: argparse.Namespace, samples: list) -> int:
    """Every question of a samples file, each with the scoring settings (and model) it records."""
    from ..engine.scoring import score_responses

    configs = []
    for s in samples:  # every check first: a bad sample stops before any score
        if not s.perturbations:
            raise ValueError(
                f"{args.file}: question {s.id!r} has no rewordings (n = 0); Inv-Entropy and its "
                "variants need them (batch scores such answers with --methods that need only "
                "replications)"
            )
        try:
            base = ScoreConfig.from_dict(s.settings["score"]) if "score" in s.settings else None
        except (TypeError, ValueError, AttributeError) as err:
            raise ValueError(f"{args.file}: question {s.id!r}: settings.score: {err}") from None
        configs.append(config_from_args(args, ScoreConfig, base=base))
    reports = []
    for s, config in zip(samples, configs, strict=True):
        similarity = resolve_embedder(None, config)  # once a sample: its scores and placement
        res = score_responses(s.questions, s.responses, config, embedder=similarity)
        if not args.json:
            print(f"{s.id}: {s.question}")
        made_by = args.made_by or local_model(str(s.model.get("llm") or ""))  # as recorded
        out = _report(args, res, config, quiet=args.json, made_by=made_by, embedder=similarity)
        reports.append({"id": s.id, **out})
    if args.json:
        print(json.dumps(reports, indent=2))
    return 0


def _report(args, res, config: ScoreConfig, *, embedder, quiet: bool = False, made_by=None) -> dict:
    """Print one question set's scores (text, or JSON unless ``quiet``); the JSON object.

    ``made_by``: the packaged model that made the answers (``--made-by``, or what a
    samples file records); None: ``--made-by``. ``embedder``: the ψ that scored them.
    """
    line, described = _reference(
        res,
        config,
        made_by or args.made_by,
        res.questions[0],
        embedder=embedder,
        where=reference_path(args),
        own=args.reference is not None,
    )
    out = {
        "measures": res.measures,
        "intervals_90": {k: res.interval(k) for k in res.measures},
        "embedder": res.embedder,
        "n_perturbations": res.n_perturbations,
        "n_replications": res.n_replications,
        "n_bootstrap": config.n_bootstrap,
        "seed": config.seed,
        "config": config.to_dict(),
        "reference": described,
        # every rewording a copy of the question: the scores say nothing (as run and batch say)
        "degenerate": copies_warning(
            res.questions[0], res.questions[1:], "the file's rewordings repeat it"
        ),
    }
    if args.json:
        if not quiet:
            print(json.dumps(out, indent=2))
        return out
    print(
        f"{res.n_perturbations} perturbations × {res.n_replications} replications, "
        f"B = {config.n_bootstrap}, embedder {res.embedder}, affinity {config.affinity}, "
        f"answers compared by {config.answer_similarity}, padding {config.padding}"
    )
    for name, value in res.measures.items():
        lo, hi = res.interval(name)
        print(f"  {name:<16} {value:8.4f}   90% [{lo:.4f}, {hi:.4f}]")
    print("higher = more uncertain")
    print(line)
    if out["degenerate"]:
        print(f"warning: {out['degenerate']}", file=sys.stderr)
    return out
