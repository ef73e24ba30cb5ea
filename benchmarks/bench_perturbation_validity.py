"""Perturbation validity: how many paraphrases pass the gate, before and after it.

For the first N questions of each shipped sample, the paraphraser runs twice
with the run's defaults (n = 9, MiniLM, LLM cache on, so the second pass and
any re-run cost no generation for requests already made):

- **without the gate** (the paper's pipeline: distinct replies kept, padded by
  duplication) — its n final perturbations are then checked by the gate, one
  by one against the original (``check_candidate``);
- **with the gate** — every raw candidate is judged as it comes (the
  acceptance rate "before the gate"), rejected ones are re-asked within
  ``max_extra_requests``, the rest padded; its n final perturbations are
  checked the same way ("after the gate").

Printed per dataset: candidates and their acceptance rate, rejections per
reason, the share of final perturbations that pass the gate's checks without
and with the gate, distinct perturbations per question, padding, requests,
questions that failed, and how many accepted candidates have a (1 + cos)/2
affinity below ``--weak-affinity`` (0.85, i.e. cos < 0.7: the topic may have
drifted while every entity was kept — what the gate lets through).
Twenty examples of each rejection reason, and of those weak acceptances, are
written to ``--out`` (Markdown) for a human to read.

Run: python benchmarks/bench_perturbation_validity.py [--limit 50] [--datasets mmlu,sciq]
     [--llm local] [--out runs/perturbation_validity.md]
The full run (6 × 50 questions with the packaged 0.5B) takes long on a busy
machine; ``--limit 2 --datasets sciq`` checks that it works.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

EXAMPLES_PER_REASON = 20  # the validity gate


def final_verdicts(question, perturbations, similarity, gate):
    """The gate's verdict on each final perturbation, judged alone against the original."""
    from invent_core.perturb.gate import check_candidate, gate_affinities

    aff = gate_affinities(similarity, question, perturbations)
    return [
        check_candidate(p, question, affinity=float(a), config=gate)
        for p, a in zip(perturbations, aff, strict=True)
    ]


def bench_question(question, *, llm, config, similarity, stats, examples, weak):
    """Run both passes on one question and fold the counts into ``stats`` / ``examples``."""
    from dataclasses import replace

    from invent_core.errors import LLMError
    from invent_core.perturb.gate import gate_affinities
    from invent_core.perturb.paraphrase import gated_paraphrase

    opts = config.paraphrase
    kwargs = dict(
        llm=llm,
        n=config.n_perturbations,
        seed=config.seed,
        style=opts.style,
        temperature=opts.temperature,
        max_tokens=opts.max_tokens,
        max_requests=opts.max_requests,
        frequency_penalty=opts.frequency_penalty,
        similarity=similarity,
    )
    stats["questions"] += 1
    for label, gate in (("off", replace(opts.gate, enabled=False)), ("on", opts.gate)):
        try:
            res = gated_paraphrase(question, gate=gate, **kwargs)
        except LLMError:
            stats[f"failed_{label}"] += 1
            continue
        verdicts = final_verdicts(question, res.perturbations, similarity, opts.gate)
        stats[f"final_{label}"] += len(verdicts)
        stats[f"final_pass_{label}"] += sum(v.accepted for v in verdicts)
        stats[f"distinct_{label}"] += len(set(res.perturbations))
        stats[f"padded_{label}"] += res.acceptance.get("padded", 0)
        stats[f"requests_{label}"] += res.acceptance.get("requests", 0)
        if label == "off":
            continue
        stats["candidates"] += len(res.candidates)
        for c in res.candidates:
            stats["accepted"] += bool(c["accepted"])
            if not c["accepted"]:
                stats["reason:" + c["reason"]] += 1
                examples[c["reason"]].append((question, c["text"], c["detail"]))
        accepted = [c["text"] for c in res.candidates if c["accepted"]]
        for text, a in zip(accepted, gate_affinities(similarity, question, accepted), strict=True):
            if a < weak:
                stats["weak_accepted"] += 1
                examples["accepted, weak affinity"].append((question, text, f"(1+cos)/2 {a:.3f}"))


def _rate(num, den):
    return f"{100.0 * num / den:5.1f} %" if den else "  n/a"


def report(name, stats, seconds):
    """Print one dataset's summary."""
    from invent_core.perturb.gate import REASONS

    q = max(stats["questions"], 1)
    print(f"\n== {name}: {stats['questions']} questions, {seconds:.0f} s")
    print(
        f"  candidates judged (gate on): {stats['candidates']}, accepted "
        f"{_rate(stats['accepted'], stats['candidates'])} (before the gate: raw replies that pass)"
    )
    rejected = {r: stats["reason:" + r] for r in REASONS if stats["reason:" + r]}
    print("  rejected: " + (", ".join(f"{r} {k}" for r, k in rejected.items()) or "none"))
    for label, title in (("off", "without the gate (paper)"), ("on", "with the gate")):
        print(
            f"  final perturbations {title}: {_rate(stats[f'final_pass_{label}'], stats[f'final_{label}'])}"
            f" pass the gate's checks; {stats[f'distinct_{label}'] / q:.1f} distinct of n per "
            f"question; padded {stats[f'padded_{label}']}; {stats[f'requests_{label}'] / q:.1f} "
            f"requests per question; failed questions {stats[f'failed_{label}']}"
        )
    print(f"  accepted with weak affinity (what the gate lets through): {stats['weak_accepted']}")


def write_examples(path: Path, by_dataset: dict[str, dict[str, list]]) -> None:
    """Markdown: per dataset and reason, up to 20 (question, candidate, detail) rows."""
    lines = ["# Perturbation validity: examples per rejection reason", ""]
    lines.append("Generated by `benchmarks/bench_perturbation_validity.py`.")
    for name, examples in by_dataset.items():
        lines += ["", f"## {name}"]
        for reason, rows in examples.items():
            lines += [
                "",
                f"### {reason} ({len(rows)} in all, {min(len(rows), EXAMPLES_PER_REASON)} shown)",
                "",
            ]
            lines += ["| original | candidate | detail |", "|---|---|---|"]
            for q, text, detail in rows[:EXAMPLES_PER_REASON]:
                cells = (s.replace("|", "\\|").replace("\n", " ") for s in (q, text, detail))
                lines.append("| " + " | ".join(cells) + " |")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    from invent_core.config import RunConfig
    from invent_core.embedders import get_embedder
    from invent_core.llm import get_llm
    from invent_core.questions.datasets import available_datasets, load_dataset

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=50, help="first N questions of each sample")
    ap.add_argument("--datasets", default=",".join(available_datasets()))
    ap.add_argument("--llm", default="local")
    ap.add_argument("--weak-affinity", type=float, default=0.85, help="(1+cos)/2; 0.85 = cos 0.7")
    ap.add_argument("--out", type=Path, default=ROOT / "runs" / "perturbation_validity.md")
    args = ap.parse_args()
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("benchmarks/bench_perturbation_validity.py"))

    config = RunConfig()
    llm = get_llm(args.llm)  # persistent cache on
    similarity = get_embedder(config.embedder)
    print(
        f"llm {llm.identity}, embedder {config.embedder}, n = {config.n_perturbations}, "
        f"gate {config.paraphrase.gate}; load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    by_dataset: dict[str, dict[str, list]] = {}
    try:
        for name in [d.strip() for d in args.datasets.split(",") if d.strip()]:
            stats: Counter = Counter()
            examples: dict[str, list] = defaultdict(list)
            t0 = time.perf_counter()
            for ex in load_dataset(name, limit=args.limit):
                bench_question(
                    ex.question,
                    llm=llm,
                    config=config,
                    similarity=similarity,
                    stats=stats,
                    examples=examples,
                    weak=args.weak_affinity,
                )
            report(name, stats, time.perf_counter() - t0)
            by_dataset[name] = dict(examples)
    finally:
        llm.close()
        write_examples(args.out, by_dataset)
        print(f"\nexamples: {args.out}")


if __name__ == "__main__":
    main()
