"""The adaptive perturbation budget replayed on saved evaluations: AUROC and LLM calls.

Reads one or more folders written by ``evaluate`` (``runs/*.json`` — the
RunArtifacts — and ``scores.csv`` with a ``correct`` column, as under
``runs/evaluate-<dataset>/``). For each judged question it replays the
adaptive rule on the run's stored affinities (``adaptive.simulate_on_run``:
prefixes of the full run are re-scored, no LLM call) and prints, per
tolerance, Inv-Entropy's AUROC (± paired bootstrap, the same resamples for
every row) and the mean number of answer requests, against the fixed budget
(the full run, n = 9 by default). The correctness labels do not change: they
judge the first answer to the original question, which every prefix keeps.

LLM calls here are answers only, (n_used + 1) · r; a live adaptive run also
saves the paraphrase requests it does not make (``RunArtifact.usage``).

    python benchmarks/bench_adaptive.py runs/evaluate-arithmetic [more folders]
        [--tolerances 0.01,0.02,0.05,0.1] [--start 3] [--step 2] [--n-boot 200]

Target: ≥ 40 % fewer LLM calls with AUROC within the bootstrap
noise of the fixed budget; otherwise the option stays off by default.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


@dataclass
class Question:
    """One judged question of a saved evaluation."""

    run: object  # RunArtifact
    correct: int


def load_questions(folders: list[Path]) -> list[Question]:
    """The judged questions of every folder (runs matched to ``scores.csv`` by question text)."""
    from invent_core.engine.artifact import RunArtifact

    out: list[Question] = []
    for folder in folders:
        runs = {}
        for path in sorted((folder / "runs").glob("*.json")):
            run = RunArtifact.load(path)
            if run.score is not None:
                runs[run.question.strip()] = run
        with open(folder / "scores.csv", newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                run = runs.get(str(row.get("question", "")).strip())
                if run is not None and row.get("correct", "") != "":
                    out.append(Question(run, int(float(row["correct"]))))
    return out


def _bootstrap(run):
    """``bootstrap(sim_x, sim_y)`` → (B,) Inv-Entropy, with the run's own B, seed and options."""
    from invent_core.paper.scoring import bootstrap_measures

    cfg, r = run.config.score, len(run.responses[0])

    def boot(sx, sy):
        rng = np.random.default_rng(cfg.seed)  # as score_from_similarity: the full prefix agrees
        return bootstrap_measures(sx, sy, r, cfg, rng=rng)["inv_entropy"]

    return boot


def replay(questions: list[Question], tolerance: float, start: int, step: int):
    """(uncertainty, answer requests) per question under the adaptive rule."""
    from invent_core.config import AdaptiveConfig
    from invent_core.engine.adaptive import simulate_on_run

    cfg = AdaptiveConfig(enabled=True, tolerance=tolerance, start=start, step=step)
    unc, calls = [], []
    for q in questions:
        s = q.run.score
        rec, values = simulate_on_run(
            s.sim_x, s.sim_y, len(q.run.responses[0]), cfg, bootstrap=_bootstrap(q.run)
        )
        unc.append(float(np.mean(values)))
        calls.append(rec.llm_calls)
    return np.array(unc), np.array(calls)


def compare(
    questions: list[Question], tolerances: list[float], *, start: int, step: int, n_boot: int
):
    """Rows of the table: the fixed budget first, then one per tolerance."""
    from invent_core.evaluation.metrics import auroc_score, bootstrap_indices, paired_bootstrap

    correct = np.array([q.correct for q in questions])
    fixed = np.array([q.run.score.measures["inv_entropy"] for q in questions])
    fixed_calls = np.array([len(q.run.questions) * len(q.run.responses[0]) for q in questions])
    idx = bootstrap_indices(correct, n_bootstrap=n_boot, seed=0)
    base = paired_bootstrap("auroc", correct, fixed, indices=idx)
    rows = [_row("fixed", correct, fixed, fixed_calls, base, base, fixed_calls)]
    for tol in tolerances:
        unc, calls = replay(questions, tol, start, step)
        boot = paired_bootstrap("auroc", correct, unc, indices=idx)
        rows.append(_row(f"adaptive {tol:g}", correct, unc, calls, boot, base, fixed_calls))
    for row in rows:
        row["auroc"] = auroc_score(correct, row.pop("_unc"))
    return rows


def _row(name, correct, unc, calls, boot, base, fixed_calls) -> dict:
    diff = boot.values - base.values  # paired: the same resamples
    return {
        "budget": name,
        "_unc": unc,
        "auroc_mean": boot.mean,
        "auroc_std": boot.std,
        "delta_mean": float(diff.mean()),
        "delta_std": float(diff.std()),
        "calls": float(np.mean(calls)),
        "saving": 1.0 - float(np.sum(calls)) / float(np.sum(fixed_calls)),
    }


def render(rows: list[dict], n: int, accuracy: float) -> str:
    """The table as text (the only place numbers are formatted)."""
    lines = [
        f"{n} judged questions, accuracy {accuracy:.0%}; load average {os.getloadavg()[0]:.2f}",
        f"{'budget':<16} {'AUROC':>7} {'± boot':>7} {'Δ vs fixed':>12} {'calls':>7} {'saving':>7}",
    ]
    for r in rows:
        lines.append(
            f"{r['budget']:<16} {r['auroc']:7.3f} {r['auroc_std']:7.3f} "
            f"{r['delta_mean']:+7.3f}±{r['delta_std']:.3f} {r['calls']:7.1f} {r['saving']:7.0%}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[dict]:
    """Parse the arguments, print the table, return its rows."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+", type=Path, help="evaluate output folders")
    ap.add_argument("--tolerances", default="0.01,0.02,0.05,0.1")
    ap.add_argument("--start", type=int, default=3)
    ap.add_argument("--step", type=int, default=2)
    ap.add_argument("--n-boot", type=int, default=200, help="paired bootstrap resamples")
    args = ap.parse_args(argv)
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("benchmarks/bench_adaptive.py"))
    questions = load_questions(args.folders)
    if not questions:
        raise SystemExit("no judged runs found: give folders written by `invent evaluate`")
    tolerances = [float(t) for t in args.tolerances.split(",") if t.strip()]
    rows = compare(questions, tolerances, start=args.start, step=args.step, n_boot=args.n_boot)
    accuracy = float(np.mean([q.correct for q in questions]))
    print(render(rows, len(questions), accuracy))
    return rows


if __name__ == "__main__":
    main()
