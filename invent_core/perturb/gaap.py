"""GAAP: the genetic-algorithm perturbation of the paper (§2.5, Appendix "GAAP Implementation Details").

From a question S_x0 = (t_1, …, t_p):

1. key tokens k(S_x0, r) by KeyBERT (:mod:`.keywords`);
2. Pop_0 = every single-key-token substitution re(S_x0, t_j, t') with
   t' ∈ SUB(t_j) = synonyms ∪ hypernyms ∪ hyponyms ∪ {deletion} from WordNet
   3.0 (:mod:`.substitutions`);
3. each generation: roulette-wheel selection of parents Pa_t with
   P(S_xi) ∝ a(x_0, x_i); one-point crossover of random parent pairs (Off_t);
   one substitution per child (Mu_t); Pop_{t+1} = Pa_t ∪ Off_t ∪ Mu_t;
4. stop after T generations or when max_i a(x_0, x_i) < δ;
5. Per(S_x0) = uniform samples from Pop_0, Pop_τ, Pop_2τ, … (Eq. perdef),
   exactly n texts.

Every step is recorded in a :class:`~invent_core.perturb.gaap_trace.GaapTrace`
(JSON via ``to_dict`` / ``from_dict``) so a demo can replay it generation by
generation. The search reads as :func:`initial_population` →
:func:`next_generation` (repeated by :func:`evolve`) →
:func:`~.gaap_sampling.sample_perturbations`; the pure operators (substitution,
crossover, roulette, mutation) are in :mod:`.gaap_operators`.

Choices the paper leaves open (documented where they are made)
---------------------------------------------------------------
* **Word slots.** Every individual is the original's p word slots; a
  substitution replaces one slot (a multi-word lemma such as "golf player"
  fills one slot) and a deletion empties it, so the punctuation and spacing of
  the question stay in place and slot i always means "the original's i-th
  word". All individuals therefore have the same length p, and the paper's
  crossover formula (cut at h ∈ {1, …, p−1}, p the shorter length) never has to
  truncate: positions stay aligned, which is what makes the paper's example
  children ("… to win both the British and US Open in the same year …")
  grammatical. The pure operator :func:`~.gaap_operators.crossover` accepts unequal lengths and
  then keeps each child's tail from its second parent instead of truncating
  to p (truncation would drop the end of the question, e.g. "in 1982?").
* **Mutation sites.** The paper mutates "a token" of each child; its example
  changes "get" → "win", which is not a key token. We pick a uniformly random
  non-empty *content* slot (not a scikit-learn stop word), or only the key
  positions with ``mutate="key"``.
* **The original is never a member.** A crossover can rebuild S_x0 (A changed
  only after the cut, B only before it); such children are dropped (and
  counted), so Per(S_x0) never contains the question itself unless nothing
  else exists.
* **A population of one** cannot cross over; its member is then mutated
  directly, so a question with one poor key token still evolves.
* **Population cap.** Pop_{t+1} is de-duplicated by text (first occurrence in
  the order Pa, Off, Mu wins) and, above ``max_population``, a uniform random
  subset is kept. Pop_0 is not capped (the paper defines it as all single
  substitutions).
* **Sampling Per(S_x0)**: see :mod:`.gaap_sampling`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..config import GaapConfig
from ..embedders import DEFAULT_EMBEDDER, KEYWORD_EMBEDDER, get_embedder
from ..paper.random_walk import KERNEL_TAU, affinity_from_cosine
from ..progress import CountCallback
from ..text.wordnet import load_wordnet
from .gaap_operators import crossover, mutate, replace, roulette
from .gaap_sampling import sample_perturbations
from .gaap_trace import (
    GaapResult,
    GaapTrace,
    Generation,
    Member,
    Origin,
    PerturbationPick,
    SubEntry,
)
from .keywords import Template, key_tokens, keybert_for, stop_words
from .substitutions import Substitution, SubstitutionSet, substitution_set

DELETION = Substitution("", "deletion")


#: A candidate individual before de-duplication: its word slots and how it came about.
Candidate = tuple[tuple[str, ...], Origin]


class _Run:
    """State of one GAAP run: the question's template and key tokens, the SUB cache, the fitness."""

    def __init__(self, question: str, cfg: GaapConfig, emb: Any):

        self.template = Template.parse(question)
        self.words = self.template.words
        if not self.words:
            raise ValueError(f"GAAP needs a question with at least one word, got {question!r}")
        self.question = question
        self.cfg = cfg
        self.emb = emb
        self.subs: dict[tuple[int, str], SubstitutionSet] = {}
        self.stops = stop_words()
        # key tokens always come from KeyBERT on the packaged MiniLM, whatever the fitness embedder
        self.keys = key_tokens(question, cfg.ratio, embedder=get_embedder(KEYWORD_EMBEDDER))
        self.key_pos = {k.position for k in self.keys}

    def sub(self, position: int, token: str) -> tuple[Substitution, ...]:
        """SUB(token) at ``position`` (POS guessed in the original's context), deletion last."""
        key = (position, token)
        got = self.subs.get(key)
        if got is None:
            context = replace(self.words, position, token)
            lex = substitution_set(
                context,
                position,
                max_senses=self.cfg.max_senses,
                inflect_plurals=self.cfg.inflect_plurals,
            )
            got = dataclasses.replace(lex, options=lex.options + (DELETION,))
            self.subs[key] = got
        return got.options

    def fitness(self, texts: Sequence[str]) -> np.ndarray:
        """a(x_0, x) for each text; one embedder request per generation."""
        if not texts:
            return np.zeros(0)
        if hasattr(self.emb, "encode"):
            vecs = np.asarray(self.emb.encode([self.question, *texts]), dtype=np.float64)
            cos = np.clip(vecs[1:] @ vecs[0], -1.0, 1.0)
            return affinity_from_cosine(cos, kind=self.cfg.affinity, tau=KERNEL_TAU)
        sim = np.asarray(
            self.emb.similarity_matrix(
                [self.question, *texts], kind=self.cfg.affinity, tau=KERNEL_TAU
            )
        )
        return (sim[0, 1:] + sim[1:, 0]) / 2.0

    def mutable(self, slots: Sequence[str]) -> list[int]:
        """The slots a mutation may change: key positions, or any non-empty content word."""
        if self.cfg.mutate == "key":
            return [i for i in sorted(self.key_pos) if slots[i]]
        return [
            i
            for i, s in enumerate(slots)
            if s and any(c.isalnum() for c in s) and s.lower() not in self.stops
        ]

    def generation(
        self, index: int, candidates: list[Candidate], rng: np.random.Generator | None = None
    ) -> Generation:
        """Pop_index from candidates: rendered, de-duplicated, capped (when ``rng``), scored."""
        kept, dups, orig = _collect(self, candidates)
        capped = 0
        if rng is not None and len(kept) > self.cfg.max_population:
            keep = np.sort(rng.choice(len(kept), size=self.cfg.max_population, replace=False))
            capped = len(kept) - self.cfg.max_population
            kept = [kept[int(i)] for i in keep]
        fit = self.fitness([text for text, _, _ in kept])
        members = [Member(t, s, float(f), o) for (t, s, o), f in zip(kept, fit)]
        return Generation(index, tuple(members), dups, orig, capped)


def _collect(
    run: _Run, candidates: list[Candidate]
) -> tuple[list[tuple[str, tuple[str, ...], Origin]], int, int]:
    """Render, drop the original and empty texts, de-duplicate (first wins)."""
    seen: set[str] = set()
    kept: list[tuple[str, tuple[str, ...], Origin]] = []
    dups = orig = 0
    for slots, origin in candidates:
        text = run.template.render(slots)
        if text == run.question or not text.strip():
            orig += 1
            continue
        if text in seen:
            dups += 1
            continue
        seen.add(text)
        kept.append((text, slots, origin))
    return kept, dups, orig


def initial_population(run: _Run) -> Generation:
    """Pop_0: every single-key-token substitution re(S_x0, t_j, t'), deletion included.

    Not capped: the paper defines Pop_0 as all single substitutions.
    """
    candidates = [
        (
            replace(run.words, k.position, s.text),
            Origin(
                "initial",
                position=k.position,
                word=k.token,
                replacement=s.text,
                relation=s.relation,
            ),
        )
        for k in run.keys
        for s in run.sub(k.position, k.token)
    ]
    return run.generation(0, candidates)


def _crossovers(pop: Generation, order: np.ndarray, rng: np.random.Generator) -> list[Candidate]:
    """Off_t: one-point crossover of consecutive pairs of ``order`` (two children each)."""
    offspring: list[Candidate] = []
    for ia, ib in zip(order[0::2], order[1::2]):
        a, b = pop.members[int(ia)].slots, pop.members[int(ib)].slots
        p = min(len(a), len(b))
        if p >= 2:
            h = int(rng.integers(1, p))  # uniform on {1, …, p − 1}
            c1, c2 = crossover(a, b, h)
        else:  # a one-word question cannot be cut; children are copies
            h, c1, c2 = None, tuple(a), tuple(b)
        offspring.append((c1, Origin("crossover", parents=(int(ia), int(ib)), point=h)))
        offspring.append((c2, Origin("crossover", parents=(int(ib), int(ia)), point=h)))
    return offspring


def _mutations(run: _Run, sources: list[Candidate], rng: np.random.Generator) -> list[Candidate]:
    """Mu_t: one substitution in each source (children that cannot mutate are skipped)."""
    mutated: list[Candidate] = []
    for slots, origin in sources:
        m = mutate(slots, run.mutable(slots), run.sub, rng)
        if m is None:
            continue
        new, pos, s = m
        mo = dataclasses.replace(
            origin,
            op="mutation",
            position=pos,
            word=slots[pos],
            replacement=s.text,
            relation=s.relation,
        )
        mutated.append((new, mo))
    return mutated


def next_generation(
    run: _Run, pop: Generation, rng: np.random.Generator
) -> tuple[Generation, set[int]]:
    """Pop_{t+1} = Pa_t ∪ Off_t ∪ Mu_t, and the indices of Pop_t drawn as parents.

    References
    ----------
    Paper, Appendix "GAAP Implementation Details", Eq. (populationupdate).
    """
    fitness = np.array([m.fitness for m in pop.members])
    parents = roulette(fitness, run.cfg.n_parents, rng)  # Pa_t
    order = rng.permutation(parents)
    carried = [(pop.members[int(i)].slots, Origin("parent", parents=(int(i),))) for i in parents]
    offspring = _crossovers(pop, order, rng)
    sources = offspring
    if not offspring:  # one member cannot cross over: mutate it directly (ours)
        i = int(parents[0])
        sources = [(pop.members[i].slots, Origin("crossover", parents=(i,)))]
    mutated = _mutations(run, sources, rng)
    selected = {int(i) for i in parents}
    return run.generation(pop.index + 1, carried + offspring + mutated, rng), selected


def _stop_reason(pop: Generation, cfg: GaapConfig) -> str | None:
    """Why the search stops at ``pop`` ("empty", "delta", "max_generations"), or None to go on."""
    if not pop.members:
        return "empty"
    if pop.max_fitness < cfg.delta:
        return "delta"
    if pop.index >= cfg.max_generations:
        return "max_generations"
    return None


def evolve(
    run: _Run, rng: np.random.Generator, progress: CountCallback | None = None
) -> tuple[list[Generation], list[set[int]], str]:
    """Pop_0, Pop_1, … until T generations or max fitness < δ.

    Returns
    -------
    (generations, the parents selected from each but the last, stop reason).
    """
    generations = [initial_population(run)]
    selected: list[set[int]] = []
    if progress is not None:
        progress(0, run.cfg.max_generations)
    while (reason := _stop_reason(generations[-1], run.cfg)) is None:
        nxt, parents = next_generation(run, generations[-1], rng)
        generations.append(nxt)
        selected.append(parents)
        if progress is not None:
            progress(nxt.index, run.cfg.max_generations)
    return generations, selected, reason


def gaap(
    question: str,
    *,
    n: int | None = None,
    delta: float | None = None,
    ratio: float | None = None,
    max_generations: int | None = None,
    tau: int | None = None,
    embedder: Any = DEFAULT_EMBEDDER,
    seed: int | None = 0,
    config: GaapConfig | None = None,
    progress: CountCallback | None = None,
) -> GaapResult:
    """Per(S_x0) by GAAP, with a full trace.

    Parameters
    ----------
    question : S_x0.
    n, delta, ratio, max_generations, tau : override the matching fields of
        ``config`` (None keeps them; see :class:`GaapConfig` for defaults).
    embedder : name for :func:`invent_core.embedders.get_embedder` or a
        loaded embedder object; gives the fitness a(x_0, ·). Key tokens always
        come from KeyBERT on the packaged MiniLM.
    seed : seeds the one ``np.random.Generator`` of the run (selection,
        pairing, cut points, mutations, sampling). Same seed → same output.
    config : all other settings.
    progress : ``progress(t, max_generations)`` after generation t is built.

    Returns
    -------
    GaapResult with ``perturbations`` (exactly n strings), ``trace`` and
    ``embedding_calls_saved``.

    References
    ----------
    Paper, §2.5 "GAAP" and Appendix "GAAP Implementation Details"
    (Eqs. replacementdef, populationupdate, perdef).

    Examples
    --------
    >>> res = gaap("Which golfer became only the fifth in history to get both "
    ...            "the British and US Open championships in the same year, in 1982?")  # doctest: +SKIP
    >>> len(res.perturbations)  # doctest: +SKIP
    9
    """
    overrides = dict(n=n, delta=delta, ratio=ratio, max_generations=max_generations, tau=tau)
    cfg = dataclasses.replace(
        config or GaapConfig(), **{k: v for k, v in overrides.items() if v is not None}
    )
    if not isinstance(question, str) or not question.strip():
        raise ValueError("GAAP needs a non-empty question")

    emb = get_embedder(embedder)
    load_seconds = _load_resources(emb)
    started = time.perf_counter()
    before = _embedding_counts(emb)
    rng = np.random.default_rng(seed)
    run = _Run(question, cfg, emb)
    generations, selected, stop_reason = evolve(run, rng, progress)
    picks = sample_perturbations(generations, cfg, rng, question)
    marked = _marked(generations, selected, picks, cfg.tau)
    trace = dataclasses.replace(
        _trace(run, marked, picks, stop_reason, seed, before), load_seconds=load_seconds
    )
    return GaapResult(
        perturbations=[p.text for p in picks],
        trace=trace,
        seconds=time.perf_counter() - started,
    )


def _load_resources(emb: Any) -> float:
    """Load WordNet, the embedders' weights and KeyBERT now; return the seconds it took.

    Their first load in a process takes seconds and is no part of GAAP's own
    time: counted in it, the first run's time made every later estimate too long.
    """
    t0 = time.perf_counter()
    load_wordnet()
    if hasattr(emb, "load"):
        emb.load()
    keybert_for(get_embedder(KEYWORD_EMBEDDER).model)  # key tokens always come from it
    return time.perf_counter() - t0


def _embedding_counts(emb: Any) -> tuple[int, int]:
    """(texts requested, texts encoded) so far by the embedder's cache, (0, 0) without stats."""
    stats = getattr(emb, "stats", None)
    return (stats.requested, stats.encoded) if stats is not None else (0, 0)


def _marked(
    generations: list[Generation],
    selected: list[set[int]],
    picks: list[PerturbationPick],
    tau: int,
) -> list[Generation]:
    """The generations with ``sampled``, ``selected`` and ``in_perturbations`` filled in."""
    chosen = {(p.generation, p.member) for p in picks}
    out: list[Generation] = []
    for g in generations:
        sel = selected[g.index] if g.index < len(selected) else set()
        members = tuple(
            dataclasses.replace(m, selected=i in sel, in_perturbations=(g.index, i) in chosen)
            for i, m in enumerate(g.members)
        )
        out.append(dataclasses.replace(g, sampled=g.index % tau == 0, members=members))
    return out


def _trace(
    run: _Run,
    generations: list[Generation],
    picks: list[PerturbationPick],
    stop_reason: str,
    seed: int | None,
    before: tuple[int, int],
) -> GaapTrace:
    """The run's :class:`GaapTrace`; SUB sets of key tokens first, then of mutated words."""
    sub_entries = sorted(
        run.subs.items(), key=lambda kv: (kv[0][0] not in run.key_pos, kv[0][0], kv[0][1])
    )
    after = _embedding_counts(run.emb)
    emb = run.emb
    return GaapTrace(
        question=run.question,
        words=run.words,
        key_tokens=run.keys,
        sub_sets=tuple(SubEntry(pos, s) for (pos, _), s in sub_entries),
        generations=tuple(generations),
        perturbations=tuple(picks),
        stop_reason=stop_reason,
        config=run.cfg,
        seed=seed,
        embedder=getattr(emb, "identity", getattr(emb, "name", type(emb).__name__)),
        embedding_requested=after[0] - before[0],
        embedding_encoded=after[1] - before[1],
    )
