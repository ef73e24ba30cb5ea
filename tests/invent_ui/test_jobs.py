"""Background jobs: progress is readable while they run, Cancel stops new requests, work is kept."""

from __future__ import annotations

import sys
import threading

import pytest

from invent_core.errors import Cancelled
from invent_core.llm import Completion, Request, user
from invent_core.llm.base import LLM, StreamingLLM
from invent_core.progress import CancelToken, Progress
from invent_ui.jobs.background import CancellableLLM, Job, start_job


class SlowLLM:
    """Answers in order; blocks after ``stop_after`` requests until ``go`` is set."""

    identity = "slow"
    concurrency = 2
    prefers_single_paraphrase = True

    def __init__(self, stop_after: int = 10**9) -> None:
        self.sent: list[int] = []
        self.stop_after = stop_after
        self.blocked = threading.Event()
        self.go = threading.Event()

    def complete(self, messages, **kw):
        return Completion(text="one")

    def complete_many(self, requests, progress=None, *, cancel=None):
        out = []
        for req in requests:
            if cancel is not None:  # as every backend: nothing new once cancelled
                cancel.raise_if_cancelled(len(out), len(requests))
            if len(self.sent) == self.stop_after:
                self.blocked.set()
                self.go.wait(10)
            self.sent.append(req.replication)
            out.append(Completion(text=f"a{req.replication}"))
            if progress is not None:
                progress(len(out), len(requests))
        return out

    def close(self):
        pass


def _requests(n: int) -> list[Request]:
    return [Request(messages=user("q"), replication=k) for k in range(n)]


def test_job_result_progress_and_take():
    def work(progress, cancel):
        for k in range(3):
            progress(Progress("generate", k + 1, 3))
        return "ok"

    job = Job(work, label="Working", on_done=lambda result: "entry-id").start()
    assert job.wait(10)
    assert job.status == "done" and job.result == "ok" and job.history_id == "entry-id"
    [stage] = job.tracker.snapshot()
    assert (stage.stage, stage.done, stage.total) == ("generate", 3, 3)
    assert job.take() and not job.take()


def test_start_job_keeps_the_started_job_under_its_key():
    store: dict = {}
    kept: list = []
    job = start_job(
        "the_job",
        lambda progress, cancel: 7,
        label="Seven",
        kind="tsu",
        on_done=kept.append,
        context={"out": "here"},
        store=store,
    )
    assert store["the_job"] is job and job.wait(5)
    assert (job.status, job.result, job.kind, job.label) == ("done", 7, "tsu", "Seven")
    assert kept == [7] and job.context == {"out": "here"}


def test_job_failure_and_bookkeeping_failure_are_kept_apart():
    job = Job(lambda p, c: 1 / 0, label="x").start()
    job.wait(10)
    assert job.status == "failed" and isinstance(job.error, ZeroDivisionError)

    def broken(result):
        raise OSError("disk full")

    job = Job(lambda p, c: 42, label="x", on_done=broken).start()
    job.wait(10)
    assert job.status == "done" and job.result == 42 and "disk full" in job.note


def test_cancel_through_progress_events():
    started = threading.Event()

    def work(progress, cancel):
        for k in range(1000):
            progress(Progress("questions", k, 1000))
            started.set()
            threading.Event().wait(0.01)
        return "never"

    job = Job(work, label="x").start()
    started.wait(5)
    job.cancel()
    assert job.status in ("cancelling", "cancelled")
    assert job.wait(10)
    assert job.status == "cancelled" and isinstance(job.error, Cancelled)
    assert "finished are kept" in str(job.error)


def test_cancellable_llm_sends_no_request_after_cancel():
    llm = SlowLLM(stop_after=3)
    token = CancelToken()
    proxy = CancellableLLM(llm, token)
    assert isinstance(proxy, LLM) and not isinstance(proxy, StreamingLLM)
    assert proxy.identity == "slow" and proxy.prefers_single_paraphrase
    seen: list[tuple[int, int]] = []
    errors: list[BaseException] = []

    def call():
        try:
            proxy.complete_many(_requests(10), lambda d, t: seen.append((d, t)))
        except Cancelled as err:
            errors.append(err)

    t = threading.Thread(target=call)
    t.start()
    assert llm.blocked.wait(5)  # the 4th request is in flight
    token.cancel()
    llm.go.set()
    t.join(5)
    assert len(llm.sent) == 4  # the request in flight finished; nothing after it was sent
    assert errors and "cancelled after 4 of 10" in str(errors[0])
    assert seen[-1] == (4, 10) and all(t == 10 for _, t in seen)
    with pytest.raises(Cancelled):
        proxy.complete([{"role": "user", "content": "q"}])


def test_cancellable_llm_passes_the_jobs_token_to_the_backend():
    class Seen(SlowLLM):
        def complete_many(self, requests, progress=None, *, cancel=None):
            self.cancel_seen = cancel
            return super().complete_many(requests, progress, cancel=cancel)

    llm, token = Seen(), CancelToken()
    other = CancelToken()  # a caller's own token never replaces the job's
    out = CancellableLLM(llm, token).complete_many(_requests(5), cancel=other)
    assert [c.text for c in out] == [f"a{k}" for k in range(5)] and llm.cancel_seen is token


def test_llm_baselines_job_counts_methods_and_cancel_cuts_the_slow_request():
    """The "Also compute VU, P(True)" button starts a job with Cancel, not a blocking spinner."""
    import time

    from test_llm_http import FAST, FakeOpenAI

    from invent_core.engine.artifact import RunArtifact
    from invent_core.llm import get_llm
    from invent_ui import assets
    from invent_ui.render.method_jobs import methods_work

    run = RunArtifact.load(assets.DEMO_RUN)
    server = FakeOpenAI()
    try:
        llm = get_llm("openai", base_url=server.base_url, model="m", cache=None, retry=FAST)
        done = Job(methods_work(run, ["verbalized", "p_true"], llm), label="b").start()
        assert done.wait(30) and done.status == "done"  # each method's result or its error
        assert set(done.result) == {"verbalized", "p_true"}
        stage = done.tracker.snapshot()[-1]
        assert (stage.stage, stage.done, stage.total) == ("methods", 2, 2)

        server.default, sent = "hang", server.count  # a reply that would take 30 s
        fresh = RunArtifact.load(assets.DEMO_RUN)  # the first run keeps its replies (extras)
        job = Job(methods_work(fresh, ["verbalized", "p_true"], llm), label="b").start()
        deadline = time.monotonic() + 10
        while server.count == sent:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        t0 = time.monotonic()
        job.cancel()
        assert job.wait(5) and time.monotonic() - t0 < 3.0
        assert job.status == "cancelled"
    finally:
        server.close()


def test_registry_keeps_the_newest_job_and_views_take_the_result_once_each():
    """A reload's session sees the job through a view: the result once per session;
    a cancelled job's leftovers once in all (the page keeps them in the history)."""
    from invent_ui.jobs.background import JobRegistry, JobView

    reg = JobRegistry()
    old = Job(lambda progress, cancel: "old", label="a").start()
    new = Job(lambda progress, cancel: "new", label="b").start()
    assert old.wait(5) and new.wait(5)
    reg.publish("page", new, {"form_limit": 8})
    reg.publish("page", old, {"form_limit": 3})  # older: ignored
    assert reg.latest("page") is new and new.form == {"form_limit": 8}
    assert reg.latest("other") is None
    one, two = JobView(new), JobView(new)
    assert one.take() and not one.take() and two.take()  # each session shows the result
    assert one.result == "new" and one.job is new and new.take()  # the starter's own take

    def stop(progress, cancel):
        cancel.cancel()
        cancel.raise_if_cancelled(0, 3)

    cancelled = Job(stop, label="c").start()
    assert cancelled.wait(5) and cancelled.status == "cancelled"
    first, second = JobView(cancelled), JobView(cancelled)
    assert first.take() and not second.take() and not cancelled.take()
    assert cancelled.taken


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread's own niceness: Linux")
def test_a_long_job_yields_the_cpu_to_the_pages_threads():
    """A batch (or evaluation, sweep) runs its thread, and the threads it starts, at nice ≥ 10."""
    import os
    import threading

    from invent_ui.jobs.background import BACKGROUND_NICE, Job

    def niceness() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    def fn(progress, cancel):
        seen = {}
        worker = threading.Thread(target=lambda: seen.setdefault("worker", niceness()))
        worker.start()
        worker.join()
        return niceness(), seen["worker"]

    here = niceness()
    for kind in ("batch", "evaluation", "tsu"):
        job = Job(fn, label=kind, kind=kind).start()
        assert job.wait(10)
        assert job.result == (max(here, BACKGROUND_NICE),) * 2, kind
    run = Job(fn, label="a run", kind="run").start()  # a person waits for it: no lower priority
    assert run.wait(10) and run.result == (here, here)
    assert niceness() == here  # the page's own thread is untouched


def test_cancel_stops_a_running_question_through_the_wrapped_backend_alone():
    """One cancel path: the page hands ``run_question`` the job's backend in
    :class:`CancellableLLM` and no ``cancel=``; Cancel still cuts the request in flight
    (the server sees the client hang up) and no new one is sent."""
    import time

    from test_llm_http import FAST, FakeOpenAI

    from invent_core.config import RunConfig
    from invent_core.engine.pipeline import run_question
    from invent_core.llm import get_llm

    server = FakeOpenAI()
    server.default = "hang"  # every reply would take 30 s
    try:
        llm = get_llm("openai", base_url=server.base_url, model="m", cache=None, retry=FAST)
        config = RunConfig(n_perturbations=2, n_replications=2, perturber="paraphrase")

        def work(progress, cancel):  # as the Explore page's run: the token only in the wrapper
            return run_question("What is 2+2?", config, llm=CancellableLLM(llm, cancel),
                                progress=progress)  # fmt: skip

        job = Job(work, label="The run").start()
        deadline = time.monotonic() + 20
        while server.count == 0:  # a request is in flight
            assert time.monotonic() < deadline and job.running, job.error
            time.sleep(0.05)
        job.cancel()
        assert job.wait(20), "Cancel did not reach the request in flight"
        assert job.status == "cancelled" and "cancelled" in str(job.error)
        llm.close()
        server.settle()
        sent = server.count
        assert server.hung_up >= 1  # the waiting request was cut, not waited for
        time.sleep(0.3)
        assert server.count == sent  # nothing new left after Cancel
    finally:
        server.close()


def test_the_dashboard_passes_no_cancel_keyword_to_the_library():
    """Cancel reaches the library through :class:`CancellableLLM` alone, never also as
    ``cancel=`` on a call (two mechanisms that could disagree about what stops)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    files = [*root.joinpath("pages").glob("*.py"), root / "app.py",
             *root.joinpath("invent_ui").rglob("*.py")]  # fmt: skip
    passed = re.compile(r"\bcancel=(?!self\._token\b)\w")  # the wrapper's own hand-over aside
    sites = [f"{p.name}:{n}" for p in files
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if passed.search(line) and not line.lstrip().startswith("#")]  # fmt: skip
    assert sites == []
