"""Recompute ``results.*`` of saved evaluations from their ``scores.csv`` (no LLM call).

    python scripts/recompute_results.py docs/results/evaluate-*

Each folder's per-question scores are evaluated again with today's metrics: the
value on the sample, the std and a 95 % percentile interval over 1,000 paired
resamples, the paired block of Inv-Entropy and the best baseline, what the table
measured. The reviewer's relabels (``relabels.jsonl``) are applied; ``--labels FILE``
adds a relabel file to a folder's layer first. ``config.json`` keeps the provenance of the scores (or says they were
made before provenance was recorded) and records the recomputation.

``--rescore`` goes further: every saved run under ``runs/`` is scored again by
today's code (no LLM call: P(True) and VU read the answers the runs keep) and
judged again (``--judge`` names another offline judge), so the scores and the
labels, not only the metrics, are made by this commit; a method that would need
the LLM is left without a value and named.

``--record-model`` names the model in ``config.json`` (spec and identity) from the
identities its saved runs recorded, for folders made when config.json kept none.

``--check-stale`` writes nothing but ``stale_check.json``: every saved run is
scored and judged again in memory and compared with ``scores.csv``; the folder
is stale when and only when a value moves by more than ``--tolerance``, a
label changes, or today's rewording rules would choose other perturbations for a
question (the gate's verdicts replayed on the candidates each run saved); RESULTS
reads the file and says so beside the table.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from invent_core.evaluation.correctness import JUDGE_METHODS, LLM_JUDGES  # noqa: E402
from invent_core.evaluation.metrics import N_BOOTSTRAP  # noqa: E402
from invent_core.experiments import recompute_evaluation  # noqa: E402
from invent_core.experiments.recompute import record_model  # noqa: E402
from invent_core.experiments.rescore import rescore_evaluation  # noqa: E402
from invent_core.experiments.staleness import (  # noqa: E402
    TOLERANCE,
    rescore_drift,
    write_stale_check,
)

OFFLINE_JUDGES = [j for j in JUDGE_METHODS if j not in LLM_JUDGES]


def main(argv: list[str] | None = None) -> int:
    """Recompute every folder given that holds a config.json and a scores.csv."""
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("folders", nargs="+", type=Path)
    p.add_argument("--n-bootstrap", type=int, default=N_BOOTSTRAP)
    p.add_argument("--labels", type=Path, default=None, help="relabel file added to each layer")
    p.add_argument("--rescore", action="store_true", help="score and judge the saved runs again")
    p.add_argument("--judge", choices=OFFLINE_JUDGES, default=None,
                   help="with --rescore: the judge (default: the folder's own)")  # fmt: skip
    p.add_argument("--check-stale", action="store_true",
                   help="re-score the saved runs in memory and write stale_check.json only")  # fmt: skip
    p.add_argument("--record-model", action="store_true",
                   help="name the model in config.json from the saved runs' identities, nothing else")  # fmt: skip
    p.add_argument("--tolerance", type=float, default=TOLERANCE,
                   help="with --check-stale: the largest change that is still the same number")  # fmt: skip
    args = p.parse_args(argv)
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("scripts/recompute_results.py"))
    if args.check_stale and (args.rescore or args.labels):
        p.error("--check-stale writes only stale_check.json: give it without --rescore / --labels")
    if not args.tolerance >= 0:
        p.error(f"--tolerance must be at least 0, got {args.tolerance}")
    if args.n_bootstrap < 1:
        p.error(f"--n-bootstrap must be at least 1, got {args.n_bootstrap}")
    if args.judge and not args.rescore:
        p.error("--judge needs --rescore (the labels are made when the runs are judged)")
    if args.rescore and args.labels:
        p.error("--labels with --rescore: rescore first, then add the relabels")
    for folder in args.folders:
        if args.record_model:
            block = record_model(folder)
            print(f"{folder}: model {(block['llm'] or {}).get('spec')}; {block['source']}")
            continue
        if args.check_stale:
            check = rescore_drift(folder, tolerance=args.tolerance)
            write_stale_check(folder, check)
            moved = ", ".join(check.moved) or "nothing"
            reworded = len((check.rewordings or {}).get("changed", ()))
            print(f"{folder}: {'STALE' if check.stale else 'not stale'}; moved: {moved}; metrics moved by {check.metrics_change:.2g}; "
                  f"labels changed: {check.labels_changed}; questions reworded otherwise: {reworded}")  # fmt: skip
            continue
        if args.rescore:
            rep = rescore_evaluation(folder, judge=args.judge, n_bootstrap=args.n_bootstrap)
            print(f"{folder}: rescored {rep.result.evaluation.n_questions} questions, "
                  f"{rep.relabelled} verdicts changed; {rep.result.judgement.reason}")  # fmt: skip
            for m, why in rep.unavailable.items():
                print(f"  {m}: no value on {why}")
            continue
        res = recompute_evaluation(folder, n_bootstrap=args.n_bootstrap, labels=args.labels)
        print(f"{folder}: {res.evaluation.n_questions} questions, {res.judgement.reason}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
