"""One model, two engines: do llama.cpp and transformers answer alike? (packaged 0.5B, CPU)

Runs ``invent evaluate`` on the same testbed questions (the shipped
arithmetic sample in file order, ``--sample-seed none --limit N``, the
defaults: T = 0.7, seeded requests, the same prompts) with each engine, each
with its own LLM cache, in chunks of ``--chunk`` questions taken by the two
engines in turn (so a run stopped early still pairs what both answered, and
a rerun resumes from the caches), then pairs the questions and prints, with
paired 95 % intervals over 1,000 question resamples:

- accuracy (the first reply to the original question judged right);
- agreement: the share of a question's r replies to the original question
  that equal its most frequent reply (how sure the model is, per engine);
- replies that are a bare number: the share of those r replies, as the
  engine wrote them, that are only a number (a chat-template or stop-string
  difference would show here first);
- Inv-Entropy's AUROC on each engine's own labels, and their difference;
- how many questions get the same most frequent reply from both engines.

What must hold for the engines to count as equivalent: every paired interval
holds 0. The transformers engine draws with llama.cpp's sampler chain
(:mod:`invent_core.llm.hf_sampling`) from the same weights, de-quantised
from the GGUF to fp32, so small differences remain (quantised vs fp32
arithmetic, and each engine's own random numbers).

    python benchmarks/bench_engine_parity.py [--questions 50] [--out /tmp/parity] [-n 9 -r 5]
    python benchmarks/bench_engine_parity.py --report-only --out /tmp/parity
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from invent_core.evaluation.metrics import METRICS, percentile_interval  # noqa: E402

ENGINES = ("llamacpp", "transformers")
METHODS = "inv_entropy,semantic_entropy"


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def evaluate(engine: str, n: int, out: Path, concurrency: int, shape: tuple[int, int]) -> float:
    """``invent evaluate`` of the first ``n`` questions with one engine; the wall seconds.

    The questions already answered come from the engine's cache. A modest
    ``--concurrency`` keeps llama.cpp's requests inside their deadline on
    shared cores (the answers do not depend on it: every request is seeded).
    """
    folder = out / engine
    cmd = [sys.executable, "-m", "invent_core", "evaluate", "--dataset", "arithmetic"]
    cmd += ["--sample-seed", "none", "--limit", str(n), "--methods", METHODS]
    cmd += ["--llm", "local", "--llm-engine", engine, "--concurrency", str(concurrency)]
    cmd += ["-n", str(shape[0]), "-r", str(shape[1])]
    cmd += ["--cache", str(out / f"{engine}.sqlite"), "-o", str(folder), "-q"]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    print(f"  {engine:<12} evaluated {n} questions in {wall:7.1f} s ({load()})", flush=True)
    return wall


_CANONICAL = re.compile(r"\s*-?\d[\d,]*(?:\.\d+)?\s*\.?\s*")


def per_question(folder: Path) -> dict[str, dict]:
    """question text -> {correct, inv_entropy, agreement, canonical, modal} of one evaluation folder.

    ``agreement``: the share of the r replies to the original that equal the
    most frequent one; ``canonical``: the share of those replies, as the engine
    wrote them, that are a bare number (a template or stop-string difference
    shows here first); ``modal``: the most frequent cleaned reply.
    """
    import csv

    runs = {}
    for f in (folder / "runs").glob("*.json"):
        art = json.loads(f.read_text())
        first = [str(a) for a in (art.get("cleaned_responses") or art["responses"])[0]]
        raw = [str(a) for a in (art.get("raw_responses") or art["responses"])[0]]
        modal, count = Counter(first).most_common(1)[0]
        bare = sum(bool(_CANONICAL.fullmatch(a)) for a in raw) / len(raw)
        runs[art["question"]] = (count / len(first), bare, modal)
    out = {}
    with open(folder / "scores.csv", newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if row.get("error") or row["correct"] == "":
                continue
            agreement, bare, modal = runs.get(row["question"], (float("nan"),) * 2 + ("",))
            out[row["question"]] = {
                "correct": int(row["correct"]),
                "inv_entropy": float(row["inv_entropy"]),
                "agreement": agreement,
                "canonical": bare,
                "modal": modal,
            }
    return out


def paired(a: np.ndarray, b: np.ndarray, stat, n_boot: int = 1000, seed: int = 0):
    """stat(a) − stat(b) and its 95 % interval over joint question resamples."""
    rng = np.random.default_rng(seed)
    n, diffs = len(a), []
    for _ in range(20 * n_boot):  # resamples where the statistic is undefined are redrawn
        idx = rng.integers(0, n, n)
        d = stat(a[idx]) - stat(b[idx])
        if np.isfinite(d):
            diffs.append(d)
        if len(diffs) == n_boot:
            break
    if len(diffs) < n_boot // 2:
        return float("nan"), (float("nan"), float("nan"))
    return stat(a) - stat(b), percentile_interval(np.array(diffs))


def report(out: Path) -> None:
    """Pair the two folders' questions and print the comparison."""
    a, b = (per_question(out / e) for e in ENGINES)
    shared = sorted(set(a) & set(b))
    print(f"\n{len(shared)} questions answered by both engines ({load()})", flush=True)
    if len(shared) < 2:
        return
    auroc = METRICS["auroc"].func

    def auc(rows: np.ndarray) -> float:
        c, u = rows[:, 0], rows[:, 1]
        return float(auroc(c, u)) if 0 < c.sum() < len(c) else float("nan")

    cols = {
        e: np.array(
            [
                [q[s]["correct"], q[s]["inv_entropy"], q[s]["agreement"], q[s]["canonical"]]
                for s in shared
            ]
        )  # fmt: skip
        for e, q in zip(ENGINES, (a, b))
    }
    x, y = cols["llamacpp"], cols["transformers"]
    rows = [
        ("accuracy", lambda r: float(r[:, 0].mean())),
        ("agreement with the modal reply", lambda r: float(np.nanmean(r[:, 2]))),
        ("replies that are a bare number", lambda r: float(np.nanmean(r[:, 3]))),
        ("Inv-Entropy AUROC", auc),
    ]
    print(f"  {'':32} {'llama.cpp':>10} {'transformers':>13} {'difference [95% CI]':>28}")
    for name, stat in rows:
        d, (lo, hi) = paired(x, y, stat)
        verdict = "n/a" if d != d else ("holds 0" if lo <= 0 <= hi else "DIFFERS")
        print(
            f"  {name:32} {stat(x):10.3f} {stat(y):13.3f} {d:+9.3f} [{lo:+.3f}, {hi:+.3f}] {verdict}"
        )
    same = sum(a[s]["modal"] == b[s]["modal"] for s in shared)
    print(
        f"  the same most frequent reply to the original on both engines: {same} of {len(shared)}"
    )


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--questions", type=int, default=50)
    p.add_argument("--out", type=Path, default=Path("/tmp/engine-parity"))
    p.add_argument("--chunk", type=int, default=10)
    p.add_argument("--concurrency", type=int, default=2)
    p.add_argument("--report-only", action="store_true")
    # Smaller n and r than the defaults (9, 5) make 50 questions on both
    # engines fit a CPU session (the transformers engine in fp32 takes about
    # 5 s a call on 2 cores); parity is about the engines, not the shape.
    p.add_argument("-n", type=int, default=9, help="perturbations per question")
    p.add_argument("-r", type=int, default=5, help="answers per question")
    args = p.parse_args(argv)
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("benchmarks/bench_engine_parity.py"))
    print(f"bench_engine_parity: {time.strftime('%Y-%m-%d %H:%M')} ({load()})", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    if not args.report_only:
        for n in range(args.chunk, args.questions + args.chunk, args.chunk):
            for engine in ENGINES:
                evaluate(
                    engine, min(n, args.questions), args.out, args.concurrency, (args.n, args.r)
                )
            report(args.out)
    else:
        report(args.out)


if __name__ == "__main__":
    main()
