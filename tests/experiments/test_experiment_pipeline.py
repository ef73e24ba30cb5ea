"""``evaluate`` and ``tsu`` keep several questions in flight against a served model.

:func:`invent_core.engine.inflight.in_order` is checked on its own (order, width,
errors), then ``evaluate`` and ``tsu`` against the loopback OpenAI-compatible
server of ``benchmarks/loopback_server.py`` (a real HTTP server on 127.0.0.1):
questions overlap (more requests in flight than one question can make), the
backend's ``concurrency`` still caps them, the rows are in input order and
identical to those of a one-at-a-time run, and a re-run makes no request.
"""

from __future__ import annotations

import csv
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from loopback_server import LoopbackServer  # noqa: E402

from invent_core.config import RunConfig  # noqa: E402
from invent_core.engine.inflight import in_order, units_in_flight  # noqa: E402

QUESTIONS = [
    ("What is the capital of France?", "Paris"),
    ("Who wrote the play Hamlet?", "Shakespeare"),
    ("Which planet is the largest in the Solar System?", "Jupiter"),
    ("Who composed The Magic Flute?", "Mozart"),
    ("What is the capital of Italy?", "Rome"),
    ("Which ocean is the largest on Earth?", "Pacific"),
]


def test_in_order_keeps_the_input_order_and_at_most_width_running():
    running, peak, lock = [0], [0], threading.Lock()

    def slow(i: int) -> int:
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.05 * (5 - i % 5))  # later items finish first
        with lock:
            running[0] -= 1
        return i * i

    assert [f.result() for f in in_order(slow, range(10), 3)] == [i * i for i in range(10)]
    assert peak[0] == 3


def test_in_order_hands_each_error_to_the_consumer_in_its_place():
    def odd_fails(i: int) -> int:
        if i % 2:
            raise ValueError(f"item {i}")
        return i

    futures = list(in_order(odd_fails, range(4), 2))
    assert [f.exception() is None for f in futures] == [True, False, True, False]
    with pytest.raises(ValueError, match="item 1"):
        futures[1].result()
    with pytest.raises(ValueError, match="width"):
        next(in_order(odd_fails, range(4), 0))


def test_units_in_flight_follow_concurrency_unless_the_backend_declares_them():
    class B:
        def __init__(self, c, declared=None):
            self.concurrency = c
            if declared is not None:
                self.units_in_flight = declared

    assert units_in_flight(B(1)) == 1 and units_in_flight(B(64)) == 32
    assert units_in_flight(B(16, declared=1)) == 1 and units_in_flight(B(16, declared=99)) == 32


def _data(tmp_path: Path) -> Path:
    path = tmp_path / "qa.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "question", "answer"])
        w.writerows([f"q{i}", q, a] for i, (q, a) in enumerate(QUESTIONS))
    return path


def _cfg(data: Path):
    from invent_core.experiments import ExperimentConfig

    run = RunConfig(n_perturbations=2, n_replications=2).replace(n_bootstrap=3)
    return ExperimentConfig(run=run, data=str(data), methods=("inv",), n_bootstrap_metrics=5)


@pytest.mark.slow  # loads the packaged embedder
def test_evaluate_overlaps_questions_within_one_budget_and_matches_a_sequential_run(tmp_path):
    from invent_core.experiments import evaluate
    from invent_core.llm import get_llm

    cfg = _cfg(_data(tmp_path))
    scores = {}
    with LoopbackServer(delay=0.2) as srv:
        for c in (1, 16):
            llm = get_llm(
                "openai", base_url=srv.base_url, model="loopback", cache=None, concurrency=c
            )
            before = srv.requests
            srv._srv.max_in_flight = 0
            evaluate(cfg, tmp_path / f"c{c}", llm_factory=lambda llm=llm: llm)
            scores[c] = (tmp_path / f"c{c}" / "scores.csv").read_text()
            sent, peak = srv.requests - before, srv.max_in_flight
            # one question: 1 paraphrase request, then 3 states x 2 answers
            assert peak <= c and (c == 1 or peak > 6), (c, peak)
            assert sent == len(QUESTIONS) * 7
        again = srv.requests
        result = evaluate(cfg, tmp_path / "c16", llm_factory=lambda: pytest.fail("no LLM needed"))
        assert srv.requests == again and not result.llm_started
    rows = list(csv.DictReader((tmp_path / "c16" / "scores.csv").open()))
    assert [r["id"] for r in rows] == [f"q{i}" for i in range(len(QUESTIONS))]
    assert scores[1] == scores[16]  # per-state seeds: the same answers, whatever the overlap


@pytest.mark.slow
def test_tsu_overlaps_question_temperature_runs_in_order(tmp_path):
    from invent_core.experiments import tsu
    from invent_core.llm import get_llm

    cfg = _cfg(_data(tmp_path))
    with LoopbackServer(delay=0.2) as srv:
        llm = get_llm("openai", base_url=srv.base_url, model="loopback", cache=None, concurrency=16)
        result = tsu(cfg, [0.3, 1.0], tmp_path / "tsu", llm_factory=lambda: llm)
        assert srv.max_in_flight > 6  # more than one run's requests at once
    uq = list(csv.DictReader((tmp_path / "tsu" / "uq.csv").open()))
    expected = [(f"q{i}", t) for i in range(len(QUESTIONS)) for t in ("0.3", "1.0")]
    assert [(r["id"], r["temperature"]) for r in uq] == expected
    assert not result.failed


@pytest.mark.slow
def test_a_folder_evaluated_again_with_another_kernel_is_rescored_not_reused(tmp_path):
    """Saved runs are reused (no request), saved scores are not: they were made with the old kernel."""
    import dataclasses

    from invent_core.experiments import evaluate
    from invent_core.llm import get_llm

    cfg = _cfg(_data(tmp_path))
    sharp = dataclasses.replace(cfg, run=cfg.run.replace(affinity="exp_cosine", kernel_tau=0.1))
    with LoopbackServer(delay=0.0) as srv:
        llm = get_llm("openai", base_url=srv.base_url, model="loopback", cache=None, concurrency=4)
        first = evaluate(cfg, tmp_path / "e", llm_factory=lambda: llm)
        sent = srv.requests
        second = evaluate(sharp, tmp_path / "e", llm_factory=lambda: pytest.fail("no LLM needed"))
        fresh = evaluate(sharp, tmp_path / "f", llm_factory=lambda: llm)
        assert srv.requests - sent == len(QUESTIONS) * 7  # only the fresh folder asked
    inv = lambda res: [r["inv_entropy"] for r in res.rows]  # noqa: E731
    assert inv(second) != inv(first)
    assert inv(second) == pytest.approx(inv(fresh))


def test_the_adaptive_settings_do_not_change_the_generation_key_while_it_is_off():
    """A saved run stays valid when only the (unused) adaptive tolerance differs."""
    from invent_core.experiments import generation_key

    base = RunConfig()
    assert generation_key(base) == generation_key(base.replace(adaptive_tolerance=0.1))
    on = base.replace(adaptive=True)
    assert generation_key(on) != generation_key(on.replace(adaptive_tolerance=0.1))
    assert generation_key(on) != generation_key(base)
