"""run_question end to end on the real packaged model, the run artifact and the `run` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from invent_core.config import RunConfig
from invent_core.engine.artifact import RunArtifact
from invent_core.engine.pipeline import run_question
from invent_core.progress import Progress

ROOT = Path(__file__).resolve().parents[2]
Q = "What is the capital of France?"


def test_validation_messages():
    with pytest.raises(ValueError, match="question is empty"):
        run_question("  ")
    with pytest.raises(ValueError, match="unknown task 'math'"):
        run_question(Q, task="math")
    with pytest.raises(ValueError, match="unknown perturber 'synonyms'"):
        run_question(Q, RunConfig(perturber="synonyms"))
    with pytest.raises(ValueError, match="n_replications must be at least 1"):
        run_question(Q, RunConfig(n_replications=0))
    with pytest.raises(ValueError, match="task 'mmlu' needs choices"):
        run_question(Q, task="mmlu")


def test_load_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        RunArtifact.load(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(ValueError, match="not valid JSON"):
        RunArtifact.load(bad)
    bad.write_text(json.dumps({"question": "q"}))
    with pytest.raises(ValueError, match="missing questions, responses, settings"):
        RunArtifact.load(bad)


@pytest.fixture(scope="module")
def cached_run(tmp_path_factory, local_llm, minilm):
    """One real run (n=2, r=2, B=5) with a fresh cache file."""
    from invent_core.llm import get_llm

    path = tmp_path_factory.mktemp("pipe") / "cache.sqlite"
    llm = get_llm("local", cache=path)
    events: list[Progress] = []
    art = run_question(
        Q,
        RunConfig(n_perturbations=2, n_replications=2).replace(n_bootstrap=5, seed=0),
        llm=llm,
        embedder=minilm,
        progress=events.append,
    )
    return art, events, llm, path


@pytest.mark.slow
def test_end_to_end_real_model(cached_run):
    art, events, llm, _ = cached_run
    assert art.questions[0] == Q and len(art.questions) == 3 and len(art.perturbations) == 2
    assert Q not in art.perturbations
    assert [len(r) for r in art.raw_responses] == [2, 2, 2] and [len(r) for r in art.responses] == [
        2,
        2,
        2,
    ]
    assert art.prompts[0] == Q + " Answer concisely and return only the name."
    assert any("Paris" in r for r in art.responses[0]), art.raw_responses
    assert set(art.score.measures) >= {
        "inv_entropy",
        "ni_entropy",
        "nr_inv_entropy",
        "wd_px_py",
        "max_py_x",
    }
    assert art.score.values["inv_entropy"].shape == (5,)
    assert art.settings["llm"] == llm.identity and art.settings["n_replications"] == 2
    # a fresh cache: only a perturbation padded by duplication (same prompt, same
    # replication seed) can be served from it
    duplicates = len(art.questions) - len(set(art.questions))
    assert art.usage["requests"] == 6 and art.usage["completion_tokens"] > 0
    assert art.usage["cached"] <= 2 * duplicates
    assert {"perturb", "generate", "score", "total"} <= set(art.timings)
    stages = [e.stage for e in events]
    assert stages[0] == "perturb" and stages[-1] == "score" and "generate" in stages
    gen = [e for e in events if e.stage == "generate"]
    assert gen[-1].done == gen[-1].total == 6 and gen[-1].eta_seconds == 0.0


@pytest.mark.slow
def test_rerun_is_served_from_cache(cached_run, minilm):
    art, _, llm, path = cached_run
    from invent_core.llm import get_llm

    again_llm = get_llm("local", cache=path)
    again = run_question(
        Q,
        RunConfig(n_perturbations=2, n_replications=2).replace(n_bootstrap=5),
        llm=again_llm,
        embedder=minilm,
    )
    assert again_llm.completions_made == 0, "a cached re-run must not call the model"
    assert again.usage["cached"] == 6
    assert again.responses == art.responses and again.perturbations == art.perturbations
    assert again.score.measures == pytest.approx(art.score.measures)


@pytest.mark.slow
def test_save_load_rescore(cached_run, tmp_path, minilm):
    art, _, llm, _ = cached_run
    path = art.save(tmp_path / "run.json")
    back = RunArtifact.load(path)
    assert back.questions == art.questions and back.raw_responses == art.raw_responses
    assert back.score.measures == pytest.approx(art.score.measures)
    assert back.settings == art.settings
    made = llm.completions_made
    re = back.rescore(n_bootstrap=7, seed=3, embedder=minilm)
    assert llm.completions_made == made
    assert re.score.values["inv_entropy"].shape == (7,) and re.settings["n_bootstrap"] == 7
    assert back.settings["n_bootstrap"] == 5  # original untouched


@pytest.mark.slow
def test_run_command_from_cache(cached_run, tmp_path, capsys):
    from invent_core.cli import main

    _, _, _, cache_path = cached_run
    out = tmp_path / "cli.json"
    rc = main(
        ["run", Q, "-n", "2", "-r", "2", "-B", "5", "--cache", str(cache_path), "--save", str(out)]
    )
    text = capsys.readouterr().out
    assert rc == 0
    assert "inv_entropy" in text and "(6 from cache)" in text
    assert RunArtifact.load(out).usage["cached"] == 6
    rc = main(["run", Q, "--llm", "local", "--model", "x"])
    assert rc == 2 and "--base-url and --model go with --llm openai" in capsys.readouterr().err


@pytest.mark.slow
def test_run_question_with_gaap_perturber(local_llm, minilm):
    question = "Which golfer won both the British and US Open championships in 1982?"
    config = RunConfig(perturber="gaap", n_perturbations=3, n_replications=2)
    art = run_question(
        question, config.replace(n_bootstrap=5, seed=0), llm=local_llm, embedder=minilm
    )
    assert art.settings["perturber"] == "gaap"
    assert len(art.perturbations) == 3 and all("_" not in p for p in art.perturbations)
    assert art.gaap_trace is not None and art.gaap_trace["generations"]
    # every perturbation is a member of a traced generation that entered Per(S_x0)
    members = {
        m["text"]
        for g in art.gaap_trace["generations"]
        for m in g["members"]
        if m["in_perturbations"]
    }
    assert set(art.perturbations) <= members
    back = RunArtifact.from_json(art.to_json())
    assert back.gaap_trace == art.gaap_trace


@pytest.mark.slow
def test_real_answers_stop_at_the_newline_and_every_call_is_counted(cached_run):
    art, _, llm, _ = cached_run
    assert all("\n" not in t.strip() for reps in art.raw_responses for t in reps)
    assert len(art.cleaned_responses) == len(art.unmapped) == 3
    assert art.usage["llm_calls"] == art.usage["requests"] + art.usage["perturb_requests"]
    assert art.usage["perturb_requests"] >= 2
    assert llm.completions_made == art.usage["llm_calls"]  # a fresh cache: every call was sent


def test_the_answer_prompt_is_built_in_one_place():
    """What is asked (the requests) is what a run records as its prompts: answer_prompts."""
    from invent_core.engine.pipeline import answer_prompts, answer_requests
    from invent_core.prompts import answer_prompt

    texts = ["Which is larger?", "Which one is bigger?"]
    prompts = answer_prompts(texts, "mmlu", ["2", "3"])
    assert prompts == [answer_prompt(t, "mmlu", ["2", "3"]) for t in texts]
    reqs = answer_requests(
        list(enumerate(texts)), RunConfig(n_replications=2), task="mmlu", choices=["2", "3"]
    )
    assert [(r.state, r.replication) for r in reqs] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    asked = [dict(r.messages[-1])["content"] for r in reqs]
    assert asked == [p for p in prompts for _ in range(2)]
    with pytest.raises(ValueError, match="unknown task"):
        answer_prompts(texts, "poetry")


def test_the_run_artefact_format_has_its_own_module_and_old_imports_work():
    """RunArtifact lives in invent_core.engine.artifact; pipeline and the package re-export it."""
    import invent_core
    from invent_core.engine import artifact, pipeline

    assert pipeline.RunArtifact is artifact.RunArtifact is invent_core.RunArtifact
    assert artifact.RunArtifact.__module__ == "invent_core.engine.artifact"


def test_the_pipeline_stores_the_placement_and_a_rescore_places_the_new_score():
    """Whoever saves a run keeps its placement: the pipeline computes it, re-scoring redoes it."""
    import dataclasses

    from invent_core.engine.placement import placement

    runs = ROOT / "docs" / "results" / "evaluate-arithmetic-100" / "runs"
    art = RunArtifact.load(sorted(runs.glob("*.json"))[0])  # the shipped references' settings
    placed = placement(art)
    assert placed is not None and placed["measure"] == "inv_entropy"
    assert placed["value"] == pytest.approx(art.score.measures["inv_entropy"])
    other = art.rescore(affinity="abs_cosine")  # no shipped reference has this kernel
    assert other.reference is None
    same = art.rescore()
    assert same.reference["value"] == pytest.approx(same.score.measures["inv_entropy"])
    blank = dataclasses.replace(art, score=None)
    assert placement(blank) is None
