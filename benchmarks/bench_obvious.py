"""Does Inv-Entropy tell a question the model knows from one it does not?

    python benchmarks/bench_obvious.py --out runs/obvious                  # the default gate (both ways)
    python benchmarks/bench_obvious.py --out runs/obvious --gate one_way   # the default until 2026-11-27

Questions from ``benchmarks/data/obvious_questions.json``, written for this
benchmark: "known" ones the packaged 0.5B should get right every time, "unknown"
ones it should not know. Each is run once with the defaults (the LLM cache on;
runs saved under ``--out/<gate>/``, so a second call re-scores without
generating). A question counts where the five answers to the original agree with
its label (known: at least 4 of 5 right by the paraphrase judge; unknown: none
right). Printed per split (``tune`` chose the defaults, ``heldout`` reports,
``fresh`` was written after the defaults were chosen) and per scoring option
(ψ_y × padding, re-scored from the same answers; the defaults first): the share
of (unknown, known) pairs where the unknown question has the higher Inv-Entropy
(1.0 = every pair the right way round, 0.5 = a coin), with the load average —
once with that filter and once without it (every question by its label, whatever
the model answered).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT / "benchmarks" / "data" / "obvious_questions.json"
#: (answer_similarity, padding) re-scored on the same answers besides the default
OPTIONS = (
    ("embedding", "paper"),
    ("embedding", "distinct"),
    ("rules", "distinct"),
    ("canonical", "distinct"),
    ("lexical", "distinct"),
)


def _options() -> list[tuple[str, str]]:
    """:data:`OPTIONS` with the defaults (``ScoreConfig``'s) first."""
    from invent_core.config import ScoreConfig

    default = (ScoreConfig().answer_similarity, ScoreConfig().padding)
    return [default, *(o for o in OPTIONS if o != default)]


def _config(gate: str):
    from invent_core.config import RunConfig

    cfg = RunConfig()
    gate_cfg = cfg.paraphrase.gate
    if gate == "one_way":
        gate_cfg = replace(gate_cfg, both_ways=False)
    elif gate == "both_ways_llm":
        gate_cfg = replace(gate_cfg, both_ways=True, llm_verify=True)
    return cfg.replace(paraphrase=replace(cfg.paraphrase, gate=gate_cfg))


def _run(item: dict, folder: Path, gate: str):
    """The saved run of ``item`` under ``gate``, made now when it is not there."""
    from invent_core.engine.artifact import RunArtifact
    from invent_core.engine.pipeline import run_question

    path = folder / f"{hashlib.sha256(item['question'].encode()).hexdigest()[:12]}.json"
    if path.is_file():
        return RunArtifact.load(path), 0.0
    t0 = time.perf_counter()
    run = run_question(item["question"], _config(gate), llm="local")
    run.save(path)
    return run, time.perf_counter() - t0


def _right(run, item: dict) -> int:
    """How many of the five answers to the original the paraphrase judge calls right."""
    from invent_core.evaluation.correctness import judge_verdict

    replies = run.cleaned_responses[0] if run.cleaned_responses else run.responses[0]
    return sum(
        judge_verdict(t, item["answers"], dataset="qa", question=item["question"],
                      method="paraphrase").correct
        for t in replies
    )  # fmt: skip


def is_obvious(item: dict, right: int, r: int) -> bool:
    return right >= r - 1 if item["label"] == "known" else right == 0


def pairs_right(values: dict[str, float], labels: dict[str, str]) -> tuple[float, int]:
    """Share of (unknown, known) pairs with the unknown one above (ties count half)."""
    known = [values[q] for q, lab in labels.items() if lab == "known"]
    unknown = [values[q] for q, lab in labels.items() if lab == "unknown"]
    pairs = [(u > k) + 0.5 * (u == k) for u in unknown for k in known]
    return (sum(pairs) / len(pairs) if pairs else float("nan")), len(pairs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="runs are saved here")
    # both_ways is the default gate (GateConfig.both_ways); runs are saved per gate
    parser.add_argument("--gate", choices=["both_ways", "one_way", "both_ways_llm"],
                        default="both_ways")  # fmt: skip
    args = parser.parse_args()
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("benchmarks/bench_obvious.py"))
    from invent_core import env  # noqa: F401  (offline before any model import)
    from invent_core.experiments.counts import distinct_rewordings

    items = json.loads(DATA.read_text(encoding="utf-8"))["questions"]
    folder = args.out / args.gate
    folder.mkdir(parents=True, exist_ok=True)
    print(f"{len(items)} questions, gate {args.gate}; load {os.getloadavg()[0]:.1f}")
    runs, kept = {}, {}
    for item in items:
        run, seconds = _run(item, folder, args.gate)
        right = _right(run, item)
        runs[item["question"]] = run
        distinct = distinct_rewordings(run.questions)
        if is_obvious(item, right, len(run.responses[0])):
            kept[item["question"]] = item
        print(f"  [{item['split']} {item['label']:7s}] right {right}/5, {distinct} distinct "
              f"rewordings, Inv {run.score.measures['inv_entropy']:.3f}"
              f"{'' if item['question'] in kept else ' (left out)'}"
              f"{f', {seconds:.0f} s' if seconds else ''}: {item['question']}")  # fmt: skip
    splits = list(dict.fromkeys(it["split"] for it in items))  # tune, heldout, fresh
    everyone = {it["question"]: it for it in items}
    for title, chosen in (
        ("with the filter: questions whose replies agree with their label", kept),
        ("without the filter: every question, by its label", everyone),
    ):
        print(title)
        _table(chosen, runs, splits)
    print(f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


def _table(chosen: dict[str, dict], runs: dict, splits: list[str]) -> None:
    """One line per scoring option: the share of (unknown, known) pairs right, per split."""
    for k, option in enumerate(_options()):
        cells = []
        for split in splits:
            labels = {q: it["label"] for q, it in chosen.items() if it["split"] == split}
            values = {}
            for q in labels:
                again = runs[q].rescore(answer_similarity=option[0], padding=option[1])
                values[q] = again.score.measures["inv_entropy"]
            share, n = pairs_right(values, labels)
            cells.append(f"{split} {share:.2f} of {n} pairs")
        name = f"{option[0]}+{option[1]}" + (" (default)" if k == 0 else "")
        print(f"  {name:29s} " + "; ".join(cells))


if __name__ == "__main__":
    main()
