"""GAAP (paper §2.5, Appendix "GAAP Implementation Details"): operators, the search, the trace."""

from __future__ import annotations

import json

import numpy as np
import pytest

from invent_core.perturb.gaap import (
    DELETION,
    GaapConfig,
    GaapResult,
    GaapTrace,
    Origin,
    gaap,
)
from invent_core.perturb.gaap_operators import crossover, mutate, replace, roulette
from invent_core.perturb.keywords import Template, key_tokens, n_key_tokens
from invent_core.perturb.substitutions import Substitution

GOLF_Q = (
    "Which golfer became only the fifth in history to get both the British and US Open "
    "championships in the same year, in 1982?"
)


# ------------------------------------------------------------ pure pieces


def test_template_round_trip_and_deletion():
    t = Template.parse(GOLF_Q)
    assert len(t.words) == 23 and t.words[:2] == ("Which", "golfer")
    assert t.render(t.words) == GOLF_Q
    assert t.render(replace(t.words, 1, "golf player")).startswith("Which golf player became")
    assert t.render(replace(t.words, 22, "")).endswith("same year, in?")
    assert "US Open in the same" in t.render(replace(t.words, 16, ""))
    assert t.render(replace(t.words, 0, "")).startswith("golfer became")
    with pytest.raises(ValueError, match="expected 23 slots, got 2"):
        t.render(("a", "b"))


def test_template_keeps_hyphens_and_apostrophes():
    t = Template.parse("Who is O'Neill's self-made hero?")
    assert t.words == ("Who", "is", "O'Neill's", "self-made", "hero")


@pytest.mark.parametrize(
    ("p", "ratio", "q"), [(23, 0.2, 4), (3, 0.2, 1), (10, 1.0, 10), (1, 0.1, 1)]
)
def test_number_of_key_tokens(p, ratio, q):
    assert n_key_tokens(p, ratio) == q


def test_crossover_equal_lengths_follows_the_paper():
    a = tuple("abcdef")
    b = tuple("ABCDEF")
    for h in range(1, 6):
        c1, c2 = crossover(a, b, h)
        assert c1 == a[:h] + b[h:] and c2 == b[:h] + a[h:]
        assert len(c1) == len(c2) == 6
        # every position comes from one of the parents at that position
        assert all(x in (a[i], b[i]) for i, x in enumerate(c1))


def test_crossover_unequal_lengths_keeps_the_tails():
    a, b = tuple("abcdefg"), tuple("ABCD")
    c1, c2 = crossover(a, b, 2)
    assert c1 == ("a", "b", "C", "D") and len(c1) == len(b)
    assert c2 == ("A", "B", "c", "d", "e", "f", "g") and len(c2) == len(a)
    assert sorted(c1 + c2) == sorted(a + b)  # no token lost or invented


@pytest.mark.parametrize("point", [0, 4, -1])
def test_crossover_point_outside_range(point):
    with pytest.raises(ValueError, match=r"crossover point must be in 1\.\.3"):
        crossover(tuple("abcd"), tuple("ABCDEF"), point)


def test_mutation_changes_exactly_one_token():
    slots = ("Which", "golfer", "won", "the", "Open")
    subs = {
        1: (Substitution("linksman", "synonym"), DELETION),
        2: (Substitution("gained", "synonym"), DELETION),
        4: (Substitution("tournament", "hypernym"), DELETION),
    }
    rng = np.random.default_rng(3)
    seen_pos = set()
    for _ in range(50):
        out = mutate(slots, [1, 2, 4], lambda i, tok: subs[i], rng)
        assert out is not None
        new, pos, sub = out
        diff = [i for i in range(len(slots)) if new[i] != slots[i]]
        assert diff == [pos] and new[pos] == sub.text and sub in subs[pos]
        seen_pos.add(pos)
    assert seen_pos == {1, 2, 4}
    assert mutate(slots, [], lambda i, tok: subs[i], rng) is None


def test_mutation_is_reproducible():
    slots = tuple("abcdef")

    def sub(i, tok):
        return (Substitution(tok.upper(), "synonym"), DELETION)

    runs = [
        [mutate(slots, [0, 2, 4], sub, np.random.default_rng(7)) for _ in range(2)]
        for _ in range(2)
    ]
    assert runs[0] == runs[1]


def test_roulette_is_proportional_to_fitness():
    fitness = np.array([0.1, 0.2, 0.3, 0.4])
    rng = np.random.default_rng(0)
    draws = np.array([roulette(fitness, 1, rng)[0] for _ in range(20_000)])
    freq = np.bincount(draws, minlength=4) / len(draws)
    np.testing.assert_allclose(freq, fitness / fitness.sum(), atol=0.015)
    k = roulette(fitness, 10, rng)
    assert sorted(k) == [0, 1, 2, 3]  # without replacement, capped at the population


def test_roulette_rejects_bad_fitness():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="finite and non-negative"):
        roulette(np.array([0.5, -0.1]), 1, rng)
    with pytest.raises(ValueError, match="non-empty 1-D"):
        roulette(np.array([]), 1, rng)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n": 0}, "n must be at least 1"),
        ({"delta": 1.5}, r"delta must be in \[0, 1\]"),
        ({"ratio": 0.0}, r"ratio must be in \(0, 1\]"),
        ({"max_generations": -1}, "max_generations must be >= 0"),
        ({"tau": 0}, "tau must be at least 1"),
        ({"n_parents": 1}, "n_parents must be at least 2"),
        ({"max_population": 5}, r"max_population \(5\) must be >= n_parents \(10\)"),
        ({"max_senses": 0}, "max_senses must be at least 1"),
        ({"mutate": "all"}, "mutate must be 'content' or 'key'"),
    ],
)
def test_config_validation(kwargs, message):
    with pytest.raises(ValueError, match=message):
        GaapConfig(**kwargs)


def test_config_defaults_follow_the_paper():
    cfg = GaapConfig()
    assert cfg.n == 9 and cfg.delta == 0.7 and cfg.affinity == "shifted_cosine"
    assert GaapConfig.from_dict(cfg.to_dict()) == cfg


def test_origin_descriptions():
    assert (
        "'golfer' (word 1) → 'linksman' (synonym)"
        in Origin(
            "initial", position=1, word="golfer", replacement="linksman", relation="synonym"
        ).describe()
    )
    assert "deleted" in Origin("initial", position=1, word="golfer", replacement="").describe()
    m = Origin("mutation", parents=(3, 7), point=5, position=2, word="won", replacement="")
    assert (
        m.describe() == "crossover of #3 × #7 after word 5, then mutation 'won' (word 2) → deleted"
    )


# ------------------------------------------------- with KeyBERT and WordNet


@pytest.fixture(scope="module")
def golf(minilm) -> GaapResult:
    return gaap(GOLF_Q, embedder=minilm, seed=0)


@pytest.mark.slow
def test_key_tokens_of_the_paper_example(minilm):
    keys = key_tokens(GOLF_Q, 0.2, embedder=minilm)
    assert [k.token for k in keys] == ["golfer", "1982", "British", "championships"]
    assert keys[0].score == pytest.approx(0.487, abs=0.01)
    words = Template.parse(GOLF_Q).words
    assert all(words[k.position] == k.token for k in keys)


@pytest.mark.slow
def test_key_tokens_avoid_stop_words_unless_nothing_else(minilm):
    keys = key_tokens("Who is he?", 0.5, embedder=minilm)
    assert len(keys) == 1 and keys[0].token.lower() in {"who", "is", "he"}
    with pytest.raises(ValueError, match="no word tokens"):
        key_tokens("?!", 0.5, embedder=minilm)


@pytest.mark.slow
def test_sub_of_golfer_in_the_trace(golf):
    sub = golf.trace.sub_set(1)
    texts = {o.text for o in sub.options}
    assert {"linksman", "golf player"} <= texts
    assert texts & {"driver", "medalist", "putter", "golf pro", "hacker"}
    assert sub.options[-1] == DELETION
    assert "golfer" not in texts


@pytest.mark.slow
def test_initial_population_is_every_single_key_substitution(golf):
    tr = golf.trace
    words = tr.words
    keys = {k.position for k in tr.key_tokens}
    pop0 = tr.generations[0].members
    expected = set()
    for k in tr.key_tokens:
        for s in tr.sub_set(k.position).options:
            expected.add(replace(words, k.position, s.text))
    assert {m.slots for m in pop0} == expected
    for m in pop0:
        diff = [i for i in range(len(words)) if m.slots[i] != words[i]]
        assert len(diff) == 1 and diff[0] in keys
        assert m.origin.op == "initial" and m.origin.position == diff[0]
        assert m.text == Template.parse(GOLF_Q).render(m.slots)


@pytest.mark.slow
def test_every_member_is_explained_by_its_origin(golf):
    tr = golf.trace
    gens = tr.generations
    assert len(gens) == tr.config.max_generations + 1 and tr.stop_reason == "max_generations"
    for prev, gen in zip(gens, gens[1:]):
        assert len(gen.members) <= tr.config.max_population
        assert len({m.text for m in gen.members}) == len(gen.members)  # de-duplicated
        parents_here = set()
        for m in gen.members:
            o = m.origin
            assert m.text != GOLF_Q
            if o.op == "parent":
                assert prev.members[o.parents[0]].slots == m.slots
                parents_here.add(o.parents[0])
                continue
            assert all(prev.members[i].selected for i in o.parents)
            if len(o.parents) == 1:  # a population of one: the parent mutated directly
                child = prev.members[o.parents[0]].slots
            else:
                a, b = (prev.members[i].slots for i in o.parents)
                child = crossover(a, b, o.point)[0]
            if o.op == "crossover":
                assert m.slots == child
            else:
                assert o.op == "mutation"
                diff = [i for i in range(len(child)) if m.slots[i] != child[i]]
                assert diff == [o.position]
                assert child[o.position] == o.word and m.slots[o.position] == o.replacement
                assert o.replacement in {s.text for s in tr.sub_set(o.position, o.word).options}
        # every selected parent that survived de-duplication appears as "parent"
        assert parents_here <= {i for i, m in enumerate(prev.members) if m.selected}
        assert 2 <= sum(m.selected for m in prev.members) <= tr.config.n_parents


@pytest.mark.slow
def test_perturbations_come_from_sampled_generations(golf):
    tr = golf.trace
    assert len(golf.perturbations) == 9
    assert len(set(golf.perturbations)) == 9
    assert GOLF_Q not in golf.perturbations
    assert [p.text for p in tr.perturbations] == golf.perturbations
    tau = tr.config.tau
    assert (
        {p.generation for p in tr.perturbations}
        == {0, 2, 4, 6}
        == {g.index for g in tr.generations if g.sampled}
    )
    for p in tr.perturbations:
        m = tr.generations[p.generation].members[p.member]
        assert m.text == p.text and m.in_perturbations and p.generation % tau == 0
    flagged = sum(m.in_perturbations for g in tr.generations for m in g.members)
    assert flagged == 9
    assert all("_" not in p for p in golf.perturbations)


@pytest.mark.slow
def test_trace_json_round_trip(golf):
    d = json.loads(json.dumps(golf.to_dict()))
    back = GaapResult.from_dict(d)
    assert back.trace == golf.trace and back.perturbations == golf.perturbations
    assert GaapTrace.from_dict(golf.trace.to_dict()).to_dict() == golf.trace.to_dict()
    assert d["trace"]["key_tokens"][0]["token"] == "golfer"
    assert {"text", "fitness", "origin", "selected", "in_perturbations"} <= set(
        d["trace"]["generations"][1]["members"][0]
    )


@pytest.mark.slow
def test_same_seed_same_everything_other_seed_differs(minilm, golf):
    again = gaap(GOLF_Q, embedder=minilm, seed=0)
    assert again.perturbations == golf.perturbations
    assert again.trace == golf.trace
    # all cached now: nothing goes through the model (the first run may already have found its
    # vectors in the suite's embedding store, so "more saved" would not hold on a re-run)
    assert again.trace.embedding_encoded == 0
    assert again.embedding_calls_saved >= golf.embedding_calls_saved
    other = gaap(GOLF_Q, embedder=minilm, seed=1)
    assert other.perturbations != golf.perturbations


@pytest.mark.slow
def test_embedding_cache_is_used(minilm):
    before = minilm.stats.requested, minilm.stats.encoded
    res = gaap(GOLF_Q + " ", embedder=minilm, seed=5, max_generations=3)  # new texts
    tr = res.trace
    assert tr.embedding_requested == minilm.stats.requested - before[0]
    assert tr.embedding_encoded == minilm.stats.encoded - before[1]
    distinct = {m.text for g in tr.generations for m in g.members} | {GOLF_Q + " "}
    distinct |= {w.lower() for w in tr.words}  # KeyBERT's candidate words
    # every distinct text embedded at most once; carried-over parents come from the cache
    assert tr.embedding_encoded <= len(distinct)
    assert res.embedding_calls_saved > 0


@pytest.mark.slow
def test_delta_near_one_stops_after_the_first_generation(minilm):
    res = gaap(GOLF_Q, embedder=minilm, delta=0.9999, seed=0)
    assert res.trace.stop_reason == "delta"
    assert len(res.trace.generations) == 1
    assert len(res.perturbations) == 9 and GOLF_Q not in res.perturbations


@pytest.mark.slow
def test_exactly_n_for_short_questions_and_tiny_populations(minilm):
    three = gaap("Who wrote Hamlet?", embedder=minilm, seed=0)
    assert len(three.perturbations) == 9 and "Who wrote Hamlet?" not in three.perturbations
    tiny = gaap("In 1982?", embedder=minilm, seed=0, delta=0.0)  # Pop_0 = {"In?"}
    assert [len(g.members) for g in tiny.trace.generations] == [1] * 7  # nothing to mutate
    assert tiny.perturbations == ["In?"] * 9
    assert sum(p.duplicate for p in tiny.trace.perturbations) == 8
    many = gaap("Who wrote Hamlet?", embedder=minilm, seed=0, n=40, max_generations=0)
    assert len(many.perturbations) == 40 and len(many.trace.generations) == 1
    nothing = gaap("1982", embedder=minilm, seed=0)  # deleting the only word leaves nothing
    assert nothing.trace.stop_reason == "empty" and nothing.perturbations == ["1982"] * 9


@pytest.mark.slow
def test_a_population_of_one_evolves_by_mutation(minilm):
    q = '"What type of clothing is a ""sou-wester""?"'  # key token unknown to WordNet
    res = gaap(q, embedder=minilm, seed=0)
    gens = res.trace.generations
    assert len(gens[0].members) == 1
    assert len(gens[1].members) > 1
    assert {m.origin.op for m in gens[1].members} == {"parent", "mutation"}
    assert len(set(res.perturbations)) > 1


@pytest.mark.slow
def test_capitalisation_kept_in_outputs(minilm):
    res = gaap("Which Golfer won the 1982 Open?", embedder=minilm, seed=0, ratio=0.2)
    pop0 = {m.text for m in res.trace.generations[0].members}
    assert "Which Linksman won the 1982 Open?" in pop0
    assert "Which Golf player won the 1982 Open?" in pop0
    assert not any("_" in m.text for g in res.trace.generations for m in g.members)


@pytest.mark.slow
def test_key_only_mutation_and_progress(minilm):
    calls = []
    res = gaap(
        GOLF_Q,
        embedder=minilm,
        seed=2,
        config=GaapConfig(mutate="key", max_generations=3, tau=1),
        progress=lambda t, total: calls.append((t, total)),
    )
    assert calls == [(0, 3), (1, 3), (2, 3), (3, 3)]
    keys = {k.position for k in res.trace.key_tokens}
    for g in res.trace.generations[1:]:
        for m in g.members:
            if m.origin.op == "mutation":
                assert m.origin.position in keys
    assert {p.generation for p in res.trace.perturbations} <= {0, 1, 2, 3}


def test_empty_question_is_rejected():
    with pytest.raises(ValueError, match="non-empty question"):
        gaap("   ")


@pytest.mark.slow
def test_loading_the_models_is_kept_out_of_the_run_time(golf, minilm):
    """Once WordNet, KeyBERT and MiniLM are loaded, a run spends no time loading them."""
    again = gaap(GOLF_Q, embedder=minilm, seed=1)
    assert golf.trace.load_seconds >= 0.0
    assert again.trace.load_seconds < 0.5  # everything is loaded already
    assert again.seconds > 0 and type(again.trace).from_dict(again.trace.to_dict()) == again.trace


def test_member_flags_mark_what_gaap_broke():
    """Below δ, a lost entity, a changed question are flagged; a fine member is not."""
    from invent_core.perturb.gaap_sampling import member_flags

    q = "Who painted the Mona Lisa?"
    assert member_flags("Who the?", q, 0.62, 0.7)[0] == "fitness 0.62 < δ 0.7"
    assert any("lost" in f for f in member_flags("Who painted the Anglesea Island?", q, 0.8, 0.7))
    nobel = "Who was the first woman to win the Nobel Prize?"
    assert any(
        "first" in f
        for f in member_flags("Who was the woman to win the Nobel Prize?", nobel, 0.9, 0.7)
    )
    assert member_flags("Who created the Mona Lisa?", q, 0.9, 0.7) == []


def test_the_meaning_check_keeps_broken_members_out_of_the_final_set():
    """With ``meaning_check`` Per(S_x0) skips members that lost a number or
    changed the question, padding with copies of the kept ones; off, it may draw them."""
    from invent_core.perturb.gaap_sampling import sample_perturbations
    from invent_core.perturb.gaap_trace import Generation, Member

    q = "What is 2 plus 6?"
    texts = ["What is 2 plus six?", "What is 2 asset six?", "What is 2 plus?",
             "What is 2 plus 6 ?", "What is two plus 6?", "How many is 2 plus 6?"]  # fmt: skip
    origin = Origin("initial")
    members = tuple(Member(t, tuple(t.split()), 0.9, origin) for t in texts)
    gens = [Generation(0, members, sampled=True)]
    checked = sample_perturbations(gens, GaapConfig(n=9, tau=1, meaning_check=True),
                                   np.random.default_rng(0), q)  # fmt: skip
    assert len(checked) == 9
    assert "What is 2 plus?" not in {p.text for p in checked}  # lost the 6
    assert {p.text for p in checked if not p.duplicate} <= {
        t for t in texts if t != "What is 2 plus?"
    }
    assert sum(p.duplicate for p in checked) >= 3  # copies, as the paper pads
    unchecked = sample_perturbations(gens, GaapConfig(n=9, tau=1), np.random.default_rng(0), q)
    assert {p.text for p in unchecked if not p.duplicate} == set(texts)  # the paper's rule
    with pytest.raises(ValueError, match="meaning_check"):
        GaapConfig(meaning_check="yes")
