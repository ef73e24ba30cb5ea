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
import dataclasses
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def llm_identity_of(folder: Path) -> str | None:
    """The LLM identity recorded by the folder's saved runs (the first that has one)."""
    for path in sorted((folder / "runs").glob("*.json")):
        try:
            identities = json.loads(path.read_text(encoding="utf-8")).get("identities") or {}
        except (OSError, ValueError):
            continue
        if identities.get("llm"):
            return str(identities["llm"])
    return None


def build(folder: Path, measure: str):
    """The reference set of one evaluate folder and one measure."""
    from invent_core.config import RunConfig
    from invent_core.evaluation.reference import ReferenceSet, reference_settings

    meta = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    cfg = meta["config"]
    config = RunConfig.from_dict(cfg["run"]) if "run" in cfg else RunConfig.from_settings(cfg)
    settings = reference_settings(config, llm_identity_of(folder), measure)
    settings |= {
        "dataset": cfg.get("dataset") or Path(str(cfg.get("data"))).stem,
        "seed": config.seed,
        "sample": meta.get("sample", ""),
        "source": folder.name,
    }
    ref = ReferenceSet.from_scores_csv(folder / "scores.csv", measure=measure, settings=settings)
    ref = dataclasses.replace(ref, provenance=reference_provenance(meta))
    if ref.questions is None:
        return ref  # an old scores.csv without questions: a pooled-only reference
    from invent_core.embedders import get_embedder

    return ref.with_embeddings(get_embedder(config.score.embedder))


def reference_provenance(meta: dict) -> dict:
    """The code that built the set, and that of the evaluation it was built from."""
    from invent_core.provenance import BEFORE_PROVENANCE, provenance

    return {**provenance(), "scores": meta.get("provenance") or {"source": BEFORE_PROVENANCE}}


def file_name(ref) -> str:
    """``<source>__<measure>__<8 hex of the matched settings>.json``.

    ``<source>`` is the evaluate folder's name without ``evaluate-``
    (``arithmetic``, ``arithmetic-heldout``): two samples of one dataset with
    the same settings are two files, both pooled by ``for_settings``.
    """
    from invent_core.evaluation.reference import MATCH_KEYS

    key = json.dumps({k: ref.settings.get(k) for k in MATCH_KEYS}, sort_keys=True)
    digest = hashlib.sha1(key.encode()).hexdigest()[:8]
    source = str(ref.settings.get("source") or ref.settings["dataset"]).removeprefix("evaluate-")
    return f"{source}__{ref.settings['measure']}__{digest}.json"


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
            ref = build(folder, measure)
            path = ref.save(out / file_name(ref))
            labels = "with labels" if ref.has_labels else "no labels"
            embedded = "question embeddings" if ref.embeddings is not None else "no questions"
            print(f"{path}: {ref.size} questions, {labels}, {embedded} ({folder})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
