"""Build the shipped reference sets (``assets/reference/*.json``) from ``evaluate`` runs.

    python scripts/make_reference.py runs/evaluate-mmlu runs/evaluate-arithmetic
    python scripts/make_reference.py runs/evaluate-* --measures inv_entropy,lexsim

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
"""

from __future__ import annotations

import argparse
import sys
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
    args = parser.parse_args(argv)
    out = args.out or reference_dir()
    for folder in args.folders:
        for measure in [m.strip() for m in args.measures.split(",") if m.strip()]:
            ref = build_reference(folder, measure=measure)
            path = ref.save(out / reference_file_name(ref))
            labels = "with labels" if ref.has_labels else "no labels"
            embedded = "question embeddings" if ref.embeddings is not None else "no questions"
            print(f"{path}: {ref.size} questions, {labels}, {embedded} ({folder})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
