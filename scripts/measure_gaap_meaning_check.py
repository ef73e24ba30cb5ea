"""Would the gate's meaning check help GAAP? Saved GAAP runs re-scored with it (no LLM).

GAAP's WordNet mutations break arithmetic questions ("What is 2
asset six?", "How many centimetres are in 5 Mississippi?"), and Inv-Entropy on
GAAP runs falls to chance on the arithmetic testbed. This re-scores the saved
runs of a ``--perturber gaap`` evaluation as if the final set had kept only
members that :func:`invent_core.perturb.gaap_sampling.breaks_question` does not flag for a
lost number or name or a changed meaning, padding the set back to n with copies
of the kept members (the paper's duplication rule; the question itself when none
is kept), and reports Inv-Entropy's AUROC both ways over the same paired resamples.

A lower bound of the option's effect: a real run with the check picks other
unflagged members of the population instead of copies.

    python scripts/measure_gaap_meaning_check.py /work/evals/evaluate-arithmetic-100-gaap
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from invent_core import env  # noqa: E402,F401  offline before any model import


def checked(run: dict, rng: np.random.Generator) -> tuple[dict, int]:
    """``run`` with flagged perturbations replaced by copies of kept ones; and how many were."""
    from invent_core.perturb.gaap_sampling import breaks_question

    question, states = run["questions"][0], run["questions"][1:]
    flagged = [breaks_question(s, question) for s in states]
    kept = [i + 1 for i, f in enumerate(flagged) if not f] or [0]
    rows = [0] + [i + 1 if not f else kept[int(rng.integers(len(kept)))]
                  for i, f in enumerate(flagged)]  # fmt: skip
    out = dict(run, questions=[run["questions"][j] for j in rows],
               responses=[run["responses"][j] for j in rows])  # fmt: skip
    return out, sum(flagged)


def main() -> int:
    from breakdown import judged_runs, paired_delta, paired_inputs, rescore

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folder", type=Path)
    p.add_argument("--n-boot", type=int, default=200)
    args = p.parse_args()
    from invent_core.provenance import provenance, provenance_line  # the code behind this printout

    print(provenance_line("scripts/measure_gaap_meaning_check.py"), file=sys.stderr)
    rows, runs = judged_runs(args.folder)
    rng = np.random.default_rng(0)
    fixed = [checked(run, rng) for run in runs]
    correct, base, idx = paired_inputs(rows, args.n_boot, 0)
    after = rescore([f[0] for f in fixed])
    n_flagged = np.array([f[1] for f in fixed])
    out = {"folder": args.folder.name, "n_questions": len(rows), "n_correct": int(correct.sum()),
           "n_boot": args.n_boot,
           "flagged_per_question": {"mean": float(n_flagged.mean()),
                                    "all_flagged": int(sum(f == len(run["questions"]) - 1
                                                        for f, run in zip(n_flagged, runs)))},
           "as_saved": paired_delta(correct, base, base, idx)["auroc"],
           "meaning_checked": paired_delta(correct, base, after, idx)["auroc"],
           "provenance": provenance()}  # fmt: skip
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
