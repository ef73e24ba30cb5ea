"""GAAP: the genetic-algorithm perturbation of the paper (§2.5, Appendix "GAAP Implementation Details").

From a question S_x0 = (t_1, …, t_p):

1. key tokens k(S_x0, r) by KeyBERT (:mod:`.keywords`);
2. Pop_0 = every single-key-token substitution re(S_x0, t_j, t') with
   t' ∈ SUB(t_j) = synonyms ∪ hypernyms ∪ hyponyms ∪ {deletion} from WordNet
   3.0 (:mod:`.wordnet`);
3. each generation: roulette-wheel selection of parents Pa_t with
   P(S_xi) ∝ a(x_0, x_i); one-point crossover of random parent pairs (Off_t);
   one substitution per child (Mu_t); Pop_{t+1} = Pa_t ∪ Off_t ∪ Mu_t;
4. stop after T generations or when max_i a(x_0, x_i) < δ;
5. Per(S_x0) = uniform samples from Pop_0, Pop_τ, Pop_2τ, … (Eq. perdef),
   exactly n texts.

Every step is recorded in a :class:`GaapTrace` (JSON via ``to_dict`` /
``from_dict``) so a demo can replay it generation by generation.

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
  grammatical. The pure operator :func:`crossover` accepts unequal lengths and
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
* **Sampling Per(S_x0).** n is split as evenly as possible over the sampled
  generations 0, τ, 2τ, … (the remainder goes to randomly chosen ones);
  within a generation members are drawn uniformly without replacement and
  never twice across generations. Shortfalls are filled from the other
  members of the sampled generations, then by duplicating random chosen ones
  (paper, Appendix "Experimental setting": "When fewer than nine are
  generated, we randomly duplicate existing perturbations").
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from ..config import GaapConfig
from ..random_walk import affinity_from_cosine
from .keywords import KeyToken, Template, key_tokens, stop_words
from .wordnet import Substitution, SubstitutionSet

#: ``progress(generation, max_generations)`` after each generation is built.
ProgressFn = Callable[[int, int], None]

DELETION = Substitution("", "deletion")


# --------------------------------------------------------------------- trace


@dataclass(frozen=True)
class Origin:
    """How a member came about.

    ``op`` is one of
      * ``"initial"``: Pop_0; slot ``position`` (``word``) replaced by
        ``replacement`` ("" = deletion), ``relation`` from WordNet;
      * ``"parent"``: carried over as a selected parent; ``parents = (i,)``
        indexes the previous generation;
      * ``"crossover"``: child of ``parents = (A, B)`` (previous generation)
        cut after ``point`` words: A's first ``point`` slots, then B's;
      * ``"mutation"``: that crossover child, then slot ``position``
        (``word``) replaced by ``replacement`` ("" = deletion). With a single
        ``parents`` entry, the parent itself was mutated (a population of one
        cannot cross over).
    """

    op: Literal["initial", "parent", "crossover", "mutation"]
    parents: tuple[int, ...] = ()
    point: int | None = None
    position: int | None = None
    word: str | None = None
    replacement: str | None = None
    relation: str | None = None

    def describe(self) -> str:
        """One line for people, e.g. ``crossover of #3 × #7 after word 5``."""
        change = ""
        if self.position is not None:
            new = f"'{self.replacement}'" if self.replacement else "deleted"
            change = f"'{self.word}' (word {self.position}) → {new}"
            if self.relation and self.relation != "deletion":
                change += f" ({self.relation})"
        if self.op == "initial":
            return f"initial: {change}"
        if self.op == "parent":
            return f"selected parent #{self.parents[0]}"
        if len(self.parents) == 1:
            return f"mutation of #{self.parents[0]}: {change}"
        cut = f"after word {self.point}" if self.point is not None else "(no cut: 1 word)"
        cross = f"crossover of #{self.parents[0]} × #{self.parents[1]} {cut}"
        return cross if self.op == "crossover" else f"{cross}, then mutation {change}"

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["parents"] = list(self.parents)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Origin:
        return cls(**{**d, "parents": tuple(d.get("parents", ()))})


@dataclass(frozen=True)
class Member:
    """One individual of a generation."""

    text: str
    slots: tuple[str, ...]  # p word slots, "" where a word was deleted
    fitness: float  # a(x_0, x), paper's fitness
    origin: Origin
    selected: bool = False  # drawn as a parent of the next generation
    in_perturbations: bool = False  # entered Per(S_x0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "slots": list(self.slots),
            "fitness": self.fitness,
            "origin": self.origin.to_dict(),
            "selected": self.selected,
            "in_perturbations": self.in_perturbations,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Member:
        return cls(
            text=d["text"],
            slots=tuple(d["slots"]),
            fitness=float(d["fitness"]),
            origin=Origin.from_dict(d["origin"]),
            selected=bool(d["selected"]),
            in_perturbations=bool(d["in_perturbations"]),
        )


@dataclass(frozen=True)
class Generation:
    """Pop_t with bookkeeping of how it was formed."""

    index: int
    members: tuple[Member, ...]
    n_duplicates: int = 0  # candidates dropped as repeats of an earlier text
    n_original: int = 0  # candidates dropped because they equal S_x0 (or are empty)
    n_capped: int = 0  # dropped to respect max_population
    sampled: bool = False  # t is a multiple of τ: Per(S_x0) draws from it

    @property
    def max_fitness(self) -> float:
        return max((m.fitness for m in self.members), default=float("nan"))

    @property
    def mean_fitness(self) -> float:
        return float(np.mean([m.fitness for m in self.members])) if self.members else float("nan")

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "members": [m.to_dict() for m in self.members],
            "n_duplicates": self.n_duplicates,
            "n_original": self.n_original,
            "n_capped": self.n_capped,
            "sampled": self.sampled,
            "max_fitness": self.max_fitness,
            "mean_fitness": self.mean_fitness,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Generation:
        return cls(
            index=int(d["index"]),
            members=tuple(Member.from_dict(m) for m in d["members"]),
            n_duplicates=int(d["n_duplicates"]),
            n_original=int(d["n_original"]),
            n_capped=int(d["n_capped"]),
            sampled=bool(d["sampled"]),
        )


@dataclass(frozen=True)
class PerturbationPick:
    """One element of Per(S_x0): which member it is, and whether it is a padding duplicate."""

    text: str
    generation: int
    member: int
    duplicate: bool = False

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PerturbationPick:
        return cls(**d)


@dataclass(frozen=True)
class SubEntry:
    """SUB(t) for the word at ``position`` (deletion included, last)."""

    position: int
    sub: SubstitutionSet

    def to_dict(self) -> dict[str, Any]:
        return {"position": self.position, **self.sub.to_dict()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SubEntry:
        return cls(position=int(d["position"]), sub=SubstitutionSet.from_dict(d))


@dataclass(frozen=True)
class GaapTrace:
    """Everything GAAP did on one question, generation by generation."""

    question: str
    words: tuple[str, ...]
    key_tokens: tuple[KeyToken, ...]
    sub_sets: tuple[SubEntry, ...]  # every SUB(t) used: key tokens, then mutated words
    generations: tuple[Generation, ...]
    perturbations: tuple[PerturbationPick, ...]
    stop_reason: str  # "max_generations", "delta" or "empty" (Pop_0 had no member)
    config: GaapConfig
    seed: int | None
    embedder: str  # identity of the fitness embedder
    # how much of the embedder's text→vector cache this run used: depends on
    # what the (shared) embedder saw before, so not part of trace equality
    embedding_requested: int = field(default=0, compare=False)
    embedding_encoded: int = field(default=0, compare=False)

    @property
    def embedding_calls_saved(self) -> int:
        """Texts whose embedding came from the embedder's cache instead of the model."""
        return self.embedding_requested - self.embedding_encoded

    def sub_set(self, position: int, token: str | None = None) -> SubstitutionSet:
        """SUB of the word at ``position`` (the original word unless ``token`` is given)."""
        token = self.words[position] if token is None else token
        for e in self.sub_sets:
            if e.position == position and e.sub.token == token:
                return e.sub
        raise KeyError(f"no SUB set recorded for {token!r} at word {position}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "words": list(self.words),
            "key_tokens": [k.to_dict() for k in self.key_tokens],
            "sub_sets": [s.to_dict() for s in self.sub_sets],
            "generations": [g.to_dict() for g in self.generations],
            "perturbations": [p.to_dict() for p in self.perturbations],
            "stop_reason": self.stop_reason,
            "config": self.config.to_dict(),
            "seed": self.seed,
            "embedder": self.embedder,
            "embedding_requested": self.embedding_requested,
            "embedding_encoded": self.embedding_encoded,
            "embedding_calls_saved": self.embedding_calls_saved,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GaapTrace:
        return cls(
            question=d["question"],
            words=tuple(d["words"]),
            key_tokens=tuple(KeyToken.from_dict(k) for k in d["key_tokens"]),
            sub_sets=tuple(SubEntry.from_dict(s) for s in d["sub_sets"]),
            generations=tuple(Generation.from_dict(g) for g in d["generations"]),
            perturbations=tuple(PerturbationPick.from_dict(p) for p in d["perturbations"]),
            stop_reason=d["stop_reason"],
            config=GaapConfig.from_dict(d["config"]),
            seed=d["seed"],
            embedder=d["embedder"],
            embedding_requested=int(d["embedding_requested"]),
            embedding_encoded=int(d["embedding_encoded"]),
        )


@dataclass(frozen=True)
class GaapResult:
    """Per(S_x0) and how it was made."""

    perturbations: list[str]
    trace: GaapTrace
    seconds: float = field(default=0.0, compare=False)

    @property
    def embedding_calls_saved(self) -> int:
        return self.trace.embedding_calls_saved

    def to_dict(self) -> dict[str, Any]:
        return {
            "perturbations": list(self.perturbations),
            "trace": self.trace.to_dict(),
            "seconds": self.seconds,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GaapResult:
        return cls(
            perturbations=list(d["perturbations"]),
            trace=GaapTrace.from_dict(d["trace"]),
            seconds=float(d.get("seconds", 0.0)),
        )


# ------------------------------------------------------------ pure operators


def replace(slots: Sequence[str], position: int, new: str) -> tuple[str, ...]:
    """re(S, t_j, t'): ``slots`` with slot ``position`` set to ``new`` ("" deletes it).

    References
    ----------
    Paper, Appendix "GAAP Implementation Details", Eq. (replacementdef).
    """
    if not 0 <= position < len(slots):
        raise ValueError(f"position {position} outside a sequence of {len(slots)} tokens")
    out = list(slots)
    out[position] = new
    return tuple(out)


def crossover(
    a: Sequence[str], b: Sequence[str], point: int
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """One-point crossover after ``point`` tokens.

    ``A' = (a_1 … a_h, b_{h+1} …)`` and ``B' = (b_1 … b_h, a_{h+1} …)``, with
    h ∈ {1, …, p − 1} and p the shorter length (paper's formula). For parents
    of different lengths each child keeps the whole tail of its second parent
    (so len(A') = len(b), len(B') = len(a)) rather than being truncated to p,
    which would drop the end of the sentence. GAAP itself only crosses
    equal-length slot sequences, where both readings coincide.

    References
    ----------
    Paper, Appendix "GAAP Implementation Details", Crossover.
    """
    p = min(len(a), len(b))
    if not 1 <= point <= p - 1:
        raise ValueError(
            f"crossover point must be in 1..{p - 1} for lengths {len(a)} and {len(b)}, got {point}"
        )
    return tuple(a[:point]) + tuple(b[point:]), tuple(b[:point]) + tuple(a[point:])


def roulette(fitness: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Indices of ``k`` distinct members drawn with probability ∝ fitness (roulette wheel).

    References
    ----------
    Paper, Appendix "GAAP Implementation Details", Selection:
    P(S_xi) = a(x_0, x_i) / Σ_j a(x_0, x_j).
    """
    fitness = np.asarray(fitness, dtype=np.float64)
    if fitness.ndim != 1 or len(fitness) == 0:
        raise ValueError("fitness must be a non-empty 1-D array")
    if np.any(fitness < 0) or not np.all(np.isfinite(fitness)):
        raise ValueError("fitness values must be finite and non-negative")
    k = min(k, len(fitness))
    total = fitness.sum()
    probs = fitness / total if total > 0 else np.full(len(fitness), 1.0 / len(fitness))
    # without replacement, zero-fitness members can still be needed to reach k
    probs = np.maximum(probs, 1e-12)
    probs /= probs.sum()
    return rng.choice(len(fitness), size=k, replace=False, p=probs)


def mutate(
    slots: Sequence[str],
    positions: Sequence[int],
    sub: Callable[[int, str], Sequence[Substitution]],
    rng: np.random.Generator,
) -> tuple[tuple[str, ...], int, Substitution] | None:
    """Replace one uniformly random slot among ``positions`` by a uniform element of its SUB set.

    Parameters
    ----------
    slots : the child.
    positions : the slots that may mutate (non-empty ones).
    sub : ``sub(position, token)`` → SUB(token) including deletion.
    rng : random source.

    Returns
    -------
    (mutated slots, position, substitution), or None if no slot may mutate.

    References
    ----------
    Paper, Appendix "GAAP Implementation Details", Mutation.
    """
    if not positions:
        return None
    pos = int(positions[int(rng.integers(len(positions)))])
    options = sub(pos, slots[pos])
    if not options:
        return None
    choice = options[int(rng.integers(len(options)))]
    return replace(slots, pos, choice.text), pos, choice


# --------------------------------------------------------------- the search


class _Run:
    """State of one GAAP run: the question's template, the SUB cache and the fitness."""

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

    def sub(self, position: int, token: str) -> tuple[Substitution, ...]:
        """SUB(token) at ``position`` (POS guessed in the original's context), deletion last."""
        key = (position, token)
        got = self.subs.get(key)
        if got is None:
            from .wordnet import substitution_set

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
            return affinity_from_cosine(cos, kind=self.cfg.affinity)
        sim = np.asarray(
            self.emb.similarity_matrix([self.question, *texts], kind=self.cfg.affinity)
        )
        return (sim[0, 1:] + sim[1:, 0]) / 2.0

    def mutable(self, slots: Sequence[str], keys: set[int]) -> list[int]:
        if self.cfg.mutate == "key":
            return [i for i in sorted(keys) if slots[i]]
        return [
            i
            for i, s in enumerate(slots)
            if s and any(c.isalnum() for c in s) and s.lower() not in self.stops
        ]


def _collect(
    run: _Run, candidates: list[tuple[tuple[str, ...], Origin]]
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


def gaap(
    question: str,
    *,
    n: int | None = None,
    delta: float | None = None,
    ratio: float | None = None,
    max_generations: int | None = None,
    tau: int | None = None,
    embedder: Any = "minilm",
    seed: int | None = 0,
    config: GaapConfig | None = None,
    progress: ProgressFn | None = None,
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
    cfg = config or GaapConfig()
    overrides = {
        k: v
        for k, v in dict(
            n=n, delta=delta, ratio=ratio, max_generations=max_generations, tau=tau
        ).items()
        if v is not None
    }
    if overrides:
        cfg = dataclasses.replace(cfg, **overrides)
    if not isinstance(question, str) or not question.strip():
        raise ValueError("GAAP needs a non-empty question")
    from ..embedders import get_embedder

    started = time.perf_counter()
    emb = get_embedder(embedder)
    stats = getattr(emb, "stats", None)
    req0, enc0 = (stats.requested, stats.encoded) if stats is not None else (0, 0)
    rng = np.random.default_rng(seed)
    run = _Run(question, cfg, emb)

    keys = key_tokens(question, cfg.ratio, embedder=get_embedder("minilm"))
    key_pos = {k.position for k in keys}

    # Pop_0: every single-key-token substitution, deletion included
    initial: list[tuple[tuple[str, ...], Origin]] = []
    for k in keys:
        for s in run.sub(k.position, k.token):
            origin = Origin(
                "initial",
                position=k.position,
                word=k.token,
                replacement=s.text,
                relation=s.relation,
            )
            initial.append((replace(run.words, k.position, s.text), origin))
    kept, dups, orig = _collect(run, initial)
    fit = run.fitness([t for t, _, _ in kept])
    members = [Member(t, s, float(f), o) for (t, s, o), f in zip(kept, fit)]
    generations: list[Generation] = [Generation(0, tuple(members), dups, orig, 0)]
    selected_per_gen: list[set[int]] = []
    if progress is not None:
        progress(0, cfg.max_generations)

    stop_reason = "max_generations"
    while True:
        pop = generations[-1]
        t = pop.index
        if not pop.members:
            stop_reason = "empty"
            break
        if pop.max_fitness < cfg.delta:
            stop_reason = "delta"
            break
        if t >= cfg.max_generations:
            stop_reason = "max_generations"
            break
        fitness = np.array([m.fitness for m in pop.members])
        parents = roulette(fitness, cfg.n_parents, rng)  # Pa_t
        selected_per_gen.append({int(i) for i in parents})
        order = rng.permutation(parents)
        cand: list[tuple[tuple[str, ...], Origin]] = [
            (pop.members[int(i)].slots, Origin("parent", parents=(int(i),))) for i in parents
        ]
        offspring: list[tuple[tuple[str, ...], Origin]] = []
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
        if not offspring:  # one member cannot cross over: mutate it directly (ours)
            i = int(parents[0])
            sources = [(pop.members[i].slots, Origin("crossover", parents=(i,)))]
        else:
            sources = offspring
        mutated: list[tuple[tuple[str, ...], Origin]] = []
        for slots, o in sources:
            m = mutate(slots, run.mutable(slots, key_pos), run.sub, rng)
            if m is None:
                continue
            new, pos, s = m
            mo = dataclasses.replace(
                o,
                op="mutation",
                position=pos,
                word=slots[pos],
                replacement=s.text,
                relation=s.relation,
            )
            mutated.append((new, mo))
        kept, dups, orig = _collect(run, cand + offspring + mutated)  # Pa ∪ Off ∪ Mu
        capped = 0
        if len(kept) > cfg.max_population:
            keep = np.sort(rng.choice(len(kept), size=cfg.max_population, replace=False))
            capped = len(kept) - cfg.max_population
            kept = [kept[int(i)] for i in keep]
        fit = run.fitness([tx for tx, _, _ in kept])
        members = [Member(tx, s, float(f), o) for (tx, s, o), f in zip(kept, fit)]
        generations.append(Generation(t + 1, tuple(members), dups, orig, capped))
        if progress is not None:
            progress(t + 1, cfg.max_generations)

    picks = _sample_per(generations, cfg, rng, question)
    chosen = {(p.generation, p.member) for p in picks}
    final: list[Generation] = []
    for g in generations:
        sel = selected_per_gen[g.index] if g.index < len(selected_per_gen) else set()
        final.append(
            dataclasses.replace(
                g,
                sampled=g.index % cfg.tau == 0,
                members=tuple(
                    dataclasses.replace(
                        m, selected=i in sel, in_perturbations=(g.index, i) in chosen
                    )
                    for i, m in enumerate(g.members)
                ),
            )
        )
    sub_entries = sorted(
        run.subs.items(), key=lambda kv: (kv[0][0] not in key_pos, kv[0][0], kv[0][1])
    )
    req1, enc1 = (stats.requested, stats.encoded) if stats is not None else (0, 0)
    trace = GaapTrace(
        question=question,
        words=run.words,
        key_tokens=keys,
        sub_sets=tuple(SubEntry(pos, s) for (pos, _), s in sub_entries),
        generations=tuple(final),
        perturbations=tuple(picks),
        stop_reason=stop_reason,
        config=cfg,
        seed=seed,
        embedder=getattr(emb, "identity", getattr(emb, "name", type(emb).__name__)),
        embedding_requested=req1 - req0,
        embedding_encoded=enc1 - enc0,
    )
    return GaapResult(
        perturbations=[p.text for p in picks],
        trace=trace,
        seconds=time.perf_counter() - started,
    )


def _sample_per(
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

    def fresh(g: Generation) -> list[int]:
        return [i for i, m in enumerate(g.members) if m.text not in taken]

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
