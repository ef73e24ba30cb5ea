"""Distinct accepted rewordings per question on the six shipped samples.

Runs only the perturbation stage (the ``paraphrase`` perturber with the gate,
as ``run`` does) on ``--per`` seeded questions of each shipped sample and
writes, per question, the final states, every candidate with the gate's
verdict, the distinct-state count and the time taken. No answer is asked.

    python scripts/measure_rewordings.py --style single --out docs/rewordings/single.json
    python scripts/measure_rewordings.py --style varied --out docs/rewordings/varied.json
    python scripts/measure_rewordings.py --report docs/rewordings/*.json

The questions are drawn with ``--seed`` (default 11, not an evaluation seed)
so the figures are not tuned on the questions RESULTS reports. Load average is
recorded beside every timing: the machine is shared.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

SAMPLES = ("arithmetic", "gsm8k", "mmlu", "nq_open", "sciq", "triviaqa")


def measure(args: argparse.Namespace) -> dict:
    """Perturb every drawn question; return the record written to ``--out``."""
    from invent_core.config import GateConfig, ParaphraseConfig, RunConfig
    from invent_core.embedders import get_embedder
    from invent_core.llm import get_llm
    from invent_core.perturb import get_perturber
    from invent_core.questions.datasets import load_dataset

    gate = dataclasses.replace(GateConfig(), **dict(args.gate or ()))
    config = RunConfig(paraphrase=ParaphraseConfig(style=args.style, gate=gate))
    llm, embedder = get_llm(args.llm), get_embedder(config.embedder)
    perturber = get_perturber("paraphrase")
    rows = []
    for name in args.samples:
        for ex in load_dataset(name, limit=args.per, seed=args.seed):
            t0, load = time.perf_counter(), os.getloadavg()[0]
            res = perturber.perturb(ex.question, config, llm=llm, embedder=embedder)
            rows.append(
                {
                    "sample": name,
                    "id": ex.id,
                    "question": ex.question,
                    "perturbations": res.perturbations,
                    "candidates": res.candidates,
                    "acceptance": res.acceptance,
                    "seconds": round(time.perf_counter() - t0, 2),
                    "load": round(load, 2),
                }
            )
            a = res.acceptance
            print(
                f"{name:10s} {a.get('distinct')}/{a.get('states')} distinct, "
                f"{a.get('accepted')}/{a.get('candidates')} accepted, "
                f"{a.get('requests')} requests, {rows[-1]['seconds']:.1f} s (load {load:.1f})",
                flush=True,
            )
    record = {"style": args.style, "llm": args.llm, "seed": args.seed, "rows": rows}
    return record | ({"gate": dict(args.gate)} if args.gate else {})


def report(paths: list[Path]) -> None:
    """Median distinct states per sample, rejection reasons and time, one block per file."""
    for path in paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        rows = data["rows"]
        print(f"== {path.name}: style {data['style']}, {data['llm']}, seed {data['seed']}")
        for name in SAMPLES:
            mine = [r for r in rows if r["sample"] == name]
            if not mine:
                continue
            distinct = [r["acceptance"].get("distinct", 0) for r in mine]
            cands = sum(r["acceptance"].get("candidates", 0) for r in mine)
            acc = sum(r["acceptance"].get("accepted", 0) for r in mine)
            reasons = Counter()
            for r in mine:
                reasons.update(r["acceptance"].get("rejected", {}))
            secs = statistics.median(r["seconds"] for r in mine)
            print(
                f"  {name:10s} n={len(mine):2d} distinct median {statistics.median(distinct):.1f} "
                f"(min {min(distinct)}), accepted {acc}/{cands}, "
                f"{secs:.1f} s/question; rejected {dict(reasons.most_common())}"
            )
        loads = [r["load"] for r in rows]
        print(f"  load average during the run: {min(loads):.1f}–{max(loads):.1f}")


def _gate_option(text: str) -> tuple[str, int]:
    """``KEY=INT`` for a whole-number GateConfig option, checked against the dataclass."""
    from invent_core.config import GateConfig

    key, sep, value = text.partition("=")
    names = {f.name for f in dataclasses.fields(GateConfig)}
    if not sep or key not in names or not value.lstrip("-").isdigit():
        raise argparse.ArgumentTypeError(f"--gate {text!r}: KEY=INT with KEY a GateConfig option")
    return key, int(value)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--style", default="auto", help="ParaphraseConfig.style")
    p.add_argument("--llm", default="local")
    p.add_argument("--per", type=int, default=8, help="questions per sample")
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--samples", nargs="+", default=list(SAMPLES), choices=SAMPLES)
    p.add_argument("--out", type=Path)
    p.add_argument(
        "--gate",
        nargs="+",
        type=_gate_option,
        metavar="KEY=INT",
        help="GateConfig options to try, e.g. max_extra_requests=15 (whole numbers)",
    )
    p.add_argument("--report", nargs="+", type=Path)
    args = p.parse_args()
    from invent_core.provenance import provenance, provenance_line  # the code behind this printout

    print(provenance_line("scripts/measure_rewordings.py"))
    if args.report:
        report(args.report)
        return
    if args.out is None:
        p.error("--out is required unless --report is given")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    data = {**measure(args), "provenance": provenance()}
    args.out.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")
    report([args.out])


if __name__ == "__main__":
    main()
