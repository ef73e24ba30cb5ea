"""Explore and Side by side show the model's answer beside its uncertainty, and warn on GAAP with numbers.

A score alone does not say what the model answered: the page shows the most
common of the r answers to the original question and how many agree. GAAP's
default substitutes WordNet senses, so "What is 4213 plus 3862?" can become
"What is forte?": a GAAP run of a question with numbers is flagged where it is
shown, with the GAAP page's wording. The perturbations come from a real GAAP
evolution (packaged embedder, WordNet data).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_app_pages import TIMEOUT, own_history  # noqa: F401 - the fixture

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

from invent_core.engine.artifact import RunArtifact  # noqa: E402
from invent_ui import assets  # noqa: E402
from invent_ui.data.answers import majority_answer  # noqa: E402
from invent_ui.session import resources, state  # noqa: E402

pytestmark = pytest.mark.slow  # the packaged embedder: GAAP's fitness, the page's placement

ROOT = Path(__file__).resolve().parents[2]
ARITHMETIC = "What is 4213 plus 3862?"


def _open(page: str, **session) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=TIMEOUT)
    for k, v in session.items():
        at.session_state[k] = v
    return at.run()


def _answer_line(at: AppTest) -> str:
    (line,) = [m.value for m in at.markdown if m.value.startswith("**Answer:**")]
    return line


def test_the_majority_answer_groups_equal_answers():
    assert majority_answer(["7 075", "8075", "8075.", "8,075"]) == ("8075", 3)
    assert majority_answer(["a", "b"]) == ("a", 1)  # a tie: replication 1 first


def _paraphrased_demo() -> RunArtifact:
    """The demo run as if reworded by the paraphraser: no GAAP warning, whatever its numbers."""
    data = json.loads(assets.DEMO_RUN.read_text(encoding="utf-8"))
    data["config"]["perturber"] = "paraphrase"
    data.pop("gaap_trace", None)
    return RunArtifact.from_dict(data)


def test_explore_shows_the_answer_and_how_many_of_r_agree():
    run = _paraphrased_demo()
    answer, agree = majority_answer(run.cleaned_responses[0])
    at = _open("1_Explore_a_question.py", **{state.EXPLORE_RUN: run})
    assert not at.exception, [e.value for e in at.exception]
    line = _answer_line(at)
    assert line.startswith(f"**Answer:** {answer} — {agree} of 5 answers")
    assert not [w for w in at.warning if "GAAP on a question with numbers" in w.value]


@pytest.fixture(scope="module")
def gaap_arithmetic_run() -> RunArtifact:
    """The demo run's shape with the arithmetic question and a real GAAP evolution of it."""
    from invent_core.perturb.gaap import gaap

    data = json.loads(assets.DEMO_RUN.read_text(encoding="utf-8"))
    n = data["config"]["n_perturbations"]
    found = gaap(ARITHMETIC, n=n, embedder=resources.embedder("minilm"), seed=0)
    texts = [p.text for p in found.trace.perturbations][:n]
    assert len(texts) == n
    data["question"] = ARITHMETIC
    data["perturbations"] = texts
    data["questions"] = data["prompts"] = data["score"]["questions"] = [ARITHMETIC, *texts]
    data.pop("gaap_trace", None)
    return RunArtifact.from_dict(data)


def test_a_gaap_run_of_an_arithmetic_question_is_flagged_on_explore_and_side_by_side(
    gaap_arithmetic_run,
):
    run = gaap_arithmetic_run
    lost = [p for p in run.perturbations if "4213" not in p or "3862" not in p]
    assert lost, run.perturbations  # GAAP did drop a number: what the warning is about
    at = _open("1_Explore_a_question.py", **{state.EXPLORE_RUN: run})
    assert not at.exception, [e.value for e in at.exception]
    (warning,) = [w.value for w in at.warning if "GAAP on a question with numbers" in w.value]
    assert f"of {len(run.perturbations)} perturbations are flagged (below δ, a lost name" in warning
    pair = {"left": run.to_dict(), "right": _paraphrased_demo().to_dict()}
    side = _open("8_Side_by_side.py", **{state.SIDE_BY_SIDE: pair})
    assert not side.exception, [e.value for e in side.exception]
    warned = [w for w in side.warning if "GAAP on a question with numbers" in w.value]
    assert len(warned) == 1  # the arithmetic run only
    assert len([m for m in side.markdown if m.value.startswith("**Answer:**")]) == 2
