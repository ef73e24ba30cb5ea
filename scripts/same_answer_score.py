"""same_answer's accuracy on the hand-labelled answer pairs, per half and per class.

Two labelled sets are scored:

* ``tests/data/meaning/answer_pairs.json`` (written by hand, organised by the kind of
  answer: names, numbers, yes/no, formulas, dates, qualifiers, places, currencies,
  paraphrases; halves by a hash of question and answers: ``tuning`` chose the rules
  and thresholds, ``report`` gives the final figures). Per class and half: the
  accuracy of ``same_answer`` with a 95% bootstrap interval, the rules' coverage
  (share of pairs they decide) and the accuracy of what they decide.
* ``tests/data/answer_pairs.json`` (the older set drawn from saved runs; split by a
  hash of the question): accuracy per split and kind, as before.

``same_answer`` is the shipped default: the rules, then MiniLM's cosine at
``UNDECIDED_COSINE`` for what they leave undecided. ``--judge SPEC`` (repeatable)
scores the rules followed by the answer judge instead (an LLM spec or ``nli:/path``).
``--misses`` lists the wrong verdicts of the tuning half only: the report half is
never read row by row.

Run: python scripts/same_answer_score.py [--judge local] [--misses]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OLD_FIXTURE = ROOT / "tests" / "data" / "answer_pairs.json"
FIXTURE = ROOT / "tests" / "data" / "meaning" / "answer_pairs.json"
BOOTSTRAP_DRAWS = 2000
SEED = 20261129


def verdicts(pairs, judge=None) -> tuple[list[bool], list[bool | None]]:
    """(final verdict, rule verdict) per pair; the judge gets a question's undecided pairs at once."""
    from invent_core.responses import same_answer
    from invent_core.responses.equivalence import rule_verdict

    ruled = [rule_verdict(p["question"], p["a"], p["b"], choices=p.get("choices")) for p in pairs]
    if judge is None:
        final = [
            r if r is not None else same_answer(p["question"], p["a"], p["b"])
            for p, r in zip(pairs, ruled)
        ]
        return final, ruled
    final = list(ruled)
    by_question = defaultdict(list)
    for i, v in enumerate(ruled):
        if v is None:
            by_question[pairs[i]["question"]].append(i)
    for question, idx in by_question.items():
        said = judge.same_many(question, [(pairs[i]["a"], pairs[i]["b"]) for i in idx])
        for i, s in zip(idx, said):
            final[i] = s
    return final, ruled


def interval(right: list[bool], rng: np.random.Generator) -> tuple[float, float]:
    """95% percentile bootstrap interval of the mean of ``right``."""
    x = np.asarray(right, dtype=float)
    means = x[rng.integers(0, len(x), size=(BOOTSTRAP_DRAWS, len(x)))].mean(axis=1)
    return float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def class_table(
    name: str, rows, final, ruled, misses: bool, halves=("tuning", "report")
) -> dict[str, dict[str, float]]:
    """Per half and class: accuracy [95% CI], rules' coverage and decided accuracy; returns accuracy."""
    rng = np.random.default_rng(SEED)
    print(f"\n{name}")
    print(
        f"  {'half':<8}{'class':<12}{'n':>4}  {'accuracy [95% CI]':<24}{'coverage':>9}{'ruled acc':>10}"
    )
    acc: dict[str, dict[str, float]] = defaultdict(dict)
    for half in halves:
        groups = defaultdict(list)
        for i, r in enumerate(rows):
            if r["half"] == half:
                groups[r["class"]].append(i)
                groups["all"].append(i)
        for cls in sorted(groups, key=lambda c: (c == "all", c)):
            idx = groups[cls]
            right = [final[i] == rows[i]["same"] for i in idx]
            decided = [i for i in idx if ruled[i] is not None]
            ruled_right = [ruled[i] == rows[i]["same"] for i in decided]
            lo, hi = interval(right, rng)
            a = float(np.mean(right))
            acc[half][cls] = a
            ruled_acc = f"{np.mean(ruled_right):.3f}" if decided else "-"
            print(
                f"  {half:<8}{cls:<12}{len(idx):>4}  {a:.3f} [{lo:.3f}, {hi:.3f}]"
                f"{'':<6}{len(decided) / len(idx):>6.2f}{ruled_acc:>10}"
            )
    if misses:
        for i, r in enumerate(rows):
            if r["half"] == "tuning" and final[i] != r["same"]:
                print(
                    f"   [tuning {r['class']}] rules {ruled[i]}, said {final[i]}: "
                    f"{r['a']!r} / {r['b']!r}  ({r['question'][:50]})"
                )
    return acc


def old_table(name: str, pairs, got) -> None:
    """The older set: accuracy per split and kind, one line."""
    right = defaultdict(list)
    for p, g in zip(pairs, got):
        for key in (p["split"], p["kind"], "all"):
            right[key].append(g == p["same"])
    cells = "  ".join(f"{k} {np.mean(v):.3f} ({len(v)})" for k, v in sorted(right.items()))
    print(f"{name}: {cells}")


def commit() -> str:
    """The git commit scored, with '+changes' when the tree is not clean."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()

    return git("rev-parse", "--short", "HEAD") + (
        "+changes" if git("status", "--porcelain") else ""
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", action="append", default=[], help="an LLM spec or nli:/path")
    parser.add_argument(
        "--misses", action="store_true", help="list the tuning half's wrong verdicts"
    )
    parser.add_argument(
        "--tuning-only",
        action="store_true",
        help="score the tuning half only (while choosing rules)",
    )
    args = parser.parse_args()
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("scripts/same_answer_score.py"))
    from invent_core import env  # noqa: F401  (offline before any model import)
    from invent_core.responses.judge import AnswerJudge
    from invent_core.responses.same import UNDECIDED_COSINE

    rows = json.loads(FIXTURE.read_text(encoding="utf-8"))["rows"]
    old = json.loads(OLD_FIXTURE.read_text(encoding="utf-8"))["pairs"]
    print(
        f"commit {commit()}; {len(rows)} pairs by class, {len(old)} older pairs; "
        f"fallback: MiniLM cosine >= {UNDECIDED_COSINE}; load {os.getloadavg()[0]:.1f} "
        f"on {os.cpu_count()} cores"
    )
    final, ruled = verdicts(rows)
    halves = ("tuning",) if args.tuning_only else ("tuning", "report")
    class_table("rules+cosine (same_answer)", rows, final, ruled, args.misses, halves)
    print()
    old_table("older set, rules+cosine", old, verdicts(old)[0])
    for spec in args.judge:
        t0 = time.perf_counter()
        judge = AnswerJudge(spec)
        final, ruled = verdicts(rows, judge)
        class_table(f"rules+judge:{spec}", rows, final, ruled, args.misses, halves)
        old_table(f"older set, rules+judge:{spec}", old, verdicts(old, judge)[0])
        print(f"   ({time.perf_counter() - t0:.0f} s, load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
