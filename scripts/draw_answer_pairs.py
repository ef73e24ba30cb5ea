"""Draw the candidate answer pairs of ``tests/data/answer_pairs.json`` from the saved runs.

The labels in that file were given by reading each pair (same answer to the question or
not); this script only says where the pairs came from, so the draw can be repeated:
``python scripts/draw_answer_pairs.py > /tmp/candidates.json``. Pairs are drawn with a
fixed seed from every sample whose answers ship: the arithmetic testbed (numbers and
short names), MMLU (letters and option texts), SciQ (free text), and the reply beside a
reference answer for TriviaQA, NQ-open, GSM8K and SciQ (docs/references/before_2026-11-27/*/scores.csv).
"""

from __future__ import annotations

import csv
import glob
import json
import random
import re
import sys
from itertools import combinations
from pathlib import Path

RUNS = sorted(glob.glob("docs/results/evaluate-*/runs/*.json")) + sorted(
    glob.glob("docs/results_before_meaning_check/*/runs/*.json")
)
DATASET = {"gsm8k": "arithmetic", "mmlu": "mmlu", "qa": "qa"}


def _runs() -> list[dict]:
    out = []
    for path in RUNS:
        with open(path, encoding="utf-8") as fh:
            run = json.load(fh)
        run["path"] = path
        run["dataset"] = "sciq" if "sciq" in path else DATASET[run["task"]]
        out.append(run)
    return out


def _pair(run: dict, a: str, b: str, kind: str) -> dict:
    return {
        "dataset": run["dataset"],
        "kind": kind,
        "question": run["question"],
        "choices": run.get("choices"),
        "a": a,
        "b": b,
        "source": run["path"],
    }


def _within(runs: list[dict], dataset: str, kind: str, n: int, rng: random.Random) -> list[dict]:
    """``n`` pairs of distinct canonical answers inside one run each."""
    pool = []
    for run in runs:
        if run["dataset"] != dataset:
            continue
        answers = sorted({a for reps in run["responses"] for a in reps if a.strip()})
        pool += [_pair(run, a, b, kind) for a, b in combinations(answers, 2)]
    return rng.sample(pool, min(n, len(pool)))


def _surface(runs: list[dict], dataset: str, n: int, rng: random.Random) -> list[dict]:
    """``n`` pairs (raw reply, its canonical form) where the two differ."""
    pool = []
    for run in runs:
        if run["dataset"] != dataset:
            continue
        for raws, cans in zip(run["raw_responses"], run["responses"], strict=True):
            pool += [
                _pair(run, raw.strip(), can, "surface")
                for raw, can in zip(raws, cans, strict=True)
                if raw.strip() and raw.strip() != can
            ]
    unique = list({(p["question"], p["a"], p["b"]): p for p in pool}.values())
    return rng.sample(unique, min(n, len(unique)))


_STOP = {"the", "a", "an", "of", "is", "are", "and", "in", "to", "by", "it", "its", "was", "on"}


def _tokens(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower())) - _STOP


def _overlapping(runs: list[dict], n: int, rng: random.Random) -> list[dict]:
    """``n`` pairs of distinct free-text answers of one run that share a word (the hard cases)."""
    pool = []
    for run in runs:
        if run["dataset"] not in ("qa", "sciq"):
            continue
        answers = sorted({a for reps in run["responses"] for a in reps if 0 < len(a) <= 90})
        pool += [
            _pair(run, a, b, "variants")
            for a, b in combinations(answers, 2)
            if _tokens(a) & _tokens(b) and _tokens(a) != _tokens(b)
        ]
    return rng.sample(pool, min(n, len(pool)))


def _references(n_each: int, rng: random.Random) -> list[dict]:
    """The first reply beside the first reference answer, per reference sample."""
    out = []
    for name in ("triviaqa", "nq_open", "gsm8k", "sciq"):
        path = f"docs/references/before_2026-11-27/evaluate-{name}/scores.csv"
        with open(path, encoding="utf-8") as fh:
            rows = [r for r in csv.DictReader(fh) if r["canonical"].strip()]
        for row in rng.sample(rows, min(n_each, len(rows))):
            run = {"dataset": name, "question": row["question"], "path": path}
            ref = row["reference"].split(" | ")[0]
            out.append(_pair(run, row["canonical"], ref, "reference"))
    return out


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # invent_core, for the header
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("scripts/draw_answer_pairs.py"), file=sys.stderr)
    rng = random.Random(0)
    runs = _runs()
    pairs = (
        _within(runs, "arithmetic", "numbers", 45, rng)
        + _surface(runs, "arithmetic", 30, rng)
        + _within(runs, "mmlu", "letters", 30, rng)
        + _surface(runs, "mmlu", 30, rng)
        + _within(runs, "qa", "names", 40, rng)
        + _within(runs, "sciq", "text", 70, rng)
        + _surface(runs, "sciq", 15, rng)
        + _references(20, rng)
        + _overlapping(runs, 50, rng)
    )
    json.dump(pairs, sys.stdout, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
