"""The home page's pair: one question the packaged model gets right, one it gets wrong.

    python scripts/make_demo_pair.py docs/results/evaluate-arithmetic-100   # → assets/demo_pair.json

Reads an ``evaluate`` folder by the one reader of an evaluation folder
(:func:`~invent_core.experiments.folder.read_evaluation`: the judge's labels,
a reviewer's relabels over them; ``runs/*.json`` the saved runs), re-scores
every judged run with today's default scoring
(:class:`~invent_core.config.ScoreConfig`: no LLM call) and picks, **in each class, the question whose Inv-Entropy is the
class median** (the lower median for an even count) — a typical right and a
typical wrong answer, not the two most extreme. The pair is written with its
source, the rule and both classes' sizes, so the home page can say how it was
chosen, and with who made it under ``provenance.demo``
(:func:`invent_ui.assets.demo_provenance`: commit, tree, day, this command and
the model that answered), which the home page's caption shows.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FORMAT = "invent.demo-pair/1"


def judged_runs(folder: Path) -> list[tuple[dict, object]]:
    """(scores.csv row, RunArtifact re-scored with the default ScoreConfig) of every judged question."""
    from invent_core.config import ScoreConfig
    from invent_core.engine.artifact import RunArtifact
    from invent_core.experiments.folder import read_evaluation

    by_question = {}
    for path in sorted((folder / "runs").glob("*.json")):
        run = RunArtifact.load(path)
        by_question[run.question.strip()] = run
    out = []
    for row in read_evaluation(folder).judged:  # correct is 0 or 1, relabels applied
        run = by_question.get(row["question"].strip())
        if run is not None:
            out.append((row, run.rescore(ScoreConfig())))
    return out


def median_of(items: list[tuple[dict, object]]) -> tuple[dict, object]:
    """The item whose Inv-Entropy is the (lower) median of ``items``."""
    ranked = sorted(items, key=lambda it: it[1].measures["inv_entropy"])
    return ranked[(len(ranked) - 1) // 2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("folder", type=Path, help="an evaluate output folder")
    parser.add_argument("--out", type=Path, default=ROOT / "assets" / "demo_pair.json")
    args = parser.parse_args(argv)
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("scripts/make_demo_pair.py"))

    from invent_core.csv_safe import atomic_file
    from invent_core.experiments.folder import read_evaluation
    from invent_core.experiments.own_reference import llm_identity_of
    from invent_ui.assets import demo_provenance

    argv = sys.argv[1:] if argv is None else argv
    made = demo_provenance("scripts/make_demo_pair.py", argv, llm_identity_of(args.folder))
    items = judged_runs(args.folder)
    right = [it for it in items if int(it[0]["correct"]) == 1]
    wrong = [it for it in items if int(it[0]["correct"]) == 0]
    if not right or not wrong:
        raise SystemExit(f"{args.folder}: need at least one right and one wrong answer")
    pair = []
    for label, group in (("right", right), ("wrong", wrong)):
        row, run = median_of(group)
        pair.append(
            {
                "label": label,
                "id": row["id"],
                "reference": row["reference"],
                "canonical": row.get("canonical") or row["response"],
                "correct": label == "right",
                "run": run.to_dict(),
            }
        )
        print(f"{label}: {run.question!r} inv_entropy {run.measures['inv_entropy']:.4f}")
    where = args.folder.resolve()
    source = str(where.relative_to(ROOT)) if where.is_relative_to(ROOT) else str(where)
    payload = {
        "format": FORMAT,
        "source": source,
        "rule": "in each class, the question whose Inv-Entropy is the class median",
        "n_right": len(right),
        "n_wrong": len(wrong),
        "pair": pair,
        "provenance": {
            "source": source,
            "runs": read_evaluation(args.folder).meta.get("provenance"),  # who made the answers
            "demo": {**made, "from": source},  # who re-scored and picked them
        },
    }
    with atomic_file(args.out) as f:
        f.write(json.dumps(payload, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
