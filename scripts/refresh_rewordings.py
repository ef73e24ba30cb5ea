"""Make again only the questions whose rewordings today's rules would choose otherwise.

    python scripts/refresh_rewordings.py docs/results/evaluate-*            # say what changed
    python scripts/refresh_rewordings.py --set-aside docs/results/evaluate-sciq-140-1.5b

Each saved run's candidate rewordings are judged again by today's gate
(:func:`invent_core.experiments.replay.rewording_drift`, no LLM call). A folder
whose runs all get their saved verdicts is the folder this commit would make
(`recompute_results.py --check-stale` records that for RESULTS). With
``--set-aside`` the runs that would change move to ``runs-replaced/`` and leave
``scores.csv``; the printed evaluate call then makes those questions again with
today's rules and reuses every other one (the LLM cache answers what was asked before).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from invent_core.experiments.replay import REPLACED, rewording_drift, set_aside  # noqa: E402
from invent_core.provenance import provenance_line  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folders", nargs="+", type=Path, help="evaluate folders with runs/")
    p.add_argument("--set-aside", action="store_true",
                   help=f"move the runs that would change to {REPLACED}/ and drop their rows")  # fmt: skip
    args = p.parse_args(argv)
    for folder in args.folders:
        if not (folder / "runs").is_dir():
            p.error(f"{folder}: no runs/ folder (not an evaluate folder with its saved runs)")
    print(provenance_line("scripts/refresh_rewordings.py"))  # the code behind this printout
    for folder in args.folders:
        drift = rewording_drift(folder)
        print(f"{folder}: round {drift.rules} replayed on {drift.replayed} runs; "
              f"{len(drift.changed)} would get other perturbations; "
              f"{len(drift.unavailable)} could not be replayed")  # fmt: skip
        for name, flips in drift.examples.items():
            f = flips[0]
            now = "rejected" if f["reason"] else "accepted"
            print(f"  {name}: round {f['round']} {f['text']!r} now {now} {f['detail']}".rstrip())
        for name, why in drift.unavailable.items():
            print(f"  {name}: not replayed: {why}")
        if args.set_aside and drift.changed:
            dropped = set_aside(folder, drift.changed)
            print(f"  set aside {len(drift.changed)} runs in {folder / REPLACED} "
                  f"({len(dropped)} rows left scores.csv); make them again with:\n"
                  f"  python -m invent_core evaluate --from {folder} -o {folder}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
