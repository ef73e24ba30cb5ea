"""The OpenAI-compatible backend against a scripted HTTP server on 127.0.0.1.

The server (http.server in a thread) answers each request with the next
scripted action — 429 with Retry-After, 500, malformed JSON, a slow reply,
a dropped connection, 401, 404 — and counts what it received.
"""

from __future__ import annotations

import http.server
import json
import threading
import time

import pytest

from invent_core.errors import LLMError
from invent_core.llm import LLMCache, Request, RetryPolicy, get_llm, user


class FakeOpenAI:
    def __init__(self):
        self.actions: list[str] = []
        self.default = "ok"
        self.bodies: list[dict] = []
        self.headers: list[dict] = []
        self.lock = threading.Lock()
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _send(self, status, payload: bytes, headers=None):
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)

            def do_GET(self):
                self._send(
                    200,
                    json.dumps(
                        {"object": "list", "data": [{"id": "fake-model", "object": "model"}]}
                    ).encode(),
                )

            def do_POST(self):
                n = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(n) or b"{}")
                with owner.lock:
                    owner.bodies.append(body)
                    owner.headers.append({k.lower(): v for k, v in self.headers.items()})
                    action = owner.actions.pop(0) if owner.actions else owner.default
                err = lambda msg: json.dumps({"error": {"message": msg, "type": "x"}}).encode()  # noqa: E731
                if action == "429":
                    self._send(429, err("rate limited"), {"Retry-After": "1"})
                elif action == "500":
                    self._send(500, err("boom"))
                elif action == "401":
                    self._send(401, err("invalid api key"))
                elif action == "404":
                    self._send(404, err("model not found"))
                elif action == "badjson":
                    self._send(200, b'{"choices": [ {"mess')
                elif action == "slow":
                    time.sleep(1.5)
                    self._send(200, owner.completion(body))
                elif action == "drop":
                    self.close_connection = True
                    self.connection.shutdown(2)
                else:
                    self._send(200, owner.completion(body))

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_port}/v1"

    @staticmethod
    def completion(body: dict) -> bytes:
        content = f"answer seed={body.get('seed')} temp={body.get('temperature')}"
        choice = {
            "index": 0,
            "message": {"role": "assistant", "content": content},
            "finish_reason": "stop",
        }
        if body.get("logprobs"):
            choice["logprobs"] = {
                "content": [
                    {
                        "token": "Yes",
                        "logprob": -0.1,
                        "bytes": None,
                        "top_logprobs": [
                            {"token": "No", "logprob": -2.5, "bytes": None},
                            {"token": "Yes", "logprob": -0.1, "bytes": None},
                        ][: body.get("top_logprobs") or 1],
                    }
                ]
            }
        return json.dumps(
            {
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", "m"),
                "choices": [choice],
                "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10},
            }
        ).encode()

    @property
    def count(self) -> int:
        return len(self.bodies)

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def fake():
    srv = FakeOpenAI()
    yield srv
    srv.close()


FAST = RetryPolicy(max_attempts=4, base_delay=0.01, max_delay=0.05)


def make(fake, **kw):
    kw.setdefault("retry", FAST)
    kw.setdefault("cache", None)
    kw.setdefault("timeout", 5.0)
    return get_llm(
        "openai", base_url=fake.base_url, model="fake-model", api_key="sk-secret-123", **kw
    )


def test_request_fields_and_key(fake):
    llm = make(fake)
    c = llm.complete(user("hi"), temperature=0.7, seed=11, max_tokens=9)
    assert c.text == "answer seed=11 temp=0.7" and not c.cached
    assert c.usage == {"prompt_tokens": 7, "completion_tokens": 3}
    body = fake.bodies[0]
    assert body["max_tokens"] == 9 and body["model"] == "fake-model" and "n" not in body
    assert fake.headers[0]["authorization"] == "Bearer sk-secret-123"
    assert "sk-secret" not in repr(llm) and "sk-secret" not in llm.identity


def test_replications_are_separate_requests_with_distinct_seeds(fake):
    llm = make(fake)
    reqs = [
        Request(user("q"), temperature=1.0, seed=5, max_tokens=4, replication=k) for k in range(5)
    ]
    seen = []
    out = llm.complete_many(reqs, progress=lambda d, t: seen.append((d, t)))
    assert fake.count == 5
    seeds = [b["seed"] for b in fake.bodies]
    assert len(set(seeds)) == 5 and 5 in seeds
    assert [o.text for o in out] == [
        f"answer seed={r.effective_seed} temp=1.0" for r in reqs
    ]  # order kept
    assert seen[-1] == (5, 5)


def test_429_honours_retry_after_then_succeeds(fake):
    fake.actions = ["429", "ok"]
    llm = make(fake)
    t0 = time.perf_counter()
    assert llm.complete(user("x")).text.startswith("answer")
    assert fake.count == 2
    assert time.perf_counter() - t0 >= 0.95  # waited Retry-After: 1, not the 0.01 s backoff


@pytest.mark.parametrize("failure", ["500", "badjson", "drop"])
def test_transient_failures_are_retried(fake, failure):
    fake.actions = [failure, failure, "ok"]
    llm = make(fake)
    assert llm.complete(user("x")).text.startswith("answer")
    assert fake.count == 3
    assert llm.requests_sent == 3


def test_timeout_is_retried(fake):
    fake.actions = ["slow", "ok"]
    llm = make(fake, timeout=0.5)
    assert llm.complete(user("x")).text.startswith("answer")
    assert fake.count == 2


def test_gives_up_after_max_attempts(fake):
    fake.default = "500"
    llm = make(fake)
    with pytest.raises(LLMError, match="gave up after 4 attempts"):
        llm.complete(user("x"))
    assert fake.count == 4


def test_401_is_not_retried(fake):
    fake.default = "401"
    llm = make(fake)
    with pytest.raises(LLMError, match=r"authentication failed \(HTTP 401\)") as info:
        llm.complete(user("x"))
    assert fake.count == 1
    assert "sk-secret" not in str(info.value)


def test_404_unknown_model_is_not_retried(fake):
    fake.default = "404"
    llm = make(fake)
    with pytest.raises(LLMError, match="unknown model 'fake-model'"):
        llm.complete(user("x"))
    assert fake.count == 1


def test_error_in_complete_many_raises(fake):
    fake.default = "401"
    llm = make(fake, concurrency=3)
    with pytest.raises(LLMError, match="401"):
        llm.complete_many([Request(user(f"q{i}")) for i in range(6)])


def test_logprobs_passthrough(fake):
    llm = make(fake)
    c = llm.complete(user("Yes or No?"), logprobs=True, top_logprobs=2)
    assert fake.bodies[0]["logprobs"] is True and fake.bodies[0]["top_logprobs"] == 2
    assert c.logprobs == [["Yes", -0.1], ["No", -2.5]]  # best first
    assert c.first_token_prob("yes") == pytest.approx(0.904837, rel=1e-5)
    plain = llm.complete(user("Yes or No?"))
    assert plain.logprobs is None and "logprobs" not in fake.bodies[1]
    with pytest.raises(ValueError, match="no logprobs"):
        plain.first_token_prob("Yes")


def test_model_discovered_from_server(fake):
    llm = get_llm("openai", base_url=fake.base_url, cache=None, retry=FAST)
    assert llm.identity.endswith("model=fake-model")


def test_concurrency_is_bounded(fake):
    fake.default = "slow"
    llm = make(fake, concurrency=4)
    t0 = time.perf_counter()
    llm.complete_many([Request(user(f"q{i}")) for i in range(4)])
    assert time.perf_counter() - t0 < 4 * 1.5 * 0.75  # ran concurrently


def test_cached_rerun_sends_no_request(fake, tmp_path):
    cache = LLMCache(tmp_path / "c.sqlite")
    llm = make(fake, cache=cache)
    reqs = [
        Request(user(f"q{i}"), temperature=0.7, seed=1, replication=k)
        for i in range(3)
        for k in range(2)
    ]
    first = llm.complete_many(reqs)
    assert fake.count == 6 and not any(c.cached for c in first)
    again = make(fake, cache=LLMCache(tmp_path / "c.sqlite")).complete_many(reqs)
    assert fake.count == 6, "a cached re-run must not reach the server"
    assert all(c.cached for c in again) and [c.text for c in again] == [c.text for c in first]
    # a different setting is a different key
    make(fake, cache=cache).complete(user("q0"), temperature=0.3, seed=1)
    assert fake.count == 7
    # the key is not part of the cache (nor stored)
    other_key = get_llm(
        "openai",
        base_url=fake.base_url,
        model="fake-model",
        api_key="other",
        cache=cache,
        retry=FAST,
    )
    other_key.complete_many(reqs)
    assert fake.count == 7
    assert b"sk-secret" not in (tmp_path / "c.sqlite").read_bytes()


def test_unknown_spec():
    with pytest.raises(ValueError, match="unknown LLM 'gpt9'"):
        get_llm("gpt9")
