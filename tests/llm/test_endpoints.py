"""Several endpoints of one model, and ``--concurrency auto``, against real loopback servers.

The servers are ``benchmarks/loopback_server.py`` on 127.0.0.1: in threads,
or in processes of their own where one is killed mid-run. Each answer names
the request's seed (``reply_text``), so a request answered with another's
reply, or twice, shows.
"""

from __future__ import annotations

import argparse
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from loopback_server import LoopbackProcess, LoopbackServer, reply_text  # noqa: E402

from invent_core.commands.common import CliProgress, add_llm_args  # noqa: E402
from invent_core.errors import LLMError  # noqa: E402
from invent_core.llm import LLMCache, Request, RetryPolicy, get_llm, user  # noqa: E402
from invent_core.llm.concurrency import AdaptiveLimit, ConcurrencyConfig, parse_concurrency  # noqa: E402
from invent_core.llm.endpoints import (  # noqa: E402
    DOWN,
    OK,
    Endpoint,
    HealthConfig,
    Router,
    split_base_urls,
)

FAST = RetryPolicy(max_attempts=4, base_delay=0.01, max_delay=0.05)


def _requests(n: int) -> list[Request]:
    return [Request(user(f"question {i}"), seed=1000 + i, temperature=0.7) for i in range(n)]


def _check_answers(requests: list[Request], out: list) -> None:
    """One answer per request, and it is the one for that request's own seed."""
    assert len(out) == len(requests)
    for req, got in zip(requests, out, strict=True):
        assert got.text == reply_text([{"content": "x"}], req.effective_seed)


def _dead_url() -> str:
    """A URL on 127.0.0.1 where nothing listens (connections are refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


# -- routing --------------------------------------------------------------------------
def test_router_picks_the_endpoint_with_fewest_in_flight():
    eps = [Endpoint("http://a"), Endpoint("http://b"), Endpoint("http://c")]
    eps[0].in_flight, eps[1].in_flight, eps[2].in_flight = 2, 0, 1
    router = Router(eps)
    assert router.acquire().endpoint is eps[1]
    assert router.acquire().endpoint in (eps[1], eps[2])  # both have one now


def test_a_fast_endpoint_gets_more_of_the_requests():
    with LoopbackServer(delay=0.4) as slow, LoopbackServer(delay=0.02) as fast:
        llm = get_llm("openai", base_url=[slow.base_url, fast.base_url], model="loopback",
                      cache=None, concurrency=4, retry=FAST)  # fmt: skip
        reqs = _requests(40)
        _check_answers(reqs, llm.complete_many(reqs))
        assert slow.requests + fast.requests == 40
        assert fast.requests > 3 * slow.requests  # the least-loaded one is the fast one
        llm.close()


def test_several_urls_in_one_string_and_on_the_command_line():
    assert split_base_urls("http://a/v1, http://b/v1/\nhttp://a/v1") == [
        "http://a/v1",
        "http://b/v1",
    ]
    assert split_base_urls("local://Qwen2.5 Coder 0.5B Instruct") == [  # a packaged model's
        "local://Qwen2.5 Coder 0.5B Instruct"
    ]
    p = argparse.ArgumentParser()
    add_llm_args(p)
    args = p.parse_args(["--base-url", "http://a/v1", "--base-url", "http://b/v1"])
    assert args.base_url == "http://a/v1,http://b/v1"
    assert p.parse_args(["--concurrency", "auto:16"]).concurrency == "auto:16"
    assert p.parse_args(["--concurrency", "auto"]).concurrency == "auto:64"
    assert p.parse_args(["--concurrency", "12"]).concurrency == 12


@pytest.mark.parametrize("bad", ["auto:x", "fast", "auto:0", "auto:9999"])
def test_a_bad_concurrency_is_refused_by_name(bad, capsys):
    p = argparse.ArgumentParser()
    add_llm_args(p)
    with pytest.raises(SystemExit):
        p.parse_args(["--concurrency", bad])
    assert "argument --concurrency:" in capsys.readouterr().err
    with pytest.raises(ValueError, match="concurrency"):
        parse_concurrency(bad)


# -- health ---------------------------------------------------------------------------
def test_one_endpoint_killed_mid_run_every_request_answered_once():
    with LoopbackProcess(delay=0.1) as a, LoopbackProcess(delay=0.1) as b:
        llm = get_llm("openai", base_url=[a.base_url, b.base_url], model="loopback",
                      cache=None, concurrency=8, retry=FAST)  # fmt: skip
        reqs = _requests(120)

        def kill_a() -> None:
            while a.requests < 15:
                time.sleep(0.02)
            a.kill()

        killer = threading.Thread(target=kill_a)
        killer.start()
        out = llm.complete_many(reqs)  # no LLMError: A's requests were re-sent to B
        killer.join()
        _check_answers(reqs, out)
        assert b.requests >= 120 - 15 - 8  # B answered all A did not finish
        assert llm._router.out_of_service(llm._router.endpoints[0])
        llm.close()


def test_an_endpoint_down_at_start_up_is_left_out():
    with LoopbackServer(delay=0.0) as alive:
        llm = get_llm("openai", base_url=[_dead_url(), alive.base_url], cache=None,
                      concurrency=4, retry=FAST)  # fmt: skip
        reqs = _requests(10)
        _check_answers(reqs, llm.complete_many(reqs))
        assert llm.model == "loopback" and alive.requests == 10
        llm.close()


def test_no_endpoint_answering_is_an_error_naming_each():
    dead = [_dead_url(), _dead_url()]
    llm = get_llm("openai", base_url=dead, cache=None, retry=FAST)
    with pytest.raises(LLMError, match="no endpoint answered its model list") as err:
        llm.complete(user("hi"))
    assert all(url in str(err.value) for url in dead)


def test_an_endpoint_taken_out_is_tried_again_after_its_cooldown():
    now = [0.0]
    eps = [Endpoint("http://a"), Endpoint("http://b")]
    router = Router(eps, health=HealthConfig(cooldown=5.0), clock=lambda: now[0])
    t = router.acquire()
    assert t.endpoint is eps[0]
    router.release(t, DOWN)
    assert router.out_of_service(eps[0])
    assert {router.acquire().endpoint.url for _ in range(3)} == {"http://b"}
    now[0] = 6.0  # the cool-down is over: A gets one request on trial, not more
    trial = router.acquire()
    assert trial.endpoint is eps[0] and router.acquire().endpoint is eps[1]
    router.release(trial, OK)
    assert router.acquire().endpoint is eps[0]  # back in service: the least loaded again


# -- one model ------------------------------------------------------------------------
def test_endpoints_serving_different_models_are_refused_naming_both():
    with (
        LoopbackServer(delay=0.0, model="llama-8b") as a,
        LoopbackServer(delay=0.0, model="qwen-7b") as b,
    ):
        llm = get_llm("openai", base_url=[a.base_url, b.base_url], cache=None, retry=FAST)
        with pytest.raises(LLMError) as err:
            llm.complete(user("hi"))
        msg = str(err.value)
        assert all(s in msg for s in (a.base_url, b.base_url, "llama-8b", "qwen-7b"))
        named = get_llm("openai", base_url=[a.base_url, b.base_url], model="qwen-7b", cache=None)
        with pytest.raises(LLMError, match="same model"):
            named.identity  # noqa: B018 - the check runs before anything is asked
        assert a.requests == b.requests == 0  # refused before any request was sent


def test_the_cache_key_does_not_depend_on_the_endpoint(tmp_path):
    cache = LLMCache(tmp_path / "c.sqlite")
    with LoopbackServer(delay=0.01) as a, LoopbackServer(delay=0.01) as b:
        first = get_llm("openai", base_url=[a.base_url, b.base_url], cache=cache,
                        concurrency=4, retry=FAST)  # fmt: skip
        reqs = _requests(20)
        out = first.complete_many(reqs)
        assert a.requests > 0 and b.requests > 0  # both answered some
        served = a.requests + b.requests
        again = get_llm("openai", base_url=f"{b.base_url}, {a.base_url}", cache=cache)
        assert again.identity == first.identity
        assert [c.text for c in again.complete_many(reqs)] == [c.text for c in out]
        assert a.requests + b.requests == served  # every answer came from the cache
        first.close()
        again.close()


# -- adaptive concurrency -------------------------------------------------------------
def test_adaptive_limit_grows_then_halves_and_returns_below_the_overload():
    limit = AdaptiveLimit(64, ConcurrencyConfig(start=4, probe_every=3))

    def window(n: int, latency: float = 0.1) -> None:
        for i in range(n):
            limit.admitted(i + 1)
        for _ in range(n):
            limit.succeeded(latency)

    window(4)
    assert limit.limit == 8  # slow start: doubled
    window(8)
    assert limit.limit == 16
    epoch = limit.admitted(11)
    limit.overloaded(epoch, 11)  # the server said 429 with 11 in flight
    limit.overloaded(epoch, 12)  # the same burst: halved once only
    assert limit.limit == 8 and limit.ceiling == 11
    window(8)
    assert limit.limit == 10  # back just below the overload, not past it
    window(10), window(10)
    assert limit.limit == 10
    window(10)
    assert limit.limit == 11  # a probe above, now and then
    window(11, latency=0.5)  # the latency rose 5x: no growth
    assert limit.limit == 11


def test_concurrency_shrinks_on_429_and_no_request_fails():
    with LoopbackServer(delay=0.05, limit=6, retry_after=0.05) as srv:
        llm = get_llm("openai", base_url=srv.base_url, model="loopback", cache=None,
                      concurrency="auto:32", retry=FAST)  # fmt: skip
        seen: list[int] = []
        reqs = _requests(150)
        watch = threading.Event()

        def sample() -> None:
            while not watch.wait(0.01):
                seen.append(llm.live_concurrency)

        t = threading.Thread(target=sample)
        t.start()
        out = llm.complete_many(reqs)
        watch.set()
        t.join()
        _check_answers(reqs, out)
        assert srv.throttled > 0 and srv.max_in_flight <= 6
        assert max(seen) > 6  # it grew past the server's limit once...
        assert llm.live_concurrency <= 7 < 32  # ...and was held near it, far below the bound
        llm.close()


def test_a_fixed_concurrency_stays_fixed_and_auto_is_the_served_default():
    with LoopbackServer(delay=0.0) as srv:
        fixed = get_llm("openai", base_url=srv.base_url, model="loopback", concurrency=5)
        auto = get_llm("openai", base_url=srv.base_url, model="loopback")
        assert fixed.concurrency == 5 and fixed.live_concurrency is None
        assert str(auto.concurrency_setting) == "auto:64" and auto.live_concurrency == 4


def test_the_progress_line_shows_the_limit_now():
    with LoopbackServer(delay=0.0) as srv:
        llm = get_llm("openai", base_url=srv.base_url, model="loopback", concurrency="auto:16")
        progress = CliProgress(quiet=True, llm=llm)
        assert progress.line().endswith("· 4 in flight allowed (auto)")
        fixed = get_llm("openai", base_url=srv.base_url, model="loopback", concurrency=4)
        assert "in flight allowed" not in CliProgress(quiet=True, llm=fixed).line()
