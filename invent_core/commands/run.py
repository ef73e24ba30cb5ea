"""``python -m invent_core run "question"``: perturb, answer, score one question."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="perturb a question, ask the LLM (local by default) and score the answers",
        description="Run the whole Inv-Entropy pipeline on one question: n perturbations, "
        "r answers to each, cleaned and scored. Default LLM: the packaged local model "
        "(no key, no network).",
    )
    p.add_argument("question", help="the question to score")
    p.add_argument(
        "--llm",
        default="local",
        help="local (default, = qwen0.5b), qwen1.5b (requirements-strong.txt) or openai",
    )
    p.add_argument(
        "--base-url", help="OpenAI-compatible server URL ending in /v1 (with --llm openai)"
    )
    p.add_argument("--model", help="model name on that server (default: the one it serves)")
    p.add_argument(
        "--api-key-env",
        default="OPENAI_API_KEY",
        help="environment variable holding the API key (default OPENAI_API_KEY)",
    )
    p.add_argument("--perturber", choices=["paraphrase", "gaap"], default="paraphrase")
    p.add_argument("-n", "--n-perturbations", type=int, default=9, help="perturbations (paper: 9)")
    p.add_argument(
        "-r", "--n-replications", type=int, default=5, help="answers per input (paper: 5)"
    )
    p.add_argument(
        "-B", "--n-bootstrap", type=int, default=30, help="bootstrap resamples (paper: 30)"
    )
    p.add_argument(
        "--temperature", type=float, default=0.7, help="answer temperature (default 0.7)"
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--embedder", default="minilm", help="minilm (default), mpnet or an NLI folder")
    p.add_argument("--task", choices=["qa", "mmlu", "gsm8k"], default="qa")
    p.add_argument("--choice", action="append", dest="choices", help="an MMLU option (repeat)")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the LLM cache")
    p.add_argument(
        "--cache", type=Path, help="LLM cache file (default <cache dir>/llm_cache.sqlite)"
    )
    p.add_argument("--save", type=Path, help="write the run artifact (JSON) here")
    p.add_argument("--json", action="store_true", help="print the run artifact as JSON")
    p.set_defaults(func=main)


class _Bars:
    """One tqdm bar per stage, on stderr."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.bars: dict[str, object] = {}

    def __call__(self, ev) -> None:
        if not self.enabled:
            return
        from tqdm import tqdm

        bar = self.bars.get(ev.stage)
        if bar is None:
            bar = self.bars[ev.stage] = tqdm(
                total=ev.total, desc=f"{ev.stage:<8}", file=sys.stderr, leave=True
            )
        bar.total = ev.total
        bar.n = ev.done
        bar.refresh()
        if ev.done >= ev.total:
            bar.close()

    def close(self) -> None:
        for bar in self.bars.values():
            bar.close()


def main(args: argparse.Namespace) -> int:
    from ..llm import get_llm
    from ..pipeline import run_question

    if args.llm != "openai" and (args.base_url or args.model):
        raise ValueError("--base-url and --model go with --llm openai")
    cache = None if args.no_cache else (args.cache if args.cache is not None else True)
    llm = get_llm(
        args.llm,
        base_url=args.base_url,
        model=args.model,
        api_key=os.environ.get(args.api_key_env) if args.llm == "openai" else None,
        cache=cache,
    )
    bars = _Bars(enabled=not args.json)
    try:
        art = run_question(
            args.question,
            perturber=args.perturber,
            llm=llm,
            embedder=args.embedder,
            n_perturbations=args.n_perturbations,
            n_replications=args.n_replications,
            temperature=args.temperature,
            n_bootstrap=args.n_bootstrap,
            seed=args.seed,
            task=args.task,
            choices=args.choices,
            progress=bars,
        )
    finally:
        bars.close()
        llm.close()
    if args.save:
        art.save(args.save)
    if args.json:
        print(art.to_json(indent=2))
        return 0
    print(f"question: {art.question}")
    print(f"llm: {art.settings['llm']}   embedder: {art.settings['embedder_identity']}")
    print(f"perturbations ({art.settings['perturber']}):")
    for i, q in enumerate(art.perturbations, 1):
        print(f"  {i:>2}. {q}")
    print("responses (cleaned):")
    for i, (q, reps) in enumerate(zip(art.questions, art.responses, strict=True)):
        label = "x0" if i == 0 else f"x{i}"
        print(f"  {label:>3}: " + " | ".join(reps) + ("" if i else f"   ← {q[:60]}"))
    print(
        f"scores (n = {art.settings['n_perturbations']}, r = {art.settings['n_replications']}, "
        f"B = {art.settings['n_bootstrap']}; higher = more uncertain):"
    )
    for name, value in art.score.measures.items():
        lo, hi = art.score.interval(name)
        print(f"  {name:<16} {value:8.4f}   90% [{lo:.4f}, {hi:.4f}]")
    t = art.timings
    u = art.usage
    print(
        f"time: perturb {t.get('perturb', 0):.1f}s, generate {t.get('generate', 0):.1f}s, "
        f"score {t.get('score', 0):.1f}s; {u.get('requests', 0)} answers "
        f"({u.get('cached', 0)} from cache), {u.get('completion_tokens', 0)} tokens generated"
    )
    if args.save:
        print(f"saved {args.save}")
    return 0
