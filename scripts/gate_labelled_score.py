"""The rewording check's precision and recall on the hand-labelled rewordings.

Reads ``tests/data/gate_labelled.json`` (candidate rewordings of the shipped
samples' questions, each labelled same / changed meaning; the labelling rule is
in the file's ``about``) and judges every candidate alone against its original:

* ``same_question``: :func:`invent_core.perturb.same_question` (the rules both
  ways and the word overlap; ``--llm SPEC`` also asks that model about the
  undecided ones, as the gate does with the rewording model);
* ``gate``: the whole paraphrase gate (:func:`~invent_core.perturb.gate.check_candidate`
  with the run's default embedder, MiniLM), which also rejects for sameness
  (``duplicate``, ``near_duplicate``), length and affinity; and the same gate
  with the one-way meaning check (``both_ways=False``, the default until
  2026-11-27) beside it.

"Accepted" is read as the claim that the candidate keeps the meaning:
precision = share of accepted candidates that keep it; recall = share of the
meaning-keeping candidates that are accepted. The rows are split in two halves
by a hash of the original question (:func:`half`): the thresholds of
:class:`~invent_core.config.GateConfig` were chosen on the tuning half (0) and
are reported on the other (1).

Run: python scripts/gate_labelled_score.py [--gate] [--llm local] [--misses]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
FIXTURE = ROOT / "tests" / "data" / "gate_labelled.json"


def load_rows() -> list[dict]:
    """The labelled rows, each with its ``half`` (0 = tuning, 1 = report)."""
    rows = json.loads(FIXTURE.read_text(encoding="utf-8"))["rows"]
    return [r | {"half": half(r["original"])} for r in rows]


def half(original: str) -> int:
    """0 (tuning) or 1 (report): a hash of the question, so its rewordings stay together."""
    return int(hashlib.sha256(original.encode("utf-8")).hexdigest(), 16) % 2


def question_verdicts(rows, config=None, llm=None) -> list[bool]:
    """:func:`same_question` per row; with ``llm`` the undecided rows are asked in one batch."""
    from invent_core.config import GateConfig
    from invent_core.perturb.asks_same import rule_verdict, verify_with_llm
    from invent_core.perturb.text import strip_wrappers

    cfg = config or GateConfig()
    pairs = [(r["original"], strip_wrappers(r["candidate"])) for r in rows]
    ruled = [rule_verdict(q, c, cfg) for q, c in pairs]
    open_ = [i for i, v in enumerate(ruled) if v is None]
    asked = verify_with_llm(llm, [pairs[i] for i in open_]) if llm is not None else []
    answers = dict(zip(open_, asked))
    return [
        v.same if v is not None else answers.get(i, cfg.undecided_kept) for i, v in enumerate(ruled)
    ]


def gate_verdicts(rows, similarity, config=None) -> list[bool]:
    """The whole gate per row, each candidate judged alone against its original."""
    from invent_core.perturb.gate import check_candidate, gate_affinities
    from invent_core.perturb.text import strip_wrappers

    out = []
    for row in rows:
        text = strip_wrappers(row["candidate"])
        aff = float(gate_affinities(similarity, row["original"], [text])[0])
        out.append(check_candidate(text, row["original"], affinity=aff, config=config).accepted)
    return out


def scores(rows, accepted) -> dict[str, float]:
    """Precision, recall and the share of meaning flips rejected."""
    tp = sum(a and r["same_meaning"] for r, a in zip(rows, accepted))
    fp = sum(a and not r["same_meaning"] for r, a in zip(rows, accepted))
    same = sum(r["same_meaning"] for r in rows)
    flips = len(rows) - same
    return {
        "precision": tp / (tp + fp) if tp + fp else float("nan"),
        "recall": tp / same if same else float("nan"),
        "flips_rejected": (flips - fp) / flips if flips else float("nan"),
        "accepted": tp + fp,
        "rows": len(rows),
    }


def report(name: str, rows, accepted, misses: bool) -> None:
    """One line per half and for all rows; the wrong decisions with ``misses``."""
    for label, keep in (("tuning", 0), ("report", 1), ("all", None)):
        idx = [i for i, r in enumerate(rows) if keep is None or r["half"] == keep]
        s = scores([rows[i] for i in idx], [accepted[i] for i in idx])
        print(
            f"{name} {label:6s} ({s['rows']:3d} rows): precision {s['precision']:.3f}  "
            f"recall {s['recall']:.3f}  flips rejected {s['flips_rejected']:.3f}"
        )
    for r, a in zip(rows, accepted):
        if misses and a != r["same_meaning"]:
            tag = "ACCEPTED flip" if a else "rejected same"
            print(f"   {tag}: {r['original'][-70:]!r} -> {r['candidate'][-80:]!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="list the wrong decisions")
    parser.add_argument("--gate", action="store_true", help="also score the whole gate (MiniLM)")
    parser.add_argument("--llm", default=None, help="ask this model about undecided rows")
    args = parser.parse_args()
    from invent_core import env  # noqa: F401  (offline before any model import)

    rows = load_rows()
    same = sum(r["same_meaning"] for r in rows)
    print(
        f"{len(rows)} labelled candidates: {same} same meaning, {len(rows) - same} changed; "
        f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    llm = None
    if args.llm:
        from invent_core.llm import get_llm

        llm = get_llm(args.llm)
    report(
        "same_question" + (f"+{args.llm}" if llm else ""),
        rows,
        question_verdicts(rows, llm=llm),
        args.misses,
    )
    if args.gate:
        from invent_core.config import GateConfig
        from invent_core.embedders import get_embedder

        sim = get_embedder("minilm")
        report("gate", rows, gate_verdicts(rows, sim), args.misses)
        one_way = GateConfig(both_ways=False)  # the default until 2026-11-27
        report("gate one-way", rows, gate_verdicts(rows, sim, one_way), args.misses)


if __name__ == "__main__":
    main()
