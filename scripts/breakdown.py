"""The paper's "Performance breakdown" rebuilt from saved evaluate runs — no LLM call.

For each saved ``evaluate`` folder this re-scores the saved answers under the
paper's ablations and writes ``<folder>/breakdown.json`` with Inv-Entropy's
AUROC / PRR per row and the paired bootstrap Δ against the default (the same
resample indices for both; ``invent_core.evaluation.metrics.bootstrap_indices``):

* re-scoring rows (embedder only): r = 1, 3 of the saved r = 5 replications;
  the paper's kernel (1 + cos)/2 vs ours; mpnet vs MiniLM (``--mpnet``, ≈ 8× slower);
* rows read from saved columns: NR-Inv-Entropy (no replications) and NI-Entropy
  (no inversion);
* rows that need other runs (GAAP perturbation; ``--paraphrase-llm``): read
  from ``<folder>-gaap`` / ``<folder>-paraphrase-llm`` when present, else "not run".

``scripts/make_results.py`` turns the JSON into RESULTS tables; it also reads,
with no model at all, the rank correlation between methods and the
within/across-wording split of each question's answers.

    python scripts/breakdown.py docs/results [--mpnet] [--only evaluate-arithmetic-100]
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from invent_core import env  # noqa: E402,F401  offline before any model import
from invent_core.evaluation.metrics import auroc_score, bootstrap_indices, prr_score  # noqa: E402

DEFAULT = "inv_entropy"
METRICS = {"auroc": auroc_score, "prr": prr_score}
SAVED_ROWS = {"nr_inv_entropy": "NR-Inv-Entropy (no replications)",
              "ni_entropy": "NI-Entropy (no inversion)"}  # fmt: skip
OTHER_RUNS = {"gaap": "GAAP perturbation (vs paraphrase)",
              "paraphrase-llm": "1.5B paraphrasing, 0.5B answering (--paraphrase-llm)"}  # fmt: skip


def read_scores(folder: Path) -> list[dict[str, str]]:
    """``scores.csv`` rows that have a judged answer and an Inv-Entropy."""
    with open(folder / "scores.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return [r for r in rows if r.get("correct") in ("0", "1") and r.get(DEFAULT)]


def run_for(folder: Path, row_id: str) -> dict[str, Any] | None:
    """The saved run of one question (file named as ``experiment.example_run_path`` names it)."""
    from invent_core.experiments.runs import safe_name

    found = sorted((folder / "runs").glob(f"{safe_name(row_id)}_T*.json"))
    return json.loads(found[0].read_text(encoding="utf-8")) if found else None


def judged_runs(folder: Path) -> tuple[list[dict[str, str]], list[dict[str, Any]]]:
    """The judged ``scores.csv`` rows that have a saved run, and those runs (each read once)."""
    found = [(row, run_for(folder, row["id"])) for row in read_scores(folder)]
    return [row for row, run in found if run], [run for _, run in found if run]


def paired_inputs(rows: list[dict[str, str]], n_boot: int, seed: int):
    """(correct labels, default Inv-Entropy, bootstrap indices) every paired row is drawn on."""
    correct = np.array([int(r["correct"]) for r in rows])
    base = np.array([float(r[DEFAULT]) for r in rows])
    return correct, base, bootstrap_indices(correct, n_bootstrap=n_boot, seed=seed)


def paired_delta(correct: np.ndarray, base: np.ndarray, other: np.ndarray, idx: np.ndarray,
                 other_correct: np.ndarray | None = None) -> dict[str, Any]:  # fmt: skip
    """Each metric of ``other`` and its Δ to ``base`` over the same bootstrap resamples."""
    oc = correct if other_correct is None else other_correct
    out: dict[str, Any] = {}
    for name, func in METRICS.items():
        b = np.array([func(correct[i], base[i]) for i in idx])
        o = np.array([_safe_metric(func, oc[i], other[i]) for i in idx])
        d = o - b
        out[name] = {"mean": float(np.nanmean(o)), "std": float(np.nanstd(o)),
                     "delta": float(np.nanmean(d)), "delta_std": float(np.nanstd(d)),
                     "p_better": float(np.nanmean(d > 0))}  # fmt: skip
    return out


def _safe_metric(func, c: np.ndarray, u: np.ndarray) -> float:
    """NaN instead of an error when a resample of another run has one class only."""
    return float(func(c, u)) if 0 < c.sum() < c.size else float("nan")


def rescore(runs: list[dict[str, Any]], *, r: int | None = None, **score_opts: Any) -> np.ndarray:
    """Inv-Entropy of every saved run re-scored from its saved answers (no LLM)."""
    from invent_core.config import ScoreConfig
    from invent_core.engine.scoring import score_responses

    values = []
    for run in runs:
        base = ScoreConfig.from_dict(run.get("score", {}).get("config") or {})
        cfg = dataclasses.replace(base, **score_opts)
        responses = [list(reps)[: r or len(reps)] for reps in run["responses"]]
        values.append(score_responses(run["questions"], responses, cfg).measures[DEFAULT])
    return np.array(values)


def breakdown(folder: Path, *, mpnet: bool = False, n_boot: int = 40, seed: int = 0) -> dict:
    """Every breakdown row of one evaluate folder, as written to ``breakdown.json``."""
    rows, runs = judged_runs(folder)
    correct, base, idx = paired_inputs(rows, n_boot, seed)
    r_saved = min(len(reps) for run in runs for reps in run["responses"])
    out: dict[str, Any] = {"n_questions": len(rows), "n_correct": int(correct.sum()),
                           "n_boot": n_boot, "seed": seed, "r": r_saved,
                           "default": paired_delta(correct, base, base, idx), "rows": {}}  # fmt: skip
    table = out["rows"]
    for col, label in SAVED_ROWS.items():
        table[col] = {"label": label, **paired_delta(correct, base, _col(rows, col), idx)}
    for r in (1, 3):
        if r < r_saved:
            label = f"r = {r} of the saved {r_saved} replications (re-scored)"
            table[f"r{r}"] = {
                "label": label,
                **paired_delta(correct, base, rescore(runs, r=r), idx),
            }
    paper = rescore(runs, affinity="shifted_cosine")
    table["paper_kernel"] = {"label": "the paper's kernel (1 + cos)/2 (re-scored)",
                             **paired_delta(correct, base, paper, idx)}  # fmt: skip
    if mpnet:
        table["mpnet"] = {"label": "mpnet instead of MiniLM (re-scored)",
                          **paired_delta(correct, base, rescore(runs, embedder="mpnet"), idx)}  # fmt: skip
    table.update(other_rows(folder, rows, correct, base, idx))
    return out


def refresh_other_runs(folder: Path, saved: dict) -> dict:
    """``saved`` (a breakdown.json) with its rows from other runs read again; no re-scoring.

    The bootstrap indices are drawn again from the saved ``n_boot`` and ``seed``,
    so the new rows are paired with the same resamples as the kept ones.
    """
    rows, _ = judged_runs(folder)
    saved["rows"].update(
        other_rows(folder, rows, *paired_inputs(rows, saved["n_boot"], saved["seed"]))
    )
    return saved


def _col(rows: list[dict[str, str]], col: str) -> np.ndarray:
    return np.array([float(r[col]) if r.get(col) else math.nan for r in rows])


def other_rows(folder: Path, rows, correct, base, idx) -> dict[str, dict[str, Any]]:
    """The GAAP and paraphrasing-model rows (``OTHER_RUNS``), each from its sibling folder."""
    return {suffix: {"label": label, **other_run(folder, suffix, rows, correct, base, idx)}
            for suffix, label in OTHER_RUNS.items()}  # fmt: skip


def other_run(folder: Path, suffix: str, rows, correct, base, idx) -> dict[str, Any]:
    """The row of a run saved in ``<folder>-<suffix>``, paired by question id; else not run."""
    other = folder.with_name(f"{folder.name}-{suffix}")
    if not (other / "scores.csv").is_file():
        return {"not_run": f"no {other.name}/ folder"}
    by_id = {r["id"]: r for r in read_scores(other)}
    if not all(r["id"] in by_id for r in rows):
        return {"not_run": f"{other.name}/ lacks some of these questions"}
    mine = [by_id[r["id"]] for r in rows]
    oc = np.array([int(r["correct"]) for r in mine])
    return paired_delta(correct, base, _col(mine, DEFAULT), idx, other_correct=oc)


# --- RESULTS sections (read saved files only; no model, no LLM) -------------------------


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(r) + " |" for r in rows]


def _f(value: float, digits: int = 3) -> str:
    return f"{value:.{digits}f}" if math.isfinite(value) else "–"


def agreement_section(folder: Path, title: str, labels: dict[str, str]) -> list[str]:
    """Spearman ρ between every pair of methods' scores on one evaluation, and who coincides."""
    from invent_core.evaluation import rank_correlation

    rows = read_scores(folder)
    results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    methods = [m for m in results.get("results", {}) if rows and m in rows[0]]
    if len(methods) < 2:
        return []
    rc = rank_correlation({m: _col(rows, m) for m in methods}, methods)
    short = [labels.get(m, m) for m in methods]
    body = [[short[i], *(_f(rc.rho[i, j], 2) for j in range(len(methods)))]
            for i in range(len(methods))]  # fmt: skip
    groups = rc.coinciding()
    said = "; ".join(" = ".join(labels.get(m, m) for m in g) for g in groups) or "none"
    return [f"#### {title}", "", f"Spearman ρ over {rc.n_questions} questions. "
            f"Coinciding (ρ ≥ 0.999, one ranking, hence the same AUROC, PRR and Brier): {said}.",
            "", *_table(["", *short], body), ""]  # fmt: skip


def spread_rows(folder: Path) -> list[tuple[int, Any]]:
    """(correct, SpreadSplit, entropy of the original wording's r answers) per judged question."""
    return spread_pairs(*judged_runs(folder))


def spread_pairs(rows: list[dict[str, str]], runs: list[dict[str, Any]]) -> list[tuple[int, Any]]:
    """:func:`spread_rows` of rows and their runs already read."""
    from invent_core.evaluation import normalize_answer
    from invent_core.evaluation.spread import wording_entropy_split

    out = []
    for row, run in zip(rows, runs, strict=True):
        split = wording_entropy_split(run["responses"], key=normalize_answer)
        original = wording_entropy_split(run["responses"][:1], key=normalize_answer)
        out.append((int(row["correct"]), split, original.total))
    return out


def spread_line(title: str, pairs: list[tuple[int, Any]]) -> list[str]:
    """One RESULTS row: AUROC of total / within / across and the errors replication misses."""
    c = np.array([p[0] for p in pairs])
    parts = {k: np.array([getattr(p[1], k) for p in pairs]) for k in ("total", "within", "across")}
    both = 0 < c.sum() < c.size
    aurocs = [_f(auroc_score(c, v)) if both else "–" for v in parts.values()]
    wrong = c == 0
    blind = wrong & (np.array([p[2] for p in pairs]) == 0)  # r answers to the original agree
    caught = blind & (parts["across"] > 0)
    share = np.nanmean([p[1].across_share for p in pairs])
    return [title, str(c.size), str(int(wrong.sum())), *aurocs, _f(float(share), 2),
            f"{int(caught.sum())} of {int(blind.sum())}"]  # fmt: skip


SPREAD_HEADER = ["Evaluation", "n", "wrong", "AUROC total H(Y)", "AUROC within H(Y|X)",
                 "AUROC across I(X;Y)", "mean across share",
                 "wrong though the original's r answers agree: caught across wordings"]  # fmt: skip


def breakdown_section(folder: Path, title: str) -> list[str]:
    """The breakdown table from ``breakdown.json`` (written by this script's ``main``)."""
    path = folder / "breakdown.json"
    if not path.is_file():
        return []
    bd = json.loads(path.read_text(encoding="utf-8"))
    d = bd["default"]
    body = [[f"Inv-Entropy, default (paraphrase, MiniLM, our kernel, r = {bd['r']})",
             f"{_f(d['auroc']['mean'])} ± {_f(d['auroc']['std'])}", "–",
             f"{_f(d['prr']['mean'])} ± {_f(d['prr']['std'])}", "–"]]  # fmt: skip
    for row in bd["rows"].values():
        if "not_run" in row:
            body.append([row["label"], f"not run ({row['not_run']})", "", "", ""])
            continue
        a, p = row["auroc"], row["prr"]
        body.append([row["label"], f"{_f(a['mean'])} ± {_f(a['std'])}",
                     f"{a['delta']:+.3f} ± {a['delta_std']:.3f}",
                     f"{_f(p['mean'])} ± {_f(p['std'])}", f"{p['delta']:+.3f} ± {p['delta_std']:.3f}"])  # fmt: skip
    head = ["Row", "AUROC", "Δ AUROC (paired)", "PRR", "Δ PRR (paired)"]
    return [f"#### {title}", "", f"{bd['n_questions']} questions ({bd['n_correct']} right), "
            f"{bd['n_boot']} paired bootstrap resamples (seed {bd['seed']}).", "",
            *_table(head, body), ""]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Write ``breakdown.json`` into every evaluate folder under the root."""
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("root", type=Path, help="folder of saved evaluate folders (docs/results)")
    p.add_argument("--mpnet", action="store_true", help="add the mpnet row (≈ 8× slower)")
    p.add_argument("--only", action="append", default=[], help="folder name(s) to do")
    p.add_argument("--other-runs-only", action="store_true",
                   help="refresh only the GAAP / --paraphrase-llm rows of an existing "
                        "breakdown.json, keeping its re-scored rows (mpnet included)")  # fmt: skip
    args = p.parse_args(argv)
    from invent_core.provenance import provenance, provenance_line  # the code behind this printout

    print(provenance_line("scripts/breakdown.py"))
    if not args.root.is_dir():
        p.error(f"{args.root} is not a folder")
    for folder in sorted(args.root.iterdir()):
        if not (folder / "results.json").is_file() or (args.only and folder.name not in args.only):
            continue
        if any(folder.name.endswith(f"-{s}") for s in OTHER_RUNS):
            continue
        saved = folder / "breakdown.json"
        if args.other_runs_only and saved.is_file():
            result = refresh_other_runs(folder, json.loads(saved.read_text(encoding="utf-8")))
        else:
            result = breakdown(folder, mpnet=args.mpnet)
        saved.write_text(json.dumps({**result, "provenance": provenance()}, indent=1) + "\n")
        print(f"wrote {saved} ({result['n_questions']} questions)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
