"""Build the shipped reference sets (``assets/reference/*.json``) from ``evaluate`` runs.

    python scripts/make_reference.py runs/evaluate-mmlu runs/evaluate-arithmetic
    python scripts/make_reference.py runs/evaluate-* --measures inv_entropy,lexsim
    python scripts/make_reference.py docs/results/evaluate-mmlu-100 --score padding=distinct

Each argument is an ``evaluate`` output folder (``config.json``, ``scores.csv``,
``runs/``). For each measure, the folder's per-question values and correctness
labels become one :class:`invent_core.evaluation.reference.ReferenceSet`, written as
``<out>/<folder>__<measure>__<settings hash>.json`` (``<folder>`` without ``evaluate-``). Its settings are what
:func:`invent_core.evaluation.reference.for_settings` matches a run against (the run's
perturber, n, r, temperature, embedder, kernel, measure and packaged LLM, see
``reference.MATCH_KEYS``), plus the dataset, the seed and where it came from.
Each reference question's text, its dataset and its embedding by the run's
embedder (float16, base64; the embedder's identity in ``question_embedder``) are
stored too, so that :func:`invent_core.evaluation.reference.place` can place a new question
among the reference questions like it. Questions that failed or a
method could not score are left out. No LLM call; the embedder is the packaged one.

``--score OPTION=VALUE`` (repeatable) builds the set of a folder with saved runs under
other scoring options: the runs are re-scored from their stored answers in a
temporary copy (:func:`invent_core.experiments.rescore.rescore_evaluation`), so a
reference follows a changed default (``padding=distinct``) without a new generation.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# the build itself is the library's (invent_core.experiments.own_reference), shared
# with ``invent reference build``; a folder's relabels.jsonl is applied when present
from invent_core.experiments.own_reference import (  # noqa: E402
    build_reference,
    reference_file_name,
    reference_provenance,
)

__all__ = ["build_reference", "main", "reference_file_name", "reference_provenance"]


def main(argv: list[str] | None = None) -> int:
    from invent_core.evaluation.reference import reference_dir

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("folders", nargs="+", type=Path, help="evaluate output folders")
    parser.add_argument("--measures", default="inv_entropy", help="comma list of method names")
    parser.add_argument("--out", type=Path, default=None, help="default: assets/reference")
    parser.add_argument(
        "--score",
        action="append",
        default=[],
        metavar="OPTION=VALUE",
        help="re-score the saved runs with this scoring option first (padding=distinct)",
    )
    args = parser.parse_args(argv)
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("scripts/make_reference.py"))
    changes = _score_changes(args.score)  # checked before any file is read
    out = args.out or reference_dir()
    with tempfile.TemporaryDirectory() as tmp:
        for folder in args.folders:
            measures = [m.strip() for m in args.measures.split(",") if m.strip()]
            source = _rescored_copy(folder, changes, measures, Path(tmp)) if changes else folder
            _write(source, measures, out)
    return 0


def _score_changes(pairs: list[str]) -> dict[str, str]:
    """``["padding=distinct"]`` → ``{"padding": "distinct"}``, each checked by ScoreConfig."""
    from invent_core.config import ScoreConfig

    changes = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"--score {pair!r}: write OPTION=VALUE (padding=distinct)")
        changes[key.strip()] = value.strip()
    try:
        ScoreConfig.from_dict({**ScoreConfig().to_dict(), **changes})
    except (TypeError, ValueError) as err:
        raise SystemExit(f"--score: {err}") from err
    return changes


def _rescored_copy(folder: Path, changes: dict, measures: list[str], tmp: Path) -> Path:
    """A copy of ``folder`` (same name) whose runs were re-scored under ``changes``."""
    from invent_core.csv_safe import read_csv, write_csv
    from invent_core.experiments.evaluation import SCORE_COLUMNS
    from invent_core.experiments.rescore import rescore_evaluation

    copy = tmp / folder.name
    shutil.copytree(folder / "runs", copy / "runs")
    meta = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    meta["config"]["run"]["score"].update(changes)
    (copy / "config.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
    rows = list(read_csv(folder / "scores.csv"))
    keep = [c for c in rows[0] if c in SCORE_COLUMNS or c in measures]
    write_csv(copy / "scores.csv", rows, keep)  # only the measures asked are re-scored
    if (folder / "relabels.jsonl").is_file():
        shutil.copy(folder / "relabels.jsonl", copy / "relabels.jsonl")
    rescore_evaluation(copy)
    return copy


def _write(folder: Path, measures: list[str], out: Path) -> None:
    for measure in measures:
        ref = build_reference(folder, measure=measure)
        path = ref.save(out / reference_file_name(ref))
        labels = "with labels" if ref.has_labels else "no labels"
        embedded = "question embeddings" if ref.embeddings is not None else "no questions"
        print(f"{path}: {ref.size} questions, {labels}, {embedded} ({folder})")


if __name__ == "__main__":
    raise SystemExit(main())
