"""The rewording check per class of change, on the hand-labelled question pairs.

Reads ``tests/data/meaning/question_pairs.json`` (pairs labelled same /
different meaning, each with the class of change and its split, written into
the file: ``tuning`` or ``report``, by a hash of the pair) and judges every
candidate alone against its original with
:func:`invent_core.perturb.asks_same.same_question` (no model: an undecided
pair is kept or not as ``GateConfig.undecided_kept`` says).

For each half and each class it prints the pairs, the share of same-meaning
pairs kept (recall), the share of different-meaning pairs rejected, and the
precision, each with a 95% bootstrap interval (pairs resampled, 2,000 times,
seed 0); then the whole half. A class written with one side only has no
precision of its own: its rejected share says how it weighs on the overall
precision. ``--misses`` lists the wrong decisions of the tuning half only (the
report half is for the final figure, never for choosing a rule).
``--gate-labelled`` also prints the older set's figures
(``scripts/gate_labelled_score.py``).

Run: python scripts/question_pairs_score.py [--misses] [--gate-labelled]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PAIRS = ROOT / "tests" / "data" / "meaning" / "question_pairs.json"
N_RESAMPLES = 2000


def load_pairs(path: Path = PAIRS) -> list[dict]:
    """The labelled rows, each with original, candidate, same_meaning, class, source, split."""
    return json.loads(path.read_text(encoding="utf-8"))["rows"]


def verdicts(rows: list[dict], config=None) -> list:
    """:func:`same_question` per row, no model asked (its reason in ``detail``)."""
    from invent_core.perturb.asks_same import same_question

    return [same_question(r["original"], r["candidate"], llm=None, config=config) for r in rows]


def counts(same: np.ndarray, kept: np.ndarray) -> dict[str, float]:
    """Precision, recall and the share of different-meaning pairs rejected (nan when undefined)."""
    tp = float(np.sum(same & kept))
    fp = float(np.sum(~same & kept))
    n_same, n_diff = float(same.sum()), float((~same).sum())
    return {
        "precision": tp / (tp + fp) if tp + fp else float("nan"),
        "recall": tp / n_same if n_same else float("nan"),
        "rejected": (n_diff - fp) / n_diff if n_diff else float("nan"),
    }


def bootstrap(same: np.ndarray, kept: np.ndarray, seed: int = 0) -> dict[str, tuple]:
    """Each figure of :func:`counts` with its 95% interval, pairs resampled with replacement."""
    rng = np.random.default_rng(seed)
    point = counts(same, kept)
    draws = {k: [] for k in point}
    for _ in range(N_RESAMPLES):
        i = rng.integers(0, len(same), len(same))
        for k, v in counts(same[i], kept[i]).items():
            draws[k].append(v)
    out = {}
    for k, v in point.items():
        arr = np.array(draws[k])
        arr = arr[~np.isnan(arr)]
        lo, hi = np.percentile(arr, [2.5, 97.5]) if arr.size else (np.nan, np.nan)
        out[k] = (v, float(lo), float(hi))
    return out


def half_figures(rows: list[dict], kept: list[bool], split: str) -> dict[str, dict]:
    """{class or "all": bootstrap figures} for the rows of one split."""
    idx = [i for i, r in enumerate(rows) if r["split"] == split]
    classes = sorted({rows[i]["class"] for i in idx})
    out = {}
    for name in [*classes, "all"]:
        sel = [i for i in idx if name == "all" or rows[i]["class"] == name]
        same = np.array([rows[i]["same_meaning"] for i in sel], dtype=bool)
        got = np.array([kept[i] for i in sel], dtype=bool)
        out[name] = {"n": len(sel), **bootstrap(same, got)}
    return out


def _cell(fig: tuple) -> str:
    v, lo, hi = fig
    return "      -           " if np.isnan(v) else f"{v:.2f} [{lo:.2f}, {hi:.2f}]"


def print_half(figures: dict[str, dict], split: str) -> None:
    print(
        f"\n{split} half   {'class':28s} {'n':>4s}  {'recall (same kept)':18s}  "
        f"{'different rejected':18s}  precision"
    )
    for name, f in figures.items():
        print(
            f"{'':12s}{name:28s} {f['n']:4d}  {_cell(f['recall']):18s}  "
            f"{_cell(f['rejected']):18s}  {_cell(f['precision'])}"
        )


def commit() -> str:
    """The checkout's commit, marked when files differ from it."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" (with uncommitted changes)" if dirty else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="wrong decisions, tuning half")
    parser.add_argument(
        "--half",
        choices=("tuning", "report", "both"),
        default="both",
        help="which half to print (tuning while choosing rules)",
    )
    parser.add_argument(
        "--gate-labelled", action="store_true", help="also print gate_labelled_score.py's figures"
    )
    args = parser.parse_args()
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("scripts/question_pairs_score.py"))
    from invent_core import env  # noqa: F401  (offline before any model import)

    rows = load_pairs()
    found = verdicts(rows)
    kept = [bool(v.same) for v in found]
    print(
        f"{PAIRS.relative_to(ROOT)}: {len(rows)} pairs; same_question, no model asked; "
        f"commit {commit()}; 95% bootstrap intervals over pairs ({N_RESAMPLES} resamples)"
    )
    for split in ("tuning", "report") if args.half == "both" else (args.half,):
        print_half(half_figures(rows, kept, split), split)
    if args.misses:
        print("\ntuning-half misses:")
        for r, v in zip(rows, found):
            if r["split"] == "tuning" and bool(v.same) != r["same_meaning"]:
                tag = "KEPT different" if v.same else "rejected same"
                print(
                    f"  [{r['class']}] {tag}: {r['original']!r} -> {r['candidate']!r}"
                    f"  ({v.decided_by}: {v.detail})"
                )
    if args.gate_labelled:
        print("\ntests/data/gate_labelled.json (scripts/gate_labelled_score.py):", flush=True)
        subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "gate_labelled_score.py")],
            cwd=ROOT,
            check=False,
        )


if __name__ == "__main__":
    main()
