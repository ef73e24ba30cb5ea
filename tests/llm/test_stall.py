"""The stall timeout: slow replies complete, stalled ones fail naming the option, dead servers fail fast.

Every server here is a real HTTP server on 127.0.0.1 (:mod:`slow_stream_server`):
in a thread, or in a process of its own that the test kills. The margins are
wide (a token every 0.3 s against a 3 s stall interval) so that a loaded
machine cannot turn a pass into a failure.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from slow_stream_server import SlowStreamServer

from invent_core.errors import LLMError, LLMTimeout
from invent_core.llm import RetryPolicy, get_llm, user
from invent_core.llm.retry import refused
from invent_core.llm.stall import (
    STALL_BASE_SECONDS,
    STALL_MAX_SECONDS,
    default_stall_timeout,
    stall_message,
)

FAST = RetryPolicy(max_attempts=3, base_delay=0.01, max_delay=0.05)


def _llm(srv, **kw):
    kw.setdefault("retry", FAST)
    return get_llm("openai", base_url=srv.base_url, model="slow", cache=None, **kw)


@pytest.fixture
def slow():
    """15 tokens 0.3 s apart: 4.5 s in all, never 3 s without one."""
    srv = SlowStreamServer(gap=0.3, tokens=15).serve()
    yield srv
    srv.close()


def test_a_slow_reply_longer_than_a_total_deadline_completes_in_stall_mode(slow):
    with pytest.raises(LLMTimeout, match="no complete reply within the 2 s deadline"):
        once = RetryPolicy(max_attempts=1)
        _llm(slow, timeout=2.0, retry=once).complete(user("x"), max_tokens=64)  # the old rule
    t0 = time.monotonic()
    reply = _llm(slow, stall_timeout=3.0).complete(user("x"), max_tokens=64)
    assert time.monotonic() - t0 > 2.0  # longer than the deadline that failed it
    assert (
        reply.text.strip() == " ".join(f"w{k}" for k in range(15)) and reply.finish_reason == "stop"
    )


def test_replications_as_one_request_are_streamed_in_stall_mode(slow):
    from invent_core.llm import OpenAICompatLLM, Request

    llm = OpenAICompatLLM(base_url=slow.base_url, model="slow", retry=FAST, stall_timeout=3.0)
    llm.max_choices = 2  # as the embedded llama.cpp: one request with n = 2
    out = llm.complete_many([Request(user("x"), max_tokens=64, replication=k) for k in (0, 1)])
    assert [c.text.split()[-1] for c in out] == ["w14", "w14"] and slow.requests == 1


def test_a_stalled_reply_fails_naming_the_stall_and_the_option():
    srv = SlowStreamServer(gap=0.05, tokens=20, stall_after=2).serve()
    try:
        t0 = time.monotonic()
        with pytest.raises(LLMTimeout) as err:
            _llm(srv, stall_timeout=1.0).complete(user("x"), max_tokens=64)
        assert time.monotonic() - t0 < 20  # the server stays silent for an hour
    finally:
        srv.close()
    assert "no token for 1 s" in str(err.value) and "--stall-timeout" in str(err.value)
    assert srv.requests == 3  # a served model's stall is tried again (the embedded one's is not)


def test_a_killed_server_fails_fast_not_after_the_stall_interval():
    script = Path(__file__).with_name("slow_stream_server.py")
    proc = subprocess.Popen(
        [sys.executable, str(script), "0.5", "400", "-1"], stdout=subprocess.PIPE, text=True
    )
    try:
        port = int(proc.stdout.readline())
        llm = get_llm(
            "openai",
            base_url=f"http://127.0.0.1:{port}/v1",
            model="slow",
            cache=None,
            retry=FAST,
            stall_timeout=120.0,
        )
        failed: list[BaseException] = []

        def ask() -> None:
            try:
                llm.complete(user("x"), max_tokens=512)
            except BaseException as err:  # noqa: BLE001 - the test reads it
                failed.append(err)

        worker = threading.Thread(target=ask, daemon=True)
        worker.start()
        time.sleep(1.5)  # a few tokens in: the reply is under way
        proc.kill()
        proc.wait(timeout=30)
        t0 = time.monotonic()
        worker.join(timeout=60)
        assert not worker.is_alive() and time.monotonic() - t0 < 60
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert len(failed) == 1 and isinstance(failed[0], LLMError)
    assert not isinstance(failed[0], LLMTimeout)  # a connection lost, not a stall
    assert refused(failed[0])  # the retries found the port closed


def test_refused_reads_the_cause_chain():
    llm = get_llm("openai", base_url="http://127.0.0.1:9/v1", model="m", cache=None, retry=FAST)
    with pytest.raises(LLMError) as err:
        llm.complete(user("x"))
    assert refused(err.value) and not refused(ValueError("x")) and not refused(None)


def test_the_default_interval_grows_with_the_model_and_the_load():
    quiet = default_stall_timeout(491_400_064, load=0.3)
    assert quiet == STALL_BASE_SECONDS
    assert default_stall_timeout(491_400_064, load=6.5) == 6.5 * quiet
    assert default_stall_timeout(4_920_000_000, load=1.0) > 9 * quiet
    assert default_stall_timeout(40_000_000_000, load=20) == STALL_MAX_SECONDS
    assert default_stall_timeout(None) >= STALL_BASE_SECONDS  # the load now, whatever it is


def test_stall_timeout_is_checked_and_recorded(slow):
    with pytest.raises(ValueError, match="stall_timeout must be > 0"):
        _llm(slow, stall_timeout=0)
    llm = _llm(slow, stall_timeout=3.0)
    llm.complete(user("x"), max_tokens=64)
    assert llm.runtime == {"stall_timeout": 3.0, "stall_seconds_last": 3.0, "total_timeout": None}
    assert _llm(slow).runtime["total_timeout"] == 60.0  # a served model: the old deadline


def test_the_message_names_the_option():
    msg = stall_message("the local model qwen0.5b", 195.0, 1)
    assert "sent no token for 195 s" in msg and "--stall-timeout SECONDS" in msg


def test_the_cli_option_reaches_the_backend():
    import argparse

    from invent_core.commands.common import add_llm_args, llm_from_args

    p = argparse.ArgumentParser()
    add_llm_args(p)
    args = p.parse_args(["--llm", "openai", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"])
    assert llm_from_args(args).stall_timeout is None
    args = p.parse_args(
        [
            *"--llm openai --base-url http://127.0.0.1:9/v1 --model m".split(),
            "--stall-timeout",
            "45",
        ]
    )
    assert llm_from_args(args).stall_timeout == 45.0
    with pytest.raises(SystemExit):
        p.parse_args(["--stall-timeout", "0"])


def test_a_run_records_how_its_requests_were_timed():
    """The stall setting reaches the run's record (``extras["llm_runtime"]``)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from loopback_server import LoopbackServer

    from invent_core.config import RunConfig
    from invent_core.engine.pipeline import run_question

    with LoopbackServer(delay=0.05) as srv:
        llm = get_llm("openai", base_url=srv.base_url, cache=None, stall_timeout=7.5)
        cfg = RunConfig(n_perturbations=2, n_replications=2)
        run = run_question("What is the capital of France?", cfg, llm=llm)
    assert run.extras["llm_runtime"]["stall_timeout"] == 7.5
    assert run.extras["llm_runtime"]["stall_seconds_last"] == 7.5


def test_the_packaged_model_is_in_stall_mode_and_a_refused_port_ends_it_at_once():
    """The embedded llama.cpp's backend (not started here): its defaults and its two fast ends."""
    from invent_core.llm.http_transport import http_library
    from invent_core.llm.local import QWEN_05B, LocalLLM

    httpx = http_library()  # the HTTP library the installed openai client is built on

    if not QWEN_05B.installed():
        pytest.skip("the packaged model is not installed")
    llm = LocalLLM(QWEN_05B, cache=None)
    assert llm.stall_mode and llm.stall_timeout is None and llm.runtime["total_timeout"] is None
    assert llm.stall_seconds() >= STALL_BASE_SECONDS  # 491 MB: the base, times the load
    try:
        httpx.post("http://127.0.0.1:9/v1/chat/completions", timeout=5)
    except httpx.ConnectError as err:
        closed = err
    with pytest.raises(LLMError, match="refused the connection: the embedded server is no longer"):
        llm._retry_wait(closed, None)
    stalled = llm._give_up(httpx.ReadTimeout("timed out"), 1)
    assert isinstance(stalled, LLMTimeout) and "--stall-timeout" in str(stalled)
    assert "qwen0.5b sent no token for" in str(stalled)
    missed = LocalLLM(QWEN_05B, cache=None, timeout=5)._give_up(
        httpx.ReadTimeout("no complete reply within 5 s"), 1
    )
    assert "gave no complete reply within 5 s" in str(missed)  # an explicit total deadline
