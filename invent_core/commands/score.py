"""``python -m invent_core score FILE.json``: score responses you already have."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..config import ScoreConfig
from ._common import add_config_args, config_from_args


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``score`` command."""
    p = sub.add_parser(
        "score",
        help="score already-generated responses (no LLM call)",
        description="Score a JSON file with keys 'questions' (original first, then its "
        "perturbations) and 'responses' (one list of r answers per question).",
    )
    p.add_argument("file", type=Path, help="JSON file with 'questions' and 'responses'")
    add_config_args(p, ScoreConfig)
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.set_defaults(func=main)


def load_score_input(path: Path) -> tuple[list, list]:
    """Read and check the JSON input; errors name the file and the key."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such file") from None
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from None
    except json.JSONDecodeError as err:
        raise ValueError(
            f"{path}: not valid JSON (line {err.lineno}, column {err.colno}: {err.msg})"
        ) from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object with keys 'questions' and 'responses'")
    for key in ("questions", "responses"):
        if key not in data:
            raise ValueError(f"{path}: missing key {key!r}")
    return data["questions"], data["responses"]


def main(args: argparse.Namespace) -> int:
    """Score the file's responses and print the measures."""
    from ..scoring import score_responses

    config = config_from_args(args, ScoreConfig)
    questions, responses = load_score_input(args.file)
    res = score_responses(questions, responses, config)
    if args.json:
        out = {
            "measures": res.measures,
            "intervals_90": {k: res.interval(k) for k in res.measures},
            "embedder": res.embedder,
            "n_perturbations": res.n_perturbations,
            "n_replications": res.n_replications,
            "n_bootstrap": config.n_bootstrap,
            "seed": config.seed,
            "config": config.to_dict(),
        }
        print(json.dumps(out, indent=2))
        return 0
    print(
        f"{res.n_perturbations} perturbations × {res.n_replications} replications, "
        f"B = {config.n_bootstrap}, embedder {res.embedder}, affinity {config.affinity}"
    )
    for name, value in res.measures.items():
        lo, hi = res.interval(name)
        print(f"  {name:<16} {value:8.4f}   90% [{lo:.4f}, {hi:.4f}]")
    print("higher = more uncertain")
    return 0
