"""Regenerate the TSU page's demo: a small real temperature sweep on a dataset sample.

    python scripts/make_demo_tsu.py                                    # a new sweep
    python scripts/make_demo_tsu.py --source docs/results/tsu-arithmetic   # a saved one re-scored

Runs ``invent_core.experiments.tsu`` (every registered method on runs at each
temperature; paper temperatures 0.3, 0.7, 1.0, 1.4) with the local default
LLM and the default run settings on 20 questions of the arithmetic testbed
(the sample where the packaged model is right about as often as wrong), then
writes the payload the page reads (:func:`invent_ui.data.experiments.tsu_payload`).
The runs are made and kept in ``--work`` (default under ``.cache/demo_tsu/``),
so a second call resumes.

``--source`` takes a saved sweep instead (a ``tsu`` folder, e.g. the one the
results report is made from): in a copy (the folder is not written) every
saved run is scored again from its stored answers by this code with today's
default scoring (``RunArtifact.rescore``; P(True) and VU read the answers the
run keeps) and the sweep is summed up again; its generation settings stay the
folder's (``provenance.settings`` lists where they differ from today's). No LLM call: the
LLM handed to the methods refuses every call, so nothing is generated.

The payload records who made it under ``provenance.demo``
(:func:`invent_ui.assets.demo_provenance`: commit, tree, day, this command and
the model that answered), with ``source`` (the sweep's folder) and, for a
saved sweep, ``runs`` (the code that made its runs, or that it did not say) and
``settings`` (where its generation settings differ from today's defaults);
the TSU page's caption shows the demo block.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _shown(folder: Path) -> str:
    where = folder.resolve()
    return str(where.relative_to(ROOT)) if where.is_relative_to(ROOT) else str(where)


def _progress(ev: Any) -> None:
    print(f"{ev.done}/{ev.total} {ev.note[:70]}", flush=True)


def rescored_sweep(source: Path) -> tuple[Any, list[float], Any, dict[str, Any]]:
    """(result, temperatures, config, provenance) of a saved sweep re-scored now in a copy."""
    from invent_core.config import RunConfig, ScoreConfig
    from invent_core.config.flat import flat_values
    from invent_core.engine.artifact import RunArtifact
    from invent_core.experiments import ExperimentConfig, tsu
    from invent_core.experiments.own_reference import llm_identity_of
    from invent_core.experiments.rescore import NoLLM

    meta = json.loads((source / "config.json").read_text(encoding="utf-8"))
    saved = ExperimentConfig.from_dict(meta["config"])
    # today's scoring (its seed kept): what the runs' texts allow without a new generation
    score = dataclasses.replace(ScoreConfig(), seed=saved.run.score.seed)
    cfg = dataclasses.replace(saved, run=dataclasses.replace(saved.run, score=score))
    temps = [float(t) for t in meta["temperatures"]]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / source.name
        shutil.copytree(source, work)
        made_by = set()
        for path in sorted((work / "runs").glob("*.json")):
            run = RunArtifact.load(path)
            made_by.add(json.dumps(run.provenance, sort_keys=True))
            run.rescore(score).save(path)  # scored again by this code
        result = tsu(cfg, temps, work, llm_factory=NoLLM, progress=_progress)
        llm = llm_identity_of(work)
    today = flat_values(RunConfig().replace(perturber=cfg.run.perturber))
    theirs = flat_values(cfg.run)  # their generation, today's scoring
    differ = {k: [theirs[k], today[k]] for k in theirs if k in today and theirs[k] != today[k]}
    runs = [json.loads(p) for p in sorted(made_by)]
    prov = {
        "source": _shown(source),
        "runs": runs[0] if len(runs) == 1 else runs,  # None: made before it was recorded
        "settings": {"[saved, today's default]": differ},
        "llm": llm,
    }
    return result, temps, cfg, prov


def new_sweep(args: argparse.Namespace) -> tuple[Any, list[float], Any, dict[str, Any]]:
    """(result, temperatures, config, provenance) of a sweep made (or resumed) in ``--work``."""
    from invent_core.config import TSU_TEMPERATURES, RunConfig
    from invent_core.experiments import ExperimentConfig, tsu
    from invent_core.experiments.own_reference import llm_identity_of
    from invent_core.llm import get_llm
    from invent_ui.data.experiments import parse_temperatures

    temps = parse_temperatures(args.temperatures or ",".join(map(str, TSU_TEMPERATURES)))
    run = RunConfig(
        perturber=args.perturber,
        n_perturbations=args.n_perturbations,
        n_replications=args.n_replications,
    ).replace(seed=args.seed)
    cfg = ExperimentConfig(run=run, dataset=args.dataset, limit=args.limit)
    folder = args.work or (
        ROOT / ".cache" / "demo_tsu" / f"{args.dataset}_{args.perturber}"
        f"_n{args.n_perturbations}_r{args.n_replications}"
    )
    result = tsu(cfg, temps, folder, llm_factory=lambda: get_llm(args.llm), progress=_progress)
    return result, temps, cfg, {"source": _shown(folder), "llm": llm_identity_of(folder)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--source", type=Path, default=None, help="a saved tsu folder (no LLM call)"
    )
    parser.add_argument("--dataset", default="arithmetic")
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--temperatures", default=None, help="default: the paper's")
    parser.add_argument("--perturber", choices=("gaap", "paraphrase"), default="paraphrase")
    parser.add_argument("-n", "--n-perturbations", type=int, default=9)
    parser.add_argument("-r", "--n-replications", type=int, default=5)
    parser.add_argument("--llm", default="local")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", type=Path, default=None, help="the new sweep's folder")
    parser.add_argument("--out", type=Path, default=ROOT / "assets" / "demo_tsu.json")
    args = parser.parse_args(argv)
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("scripts/make_demo_tsu.py"))

    from invent_core.csv_safe import atomic_file
    from invent_ui.assets import demo_provenance
    from invent_ui.data.experiments import tsu_payload

    made = demo_provenance("scripts/make_demo_tsu.py", sys.argv[1:] if argv is None else argv)
    t0 = time.perf_counter()
    sweep = rescored_sweep(args.source) if args.source else new_sweep(args)
    result, temps, cfg, prov = sweep
    llm = prov.pop("llm")
    payload = tsu_payload(result, temps, cfg, llm=llm)
    payload["provenance"] = {**prov, "demo": {**made, "model": llm, "from": prov["source"]}}
    with atomic_file(args.out) as f:
        f.write(json.dumps(payload, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(result.rows)} runs in {time.perf_counter() - t0:.0f} s; wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
