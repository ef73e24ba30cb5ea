"""A degenerate result says so: GAAP's meaning check on an arithmetic question keeps only copies.

A real GAAP run (KeyBERT, WordNet, MiniLM) of "What is 123 + 456?" with the
meaning check on keeps no variant: every perturbation is the question, P_x is
uniform, and Inv-Entropy is ln(n + 1) whatever the answers. The run artefact,
its saved file and the command line's report all say so.
"""

from __future__ import annotations

import json
import math

import pytest
from test_experiment_honest import ScriptLLM

from invent_core.commands.run import print_run
from invent_core.config import RunConfig
from invent_core.engine.artifact import RunArtifact
from invent_core.engine.pipeline import run_question
from invent_core.perturb.gate import copies_warning

N = 3


@pytest.fixture(scope="module")
def copies_run(minilm):
    cfg = RunConfig().replace(
        perturber="gaap",
        gaap_meaning_check=True,
        n_perturbations=N,
        n_replications=2,
        n_bootstrap=5,
    )
    return run_question("What is 123 + 456?", cfg, llm=ScriptLLM({"123": "579", "456": "580"}))


def test_the_run_and_its_file_say_the_result_is_degenerate(copies_run, tmp_path):
    art = copies_run
    assert art.perturbations == ["What is 123 + 456?"] * N
    assert art.measures["inv_entropy"] == pytest.approx(math.log(N + 1), abs=1e-9)
    assert art.degenerate.startswith(f"degenerate result: all {N} perturbations are the question")
    assert "--no-gaap-meaning-check" in art.degenerate
    saved = art.save(tmp_path / "run.json")
    assert json.loads(saved.read_text())["degenerate"] == art.degenerate
    assert RunArtifact.load(saved).degenerate == art.degenerate


def test_the_command_line_report_warns_beside_the_scores(copies_run, capsys):
    print_run(copies_run)
    out = capsys.readouterr().out
    scores = out.index("scores (n = 3")
    warning = out.index("warning: degenerate result: all 3 perturbations are the question itself")
    assert warning > scores
    assert "ln(n + 1) = 1.3863 whatever the answers" in out


def test_only_copies_of_the_question_are_degenerate():
    q = "What is the capital of France?"
    assert copies_warning(q, ["what is the capital of France"] * 2) is not None  # wording only
    assert copies_warning(q, [q, "Which city is France's capital?"]) is None
    assert copies_warning(q, []) is None
