"""The answer-graph baselines re-scored with the LLM entailment judge.

Under the default embedding judge, Kernel Entropy, DegMat and LUQ rank the
questions of every shipped evaluation the same way (they are all monotone in
the mean pairwise affinity of the answers; RESULTS "Methods that coincide").
The paper weights their graphs by DeBERTa entailment, where they differ. With
no NLI model offline, this script gives them the LLM judge
(:class:`invent_core.methods.entailment.LLMJudge`: the run's LLM asked whether
two answers mean the same, P("Yes") from the first token) on the saved answers
of one evaluate folder, and writes ``<folder>/graph_llm_judge.json``: each
method's AUROC under both judges and the Spearman correlation between the
methods under each judge.

    python scripts/graph_judge.py docs/results/evaluate-arithmetic-100 [--limit N]

LLM calls: the judge's questions (cached in the LLM cache); the answers and
correctness are the saved ones.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from invent_core import env  # noqa: E402,F401  offline before any model import

GRAPH = ("semantic_entropy", "kernel_entropy", "degmat", "luq", "kle")


def judged(run: dict[str, Any], llm: Any) -> dict[str, float]:
    """The graph baselines of one saved run under the LLM entailment judge."""
    from invent_core.config import ScoreConfig
    from invent_core.methods.context import ScoringContext
    from invent_core.methods.registry import compute_methods

    cfg = ScoreConfig.from_dict(run.get("score", {}).get("config") or {})
    ctx = ScoringContext(run["questions"], run["responses"], cfg, llm=llm, entailment="llm",
                         task=run.get("task") or "qa", choices=run.get("choices"))  # fmt: skip
    out = compute_methods(ctx, list(GRAPH))
    return {k: (v.value if v.error is None else float("nan")) for k, v in out.items()}


def spearman(table: dict[str, np.ndarray]) -> dict[str, dict[str, float]]:
    """Spearman rank correlation between every pair of columns."""
    from invent_core.evaluation.agreement import rank_correlation

    rc = rank_correlation(table)
    return {a: {b: round(float(rc.rho[i, j]), 4) for j, b in enumerate(rc.methods)}
            for i, a in enumerate(rc.methods)}  # fmt: skip


def main() -> None:
    from breakdown import judged_runs

    from invent_core.evaluation.metrics import auroc_score
    from invent_core.llm import get_llm

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folder", type=Path)
    p.add_argument("--limit", type=int, help="first N questions only (a quick look)")
    p.add_argument("--llm", default="local")
    args = p.parse_args()
    from invent_core.provenance import provenance, provenance_line  # the code behind this printout

    print(provenance_line("scripts/graph_judge.py"), file=sys.stderr)
    rows, runs = judged_runs(args.folder)
    rows, runs = rows[: args.limit], runs[: args.limit]
    llm, t0, load = get_llm(args.llm), time.perf_counter(), os.getloadavg()[0]
    found = []
    for i, run in enumerate(runs):
        found.append(judged(run, llm))
        print(f"{i + 1}/{len(runs)} {rows[i]['id']}: {found[-1]}", flush=True)
    correct = np.array([int(r["correct"]) for r in rows])
    llm_cols = {k: np.array([f[k] for f in found]) for k in GRAPH}
    emb_cols = {k: np.array([float(r[k]) for r in rows]) for k in GRAPH}
    ok = np.all([np.isfinite(v) for v in llm_cols.values()], axis=0)
    out = {
        "folder": args.folder.name,
        "n_questions": int(ok.sum()),
        "n_correct": int(correct[ok].sum()),
        "seconds": round(time.perf_counter() - t0, 1),
        "load": round(load, 2),
        "auroc": {
            k: {
                "embedding": round(float(auroc_score(correct[ok], emb_cols[k][ok])), 4),
                "llm": round(float(auroc_score(correct[ok], llm_cols[k][ok])), 4),
            }
            for k in GRAPH
        },  # fmt: skip
        "spearman_embedding": spearman({k: v[ok] for k, v in emb_cols.items()}),
        "spearman_llm": spearman({k: v[ok] for k, v in llm_cols.items()}),
        "provenance": provenance(),
    }
    path = args.folder / "graph_llm_judge.json"
    if args.limit is None:
        path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
