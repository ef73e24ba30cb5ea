"""The request pool (priorities, slots, grouped jobs, cancel) and per-state seeds, with a recording fake LLM."""

from __future__ import annotations

import threading
import time

import pytest

from invent_core.errors import Cancelled
from invent_core.llm import LLM, Completion, Request, user
from invent_core.llm.base import StreamingLLM, derive_seed, state_seed
from invent_core.llm.cache import cache_key
from invent_core.llm.pool import ANSWER, PERTURB, RequestPool
from invent_core.progress import CancelToken


class Recorder:
    """An LLM that records when each request starts and ends; ``delay`` seconds each.

    With ``gate`` set, a request waits for that event instead (no timing in the test).
    """

    identity = "recorder"

    def __init__(self, delay: float = 0.02, concurrency: int = 4):
        self.delay = delay
        self.concurrency = concurrency
        self.lock = threading.Lock()
        self.events: list[tuple[str, str]] = []  # ("start" | "end", prompt)
        self.in_flight: dict[str, int] = {}
        self.most_in_flight: dict[str, int] = {}
        self.gate: threading.Event | None = None

    def _run(self, request: Request) -> Completion:
        prompt = request.message_list[-1]["content"]
        with self.lock:
            self.events.append(("start", prompt))
            self.in_flight[prompt] = self.in_flight.get(prompt, 0) + 1
            self.most_in_flight[prompt] = max(
                self.most_in_flight.get(prompt, 0), self.in_flight[prompt]
            )
        if self.gate is not None:
            self.gate.wait(60)
        else:
            time.sleep(self.delay)
        with self.lock:
            self.in_flight[prompt] -= 1
            self.events.append(("end", prompt))
        return Completion(text=f"{prompt}|{request.effective_seed}")

    def complete(self, messages, **kw):
        return self._run(Request(messages=messages, **kw))

    def complete_many(self, requests, progress=None, **kw):
        return [self._run(r) for r in requests]

    def close(self):
        pass


def test_state_seeds_differ_per_state_and_replication_and_repeat():
    seeds = {state_seed(0, i, k) for i in range(10) for k in range(5)}
    assert len(seeds) == 50  # replication k of two rewordings no longer shares a stream
    assert state_seed(0, 3, 2) == state_seed(0, 3, 2) != state_seed(1, 3, 2)
    assert all(0 <= s < 2**31 for s in seeds)
    assert derive_seed("a", 1) != derive_seed("b", 1)
    with pytest.raises(ValueError, match="state and replication must be >= 0"):
        state_seed(0, -1, 0)


def test_duplicated_states_get_their_own_seed_and_cache_key():
    a = Request(user("Same text?"), temperature=0.7, seed=0, replication=0, state=1)
    b = Request(user("Same text?"), temperature=0.7, seed=0, replication=0, state=2)
    assert a.effective_seed != b.effective_seed
    assert cache_key("m", a) != cache_key("m", b)
    # requests outside any state keep their former key and seed (old caches still hit)
    plain = Request(user("q"), seed=4, replication=0)
    assert plain.effective_seed == 4
    assert cache_key("m", plain) == cache_key("m", Request(user("q"), seed=4))
    assert cache_key("m", plain) != cache_key("m", Request(user("q"), seed=4, stop=("\n",)))


def test_request_validates_stop():
    with pytest.raises(ValueError, match="stop must be a tuple of strings"):
        Request(user("q"), stop="\n")
    with pytest.raises(ValueError, match="at most 4 non-empty strings"):
        Request(user("q"), stop=("a", "b", "c", "d", "e"))
    with pytest.raises(ValueError, match="state must be >= 0"):
        Request(user("q"), state=-2)
    assert Request(user("q"), stop=["\n"]).stop == ("\n",)


def test_grouping_is_declared_by_the_backend():
    from invent_core.llm import LocalLLM, OpenAICompatLLM, ServerConfig

    assert OpenAICompatLLM.max_choices == 1  # a remote server: one request per replication
    assert isinstance(LocalLLM.max_choices, property)  # the packaged model: its slots
    assert ServerConfig(n_parallel=5).n_parallel == 5


def test_perturbation_requests_jump_the_answer_queue():
    llm = Recorder(delay=0.05)
    with RequestPool(llm, slots=1) as pool:
        answers = [pool.submit_many([Request(user(f"a{i}"))], priority=ANSWER)[0] for i in range(3)]
        time.sleep(0.01)  # a0 is running
        perturb = pool.submit_many([Request(user("p"))], priority=PERTURB, kind="perturb")[0]
        [f.result() for f in [*answers, perturb]]
    starts = [p for kind, p in llm.events if kind == "start"]
    assert starts == ["a0", "p", "a1", "a2"]
    assert pool.counts == {
        "answer": {"requests": 3, "cached": 0},
        "perturb": {"requests": 1, "cached": 0},
    }


def test_a_state_is_one_job_and_jobs_share_the_slots():
    llm = Recorder(delay=0.03)
    with RequestPool(llm, slots=4) as pool:
        futures = [
            f
            for i in range(3)
            for f in pool.submit_many([Request(user(f"q{i}"), replication=k) for k in range(2)])
        ]
        texts = [f.result().text for f in futures]
    assert [t.split("|")[0] for t in texts] == ["q0", "q0", "q1", "q1", "q2", "q2"]
    # two jobs of two requests fill the four slots; the third waits for one of them
    starts = [p for kind, p in llm.events if kind == "start"]
    assert starts[:2] == ["q0", "q1"] or starts[:2] == ["q1", "q0"]
    assert pool.counts["answer"]["requests"] == 6


def test_a_job_larger_than_the_slots_still_runs():
    llm = Recorder(delay=0.01)
    with RequestPool(llm, slots=2) as pool:
        futures = pool.submit_many([Request(user("big"), replication=k) for k in range(5)])
        assert len([f.result() for f in futures]) == 5


def test_cancel_stops_new_requests_and_waits_for_those_in_flight():
    llm = Recorder()
    llm.gate = threading.Event()  # the two in flight end only after the Cancel
    token = CancelToken()
    pool = RequestPool(llm, slots=2, cancel=token)
    futures = [pool.submit_many([Request(user(f"q{i}"))])[0] for i in range(6)]
    for _ in range(3000):  # until both slots are busy (at most 30 s)
        if len(llm.events) >= 2:
            break
        time.sleep(0.01)
    token.cancel()
    llm.gate.set()
    pool.close()
    started = [p for kind, p in llm.events if kind == "start"]
    ended = [p for kind, p in llm.events if kind == "end"]
    assert started == ["q0", "q1"] and sorted(ended) == ["q0", "q1"]
    assert futures[0].result().text.startswith("q0")
    for f in futures[2:]:
        assert f.cancelled() or isinstance(f.exception(), Cancelled)


def test_pooled_llm_keeps_the_protocol_and_counts_perturbation_requests():
    llm = Recorder()
    with RequestPool(llm, slots=2) as pool:
        view = pool.as_llm()
        assert isinstance(view, LLM) and not isinstance(view, StreamingLLM)
        assert view.identity == "recorder" and view.concurrency == 2
        seen = []
        out = view.complete_many(
            [Request(user("p"), replication=k) for k in range(3)],
            progress=lambda d, t: seen.append((d, t)),
        )
        assert [c.text.split("|")[0] for c in out] == ["p", "p", "p"] and seen[-1] == (3, 3)
        view.complete(user("one"))
    assert pool.counts["perturb"]["requests"] == 4
