"""Regenerate the TSU page's demo: a small real temperature sweep on a dataset sample.

    python scripts/make_demo_tsu.py --work docs/results/tsu-arithmetic   # assets/demo_tsu.json

Runs ``invent_core.experiments.tsu`` (every registered method on runs at each
temperature; paper temperatures 0.3, 0.7, 1.0, 1.4) with the local default
LLM and the default run settings on 20 questions of the arithmetic testbed
(the sample where the packaged model is right about as often as wrong), then
writes the payload the page reads (:func:`invent_ui.data.experiments.tsu_payload`).
Pointing ``--work`` at the saved sweep the results report is made from makes
no LLM call; otherwise the runs are made and kept there (default under
``.cache/demo_tsu/``), so a second call resumes, and re-scores them with the
code of that call. The payload records who made it under ``provenance.demo``
(:func:`invent_ui.assets.demo_provenance`: commit, tree, day, this command and
the model that answered), which the TSU page's caption shows.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dataset", default="arithmetic")
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--temperatures", default=None, help="default: the paper's")
    parser.add_argument("--perturber", choices=("gaap", "paraphrase"), default="paraphrase")
    parser.add_argument("-n", "--n-perturbations", type=int, default=9)
    parser.add_argument("-r", "--n-replications", type=int, default=5)
    parser.add_argument("--llm", default="local")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", type=Path, default=None, help="the sweep's folder")
    parser.add_argument("--out", type=Path, default=ROOT / "assets" / "demo_tsu.json")
    args = parser.parse_args(argv)
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("scripts/make_demo_tsu.py"))

    from invent_core.config import TSU_TEMPERATURES, RunConfig
    from invent_core.csv_safe import atomic_file
    from invent_core.experiments import ExperimentConfig, tsu
    from invent_core.experiments.own_reference import llm_identity_of
    from invent_core.llm import get_llm
    from invent_ui.assets import demo_provenance
    from invent_ui.data.experiments import parse_temperatures, tsu_payload

    made = demo_provenance("scripts/make_demo_tsu.py", sys.argv[1:] if argv is None else argv)

    temps = parse_temperatures(args.temperatures or ",".join(map(str, TSU_TEMPERATURES)))
    run = RunConfig(
        perturber=args.perturber,
        n_perturbations=args.n_perturbations,
        n_replications=args.n_replications,
    ).replace(seed=args.seed)
    cfg = ExperimentConfig(run=run, dataset=args.dataset, limit=args.limit)
    t0 = time.perf_counter()
    folder = args.work or (
        ROOT / ".cache" / "demo_tsu" / f"{args.dataset}_{args.perturber}"
        f"_n{args.n_perturbations}_r{args.n_replications}"
    )
    result = tsu(
        cfg,
        temps,
        folder,
        llm_factory=lambda: get_llm(args.llm),
        progress=lambda ev: print(f"{ev.done}/{ev.total} {ev.note[:70]}", flush=True),
    )
    llm = llm_identity_of(folder)
    payload = tsu_payload(result, temps, cfg, llm=llm)
    where = folder.resolve()
    payload["provenance"] = {
        "source": str(where.relative_to(ROOT)) if where.is_relative_to(ROOT) else str(where),
        "demo": {**made, "model": llm},
    }
    with atomic_file(args.out) as f:
        f.write(json.dumps(payload, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(result.rows)} runs in {time.perf_counter() - t0:.0f} s; wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
