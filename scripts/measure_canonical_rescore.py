"""Inv-Entropy re-scored on the canonical answers instead of the replies (no LLM call).

A diagnostic for evaluations where Inv-Entropy is at chance while counting
canonical answers separates (SciQ with the 1.5B, RESULTS "Where the
uncertainty comes from"): is the walk misled by the wording of full-sentence
replies? Every saved run of each folder is re-scored with each reply replaced
by its canonical form (``evaluation.normalize_answer``: the number, the option
letter, the cleaned name) under the run's own score settings; the AUROC of the
saved and the re-scored values are printed side by side (whole sample, no
bootstrap).

    python scripts/measure_canonical_rescore.py docs/results/evaluate-sciq-140-1.5b
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from invent_core import env  # noqa: E402,F401  offline before any model import


def canonical_values(runs: list[dict]) -> np.ndarray:
    """Inv-Entropy of each run with its replies replaced by their canonical forms."""
    from invent_core.config import ScoreConfig
    from invent_core.engine.scoring import score_responses
    from invent_core.evaluation import normalize_answer

    out = []
    for run in runs:
        cfg = ScoreConfig.from_dict(run["score"]["config"])
        replies = [[normalize_answer(a) or a for a in reps] for reps in run["responses"]]
        out.append(score_responses(run["questions"], replies, cfg).measures["inv_entropy"])
    return np.array(out)


def main(argv: list[str] | None = None) -> int:
    from breakdown import DEFAULT, judged_runs

    from invent_core.evaluation.metrics import auroc_score

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folders", type=Path, nargs="+")
    args = p.parse_args(argv)
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("scripts/measure_canonical_rescore.py"))
    for folder in args.folders:
        rows, runs = judged_runs(folder)
        correct = np.array([int(r["correct"]) for r in rows])
        saved = np.array([float(r[DEFAULT]) for r in rows])
        print(f"{folder.name}: {len(rows)} questions; Inv-Entropy AUROC "
              f"{auroc_score(correct, saved):.3f} on the replies, "
              f"{auroc_score(correct, canonical_values(runs)):.3f} on the canonical answers")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
