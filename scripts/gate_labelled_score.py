"""The paraphrase gate's precision and recall on the hand-labelled rewordings.

Reads ``tests/data/gate_labelled.json`` (candidate rewordings of the shipped
samples' questions by the packaged paraphraser, plus the meaning
flips that prompted the meaning check, each labelled same / changed meaning) and judges every candidate alone
against its original with the run's default embedder (MiniLM), twice: the gate
as it was (``meaning_check=False``) and with the meaning check.

"Accepted" is read as the gate's claim that the candidate keeps the meaning:
precision = share of accepted candidates that keep it; recall = share of the
meaning-keeping candidates that are accepted; flips caught = share of the
changed-meaning candidates that are rejected.

Run: python scripts/gate_labelled_score.py [--misses]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
FIXTURE = ROOT / "tests" / "data" / "gate_labelled.json"


def verdicts(rows, similarity, gate):
    """One GateVerdict per labelled row, each judged alone against its original."""
    from invent_core.perturb.gate import check_candidate, gate_affinities
    from invent_core.perturb.text import strip_wrappers

    out = []
    for row in rows:
        text = strip_wrappers(row["candidate"])
        aff = None
        if similarity is not None:
            aff = float(gate_affinities(similarity, row["original"], [text])[0])
        out.append(check_candidate(text, row["original"], affinity=aff, config=gate))
    return out


def scores(rows, judged) -> dict[str, float]:
    """Precision, recall and the share of meaning flips rejected."""
    tp = sum(v.accepted and r["same_meaning"] for r, v in zip(rows, judged))
    fp = sum(v.accepted and not r["same_meaning"] for r, v in zip(rows, judged))
    same = sum(r["same_meaning"] for r in rows)
    flips = len(rows) - same
    return {
        "precision": tp / (tp + fp) if tp + fp else float("nan"),
        "recall": tp / same if same else float("nan"),
        "flips_caught": (flips - fp) / flips if flips else float("nan"),
        "accepted": tp + fp,
    }


_DIVERSITY = ("duplicate", "near_duplicate")  # rejections for sameness, not for meaning


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="list the wrong decisions")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from invent_core.config import GateConfig
    from invent_core.embedders import get_embedder

    rows = json.loads(FIXTURE.read_text(encoding="utf-8"))["rows"]
    similarity = get_embedder("minilm")
    same = sum(r["same_meaning"] for r in rows)
    print(
        f"{len(rows)} labelled candidates: {same} same meaning, {len(rows) - same} changed; "
        f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    for name, gate in (
        ("before (meaning_check off)", replace(GateConfig(), meaning_check=False)),
        ("after  (meaning_check on) ", GateConfig()),
    ):
        judged = verdicts(rows, similarity, gate)
        s = scores(rows, judged)
        print(
            f"{name}: accepted {s['accepted']:3d}  precision {s['precision']:.3f}  "
            f"recall {s['recall']:.3f}  meaning flips rejected {s['flips_caught']:.3f}"
        )
        kept = [(r, v) for r, v in zip(rows, judged) if v.reason not in _DIVERSITY]
        m = scores([r for r, _ in kept], [v for _, v in kept])
        print(
            f"   without duplicate/near_duplicate rejections ({len(kept)} rows, the meaning "
            f"checks alone): precision {m['precision']:.3f}  recall {m['recall']:.3f}  "
            f"flips rejected {m['flips_caught']:.3f}"
        )
        if args.misses:
            for r, v in zip(rows, judged):
                if v.accepted != r["same_meaning"]:
                    tag = (
                        "ACCEPTED flip" if v.accepted else f"rejected same ({v.reason}: {v.detail})"
                    )
                    print(f"   {tag}: {r['original'][:70]!r} -> {r['candidate'][:80]!r}")


if __name__ == "__main__":
    main()
