"""Regenerate the dashboard's demo run and GAAP trace with the real pipeline.

    python scripts/make_demo_run.py --no-cache   # assets/demo_run.json + assets/demo_gaap.json

One ``run_question`` call with the local default LLM (paper defaults n = 9,
r = 5, B = 30, temperature 0.7) and the GAAP perturber: the run is
``assets/demo_run.json`` and its GAAP trace, as a ``GaapResult``, is
``assets/demo_gaap.json``. GAAP is the default here because it needs no LLM to
perturb (KeyBERT + WordNet), so the demo does not depend on how well the small
local model paraphrases; ``--perturber paraphrase`` makes a paraphrase demo run.
Both files record who made them under ``provenance.demo``
(:func:`invent_ui.assets.demo_provenance`: commit, tree, day, this command and
the answering model), which the Explore, Compare embedders and GAAP pages show.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: The paper's running GAAP example (Appendix "GAAP Implementation Details"), from TriviaQA.
DEMO_QUESTION = (
    "Which golfer became only the fifth in history to get both the British and US Open "
    "championships in the same year, in 1982?"
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--question", default=DEMO_QUESTION)
    parser.add_argument("--perturber", choices=("gaap", "paraphrase"), default="gaap")
    parser.add_argument("--llm", default="local")
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="ask the model every time (the shipped demo: its timings and usage are the "
        "model's, which the Explore page and the time estimates read, not the cache's)",
    )
    parser.add_argument("-n", "--n-perturbations", type=int, default=9)
    parser.add_argument("-r", "--n-replications", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "assets" / "demo_run.json")
    parser.add_argument("--gaap-out", type=Path, default=ROOT / "assets" / "demo_gaap.json")
    args = parser.parse_args(argv)
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("scripts/make_demo_run.py"))

    from invent_core.config import RunConfig
    from invent_core.csv_safe import atomic_file
    from invent_core.engine.pipeline import run_question
    from invent_core.llm import get_llm
    from invent_ui.assets import demo_provenance

    made = demo_provenance("scripts/make_demo_run.py", sys.argv[1:] if argv is None else argv)

    def progress(p) -> None:
        print(f"\r{p.stage:9s} {p.done}/{p.total}", end="", flush=True)

    t0 = time.perf_counter()
    config = RunConfig(
        perturber=args.perturber,
        n_perturbations=args.n_perturbations,
        n_replications=args.n_replications,
    ).replace(seed=args.seed)
    llm = get_llm(args.llm, cache=None) if args.no_cache else args.llm
    run = run_question(args.question, config, llm=llm, progress=progress)
    print(
        f"\nrun in {time.perf_counter() - t0:.1f} s: "
        + ", ".join(f"{k} {v:.4f}" for k, v in run.measures.items())
    )
    demo = {**made, "model": run.identities.get("llm")}
    run = dataclasses.replace(run, provenance={**(run.provenance or {}), "demo": demo})
    run.save(args.out)
    print(f"wrote {args.out}")
    if run.gaap_trace is not None:
        # the same object GaapResult.to_dict() writes: what the GAAP page replays
        result = {
            "perturbations": run.perturbations,
            "trace": run.gaap_trace,
            "seconds": run.timings.get("perturb", 0.0),
            "provenance": {"demo": demo},
        }
        with atomic_file(args.gaap_out) as f:
            f.write(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {args.gaap_out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
