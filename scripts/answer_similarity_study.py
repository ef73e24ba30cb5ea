"""ψ_y × padding on every shipped evaluation with saved runs: re-scored, no new generation.

    python scripts/answer_similarity_study.py                      # all docs/results folders
    python scripts/answer_similarity_study.py docs/results/evaluate-mmlu-100 --out study.json

What is measured per option and folder: :mod:`invent_core.experiments.answer_study`.
The judge option asks the packaged model (``--judge``) about the answer pairs the
rules leave undecided, through the LLM cache (a second run asks nothing). Writes
``docs/results/answer_similarity_study.json`` by default, which
``scripts/make_results.py`` renders as the RESULTS section "Answer similarity and
padding".
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "docs" / "results" / "answer_similarity_study.json"


def folders(given: list[str]) -> list[Path]:
    """The folders named, or every evaluate folder of docs/results that kept its runs."""
    if given:
        return [Path(g) for g in given]
    return sorted(
        p for p in (ROOT / "docs" / "results").glob("evaluate-*") if (p / "runs").is_dir()
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", help="evaluate folders (default: the shipped ones)")
    parser.add_argument("--judge", default="local", help="the answer judge (an LLM spec)")
    parser.add_argument("--out", type=Path, default=OUT, help="JSON written here")
    parser.add_argument("-B", "--n-bootstrap", type=int, default=1000)
    parser.add_argument(
        "--judge-limit",
        type=int,
        default=500,
        help="leave the judge out of a folder with more undecided answer pairs than this",
    )
    args = parser.parse_args()
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("scripts/answer_similarity_study.py"))
    from invent_core import env  # noqa: F401  (offline before any model import)
    from invent_core.experiments.answer_study import study_folder
    from invent_core.provenance import provenance

    t0 = time.perf_counter()
    out = {"provenance": provenance(), "folders": []}
    for folder in folders(args.folders):
        print(f"{folder.name} (load {os.getloadavg()[0]:.1f})", flush=True)
        got = study_folder(
            folder,
            judge=args.judge,
            n_bootstrap=args.n_bootstrap,
            judge_limit=args.judge_limit,
            progress=lambda line: print("  " + line, flush=True),
        )
        out["folders"].append(got)
        for label, cell in got["options"].items():
            parts = "  ".join(
                f"{k} {cell[k]['value']:.3f}" for k in ("tune", "report", "all") if k in cell
            )
            strata = cell["within_count_strata"]["value"]
            print(f"  {label:20s} {parts}  within count strata {strata:.3f}")
    out["seconds"] = round(time.perf_counter() - t0, 1)
    out["load_average"] = round(os.getloadavg()[0], 2)
    args.out.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out} in {out['seconds']:.0f} s")


if __name__ == "__main__":
    main()
