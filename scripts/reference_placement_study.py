"""The evidence behind ``reference.K_NEAREST`` and ``reference.SIMILARITY_FLOOR``.

    python scripts/reference_placement_study.py > docs/reference_placement_figures.md

Two studies, both with the packaged MiniLM and :func:`invent_core.evaluation.reference.place`
itself (answer-format rule included), no LLM call:

1. **Samples.** From each shipped sample (``assets/datasets/*_sample300.jsonl``) a
   reference of ``--per-dataset`` questions is drawn (seed 0); every other question
   of the six samples is placed among them, for a grid of k and floors. Printed per
   dataset: the share of questions placed (given a number) and, among the placed,
   the share of neighbours from the question's own dataset; and the share of a few
   prompts unlike any benchmark question that still get a number.
2. **Shipped references, leave one out.** Each question of the shipped references
   for the default settings is placed among the others: how many are placed, the
   neighbours' own-dataset share, and the Brier score of P(correct) placed vs
   pooled (as before questions were placed among those like them) on the questions
   both give a number for.
3. **Kinds absent from the references.** Every question of the other samples is
   placed among the shipped references for the defaults (the case that motivated
   placing: a TriviaQA question against arithmetic and MMLU references).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

NAMES = ("arithmetic", "gsm8k", "mmlu", "nq_open", "sciq", "triviaqa")
UNLIKE = (
    "Write a haiku about autumn leaves.",
    "Translate 'good morning' into French.",
    "What is your favourite colour?",
    "Summarise this email in one sentence.",
    "Tell me a joke.",
    "How are you today?",
    "Please write a Python function that reverses a list.",
    "Can you recommend a good restaurant nearby?",
    "Compose a limerick about a cat.",
    "lorem ipsum dolor sit amet",
)


def _samples() -> dict[str, list[tuple[str, str]]]:
    """dataset -> [(question, task)] of the shipped samples."""
    from invent_core.questions.datasets import DATASETS

    out = {}
    for name in NAMES:
        path = ROOT / "assets" / "datasets" / DATASETS[name][0]
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        out[name] = [(r["question"], r.get("task") or DATASETS[name][1]) for r in rows]
    return out


def _sample_reference(samples, per_dataset: int, emb):
    """(ReferenceSet of per_dataset questions a dataset, [(question, task, dataset)] left over)."""
    from invent_core.evaluation.reference import ReferenceSet

    rng = np.random.default_rng(0)
    ref_q, ref_src, queries = [], [], []
    for name, rows in samples.items():
        pick = set(rng.choice(len(rows), min(per_dataset, len(rows)), replace=False).tolist())
        for i, (q, task) in enumerate(rows):
            if i in pick:
                ref_q.append(q)
                ref_src.append(name)
            else:
                queries.append((q, task, name))
    ref = ReferenceSet(np.zeros(len(ref_q)), None, {}, ref_q, ref_src).with_embeddings(emb)
    return ref, queries


def study_samples(per_dataset: int, ks, floors, ratios, emb) -> None:
    from invent_core.evaluation.reference import place

    ref, queries = _sample_reference(_samples(), per_dataset, emb)
    emb.encode([q for q, _, _ in queries] + list(UNLIKE))  # once, into the cache
    print(f"## 1. Samples: a reference of {per_dataset} questions per dataset, the rest placed\n")
    print("placed share / own-dataset share of the neighbours, per dataset; unlike prompts placed")
    print("\n| k | floor | ratio | " + " | ".join(NAMES) + " | unlike placed |")
    print("|---|---|---|" + "---|" * (len(NAMES) + 1))
    for k, floor, ratio in [(k, f, r) for k in ks for f in floors for r in ratios]:
        cells = []
        for name in NAMES:
            got = [place(ref, q, emb, task=t, k=k, floor=floor, ratio=ratio).placement
                   for q, t, d in queries if d == name]  # fmt: skip
            placed = [p for p in got if p.mode == "nearest"]
            own = [p.counts.get(name, 0) / len(p.rows) for p in placed]
            share = f"{np.mean(own):.2f}" if own else "–"
            cells.append(f"{len(placed) / len(got):.2f} / {share}")
        unlike = [
            place(ref, q, emb, task="qa", k=k, floor=floor, ratio=ratio).placement for q in UNLIKE
        ]
        n_unlike = sum(p.mode == "nearest" for p in unlike)
        head = f"| {k} | {floor:.2f} | {ratio:.2f} | "
        print(head + " | ".join(cells) + f" | {n_unlike}/{len(UNLIKE)} |")
    print()


def _loo(ref, i, emb, task):
    """(placed set, pooled set) of reference question i among the others."""
    from invent_core.evaluation.reference import ReferenceSet, place

    keep = np.arange(ref.size) != i
    others = ReferenceSet(
        ref.values[keep],
        ref.correct[keep],
        ref.settings,
        [q for j, q in enumerate(ref.questions) if j != i],
        [s for j, s in enumerate(ref.sources) if j != i],
        ref.embeddings[keep],
    )
    return place(others, ref.questions[i], emb, task=task), others


def study_shipped(emb) -> None:
    from invent_core.config import RunConfig
    from invent_core.evaluation.reference import K_NEAREST, SIMILARITY_FLOOR, for_settings

    ref = for_settings(RunConfig(), llm_identity="local")
    print("## 2. Shipped references for the defaults (qwen0.5b), leave one out\n")
    print(f"{ref.size} questions ({', '.join(ref.settings['files'])}); "
          f"k = {K_NEAREST}, floor = {SIMILARITY_FLOOR}\n")  # fmt: skip
    print("| dataset | questions | placed | own-dataset share | P(correct) placed | "
          "Brier placed | Brier pooled (same questions) |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for name in sorted(set(ref.sources)):
        idx = [i for i, s in enumerate(ref.sources) if s == name]
        placed, own, pairs = 0, [], []
        for i in idx:
            near, pooled = _loo(ref, i, emb, name)
            p = near.placement
            if p.mode != "nearest":
                continue
            placed += 1
            own.append(p.counts.get(name, 0) / len(p.rows))
            a = near.calibration(float(ref.values[i]))["p_correct"]
            b = pooled.calibration(float(ref.values[i]))["p_correct"]
            if a is not None and b is not None:
                pairs.append((a, b, int(ref.correct[i])))
        brier = [np.mean([(x[j] - x[2]) ** 2 for x in pairs]) for j in (0, 1)] if pairs else None
        cells = [f"{brier[0]:.3f}", f"{brier[1]:.3f}"] if brier else ["–", "–"]
        share = f"{np.mean(own):.2f}" if own else "–"
        print(
            f"| {name} | {len(idx)} | {placed} | {share} | {len(pairs)} | "
            + " | ".join(cells)
            + " |"
        )
    print()


def study_absent_kinds(emb) -> None:
    """The case that motivated placing: questions of the other samples against the shipped 0.5B references."""
    from invent_core.config import RunConfig
    from invent_core.evaluation.reference import for_settings, place

    ref = for_settings(RunConfig(), llm_identity="local")
    kinds = sorted(set(ref.sources))
    print(
        f"## 3. The other samples' questions against the shipped references ({', '.join(kinds)})\n"
    )
    print(
        "Before questions were placed among those like them, every one of them got a number "
        "from the pooled reference.\n"
    )
    print("| dataset | questions | given a number | placed among |")
    print("|---|---|---|---|")
    for name, rows in _samples().items():
        if name in kinds:
            continue
        emb.encode([q for q, _ in rows])
        got = [place(ref, q, emb, task=t).placement for q, t in rows]
        placed = [p for p in got if p.mode == "nearest"]
        among: dict[str, int] = {}
        for p in placed:
            for d, n in p.counts.items():
                among[d] = among.get(d, 0) + n
        where = ", ".join(f"{d} {n}" for d, n in among.items()) or "–"
        print(f"| {name} | {len(got)} | {len(placed)} | {where} |")
    print()


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from invent_core.embedders import get_embedder

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-dataset", type=int, default=100)
    parser.add_argument("--ks", default="10,30,50")
    parser.add_argument("--floors", default="0.10,0.15,0.20")
    parser.add_argument("--ratios", default="0,0.7,0.85")
    parser.add_argument("--studies", default="1,2,3", help="which studies to run (comma list)")
    args = parser.parse_args(argv)
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("scripts/reference_placement_study.py"))
    which = set(args.studies.split(","))
    emb = get_embedder("minilm")
    print("# Placing a question among reference questions like it (MiniLM)\n")
    print(f"load average at start: {os.getloadavg()[0]:.2f}\n")
    if "2" in which:
        study_shipped(emb)
    if "3" in which:
        study_absent_kinds(emb)
    ks = [int(x) for x in args.ks.split(",")]
    floors = [float(x) for x in args.floors.split(",")]
    ratios = [float(x) for x in args.ratios.split(",")]
    if "1" in which:
        study_samples(args.per_dataset, ks, floors, ratios, emb)
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
