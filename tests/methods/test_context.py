"""ScoringContext: settings from a run, the shared statistics, and LLM answers asked once."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from test_registry_contract import MIXED, QUESTIONS, FakeLLM

from invent_core.config import RunConfig, ScoreConfig
from invent_core.methods.context import ScoringContext
from invent_core.methods.registry import ScoringContext as ReExported
from invent_core.methods.registry import compute_methods


def test_registry_re_exports_the_context():
    assert ReExported is ScoringContext


def test_ask_once_calls_once_and_settings_invalidate():
    ctx = ScoringContext(QUESTIONS, MIXED)
    calls: list[str] = []

    def ask(text: str):
        calls.append(text)
        return {"reply": text}

    key = ("store", "answers", "Paris")
    assert ctx.ask_once(key, lambda: ask("a"), settings={"t": 1}) == {"reply": "a"}
    assert ctx.ask_once(key, lambda: ask("b"), settings={"t": 1}) == {"reply": "a"}
    assert calls == ["a"]
    assert ctx.extras["store"] == {"settings": {"t": 1}, "answers": {"Paris": {"reply": "a"}}}
    # other settings: the stored answers were asked under different conditions
    assert ctx.ask_once(key, lambda: ask("c"), settings={"t": 2}) == {"reply": "c"}
    assert calls == ["a", "c"]


@pytest.mark.parametrize("name", ["p_true", "verbalized"])
def test_llm_answers_are_asked_once_and_saved_with_the_run(name):
    llm = FakeLLM()
    ctx = ScoringContext(QUESTIONS, MIXED, llm=llm)
    first = compute_methods(ctx, [name], strict=True)[name].value
    n_calls = len(llm.calls)
    assert n_calls > 0
    compute_methods(ctx, [name], strict=True)
    assert len(llm.calls) == n_calls  # same context: nothing asked again
    saved = json.loads(json.dumps(ctx.extras))  # as the run artefact writes them
    fresh = FakeLLM()
    again = ScoringContext(QUESTIONS, MIXED, llm=fresh, extras=saved)
    assert compute_methods(again, [name], strict=True)[name].value == first
    assert fresh.calls == []


def _run(**fields):
    base = dict(questions=QUESTIONS, responses=MIXED, extras={}, score=None, task="qa")
    return SimpleNamespace(**{**base, **fields})


def test_from_run_reads_the_config_or_the_old_settings():
    config = RunConfig().replace(seed=4, n_bootstrap=7, affinity="abs_cosine", temperature=1.1)
    new = ScoringContext.from_run(_run(config=config))
    old = ScoringContext.from_run(
        _run(settings={"seed": 4, "n_bootstrap": 7, "affinity": "abs_cosine", "temperature": 1.1})
    )
    for ctx in (new, old):
        assert ctx.config == config.score
        assert (ctx.seed, ctx.n_bootstrap, ctx.temperature) == (4, 7, 1.1)


def test_from_run_keeps_the_saved_score_unless_the_scoring_changes(minilm):
    saved = object()
    run = _run(config=RunConfig(), score=saved)
    assert ScoringContext.from_run(run).score is saved
    assert ScoringContext.from_run(run, llm=FakeLLM()).score is saved
    rescored = ScoringContext.from_run(run, config=ScoreConfig(n_bootstrap=3), embedder=minilm)
    assert rescored.score is not saved and len(rescored.score.values["inv_entropy"]) == 3
    other = ScoringContext.from_run(run, embedder=minilm)
    assert other.score is not saved and other.score.embedder == minilm.identity


def test_embedder_object_overrides_the_config(minilm):
    ctx = ScoringContext(QUESTIONS, MIXED, ScoreConfig(embedder="mpnet"), embedder=minilm)
    assert ctx.similarity is minilm
    assert ctx.response_weights[1] == "affinity"
    assert ctx.judge is ctx.judge  # built once
