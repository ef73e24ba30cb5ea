"""A question is placed among the reference questions like it (real MiniLM).

Two small reference files are built in tmp from real question texts of the shipped
samples: 100 TriviaQA questions (the 0.5B model right on 2 of them) and 40
arithmetic questions (right on 32), embedded by the packaged MiniLM as
``scripts/make_reference.py`` does.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from invent_core.config import RunConfig
from invent_core.evaluation.reference import (
    K_NEAREST,
    MIN_LIKE,
    SIMILARITY_FLOOR,
    ReferenceSet,
    columns,
    for_settings,
    placement_record,
    record_columns,
    reference_line,
    reference_settings,
)

pytestmark = pytest.mark.slow  # the packaged MiniLM embeds 140 reference questions

ROOT = Path(__file__).resolve().parents[2]
CFG = RunConfig(n_perturbations=4, n_replications=3)
TRIVIA = "Which golfer won the 1995 Open Championship?"  # the question, not in the sample
ARITHMETIC = "What is 18 plus 25?"
UNLIKE = (
    "Bonjour, comment ça va aujourd'hui ?",
    "Translate 'good morning' into French.",
    "def f(x): return x ** 2",
)


def _questions(name: str, n: int) -> list[str]:
    path = ROOT / "assets" / "datasets" / f"{name}_sample300.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()[:n]
    return [json.loads(line)["question"] for line in lines]


@pytest.fixture(scope="module")
def ref_dir(tmp_path_factory, minilm):
    folder = tmp_path_factory.mktemp("ref")
    base = reference_settings(CFG, "local", "inv_entropy")
    trivia, arith = _questions("triviaqa", 100), _questions("arithmetic", 40)
    files = [
        ("triviaqa", trivia, [2.38 + 0.0008 * i for i in range(100)], [int(i in (3, 60)) for i in range(100)]),
        ("arithmetic", arith, [2.28 + 0.004 * i for i in range(40)], [int(i % 5 != 0) for i in range(40)]),
    ]  # fmt: skip
    for name, qs, values, correct in files:
        ref = ReferenceSet(values, correct, {**base, "dataset": name}, qs, [name] * len(qs))
        ref.with_embeddings(minilm).save(folder / f"{name}.json")
    return folder


def _place(ref_dir, question, minilm, task="qa"):
    return for_settings(
        CFG, llm_identity="local", directory=ref_dir, question=question, embedder=minilm, task=task
    )


def _check_neighbours(ref, dataset):
    p = ref.placement
    assert p.mode == "nearest" and MIN_LIKE <= ref.size <= K_NEAREST == p.k
    assert p.floor == SIMILARITY_FLOOR and p.similarity_min >= SIMILARITY_FLOOR
    sims = [r["similarity"] for r in p.rows]
    assert sims == sorted(sims, reverse=True) and len(p.rows) == ref.size
    assert [r["question"] for r in p.rows] == list(ref.questions)
    assert 3 * p.counts.get(dataset, 0) >= 2 * ref.size  # two thirds from the like dataset


def test_a_trivia_question_is_placed_among_trivia_references(ref_dir, minilm):
    ref = _place(ref_dir, TRIVIA, minilm)
    _check_neighbours(ref, "triviaqa")
    line = reference_line(2.42, ref)
    assert f"among {ref.size} TriviaQA-like reference questions (k = 30, similarity ≥ 0." in line
    d = ref.describe(2.42)
    assert d["p_correct"] is not None and d["p_correct"] < 0.2  # right on 2 of 100 trivia
    assert line.startswith(f"inv_entropy: P(correct) ≈ {d['p_correct']:.2f} [")
    # pooled with arithmetic (right on 80 %) the same value read far higher: the bug
    pooled = for_settings(CFG, llm_identity="local", directory=ref_dir)
    assert pooled.describe(2.42)["base_rate"] > 0.2 > d["base_rate"]


def test_an_arithmetic_question_is_placed_among_arithmetic_references(ref_dir, minilm):
    ref = _place(ref_dir, ARITHMETIC, minilm)
    _check_neighbours(ref, "arithmetic")
    assert "arithmetic-like reference questions (k = 30, similarity ≥ 0." in reference_line(
        2.35, ref
    )
    assert ref.describe(2.35)["base_rate"] > 0.7


@pytest.mark.parametrize("question", UNLIKE)
def test_an_unlike_question_gets_no_number(ref_dir, minilm, question):
    ref = _place(ref_dir, question, minilm)
    assert ref.placement.mode == "none_like"
    assert "reference questions are close enough: similarity ≥ 0.10 and ≥ 0.7 × " in (
        ref.placement.reason
    )
    line = reference_line(2.35, ref)
    assert line.startswith("inv_entropy: no reference questions like this one — ")
    assert line.endswith("so no percentile or P(correct)") and "≈" not in line
    d = ref.describe(2.35)
    assert d["percentile"] is None and d["p_correct"] is None
    assert d["placement"]["mode"] == "none_like" and d["placement"]["n_like"] == 0
    cols = columns(2.35, ref)
    assert cols["inv_entropy_percentile"] is None and cols["inv_entropy_p_correct"] is None
    assert cols["inv_entropy_placed_among"].startswith("none like this one (")


def test_a_question_must_sit_inside_its_neighbours_cluster_not_at_its_edge(ref_dir, minilm):
    """Arithmetic questions are near-copies of one another: the floor alone lets in a trivia
    question with a unit in it; the local ratio (LOCAL_RATIO) keeps it out."""
    from invent_core.evaluation.reference import place

    pooled = for_settings(CFG, llm_identity="local", directory=ref_dir)
    question = "Which unit of measurement is equal to one-tenth of a nautical mile?"
    floor_only = place(pooled, question, minilm, task="qa", ratio=0.0)
    assert floor_only.placement.mode == "nearest" and floor_only.placement.counts["arithmetic"]
    assert place(pooled, question, minilm, task="qa").placement.mode == "none_like"


def test_a_question_with_options_is_placed_among_questions_with_options_only(ref_dir, minilm):
    ref = _place(ref_dir, "Which of these numbers is the sum of 18 and 25?", minilm, task="mmlu")
    assert ref.placement.mode == "none_like" and ref.placement.n_candidates == 0
    assert "answered with a letter among options" in ref.placement.reason


def test_batch_columns_follow_the_same_rule(ref_dir, minilm):
    """A batch row shows the run's stored placement: the same cells as placing it afresh."""
    from invent_core.batch.scorer import output_columns

    for question in (TRIVIA, ARITHMETIC, UNLIKE[0]):
        placed = _place(ref_dir, question, minilm)
        assert record_columns(placement_record(2.36, placed, "inv_entropy")) == columns(
            2.36, placed
        )
    assert (
        record_columns(placement_record(2.36, placed, "inv_entropy"))["inv_entropy_percentile"]
        is None
    )
    assert record_columns(None) == columns(2.36, None)  # no reference: three empty cells
    trivia = record_columns(placement_record(2.42, _place(ref_dir, TRIVIA, minilm), "inv_entropy"))
    assert "TriviaQA-like (k = 30, similarity ≥ 0." in trivia["inv_entropy_placed_among"]
    cols = output_columns(["inv_entropy"], has_answers=False, generated=True)
    assert "inv_entropy_placed_among" in cols


def test_a_generated_batch_row_shows_the_placement_the_pipeline_stored(monkeypatch, minilm):
    from invent_core.batch import scorer as batch_scorer
    from invent_core.batch.rows import InputRow
    from invent_core.engine.artifact import RunArtifact
    from invent_core.engine.placement import placement

    runs = ROOT / "docs" / "results" / "evaluate-arithmetic-100" / "runs"
    run = RunArtifact.load(sorted(runs.glob("*.json"))[0])
    run.reference = placement(run)
    assert run.reference is not None
    monkeypatch.setattr(batch_scorer, "run_question", lambda *a, **k: run)
    llm = SimpleNamespace(identity=run.identities["llm"])
    scorer = batch_scorer.RowScorer(run.config, method_names=["inv_entropy"], sim=minilm, llm=llm)
    record = scorer.score(InputRow(index=1, line=2, id="1", question=run.question))
    want = record_columns(run.reference)
    assert {k: record[k] for k in want} == want
    assert record["inv_entropy"] == pytest.approx(run.score.measures["inv_entropy"])


def test_an_old_reference_file_without_questions_still_loads_and_is_pooled(tmp_path, minilm):
    base = reference_settings(CFG, "local", "inv_entropy")
    old = {"format": "invent.reference/1", "values": [2.3 + 0.01 * k for k in range(20)]}
    old |= {"correct": [1] * 10 + [0] * 10, "settings": {**base, "dataset": "mmlu"}}
    (tmp_path / "old.json").write_text(json.dumps(old))
    ref = _place(tmp_path, TRIVIA, minilm)
    assert ref.size == 20 and ref.placement.mode == "pooled"
    line = reference_line(2.35, ref)
    assert line.startswith("inv_entropy: percentile 30 among 20 reference questions (settings: ")
    assert (
        "[not placed among questions like this one: the reference files carry no question " in line
    )
    assert columns(2.35, ref)["inv_entropy_percentile"] == 30.0


def test_embeddings_round_trip_compactly(ref_dir, minilm):
    ref = ReferenceSet.load(ref_dir / "triviaqa.json")
    assert ref.embeddings.shape == (100, 384) and ref.sources[0] == "triviaqa"
    assert ref.settings["question_embedder"] == minilm.identity
    again = minilm.encode(list(ref.questions[:5]))
    assert np.allclose(ref.embeddings[:5], again, atol=2e-3)  # float16 on disk
    assert (ref_dir / "triviaqa.json").stat().st_size < 2_000 * ref.size


def test_the_shipped_references_carry_question_embeddings():
    for path in sorted((ROOT / "assets" / "reference").glob("*.json")):
        ref = ReferenceSet.load(path)
        assert ref.questions is not None and ref.embeddings is not None, path.name
        assert ref.settings["question_embedder"].startswith("minilm:"), path.name


def test_a_saved_run_keeps_its_placement_and_old_runs_still_load(tmp_path):
    from invent_core.engine.artifact import RunArtifact
    from invent_core.engine.placement import placement

    folder = ROOT / "docs" / "results_before_meaning_check" / "evaluate-arithmetic" / "runs"
    art = RunArtifact.load(sorted(folder.glob("*.json"))[0])  # saved before the placement
    assert art.reference is None
    art.reference = placement(art)  # among the shipped references, as the pipeline places a run
    rec = art.reference
    assert rec["placement"]["mode"] == "nearest" and rec["placement"]["k"] == K_NEAREST
    assert rec["placement"]["like"] == "arithmetic-like reference questions"
    assert rec["placement"]["similarity_min"] >= SIMILARITY_FLOOR
    assert rec["percentile"] is not None and rec["files"]
    assert all(r["dataset"] == "arithmetic" for r in rec["placement"]["rows"])
    back = RunArtifact.load(art.save(tmp_path / "run.json"))
    assert back.reference == json.loads(json.dumps(rec))
    assert placement_record(float("nan"), None, "inv_entropy") is None


def _stored_placement_datasets() -> set[str]:
    """The datasets of the home-page demo's stored placement (assets/demo_pair.json)."""
    demo = json.loads((ROOT / "assets" / "demo_pair.json").read_text(encoding="utf-8"))
    return set(demo["pair"][0]["run"]["reference"]["placement"]["counts"])


def _panel_page():  # run by AppTest in its own script: imports inside
    import dataclasses

    import streamlit as st

    from invent_ui.render import views
    from invent_ui.session import resources

    run = resources.demo_pair()[0]["run"]  # the home page's: the shipped references' settings
    question = st.session_state.get("question", run.question)
    # another question is another run: the demo's stored placement (its own question's) goes
    moved = {"reference": None} if question != run.question else {}
    views.reference_panel(dataclasses.replace(run, question=question, **moved), key="t")


@pytest.mark.parametrize("question", [TRIVIA, UNLIKE[0], None])
def test_explore_panel_shows_the_questions_it_placed_among_or_says_none_is_like(question):
    """Against the shipped references: the golfer among the knowledge samples, a greeting nowhere."""
    pytest.importorskip("streamlit")
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_panel_page, default_timeout=180)
    if question is not None:
        at.session_state["question"] = question
    at.run()
    assert not at.exception
    captions = [c.value for c in at.caption]
    tables = [df.value for df in at.dataframe]
    assert len(tables) == 1 and "reference question" in tables[0].columns
    if question is None:  # the home page's question, from the arithmetic testbed
        assert any(c.startswith("Placed among these ") for c in captions)
        assert [m.label for m in at.metric][:1] == ["Percentile"]
        # the testbed's knowledge questions ("What is the capital of Egypt?") sit among its
        # own and the TriviaQA references, as the demo's stored placement says
        stored = _stored_placement_datasets()
        assert "arithmetic" in set(tables[0]["dataset"]) and set(tables[0]["dataset"]) <= stored
    elif question == TRIVIA:  # the shipped TriviaQA / NQ-open / SciQ / GSM8K references (0.5B)
        assert any(c.startswith("Placed among these ") for c in captions)
        assert "arithmetic" not in set(tables[0]["dataset"])
        assert {"triviaqa", "nq_open"} & set(tables[0]["dataset"])
    else:
        assert any(c.startswith("No reference questions like this one (") for c in captions)
        assert not at.metric and len(tables[0]) == 5  # the five nearest, no number
