"""No method that compares answers merges two whose canonical forms differ."""

from __future__ import annotations

import csv
import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from invent_core.methods.registry import ScoringContext, get_method
from invent_core.responses import same_answer
from invent_core.responses.equivalence import rule_verdict
from invent_core.responses.same import answer_cosines


class _Unasked:
    """An embedder that must not be asked: every pair here is decided without cosines."""

    name = identity = "unasked"

    def similarity_matrix(self, texts, *, kind, tau):
        raise AssertionError(f"the embedder was asked about {list(texts)}")


UNASKED = _Unasked()

QUESTIONS = ["What is 2 plus 6?", "What is the sum of 2 and 6?"]


def _ctx(minilm, answers):
    return ScoringContext(QUESTIONS, [list(answers)] * len(QUESTIONS), embedder=minilm)


def _draws(seed: int, n: int) -> list[list[str]]:
    """``n`` sets of five answers: numbers in several spellings and option letters."""
    rng = np.random.default_rng(seed)
    spell = [str, lambda v: f"{v}.0", lambda v: f"{v:,}", lambda v: f"The answer is {v}."]
    out = []
    for _ in range(n):
        values = rng.choice([8, 10, 18, 80, 1000, 100], size=3)
        nums = [spell[rng.integers(len(spell))](int(v)) for v in values]
        out.append(nums + [str(rng.choice(list("ABCD"))) for _ in range(2)])
    return out


@pytest.mark.parametrize("answers", _draws(0, 8) + [["B", "C", "B", "D", "B"]])
def test_different_canonical_answers_never_merge(minilm, answers):
    ctx = _ctx(minilm, answers)
    clusters = get_method("semantic_entropy").compute(ctx) and ctx.extras["semantic_entropy"]
    ids = clusters["clusters"]
    for (i, a), (j, b) in itertools.combinations(enumerate(answers), 2):
        same = ctx.same_answer(a, b)
        assert (ids[i] == ids[j]) == same
        w = ctx.original_affinity[i, j]
        assert w == pytest.approx(1.0 if same else 0.5)  # different: orthogonal under (1+cos)/2
    assert np.isfinite(get_method("kle").compute(ctx))


@pytest.mark.slow
def test_semantic_entropy_on_the_shipped_arithmetic_runs_reaches_canonical_clustering(minilm):
    """Re-scored from the saved runs (no LLM call): within 0.01 of clustering by canonical form (0.887)."""
    from sklearn.metrics import roc_auc_score

    folder = Path(__file__).parents[2] / "docs" / "results" / "evaluate-arithmetic-100"
    with open(folder / "scores.csv", encoding="utf-8") as fh:
        wrong = {r["question"]: 1 - int(r["correct"]) for r in csv.DictReader(fh)}
    labels, scores = [], []
    for path in sorted((folder / "runs").glob("*.json")):
        run = json.loads(path.read_text(encoding="utf-8"))
        ctx = ScoringContext(run["questions"], run["responses"], embedder=minilm, task=run["task"])
        scores.append(get_method("semantic_entropy").compute(ctx))
        labels.append(wrong[run["question"]])
    assert roc_auc_score(labels, scores) == pytest.approx(0.887, abs=0.01)  # measured: 0.882


@pytest.mark.parametrize(
    ("question", "answers"),
    [
        (
            "Who was the first person to walk on the Moon?",
            [
                "Neil Armstrong",
                "N. Armstrong",
                "Louis Armstrong",
                "Buzz Aldrin",
                "Neil A. Armstrong",
            ],
        ),
        ("What is 9 times 9?", ["81", "eighty-one", "eighteen", "81.0", "Eighty one"]),
        ("What gas do plants take in?", ["CO2", "carbon dioxide", "O2", "oxygen", "CO₂"]),
    ],
)
def test_the_walk_and_every_baseline_read_the_same_verdicts(minilm, question, answers):
    """Semantic Entropy's clusters, the graph weights, ψ_y and same_answer agree with the rules."""
    ctx = ScoringContext([question, question], [list(answers)] * 2, embedder=minilm)
    get_method("semantic_entropy").compute(ctx)
    ids = ctx.extras["semantic_entropy"]["clusters"]
    psi = answer_cosines(question, answers, mode="rules", similarity=UNASKED)  # all decided
    for (i, a), (j, b) in itertools.combinations(enumerate(answers), 2):
        verdict = rule_verdict(question, a, b)
        assert verdict is not None, (a, b)
        assert ctx.same_answer(a, b) is verdict is same_answer(question, a, b)
        assert (ids[i] == ids[j]) is verdict and psi[i, j] == float(verdict)
        assert ctx.original_affinity[i, j] == pytest.approx(1.0 if verdict else 0.5)
