"""What a run keeps: the accepted rewordings of a seeded draw, to label by reading, and their figures.

    python scripts/accepted_draw.py extract docs/rewordings/alignment_seed37.json \\
        -o tests/data/meaning/accepted_draw_seed37.json        # rows to label (same_meaning null)
    python scripts/accepted_draw.py score tests/data/meaning/accepted_draw_seed37.json \\
        docs/rewordings/alignment_seed37.json                   # the figures, per sample

``extract`` reads a ``scripts/measure_rewordings.py`` record and writes every
distinct accepted rewording of every question (casefolded, punctuation dropped;
the question itself, which pads, left out) with ``same_meaning`` left for the
reader: same iff every right answer to one is a right answer to the other,
with the same given facts (the rule of ``question_pairs.json``). It refuses to
overwrite a file that already holds labels.

``score`` prints the share that keeps the meaning with a 95% bootstrap interval
over questions (2,000 resamples, seed 0), per sample, and the median distinct
states of 9 per question (the question itself counts), per sample; it refuses a
label file with a row left unlabelled or one that does not match the draw.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
N_RESAMPLES = 2000


def state_key(text: str) -> tuple[str, ...]:
    """A rewording as the distinct count reads it: casefolded words, punctuation dropped."""
    return tuple(re.sub(r"[^\w\s]", "", text.casefold()).split())


def accepted_rows(measured: dict) -> list[dict]:
    """One row per distinct accepted rewording of each question, in the draw's order."""
    rows = []
    for r in measured["rows"]:
        seen = {state_key(r["question"])}
        for text in r["perturbations"]:
            if state_key(text) in seen:
                continue
            seen.add(state_key(text))
            rows.append(
                {
                    "sample": r["sample"],
                    "id": r["id"],
                    "question": r["question"],
                    "rewording": text,
                    "same_meaning": None,
                }
            )
    return rows


def keep_rate(rows: list[dict], seed: int = 0) -> tuple[float, float, float]:
    """Share of rows that keep the meaning, with a 95% interval resampling questions."""
    by_q: dict[str, list[bool]] = {}
    for r in rows:
        by_q.setdefault(r["id"], []).append(bool(r["same_meaning"]))
    groups = list(by_q.values())
    kept = np.array([sum(g) for g in groups], dtype=float)
    total = np.array([len(g) for g in groups], dtype=float)
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(N_RESAMPLES):
        i = rng.integers(0, len(groups), len(groups))
        draws.append(kept[i].sum() / total[i].sum())
    lo, hi = np.percentile(draws, [2.5, 97.5])
    return float(kept.sum() / total.sum()), float(lo), float(hi)


def check_labels(labels: list[dict], measured: dict) -> None:
    """Refuse labels that leave a row open or do not match the draw's accepted rewordings."""
    open_rows = [i for i, r in enumerate(labels) if r["same_meaning"] is None]
    if open_rows:
        raise SystemExit(f"{len(open_rows)} rows not labelled (first: row {open_rows[0]})")
    want = [(r["id"], r["rewording"]) for r in accepted_rows(measured)]
    got = [(r["id"], r["rewording"]) for r in labels]
    if want != got:
        raise SystemExit("the labels do not match the draw's accepted rewordings")


def score(labels: list[dict], measured: dict) -> list[str]:
    """The printout's lines: keep rate overall and per sample, median distinct states."""
    p, lo, hi = keep_rate(labels)
    n_keep = sum(bool(r["same_meaning"]) for r in labels)
    lines = [
        f"distinct accepted rewordings labelled: {len(labels)}; keep the meaning: {n_keep} = "
        f"{p:.3f} [{lo:.3f}, {hi:.3f}] (95% bootstrap over questions)"
    ]
    samples = list(dict.fromkeys(r["sample"] for r in measured["rows"]))
    for name in samples:
        mine = [r for r in labels if r["sample"] == name]
        kept = sum(bool(r["same_meaning"]) for r in mine)
        lines.append(f"  {name:12s} {kept:3d}/{len(mine):3d} = {kept / max(len(mine), 1):.2f}")
    distinct = [r["acceptance"].get("distinct", 0) for r in measured["rows"]]
    per = {
        n: statistics.median(
            r["acceptance"].get("distinct", 0) for r in measured["rows"] if r["sample"] == n
        )
        for n in samples
    }
    lines.append(
        f"median distinct states of 9 per question: {statistics.median(distinct):.1f}; "
        + ", ".join(f"{n} {v:g}" for n, v in per.items())
    )
    secs = [r["seconds"] for r in measured["rows"]]
    loads = [r["load"] for r in measured["rows"]]
    lines.append(
        f"perturbation stage: median {statistics.median(secs):.1f} s per question "
        f"(load {min(loads):.1f}-{max(loads):.1f})"
    )
    return lines


def main() -> None:
    from invent_core.provenance import provenance_line  # the code behind this printout

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("extract", help="rows to label from a measure_rewordings.py record")
    ex.add_argument("measured", type=Path)
    ex.add_argument("-o", "--out", type=Path, required=True)
    sc = sub.add_parser("score", help="figures of a labelled draw")
    sc.add_argument("labels", type=Path)
    sc.add_argument("measured", type=Path)
    args = parser.parse_args()
    print(provenance_line("scripts/accepted_draw.py"))
    measured = json.loads(args.measured.read_text(encoding="utf-8"))
    if args.command == "extract":
        if args.out.exists() and any(
            r.get("same_meaning") is not None
            for r in json.loads(args.out.read_text(encoding="utf-8"))["rows"]
        ):
            raise SystemExit(f"{args.out} holds labels already: not overwritten")
        rows = accepted_rows(measured)
        about = f"accepted rewordings of {args.measured.name} (seed {measured['seed']})"
        args.out.write_text(json.dumps({"about": about, "rows": rows}, indent=1) + "\n")
        print(f"{len(rows)} rows to label written to {args.out}")
        return
    labels = json.loads(args.labels.read_text(encoding="utf-8"))["rows"]
    check_labels(labels, measured)
    print("\n".join(score(labels, measured)))


if __name__ == "__main__":
    main()
