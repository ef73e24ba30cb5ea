"""``python -m invent_core run "question"``: perturb, answer, score one question."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ._common import add_config_args, add_llm_args, config_from_args, llm_from_args


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``run`` command."""
    p = sub.add_parser(
        "run",
        help="perturb a question, ask the LLM (local by default) and score the answers",
        description="Run the whole Inv-Entropy pipeline on one question: n perturbations, "
        "r answers to each, cleaned and scored. Default LLM: the packaged local model "
        "(no key, no network).",
    )
    p.add_argument("question", help="the question to score")
    add_config_args(p)
    p.add_argument("--task", choices=["qa", "mmlu", "gsm8k"], default="qa")
    p.add_argument("--choice", action="append", dest="choices", help="an MMLU option (repeat)")
    p.add_argument("--save", type=Path, help="write the run artifact (JSON) here")
    p.add_argument("--json", action="store_true", help="print the run artifact as JSON")
    add_llm_args(p)
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
    """Run one question end to end and print (or save) the artefact."""
    from ..pipeline import run_question

    config = config_from_args(args)  # an invalid option fails here, before any model loads
    llm = llm_from_args(args)
    bars = _Bars(enabled=not args.json)
    try:
        art = run_question(
            args.question, config, llm=llm, task=args.task, choices=args.choices, progress=bars
        )
    finally:
        bars.close()
        llm.close()
    if args.save:
        art.save(args.save)
    if args.json:
        print(art.to_json(indent=2))
        return 0
    _print_run(art)
    if args.save:
        print(f"saved {args.save}")
    return 0


def _print_run(art) -> None:
    cfg = art.config
    print(f"question: {art.question}")
    print(f"llm: {art.identities['llm']}   embedder: {art.identities['embedder']}")
    print(f"perturbations ({cfg.perturber}):")
    for i, q in enumerate(art.perturbations, 1):
        print(f"  {i:>2}. {q}")
    print("responses (cleaned):")
    for i, (q, reps) in enumerate(zip(art.questions, art.responses, strict=True)):
        label = "x0" if i == 0 else f"x{i}"
        print(f"  {label:>3}: " + " | ".join(reps) + ("" if i else f"   ← {q[:60]}"))
    print(
        f"scores (n = {cfg.n_perturbations}, r = {cfg.n_replications}, "
        f"B = {cfg.score.n_bootstrap}; higher = more uncertain):"
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
