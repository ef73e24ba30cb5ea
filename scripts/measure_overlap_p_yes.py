"""Would the 1.5B's P(Yes) clean the rewordings the rules accept only by word overlap?

    python scripts/measure_overlap_p_yes.py          # docs/rewordings/overlap_path_p_yes_1.5b.json
    python scripts/measure_overlap_p_yes.py --path all   # every kept rewording:
                                                     # docs/rewordings/kept_p_yes_1.5b.json

Reads every labelled draw (``tests/data/meaning/accepted_draw_seed*.json``), keeps the
accepted rewordings the default rules decide by word overlap (``decided_by ==
"overlap"``: alignment could not decide), asks the packaged Qwen2.5-1.5B for P("Yes")
that each asks the same as its question (:func:`~invent_core.perturb.asks_same.same_question_p_yes`,
temperature 0, LLM cache) and prints, per threshold, how many kept rewordings that change
the question it would drop and how many that keep it, with the AUROC of P("Yes") for
"keeps the meaning". ``--path all`` asks about every rewording the rules keep (by
alignment too): whether a model check on everything could reach what the rules cannot,
and what it costs a pair. Every draw is tuning data by now: a study of where the model
could add anything, not a default chosen on a report half.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
OUT = {"overlap": ROOT / "docs" / "rewordings" / "overlap_path_p_yes_1.5b.json",
       "all": ROOT / "docs" / "rewordings" / "kept_p_yes_1.5b.json"}  # fmt: skip
THRESHOLDS = (0.3, 0.5, 0.56, 0.6, 0.7, 0.8, 0.9)
#: the threshold chosen on the tuning draws before the seed-59 draw (8f7e458), and the next
PAIRED = (0.56, 0.6)


def overlap_rows(path_kept: str = "overlap") -> list[list]:
    """[seed, question, rewording, same_meaning] of every labelled row the rules keep by
    ``path_kept`` ("overlap": alignment could not decide; "all": every kept one)."""
    from invent_core.perturb.asks_same import same_question

    rows = []
    for path in sorted((ROOT / "tests" / "data" / "meaning").glob("accepted_draw_seed*.json")):
        seed = int(path.stem.removeprefix("accepted_draw_seed"))
        for r in json.loads(path.read_text(encoding="utf-8"))["rows"]:
            v = same_question(r["question"], r["rewording"], llm=None)
            if v and (path_kept == "all" or v.decided_by == "overlap"):
                rows.append([seed, r["question"], r["rewording"], bool(r["same_meaning"])])
    return rows


def auroc(rows: list[list]) -> float:
    """P(a rewording that keeps the meaning has a higher P(Yes) than one that does not); ties ½."""
    good = [r[4] for r in rows if r[3]]
    bad = [r[4] for r in rows if not r[3]]
    if not good or not bad:
        return float("nan")
    wins = sum((g > b) + 0.5 * (g == b) for g in good for b in bad)
    return wins / (len(good) * len(bad))


def table(rows: list[list]) -> list[str]:
    """Per threshold: kept, good kept, bad kept, precision of what is kept."""
    good, bad = sum(r[3] for r in rows), sum(not r[3] for r in rows)
    lines = [f"{len(rows)} rewordings: {good} keep the meaning, {bad} do not "
             f"(precision {good / max(len(rows), 1):.3f} with no model); "
             f"AUROC of P(Yes) {auroc(rows):.3f}"]  # fmt: skip
    for t in THRESHOLDS:
        kept = [r for r in rows if r[4] >= t]
        g = sum(r[3] for r in kept)
        lines.append(
            f"P(Yes) >= {t}: keeps {g}/{good} that keep the meaning, {len(kept) - g}/{bad} that "
            f"do not (precision {g / max(len(kept), 1):.3f})"
        )
    return lines


def per_draw(rows: list[list]) -> list[str]:
    """Per draw (seed) and threshold: the share of what is kept that keeps the meaning, and
    how many good rewordings are kept, so a draw labelled after the threshold was chosen
    reads on its own."""
    lines = []
    for seed in sorted({r[0] for r in rows}):
        mine = [r for r in rows if r[0] == seed]
        good = sum(r[3] for r in mine)
        parts = [f"seed {seed}: no model {good}/{len(mine)} = {good / len(mine):.3f}"]
        for t in THRESHOLDS[1:5]:
            kept = [r for r in mine if r[4] >= t]
            g = sum(r[3] for r in kept)
            parts.append(
                f">= {t}: {g}/{len(kept)} = {g / max(len(kept), 1):.3f} ({g}/{good} good kept)"
            )
        lines.append("; ".join(parts))
        for t in PAIRED:
            (k, k_lo, k_hi), (d, lo, hi) = bootstrap(mine, t)
            lines.append(f"  seed {seed}, >= {t}: {k:.3f} [{k_lo:.3f}, {k_hi:.3f}]; against no "
                         f"model {d:+.3f} [{lo:+.3f}, {hi:+.3f}] (paired; 95% bootstrap over "
                         "questions)")  # fmt: skip
    return lines


def bootstrap(rows: list[list], t: float, n_boot: int = 2000) -> tuple[tuple[float, ...], ...]:
    """The share of what P(Yes) >= ``t`` keeps that keeps the meaning, and that share minus
    the share with no model on the same questions: each (value, 2.5 %, 97.5 %) over
    resampled questions (2,000, seed 0)."""
    by_q: dict[str, list[list]] = {}
    for r in rows:
        by_q.setdefault(r[1], []).append(r)
    questions = list(by_q)

    def shares(qs: list[str]) -> tuple[float, float]:
        every = [r for q in qs for r in by_q[q]]
        kept = [r for r in every if r[4] >= t]
        share = sum(r[3] for r in kept) / max(len(kept), 1)
        return share, share - sum(r[3] for r in every) / len(every)

    rng = np.random.default_rng(0)
    boot = np.array([shares([questions[i] for i in rng.integers(0, len(questions), len(questions))])
                     for _ in range(n_boot)])  # fmt: skip
    point = shares(questions)
    return tuple(
        (point[j], *(float(v) for v in np.percentile(boot[:, j], [2.5, 97.5]))) for j in (0, 1)
    )


def main(argv: list[str] | None = None) -> int:
    from invent_core.llm import get_llm
    from invent_core.perturb.asks_same import same_question_p_yes
    from invent_core.provenance import provenance, provenance_line

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--llm", default="qwen1.5b")
    p.add_argument("--stall-timeout", type=float, default=900.0, help="seconds (a busy machine)")
    p.add_argument("--path", choices=sorted(OUT), default="overlap",
                   help="the kept rewordings asked about: those the overlap decided, or all")  # fmt: skip
    p.add_argument("--out", type=Path, default=None, help="default: by --path (see above)")
    p.add_argument("--read", action="store_true",
                   help="print the figures of the saved record (--out) without asking the model")  # fmt: skip
    args = p.parse_args(argv)
    out = args.out or OUT[args.path]
    print(provenance_line("scripts/measure_overlap_p_yes.py"))
    if args.read:  # the saved record's figures again, no model asked
        record = json.loads(out.read_text(encoding="utf-8"))
        print(f"{out.relative_to(ROOT)}: made at {record['provenance'].get('commit', '?')[:10]}")
        print("\n".join(table(record["rows"]) + per_draw(record["rows"])))
        return 0
    rows = overlap_rows(args.path)
    t0, load = time.perf_counter(), os.getloadavg()[0]
    llm = get_llm(args.llm, stall_timeout=args.stall_timeout)
    p_yes = same_question_p_yes(llm, [(r[1], r[2]) for r in rows])
    rows = [r + [float(v)] for r, v in zip(rows, p_yes)]
    seconds = time.perf_counter() - t0
    print("\n".join(table(rows) + per_draw(rows)))
    print(f"{seconds:.0f} s at load {load:.1f} for {len(rows)} pairs (the LLM cache answers a "
          "pair asked before)")  # fmt: skip
    record = {"llm": args.llm, "path": args.path, "seconds": seconds, "load": load,
              "provenance": provenance(),
              "columns": ["seed", "question", "rewording", "same_meaning", "p_yes"], "rows": rows}  # fmt: skip
    out.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
