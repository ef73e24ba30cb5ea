"""Which affinity kernel? Re-score saved runs under each kernel, no LLM call.

    python scripts/kernel_study.py runs/evaluate-mmlu runs/evaluate-arithmetic
    python scripts/kernel_study.py runs/evaluate-arithmetic --canonical \\
        --kernels shifted_cosine abs_cosine exp_cosine:0.1 exp_cosine:0.25 --out study.json

Each folder is what ``evaluate`` writes: ``scores.csv`` (one row per question,
with ``question`` and ``correct``) and ``runs/*.json`` (the run artefacts, matched
to the rows by their ``question``). For every run the inputs and responses are
embedded once (the run's embedder, default MiniLM); each kernel then maps the same
cosines to affinities and Algorithm 1's bootstrap (B resamples, one seed for all
kernels, so the resamples are paired) gives Inv-Entropy. Printed per kernel:

- AUROC of Inv-Entropy for correctness, mean ± std over the paired bootstrap of
  :func:`invent_core.evaluation.metrics.evaluate_scores` (40 resamples, the
  paper's), and its paired difference to the paper's kernel;
- the spread of Inv-Entropy across questions (std, IQR): under the paper's
  kernel every value sits near log(n + 1).

``--canonical`` embeds the canonical answers (:mod:`invent_core.responses.canonical`:
MMLU letter, GSM8K number) instead of the cleaned ones.

Sentence embedders only (``minilm``, ``mpnet``): the kernels map cosines. A
folder holding runs of one question at several temperatures (``tsu``) uses the
first run file in name order.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: the paper's kernel, the released code's, and ours at a few τ
DEFAULT_KERNELS = (
    "shifted_cosine",
    "abs_cosine",
    "exp_cosine:0.1",
    "exp_cosine:0.25",
    "exp_cosine:0.5",
)
PAPER = "shifted_cosine"


@dataclass(frozen=True)
class Item:
    """One judged question with its saved run."""

    id: str
    questions: list[str]  # original first, then its n perturbations
    responses: list[list[str]]  # m × r cleaned answers
    task: str
    choices: list[str] | None
    correct: int


def parse_kernel(spec: str) -> tuple[str, float]:
    """``"exp_cosine:0.25"`` → ``("exp_cosine", 0.25)``; other kinds take the default τ."""
    from invent_core.config import ScoreConfig

    kind, _, tau = spec.partition(":")
    cfg = ScoreConfig(affinity=kind, kernel_tau=float(tau) if tau else ScoreConfig.kernel_tau)
    return cfg.affinity, cfg.kernel_tau


def load_items(folder: Path) -> tuple[list[Item], list[str]]:
    """The judged questions of an ``evaluate`` folder that have a saved run.

    Returns
    -------
    (items, missing ids): rows of ``scores.csv`` without a run (or without a
    0/1 ``correct``) are listed, not loaded.
    """
    runs: dict[str, dict[str, Any]] = {}
    for path in sorted((folder / "runs").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        runs.setdefault(str(data.get("question", data["questions"][0])).strip(), data)
    items, missing = [], []
    with open(folder / "scores.csv", newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            run = runs.get(row.get("question", "").strip())  # evaluate strips the question
            if run is None or row.get("correct") not in ("0", "1"):
                missing.append(row.get("id", "?"))
                continue
            items.append(
                Item(
                    id=row["id"],
                    questions=list(run["questions"]),
                    responses=[list(r) for r in run["responses"]],
                    task=run.get("task") or "qa",
                    choices=run.get("choices"),
                    correct=int(row["correct"]),
                )
            )
    return items, missing


def _answers(item: Item, canonical: bool) -> list[str]:
    flat = [t for reps in item.responses for t in reps]  # state-major, (m·r,)
    if not canonical:
        return flat
    from invent_core.responses.canonical import canonical_answer

    return [canonical_answer(t, task=item.task, choices=item.choices).text for t in flat]


def rescore(
    items: list[Item],
    kernels: list[str],
    *,
    embedder: Any = "minilm",
    n_bootstrap: int = 30,
    seed: int = 0,
    canonical: bool = False,
) -> dict[str, np.ndarray]:
    """Inv-Entropy (bootstrap mean, Eq. meanentropy) of every item under every kernel.

    Returns
    -------
    kernel spec → (len(items),) array; higher = more uncertain.
    """
    from invent_core.config import ScoreConfig
    from invent_core.embedders import get_embedder
    from invent_core.paper.random_walk import affinity_from_cosine, cosine_similarity
    from invent_core.paper.scoring import bootstrap_measures

    emb = get_embedder(embedder)
    parsed = {k: parse_kernel(k) for k in kernels}
    out = {k: np.empty(len(items)) for k in kernels}
    for i, item in enumerate(items):
        m, r = len(item.questions), len(item.responses[0])
        cos = cosine_similarity(emb.encode(item.questions + _answers(item, canonical)))
        for spec, (kind, tau) in parsed.items():
            a = affinity_from_cosine(cos, kind=kind, tau=tau)
            rng = np.random.default_rng(seed)  # the same resamples for every kernel
            cfg = ScoreConfig(n_bootstrap=n_bootstrap)
            values = bootstrap_measures(a[:m, :m], a[m:, m:], r, cfg, rng=rng)
            out[spec][i] = float(np.mean(values["inv_entropy"]))
    return out


def study(
    table: dict[str, np.ndarray], correct: np.ndarray, *, n_boot: int = 40, seed: int = 0
) -> list[dict[str, Any]]:
    """AUROC (paired bootstrap) and spread per kernel; AUROC is None with one class only."""
    from invent_core.evaluation.metrics import evaluate_scores

    both = 0 < int(np.sum(correct)) < len(correct)
    ev = (
        evaluate_scores(table, correct, n_bootstrap=n_boot, seed=seed, metrics=["auroc"])
        if both
        else None
    )
    base = ev.results[PAPER]["auroc"].values if ev and PAPER in ev.results else None
    rows = []
    for spec, values in table.items():
        q1, q3 = np.percentile(values, [25, 75])
        row: dict[str, Any] = {
            "kernel": spec,
            "auroc": None,
            "auroc_std": None,
            "vs_paper": None,
            "vs_paper_std": None,
            "mean": float(np.mean(values)),
            "std": float(np.std(values)),
            "iqr": float(q3 - q1),
        }
        if ev is not None:
            s = ev.results[spec]["auroc"]
            row.update(auroc=s.mean, auroc_std=s.std)
            if base is not None:
                diff = s.values - base  # paired: the same resamples
                row.update(vs_paper=float(diff.mean()), vs_paper_std=float(diff.std()))
        rows.append(row)
    return rows


def format_rows(rows: list[dict[str, Any]]) -> str:
    """A plain-text table of :func:`study`'s rows (n/a where AUROC is undefined)."""

    def pm(mean: float | None, std: float | None) -> str:
        return "n/a" if mean is None else f"{mean:.3f} ± {std:.3f}"

    lines = [
        f"{'kernel':22s} {'AUROC':>15s} {'Δ vs paper':>16s} {'mean':>8s} {'std':>8s} {'IQR':>8s}"
    ]
    for r in rows:
        lines.append(
            f"{r['kernel']:22s} {pm(r['auroc'], r['auroc_std']):>15s} "
            f"{pm(r['vs_paper'], r['vs_paper_std']):>16s} {r['mean']:8.4f} {r['std']:8.4f} "
            f"{r['iqr']:8.4f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Re-score the folders under each kernel and print one table per folder."""
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("folders", nargs="+", type=Path, help="evaluate output folders")
    p.add_argument("--kernels", nargs="+", default=list(DEFAULT_KERNELS))
    p.add_argument("--embedder", default="minilm")
    p.add_argument("-B", "--n-bootstrap", type=int, default=30)
    p.add_argument("--n-boot-metrics", type=int, default=40)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--canonical", action="store_true", help="embed canonical answers")
    p.add_argument("--out", type=Path, help="also write every table as JSON")
    args = p.parse_args(argv)
    from invent_core.provenance import provenance, provenance_line  # the code behind this printout

    print(provenance_line("scripts/kernel_study.py"))
    report = {}
    for folder in args.folders:
        items, missing = load_items(folder)
        print(f"\n{folder}: {len(items)} questions with runs ({len(missing)} without)")
        if not items:
            continue
        table = rescore(
            items,
            args.kernels,
            embedder=args.embedder,
            n_bootstrap=args.n_bootstrap,
            seed=args.seed,
            canonical=args.canonical,
        )
        correct = np.array([it.correct for it in items])
        rows = study(table, correct, n_boot=args.n_boot_metrics, seed=args.seed)
        print(f"accuracy {correct.mean():.3f}; Inv-Entropy per kernel:")
        print(format_rows(rows))
        report[str(folder)] = {"n": len(items), "accuracy": float(correct.mean()), "rows": rows}
    if args.out:
        args.out.write_text(json.dumps({"provenance": provenance(), **report}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
