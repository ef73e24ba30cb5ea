"""What a different paraphrasing model changes in the perturbations (no LLM call).

The breakdown's row "1.5B paraphrasing, 0.5B answering" says
whether Inv-Entropy's AUROC moved; this says *why*, from the saved runs of the
two evaluations of the same questions (the default, and one made with
``--paraphrase-llm``):

- the rewordings themselves: distinct states, padded states, candidates the
  gate rejected (by reason), and how far a kept rewording is from the question
  (its MiniLM cosine, recovered from the saved affinity ``exp((cos − 1)/τ)``);
- what they do to the answers: the spread across wordings I(X; Y) and within
  one wording H(Y | X) of the canonical answers (``evaluation.spread``), and
  their AUROC;
- Inv-Entropy's AUROC on the questions whose label is the same in both runs
  (the answers to the original are sampled afresh at T = 0.7 in each, so a few
  labels differ), paired over the same bootstrap resamples;
- a few questions' rewordings side by side (``--examples``).

    python scripts/compare_paraphrasers.py docs/results/evaluate-arithmetic-100 \\
        /work/evals/v2/evaluate-arithmetic-100-paraphrase-llm \\
        --out docs/results/evaluate-arithmetic-100-paraphrase-llm/rewordings.json \\
        --examples docs/results/evaluate-arithmetic-100-paraphrase-llm/examples.md
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from invent_core import env  # noqa: E402,F401  offline before any model import


def cosines_to_question(run: dict) -> list[float]:
    """MiniLM cosine of each perturbation to the question, from the saved affinity row."""
    tau = run["score"]["config"]["kernel_tau"]
    row = run["score"]["sim_x"][0][1:]
    return [1.0 + tau * math.log(a) if a > 0 else -1.0 for a in row]


def run_stats(run: dict) -> dict[str, Any]:
    """The perturbation set of one saved run, in numbers."""
    acc = run.get("acceptance") or {}
    cos = cosines_to_question(run)
    return {
        "distinct": acc.get("distinct"),
        "padded": acc.get("padded", 0),
        "candidates": acc.get("candidates"),
        "rejected": dict(acc.get("rejected") or {}),
        "mean_cos": statistics.fmean(cos),
        "perturb_seconds": run["timings"]["perturb"],
    }


def summarise(stats: list[dict[str, Any]]) -> dict[str, Any]:
    """Means over questions; rejections summed by reason."""
    rejected: Counter[str] = Counter()
    for s in stats:
        rejected.update(s["rejected"])
    return {
        "questions": len(stats),
        "mean_distinct": statistics.fmean(s["distinct"] for s in stats),
        "all_nine_distinct": sum(s["distinct"] == 9 for s in stats),
        "mean_padded": statistics.fmean(s["padded"] for s in stats),
        "mean_candidates": statistics.fmean(s["candidates"] for s in stats),
        "rejected": dict(rejected.most_common()),
        "mean_cos_to_question": statistics.fmean(s["mean_cos"] for s in stats),
        "mean_perturb_seconds": statistics.fmean(s["perturb_seconds"] for s in stats),
    }


def spread_summary(pairs: list[tuple[int, Any]]) -> dict[str, Any]:
    """Mean within/across spread and their AUROC (wrong = positive, as everywhere)."""
    from invent_core.evaluation.metrics import auroc_score

    c = np.array([p[0] for p in pairs])
    out: dict[str, Any] = {}
    for part in ("total", "within", "across"):
        v = np.array([getattr(p[1], part) for p in pairs])
        out[f"mean_{part}"] = float(v.mean())
        out[f"auroc_{part}"] = float(auroc_score(c, v))
    return out


def same_label_auroc(base_rows, other_rows, n_boot: int) -> dict[str, Any]:
    """Inv-Entropy of both runs on the questions both label alike, paired resamples."""
    from breakdown import DEFAULT, paired_delta, paired_inputs

    other = {r["id"]: r for r in other_rows}
    keep = [r for r in base_rows if r["id"] in other and other[r["id"]]["correct"] == r["correct"]]
    correct, base, idx = paired_inputs(keep, n_boot, 0)
    theirs = np.array([float(other[r["id"]][DEFAULT]) for r in keep])
    return {"questions": len(keep), "right": int(correct.sum()),
            "default": paired_delta(correct, base, base, idx),
            "other": paired_delta(correct, base, theirs, idx)}  # fmt: skip


def examples(base: dict[str, dict], other: dict[str, dict], ids: list[str]) -> list[str]:
    """Markdown: the rewordings of each id by the two paraphrasers, side by side."""
    lines = ["# The rewordings of a few questions, by each paraphraser", "",
             "First rows of `scores.csv` order; the default (0.5B paraphrasing) left, "
             "`--paraphrase-llm qwen1.5b` right; the same 0.5B answers both.", ""]  # fmt: skip
    for qid in ids:
        a, b = base[qid], other[qid]
        lines += [f"## {a['questions'][0]}", "", "| # | 0.5B | 1.5B |", "|---|---|---|"]
        for k, (x, y) in enumerate(zip(a["questions"][1:], b["questions"][1:], strict=True), 1):
            lines.append(f"| {k} | {x.replace('|', '/')} | {y.replace('|', '/')} |")
        lines.append("")
    return lines


def main(argv: list[str] | None = None) -> int:
    from breakdown import judged_runs, spread_pairs

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("base", type=Path, help="the default evaluation's folder (with runs/)")
    p.add_argument("other", type=Path, help="the --paraphrase-llm evaluation's folder (with runs/)")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--examples", type=Path, default=None)
    p.add_argument("--n-examples", type=int, default=8)
    p.add_argument("--n-boot", type=int, default=200)
    args = p.parse_args(argv)
    from invent_core.provenance import provenance, provenance_line  # the code behind this printout

    print(provenance_line("scripts/compare_paraphrasers.py"), file=sys.stderr)
    for folder in (args.base, args.other):
        if not (folder / "runs").is_dir():
            p.error(f"{folder}: no runs/ folder (the saved runs are what this reads)")

    judged = {f: judged_runs(f) for f in (args.base, args.other)}  # each run read once
    runs = {f: {r["id"]: run for r, run in zip(*judged[f], strict=True)} for f in judged}
    ids = [r["id"] for r in judged[args.base][0] if r["id"] in runs[args.other]]
    out = {
        folder.name: {
            "perturbations": summarise([run_stats(runs[folder][i]) for i in ids]),
            "spread": spread_summary(spread_pairs(*judged[folder])),
            "right": sum(int(r["correct"]) for r in judged[folder][0]),
        }
        for folder in (args.base, args.other)
    }
    out["provenance"] = provenance()
    out["same_label"] = same_label_auroc(judged[args.base][0], judged[args.other][0], args.n_boot)
    args.out.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(out, indent=1))
    if args.examples:
        text = examples(runs[args.base], runs[args.other], ids[: args.n_examples])
        args.examples.write_text("\n".join(text) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
