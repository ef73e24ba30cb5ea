"""Per(S_x0) from GAAP's generations, and what a member may have broken.

:func:`sample_perturbations` draws exactly n perturbations from the sampled
generations Pop_0, Pop_τ, Pop_2τ, … (paper, Eq. perdef); with
``GaapConfig.meaning_check`` it skips members :func:`breaks_question` flags.
:func:`member_flags` says what a member lost (a number or name, its meaning,
fitness below δ), shown beside Per(S_x0).

Sampling (ours, the paper leaves it open): n is split as evenly as possible
over the sampled generations 0, τ, 2τ, … (the remainder goes to randomly
chosen ones); within a generation members are drawn uniformly without
replacement and never twice across generations. Shortfalls are filled from the other
members of the sampled generations, then by duplicating random chosen ones
(paper, Appendix "Experimental setting": "When fewer than nine are
generated, we randomly duplicate existing perturbations").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from ..config import GaapConfig
from .asks_same import question_rule_verdict
from .gaap_trace import Generation, PerturbationPick
from .gate import lost_entities


def sample_perturbations(
    generations: Sequence[Generation], cfg: GaapConfig, rng: np.random.Generator, question: str
) -> list[PerturbationPick]:
    """Per(S_x0) = ∪_q Uniform(Pop_{qτ}), exactly n picks (paper, Eq. perdef).

    See the module docstring for how n is split and how shortfalls are filled.
    """
    sampled = [g for g in generations if g.index % cfg.tau == 0]
    quota = np.full(len(sampled), cfg.n // len(sampled))
    if cfg.n % len(sampled):
        quota[rng.choice(len(sampled), size=cfg.n % len(sampled), replace=False)] += 1
    picks: list[PerturbationPick] = []
    taken: set[str] = set()
    kept: dict[str, bool] = {}  # text -> passes the meaning check (GaapConfig.meaning_check)

    def passes(text: str) -> bool:
        if not cfg.meaning_check:
            return True
        if text not in kept:
            kept[text] = not breaks_question(text, question)
        return kept[text]

    def fresh(g: Generation) -> list[int]:
        return [i for i, m in enumerate(g.members) if m.text not in taken and passes(m.text)]

    for g, q in zip(sampled, quota):
        free = fresh(g)
        for i in rng.permutation(free)[: int(q)]:
            picks.append(PerturbationPick(g.members[int(i)].text, g.index, int(i)))
            taken.add(g.members[int(i)].text)
    if len(picks) < cfg.n:  # fill from the rest of the sampled generations
        rest: dict[str, tuple[int, int]] = {}
        for g in sampled:
            for i in fresh(g):
                rest.setdefault(g.members[i].text, (g.index, i))
        spare = list(rest.values())
        for j in rng.permutation(len(spare))[: cfg.n - len(picks)]:
            gi, i = spare[int(j)]
            picks.append(PerturbationPick(generations[gi].members[i].text, gi, i))
    if not picks:  # nothing but the question itself exists
        return [PerturbationPick(question, -1, -1, duplicate=True) for _ in range(cfg.n)]
    originals = list(picks)
    while len(picks) < cfg.n:  # paper: "we randomly duplicate existing perturbations"
        src = originals[int(rng.integers(len(originals)))]
        picks.append(dataclasses.replace(src, duplicate=True))
    return picks


def breaks_question(text: str, question: str) -> bool:
    """Whether ``GaapConfig.meaning_check`` keeps this member out of Per(S_x0).

    True when :func:`member_flags` flags a lost number or name or a changed
    meaning; δ is GAAP's own rule, so fitness is not asked.
    """
    return bool(member_flags(text, question, None, 0.0))


def member_flags(text: str, question: str, fitness: float | None, delta: float) -> list[str]:
    """What a GAAP member may have broken: shown beside Per(S_x0).

    ``"fitness 0.62 < δ 0.7"`` for a member below δ; ``"lost 'Mona'"`` when a
    number or named entity of the question is gone (the gate's ``lost_entity``
    rule); the rules of :func:`~.asks_same.same_question`, both ways
    ("dropped 'first'", "'hot' became its opposite 'cold'", "overlap 0.30 < 0.4")
    when the member visibly asks something else (the rewording model is not
    asked: GAAP makes hundreds of members). Empty when nothing is flagged.
    """
    flags = []
    if fitness is not None and fitness < delta:
        flags.append(f"fitness {fitness:.2f} < δ {delta:g}")
    lost = lost_entities(text, question, 1.0)
    if lost:
        flags.append(lost)
    meaning = question_rule_verdict(question, text)
    if meaning is not None and not meaning.same and meaning.detail not in flags:
        flags.append(meaning.detail)
    return flags
