"""GAAP on "What is 7 + 5?" with its meaning check keeps only "What is seven + 5?": a copy.

WordNet offers "seven", "vii", "heptad" … for "7"; the meaning check drops every
variant that loses the number, so only the spelled-out number survives and
Per(S_x0) is n copies of it. The states then differ only by that spelling and
Inv-Entropy is within a hair of ln(n + 1) whatever the answers: a degenerate
result, which must say so like an exact copy does.
"""

from __future__ import annotations

import math

import pytest
from test_experiment_honest import ScriptLLM

from invent_core.config import RunConfig
from invent_core.engine.pipeline import run_question
from invent_core.perturb.gaap import GaapConfig, gaap
from invent_core.perturb.gate import copies_warning
from invent_core.perturb.text import copy_key

Q = "What is 7 + 5?"


def test_a_number_written_in_words_is_a_copy():
    assert copy_key("What is seven + 5?") == copy_key(Q) == copy_key("what's 7 + five")
    assert copy_key("What is eight + 5?") != copy_key(Q)  # another number: another question
    assert copy_key("What is 7 plus 5?") != copy_key(Q)  # another word: a real rewording
    assert copy_key("What is vii + 5?") != copy_key(Q)  # the meaning check flags it (lost 7)


def test_the_warning_names_the_respelling_and_the_value_it_forces():
    warning = copies_warning(Q, ["What is seven + 5?", "What is 7 + five?", Q], "hint")
    assert warning.startswith(
        "degenerate result: all 3 perturbations are the question itself up to how its "
        "numbers are written"
    )
    assert "about ln(n + 1) = 1.3863 whatever the answers" in warning
    assert warning.endswith("(hint)")
    exact = copies_warning(Q, [Q, "what is 7 + 5"])
    assert "are the question itself, so Inv-Entropy is ln(n + 1) = 1.0986" in exact
    assert copies_warning(Q, ["What is seven + 5?", "What is 7 plus 5?"]) is None


@pytest.mark.slow
def test_real_gaap_keeps_only_the_spelled_out_number(minilm):
    res = gaap(Q, embedder=minilm, seed=0, config=GaapConfig(n=3, meaning_check=True))
    assert set(res.perturbations) == {"What is seven + 5?"}
    assert copies_warning(Q, res.perturbations) is not None
    free = gaap(Q, embedder=minilm, seed=0, config=GaapConfig(n=3))  # the paper's rule
    assert copies_warning(Q, free.perturbations) is None  # "heptad", "vii": not copies


@pytest.mark.slow
def test_the_run_says_it_is_degenerate(minilm):
    cfg = RunConfig().replace(
        perturber="gaap", gaap_meaning_check=True, n_perturbations=3, n_replications=2
    )
    run = run_question(Q, cfg.replace(n_bootstrap=5), llm=ScriptLLM({"7": "12"}), embedder=minilm)
    assert run.perturbations == ["What is seven + 5?"] * 3
    assert run.measures["inv_entropy"] == pytest.approx(math.log(4), abs=0.05)
    assert run.degenerate.startswith("degenerate result: all 3 perturbations are the question")
    assert "--no-gaap-meaning-check" in run.degenerate
