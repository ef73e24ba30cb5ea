"""Recompute ``results.*`` of saved evaluations from their ``scores.csv`` (no LLM call).

    python scripts/recompute_results.py docs/results/evaluate-*

Each folder's per-question scores are evaluated again with today's metrics: the
value on the sample, the std and a 95 % percentile interval over 1,000 paired
resamples, the paired block of Inv-Entropy and the best baseline, what the table
measured. The reviewer's relabels (``relabels.jsonl``) are applied; ``--labels FILE``
adds a relabel file to a folder's layer first. ``config.json`` keeps the provenance of the scores (or says they were
made before provenance was recorded) and records the recomputation.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from invent_core.evaluation.metrics import N_BOOTSTRAP  # noqa: E402
from invent_core.experiments import recompute_evaluation  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Recompute every folder given that holds a config.json and a scores.csv."""
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("folders", nargs="+", type=Path)
    p.add_argument("--n-bootstrap", type=int, default=N_BOOTSTRAP)
    p.add_argument("--labels", type=Path, default=None, help="relabel file added to each layer")
    args = p.parse_args(argv)
    if args.n_bootstrap < 1:
        p.error(f"--n-bootstrap must be at least 1, got {args.n_bootstrap}")
    for folder in args.folders:
        res = recompute_evaluation(folder, n_bootstrap=args.n_bootstrap, labels=args.labels)
        print(f"{folder}: {res.evaluation.n_questions} questions, {res.judgement.reason}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
