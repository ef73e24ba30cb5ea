"""same_answer's accuracy on the hand-labelled answer pairs, per split and per kind.

Reads ``tests/data/answer_pairs.json`` (pairs drawn from the saved runs of all six
samples, labelled same / different by reading; split by a hash of the question:
"tune" chose thresholds, "test" reports) and scores:

* ``rules+cosine``: :func:`invent_core.responses.same_answer` as shipped (the rules,
  then MiniLM's cosine at ``UNDECIDED_COSINE`` for what they leave undecided);
* ``rules+judge:SPEC`` with ``--judge SPEC`` (repeatable): the rules, then the answer
  judge (:mod:`invent_core.responses.judge`: an LLM spec or ``nli:/path``) — ψ_y's
  ``answer_similarity="judge"``. The judge's answers go through the LLM cache.

Run: python scripts/same_answer_score.py [--judge local] [--judge qwen1.5b] [--misses]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
FIXTURE = ROOT / "tests" / "data" / "answer_pairs.json"


def verdicts(pairs, judge=None) -> list[bool]:
    """same_answer per pair; with ``judge`` the undecided pairs of a question go in one batch."""
    from invent_core.responses import same_answer
    from invent_core.responses.equivalence import rule_verdict

    if judge is None:
        return [same_answer(p["question"], p["a"], p["b"], choices=p["choices"]) for p in pairs]
    ruled = [rule_verdict(p["question"], p["a"], p["b"], choices=p["choices"]) for p in pairs]
    by_question = defaultdict(list)
    for i, v in enumerate(ruled):
        if v is None:
            by_question[pairs[i]["question"]].append(i)
    for question, idx in by_question.items():
        said = judge.same_many(question, [(pairs[i]["a"], pairs[i]["b"]) for i in idx])
        for i, s in zip(idx, said):
            ruled[i] = s
    return ruled


def table(name: str, pairs, got, misses: bool) -> dict[str, float]:
    """Accuracy per split and kind, printed as one line per group."""
    right = defaultdict(list)
    for p, g in zip(pairs, got):
        ok = g == p["same"]
        for key in (p["split"], p["kind"], "all"):
            right[key].append(ok)
    acc = {k: sum(v) / len(v) for k, v in right.items()}
    cells = "  ".join(f"{k} {acc[k]:.3f} ({len(right[k])})" for k in sorted(right))
    print(f"{name}: {cells}")
    if misses:
        for p, g in zip(pairs, got):
            if g != p["same"]:
                print(f"   [{p['split']} {p['kind']}] said {g}: {p['a'][:50]!r} / {p['b'][:50]!r}")
    return acc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", action="append", default=[], help="an LLM spec or nli:/path")
    parser.add_argument("--misses", action="store_true", help="list the wrong verdicts")
    args = parser.parse_args()
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("scripts/same_answer_score.py"))
    from invent_core import env  # noqa: F401  (offline before any model import)
    from invent_core.responses.judge import AnswerJudge

    pairs = json.loads(FIXTURE.read_text(encoding="utf-8"))["pairs"]
    print(f"{len(pairs)} labelled pairs; load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    table("rules+cosine", pairs, verdicts(pairs), args.misses)
    for spec in args.judge:
        t0 = time.perf_counter()
        got = verdicts(pairs, AnswerJudge(spec))
        table(f"rules+judge:{spec}", pairs, got, args.misses)
        print(f"   ({time.perf_counter() - t0:.0f} s, load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
