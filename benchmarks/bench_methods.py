"""Post-processing time per question of every registered method, next to the paper's Time A.

The paper's appendix "Computational cost comparison" (Table tab:efficiency,
"Time A": computation after the responses are collected, per question, on an
A100, TriviaQA) is printed beside what this machine measures on the same kind
of run: n = 9 perturbations, r = 5 replications, realistic short answers,
MiniLM on whatever device ``invent_core.env.torch_device()`` picks.

Three figures per method (medians over questions × repeats):

shared
    the run's shared statistics, computed once and read by every method:
    embedding the m + m·r texts and the Inv bootstrap (B = 30).
incremental
    the method on a context whose shared statistics are already computed
    (what each extra method costs in a comparison table).
standalone
    a fresh context with an empty embedding cache, this method alone
    (includes whatever shared statistics it triggers).

LLM-asking methods (VU, P(True), Semantic Entropy with the LLM judge) are
reported separately with the packaged local LLM: cold (empty LLM cache), warm
(persistent LLM cache filled, fresh context) and re-score (answers stored in
``ctx.extras``). Run: ``python benchmarks/bench_methods.py [--repeats 5] [--no-llm]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import invent_core  # noqa: E402,F401  (offline environment first)
from invent_core import env  # noqa: E402  (offline before any model import)
from invent_core.embedders import get_embedder  # noqa: E402
from invent_core.methods.registry import ScoringContext, compute_methods, list_methods  # noqa: E402

#: Paper, Appendix "Computational cost comparison", Table tab:efficiency, Time A (s / question, A100).
PAPER_TIME_A = {
    "semantic_entropy": 13.985,
    "verbalized": 0.0,
    "p_true": 0.001,
    "lexsim": 0.022,
    "degmat": 6.143,
    "luq": 3.821,
    "kle": 1.323,
    "inv_entropy": 1.990,
    "nr_inv_entropy": 1.769,
}

#: Three TriviaQA-style questions, 9 paraphrases each, 5 short answers per version.
RUNS = [
    (
        "Which golfer became only the fifth in history to win both the British and US Open in the same year, in 1982?",
        ["Tom Watson", "Tom Watson", "Jack Nicklaus", "Tom Watson", "Watson"],
        ["Tom Watson", "Lee Trevino", "Tom Watson", "Tom Watson", "Jack Nicklaus"],
    ),
    (
        "What is the capital city of Australia?",
        ["Canberra", "Canberra", "Sydney", "Canberra", "Canberra, ACT"],
        ["Canberra", "Canberra", "Canberra", "Melbourne", "Canberra"],
    ),
    (
        "Who painted the ceiling of the Sistine Chapel?",
        ["Michelangelo", "Michelangelo Buonarroti", "Michelangelo", "Raphael", "Michelangelo"],
        ["Michelangelo", "Leonardo da Vinci", "Michelangelo", "Michelangelo", "Sandro Botticelli"],
    ),
]
N_PERTURBATIONS = 9
PHRASINGS = [
    "Can you tell me: {q}",
    "{q} Please answer.",
    "I'd like to know: {q}",
    "Quick question — {q}",
    "Here is a trivia question. {q}",
    "Do you know {q_lower}",
    "Answer this: {q}",
    "Trivia: {q}",
    "Tell me, {q_lower}",
]


def make_run(question: str, a: list[str], b: list[str]) -> tuple[list[str], list[list[str]]]:
    """Original + 9 perturbations; replications alternate between two realistic answer sets."""
    qs = [question] + [
        p.format(q=question, q_lower=question[0].lower() + question[1:]) for p in PHRASINGS
    ]
    assert len(qs) == N_PERTURBATIONS + 1
    responses = [list(a) if i % 2 == 0 else list(b) for i in range(len(qs))]
    return qs, responses


def _clear(embedder) -> None:
    embedder._vectors.clear()  # cold embedding cache: every text goes through the model


def _median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def bench_offline(repeats: int) -> dict[str, dict[str, float]]:
    emb = get_embedder("minilm")
    emb.load()
    emb.encode(["warm-up"])  # model load is not post-processing
    names = [m.name for m in list_methods() if "llm" not in m.needs]
    shared, incr, alone = [], {n: [] for n in names}, {n: [] for n in names}
    for _ in range(repeats):
        for q, a, b in RUNS:
            qs, rs = make_run(q, a, b)
            _clear(emb)
            ctx = ScoringContext(qs, rs, embedder=emb)
            t0 = time.perf_counter()
            _ = ctx.score
            shared.append(time.perf_counter() - t0)
            for n in names:
                t0 = time.perf_counter()
                res = compute_methods(ctx, [n], strict=True)
                incr[n].append(time.perf_counter() - t0)
                assert res[n].ok
            for n in names:
                _clear(emb)
                fresh = ScoringContext(qs, rs, embedder=emb)
                t0 = time.perf_counter()
                compute_methods(fresh, [n], strict=True)
                alone[n].append(time.perf_counter() - t0)
    out = {"__shared__": {"incremental": _median(shared), "standalone": _median(shared)}}
    for n in names:
        out[n] = {"incremental": _median(incr[n]), "standalone": _median(alone[n])}
    return out


def bench_llm() -> dict[str, dict[str, float]]:
    from invent_core.llm import available_llms, get_llm

    if "qwen0.5b" not in available_llms():
        print("(local LLM not installed: LLM-asking methods skipped)")
        return {}
    emb = get_embedder("minilm")
    specs = [("verbalized", None), ("p_true", None), ("semantic_entropy", "llm")]
    out: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        llm = get_llm("local", cache=Path(tmp) / "bench_llm_cache.sqlite")
        llm.complete(
            [{"role": "user", "content": "Say OK."}], max_tokens=2
        )  # server start is not post-processing
        try:
            for name, judge in specs:
                label = name + (" (LLM judge)" if judge else "")
                cold, warm, rescore = [], [], []
                for q, a, b in RUNS:
                    qs, rs = make_run(q, a, b)
                    ctx = ScoringContext(qs, rs, embedder=emb, llm=llm, entailment=judge)
                    _ = ctx.score
                    t0 = time.perf_counter()
                    compute_methods(ctx, [name], strict=True)
                    cold.append(time.perf_counter() - t0)
                    ctx2 = ScoringContext(qs, rs, embedder=emb, llm=llm, entailment=judge)
                    _ = ctx2.score
                    t0 = time.perf_counter()
                    compute_methods(ctx2, [name], strict=True)
                    warm.append(time.perf_counter() - t0)
                    ctx3 = ScoringContext(
                        qs, rs, embedder=emb, llm=llm, entailment=judge, extras=ctx.extras
                    )
                    _ = ctx3.score
                    t0 = time.perf_counter()
                    compute_methods(ctx3, [name], strict=True)
                    rescore.append(time.perf_counter() - t0)
                out[label] = {
                    "cold": _median(cold),
                    "warm": _median(warm),
                    "rescore": _median(rescore),
                }
        finally:
            llm.close()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--no-llm", action="store_true", help="skip the methods that ask the local LLM")
    args = ap.parse_args(argv)
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("benchmarks/bench_methods.py"))
    print(
        f"device for MiniLM: {env.torch_device()}; n = {N_PERTURBATIONS}, r = 5, B = 30; "
        f"{len(RUNS)} questions × {args.repeats} repeats (medians, seconds per question)"
    )
    res = bench_offline(args.repeats)
    print(
        f"\n{'method':<18}{'incremental':>13}{'standalone':>12}{'paper Time A':>14}{'paper/standalone':>18}"
    )
    print(f"{'(shared stats)':<18}{res['__shared__']['incremental']:>13.4f}{'':>12}{'':>14}")
    for name, r in res.items():
        if name == "__shared__":
            continue
        paper = PAPER_TIME_A.get(name)
        ratio = f"{paper / r['standalone']:>17.1f}×" if paper else f"{'':>18}"
        ptxt = f"{paper:>14.3f}" if paper is not None else f"{'—':>14}"
        print(f"{name:<18}{r['incremental']:>13.5f}{r['standalone']:>12.4f}{ptxt}{ratio}")
    if not args.no_llm:
        llm_res = bench_llm()
        if llm_res:
            print(
                "\nLLM-asking methods, packaged Qwen2.5-0.5B via llama.cpp (r = 5 answers of the original question)"
            )
            print(
                f"{'method':<30}{'cold':>9}{'warm cache':>12}{'re-score':>10}{'paper Time A':>14}"
            )
            for name, r in llm_res.items():
                paper = PAPER_TIME_A.get(name.split()[0])
                ptxt = f"{paper:>14.3f}" if paper is not None else f"{'—':>14}"
                print(f"{name:<30}{r['cold']:>9.3f}{r['warm']:>12.4f}{r['rescore']:>10.5f}{ptxt}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
