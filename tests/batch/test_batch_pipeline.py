"""Batch keeps several question-only rows in flight against a served model.

Against the loopback OpenAI-compatible server of ``benchmarks/loopback_server.py``
(a real HTTP server on 127.0.0.1 answering every request after a fixed delay):
rows overlap, the backend's ``concurrency`` caps the requests in flight across
rows, and rows are still written in input order.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from loopback_server import LoopbackServer  # noqa: E402

from invent_core.batch import batch_score, iter_records  # noqa: E402
from invent_core.config import RunConfig  # noqa: E402
from invent_core.engine.inflight import units_in_flight as rows_in_flight  # noqa: E402
from invent_core.llm import get_llm  # noqa: E402

QUESTIONS = [
    "What is the capital of France?",
    "Who wrote the play Hamlet?",
    "Which planet is the largest in the Solar System?",
    "Who composed The Magic Flute?",
    "What is the capital of Italy?",
    "Which ocean is the largest on Earth?",
]
CONFIG = RunConfig(n_perturbations=1, n_replications=1).replace(n_bootstrap=3)


def _input(tmp_path: Path) -> Path:
    path = tmp_path / "q.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "question"])
        w.writerows([f"q{i}", q] for i, q in enumerate(QUESTIONS))
    return path


def test_rows_in_flight_follow_the_backends_concurrency():
    class B:
        def __init__(self, c):
            self.concurrency = c

    assert rows_in_flight(B(1)) == 1 and rows_in_flight(None) == 1
    assert rows_in_flight(B(8)) == 4 and rows_in_flight(B(64)) == 32
    assert rows_in_flight(B(10_000)) == 32


@pytest.mark.slow
@pytest.mark.parametrize("concurrency", [2, 16])
def test_rows_overlap_under_one_request_budget_and_stay_in_order(tmp_path, minilm, concurrency):
    out = tmp_path / "out.csv"
    with LoopbackServer(delay=0.3) as srv:
        llm = get_llm(
            "openai", base_url=srv.base_url, model="loopback", cache=None, concurrency=concurrency
        )
        summary = batch_score(_input(tmp_path), out, CONFIG, llm=llm, embedder=minilm)
        peak = srv.max_in_flight
    assert summary.ok and summary.n_scored == len(QUESTIONS)
    assert [r["id"] for r in iter_records(out)] == [f"q{i}" for i in range(len(QUESTIONS))]
    assert peak <= concurrency  # the backend's budget holds across pipelined rows
    if concurrency == 16:  # 8 rows in flight: more than one row's 2 answers at once
        assert peak > 2


@pytest.mark.slow
def test_a_fresh_embedder_encodes_from_several_threads():
    """encode() holds the embedder's lock while the model loads: it must not deadlock."""
    from concurrent.futures import ThreadPoolExecutor

    from invent_core.embedders.sbert import MINILM, SbertEmbedder

    emb = SbertEmbedder(MINILM)  # not loaded yet
    with ThreadPoolExecutor(4) as pool:
        shapes = list(pool.map(lambda t: emb.encode([t, "x"]).shape, ["a", "b", "c", "d"]))
    assert shapes == [(2, MINILM.dimension)] * 4


@pytest.mark.slow
def test_generated_rows_carry_the_reference_percentile_and_p_correct(tmp_path, minilm, monkeypatch):
    from invent_core.evaluation.reference import ReferenceSet, reference_settings

    out = tmp_path / "out.csv"
    with LoopbackServer(delay=0.0) as srv:
        llm = get_llm("openai", base_url=srv.base_url, model="loopback", cache=None, concurrency=4)
        settings = reference_settings(CONFIG, llm.identity, "inv_entropy")
        ref = tmp_path / "ref"
        ref.mkdir()
        values = [0.1 * k for k in range(40)]  # Inv-Entropy of n = 1 runs lies in [0, 1.4]
        ReferenceSet(values, [1] * 20 + [0] * 20, settings).save(ref / "toy.json")
        # the library is told where the references are; it reads no variable for them
        monkeypatch.setenv("INVENT_REFERENCE_DIR", str(tmp_path / "bogus"))
        summary = batch_score(
            _input(tmp_path), out, CONFIG, llm=llm, embedder=minilm, reference_path=ref
        )
    assert summary.ok
    rows = list(iter_records(out))
    for r in rows:
        pct, p = float(r["inv_entropy_percentile"]), float(r["inv_entropy_p_correct"])
        assert 0 <= pct <= 100 and 0 < p < 1
        assert pct == pytest.approx(100 * sum(v <= float(r["inv_entropy"]) for v in values) / 40)


@pytest.mark.slow
def test_pre_generated_rows_have_no_reference_columns_filled(tmp_path, minilm):
    """Responses from an unknown LLM: no reference applies, the cells stay empty."""
    path = tmp_path / "pre.jsonl"
    path.write_text(
        '{"id": "a", "question": "What is 2+2?", "perturbations": ["What is two plus two?"], '
        '"responses": [["4", "4"], ["4", "5"]]}\n'
    )
    out = tmp_path / "out.csv"
    assert batch_score(path, out, CONFIG, embedder=minilm).ok
    [row] = list(iter_records(out))
    assert row["inv_entropy_percentile"] in ("", None) and row["inv_entropy_p_correct"] in (
        "",
        None,
    )


@pytest.mark.slow
def test_a_batch_resolves_its_embedder_once(tmp_path, minilm, monkeypatch):
    """ψ by the config's name: looked up once for the whole batch, although every generated
    row's gate, scoring, placement and baselines (Kernel Entropy reads the affinity) use it."""
    import invent_core.embedders as embedders

    lookups = []

    class Counting(dict):
        def __contains__(self, key):
            lookups.append(key)
            return super().__contains__(key)

    monkeypatch.setattr(embedders, "instances", Counting(embedders.instances))
    out = tmp_path / "out.csv"
    with LoopbackServer(delay=0.0) as srv:
        llm = get_llm("openai", base_url=srv.base_url, model="loopback", cache=None, concurrency=4)
        summary = batch_score(_input(tmp_path), out, CONFIG, llm=llm, methods="kernel_entropy")
    assert summary.ok and summary.n_scored == len(QUESTIONS)
    assert all(r["kernel_entropy"] != "" for r in iter_records(out))
    assert lookups == [("minilm", None)]
