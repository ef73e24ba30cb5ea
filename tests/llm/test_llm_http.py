"""The OpenAI-compatible backend against a scripted HTTP server on 127.0.0.1.

The server (http.server in a thread) answers each request with the next
scripted action — 429 with Retry-After, 500, malformed JSON, a slow reply,
a dropped connection, 401, 404 — and counts what it received.
"""

from __future__ import annotations

import http.server
import json
import select
import socket
import threading
import time
from dataclasses import replace

import pytest

from invent_core.errors import LLMError
from invent_core.llm import LLMCache, Request, RetryPolicy, get_llm, user


def _default_content(body: dict) -> str:
    return f"answer seed={body.get('seed')} temp={body.get('temperature')}"


class FakeOpenAI:
    """A scripted OpenAI-compatible server: each POST gets the next action (else ``default``).

    Non-streamed and streamed (``"stream": true``, server-sent events) requests
    share the action names; ``content(body)`` is the text a good reply carries.
    """

    TRICKLE_BYTES = 60  # one every 0.2 s: 12 s, far past a 2 s deadline
    HANG_SECONDS = 30.0  # "hang": a reply that takes far longer than any Cancel may

    def __init__(self):
        self.actions: list[str] = []
        self.default = "ok"
        self.content = _default_content
        self.bodies: list[dict] = []
        self.headers: list[dict] = []
        self.hung_up = 0  # "hang" requests whose client closed the connection
        self.lock = threading.Lock()
        self.open = 0  # connections accepted and not yet handled to their end
        self.settle_waiters: list[threading.Event] = []  # see settle()
        self.stopping = threading.Event()
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _send(self, status, payload: bytes, headers=None, ctype="application/json"):
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(payload)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)

            def _trickle(self, ctype, tail: bytes):
                """Headers at once, then one byte every 0.2 s (a body that never seems stuck)."""
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(owner.TRICKLE_BYTES + len(tail)))
                self.end_headers()
                try:
                    for _ in range(owner.TRICKLE_BYTES):
                        if owner.stopping.is_set():
                            return
                        self.wfile.write(b"\n")
                        self.wfile.flush()
                        time.sleep(0.2)
                    self.wfile.write(tail)
                except OSError:  # the client gave up
                    self.close_connection = True

            def do_GET(self):
                self._send(
                    200,
                    json.dumps(
                        {"object": "list", "data": [{"id": "fake-model", "object": "model"}]}
                    ).encode(),
                )

            def do_POST(self):
                n = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(n)
                if len(raw) < n:  # the client stopped before the body's end: no request
                    self.close_connection = True
                    return
                body = json.loads(raw or b"{}")
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
                elif action == "slow":
                    time.sleep(1.5)
                    self._send(200, owner.completion(body))
                elif action == "hang":
                    self._hang(body)
                elif action == "drop":
                    self.close_connection = True
                    self.connection.shutdown(2)
                elif action == "html":
                    page = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
                    self._send(200, page, ctype="text/html")
                elif body.get("stream"):
                    self._stream(action, body)
                else:
                    self._reply(action, body)

            def _hang(self, body):
                """Reply after ``HANG_SECONDS`` unless the client closes the connection first."""
                end = time.monotonic() + owner.HANG_SECONDS
                while time.monotonic() < end and not owner.stopping.is_set():
                    ready, _, _ = select.select([self.connection], [], [], 0.05)
                    if ready and not self.connection.recv(1, socket.MSG_PEEK):
                        with owner.lock:  # the client hung up: a server stops generating here
                            owner.hung_up += 1
                        self.close_connection = True
                        return
                self._send(200, owner.completion(body))

            def _reply(self, action, body):
                """A non-streamed 200 reply: good, or malformed in the way ``action`` names."""
                if action == "badjson":
                    self._send(200, b'{"choices": [ {"mess')
                elif action == "trickle":
                    self._trickle("application/json", owner.completion(body))
                else:
                    self._send(200, owner.completion(body, action))

            def _stream(self, action, body):
                """A streamed 200 reply (SSE): good, or broken in the way ``action`` names."""
                if action == "trickle":
                    tail = b"".join(owner.sse_events(body, "ok"))
                    self._trickle("text/event-stream", tail)
                    return
                payload = b"".join(owner.sse_events(body, action))
                self._send(200, payload, ctype="text/event-stream")

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True

            def process_request(self, request, client_address):
                with owner.lock:  # in the serving thread, at once after the accept
                    owner.open += 1
                super().process_request(request, client_address)

            def shutdown_request(self, request):
                super().shutdown_request(request)
                with owner.lock:
                    owner.open -= 1

            def service_actions(self):
                """In the serving thread, between accepts: wake settle() once all is handled."""
                with owner.lock:
                    if not owner.settle_waiters or owner.open:
                        return
                    if select.select([self.socket], [], [], 0)[0]:  # a connection to accept
                        return
                    waiters, owner.settle_waiters = owner.settle_waiters, []
                for done in waiters:
                    done.set()

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_port}/v1"

    def completion(self, body: dict, action: str = "ok") -> bytes:
        content = self.content(body)
        message = {"role": "assistant", "content": content}
        if action == "nullcontent":
            message["content"] = None
        elif action == "emptycontent":
            message["content"] = ""
        elif action == "huge":
            message["content"] = "x" * 100_000
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        if body.get("n", 1) > 1:  # several choices of one prompt
            choices = [
                {
                    "index": k,
                    "message": {"role": "assistant", "content": self.choice_content(body, k)},
                    "finish_reason": "stop",
                }
                for k in range(body["n"])
            ]
            reply = {
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", "m"),
                "choices": choices[::-1],  # out of order: the client sorts by index
                "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10},
            }
            return json.dumps(reply).encode()
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
        reply = {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "m"),
            "choices": [] if action == "nochoices" else [choice],
            "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10},
        }
        return json.dumps(reply).encode()

    def choice_content(self, body: dict, k: int) -> str:
        return f"{self.content(body)} choice={k}"

    def sse_events(self, body: dict, action: str) -> list[bytes]:
        """Server-sent events of one streamed reply, two characters per chunk."""

        def chunk(delta: dict, finish=None, choices=True) -> bytes:
            event = {
                "id": "x",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": body.get("model", "m"),
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]
                if choices
                else [],
            }
            return b"data: " + json.dumps(event).encode() + b"\n\n"

        if body.get("n", 1) > 1:  # several choices, interleaved; choice k ends after k + 1 chunks
            return self.sse_choices(body)
        text = self.content(body)
        if action == "badjson":
            events = [chunk({"role": "assistant"}), b'data: {"choices": [ {"del\n\n']
        elif action == "nochoices":
            events = [chunk({}, choices=False) for _ in range(3)]
        elif action == "nullcontent":
            events = [chunk({"role": "assistant", "content": None}) for _ in range(3)]
            events.append(chunk({}, finish="stop"))
        elif action in ("emptycontent", "nocontent"):  # a stream that ends without any text
            events = [chunk({"role": "assistant", "content": ""}), chunk({}, finish="stop")]
        elif action == "errorevent":
            events = [b'data: {"error": {"message": "slot unavailable", "type": "server"}}\n\n']
        elif action == "nofinish":  # text, then the stream ends without a finish_reason
            events = [chunk({"role": "assistant"}), chunk({"content": text})]
        elif action == "huge":  # 100 kB, whatever max_tokens said
            events = [chunk({"content": "x" * 1000}) for _ in range(100)]
            events.append(chunk({}, finish="stop"))
        else:
            events = [chunk({"role": "assistant"})]
            events += [chunk({"content": text[i : i + 2]}) for i in range(0, len(text), 2)]
            events.append(chunk({}, finish="stop"))
        return [*events, b"data: [DONE]\n\n"]

    def sse_choices(self, body: dict) -> list[bytes]:
        """Streamed choices of one request: each ends on its own, the last one last."""
        n, events = body["n"], []
        texts = [self.choice_content(body, k) for k in range(n)]
        for step in range(n):
            for k in range(step, n):
                piece = texts[k][step * 3 : (step + 1) * 3] if k > step else texts[k][step * 3 :]
                choice = {"index": k, "delta": {"content": piece}, "finish_reason": None}
                if k == step:
                    choice["finish_reason"] = "stop"
                events.append(b"data: " + json.dumps({"choices": [choice]}).encode() + b"\n\n")
        usage = {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
        events.append(b"data: " + json.dumps({"choices": [], "usage": usage}).encode() + b"\n\n")
        return [*events, b"data: [DONE]\n\n"]

    @property
    def count(self) -> int:
        return len(self.bodies)

    def settle(self) -> None:
        """Wait until every connection made so far was handled to its end (each request counted).

        A request the client wrote just before it gave up is read by a server thread
        of its own, maybe after the client returned; once the client closed its
        connections (``llm.close()``) and this returns, :attr:`count` is final.
        """
        done = threading.Event()
        with self.lock:
            self.settle_waiters.append(done)
        assert done.wait(60), "a connection is still open: close the client first"

    def close(self):
        self.stopping.set()
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


@pytest.mark.parametrize("cached", [False, True])
def test_equal_requests_in_one_call_are_sent_once_and_share_the_answer(fake, tmp_path, cached):
    """Equal requests share a cache key: sent twice they could differ (two llama.cpp slots),
    and a re-run would read the first answer for both."""
    llm = make(fake, cache=LLMCache(tmp_path / "c.sqlite") if cached else None)
    a = Request(user("q"), temperature=1.0, seed=5, max_tokens=4, logprobs=True, top_logprobs=2)
    b = replace(a, replication=1)
    seen = []
    out = llm.complete_many([a, b, a, a, b], progress=lambda d, t: seen.append((d, t)))
    assert fake.count == 2
    assert [o.text for o in out] == [
        out[0].text,
        out[1].text,
        out[0].text,
        out[0].text,
        out[1].text,
    ]
    assert out[0].text != out[1].text and out[2] is not out[0]
    assert seen[0] == (0, 5) and seen[-1] == (5, 5)


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


# -- item 1 / 10: a reply that is not a usable completion is a failed request --------

BAD_REPLIES = ["badjson", "html", "nochoices", "nullcontent", "emptycontent"]
BAD_STREAMS = ["badjson", "html", "nochoices", "nullcontent", "nocontent", "errorevent", "nofinish"]


def _ask(llm, req, streamed: bool):
    if streamed:
        return llm.complete_until(req, lambda text: False, tag="test")
    return llm.complete_many([req])[0]


@pytest.mark.parametrize(
    ("bad", "streamed"),
    [(b, False) for b in BAD_REPLIES] + [(b, True) for b in BAD_STREAMS],
)
def test_bad_reply_fails_is_not_cached_and_is_asked_again(fake, tmp_path, bad, streamed):
    """All attempts malformed → LLMError, nothing cached; the server recovers → a request."""
    path = tmp_path / "c.sqlite"
    fake.default = bad
    llm = make(fake, cache=LLMCache(path))
    req = Request(user("What is the capital of France?"), temperature=0.7, max_tokens=16)
    with pytest.raises(LLMError, match="gave up after 4 attempts"):
        _ask(llm, req, streamed)
    assert fake.count == 4, "a malformed reply is retried like a 5xx"
    assert len(LLMCache(path)) == 0, "a malformed reply must never be cached"
    fake.default = "ok"
    again = _ask(make(fake, cache=LLMCache(path)), req, streamed)  # the same run, re-run
    assert fake.count == 5 and not again.cached
    assert again.text == _default_content(fake.bodies[-1])
    assert _ask(make(fake, cache=LLMCache(path)), req, streamed).cached
    assert fake.count == 5


def test_a_stream_cut_without_a_finish_reason_is_asked_again_never_cached(fake, tmp_path):
    """Stall mode streams every reply: one that ends without a finish reason was cut."""
    path = tmp_path / "c.sqlite"
    fake.actions = ["nofinish"]
    llm = make(fake, cache=LLMCache(path), stall_timeout=5.0)
    got = llm.complete(user("x"), max_tokens=16)
    assert fake.count == 2 and got.finish_reason == "stop" and fake.bodies[0]["stream"]
    fake.default = "nofinish"
    with pytest.raises(LLMError, match="without a finish_reason"):
        make(fake, cache=LLMCache(path), stall_timeout=5.0).complete(user("y"), max_tokens=16)
    assert len(LLMCache(path)) == 1  # only the complete reply


@pytest.mark.parametrize("stall", [None, 5.0])
def test_a_huge_reply_is_capped_used_and_never_cached(fake, tmp_path, caplog, stall):
    """100 kB for a 16-token answer: cut at the cap, said in the log, asked again next run."""
    from invent_core.llm.replies import REPLY_CAP, reply_cap

    path = tmp_path / "c.sqlite"
    fake.default = "huge"
    got = make(fake, cache=LLMCache(path), stall_timeout=stall).complete(user("x"), max_tokens=16)
    assert len(got.text) == reply_cap(16) < 100_000 and got.finish_reason == REPLY_CAP
    assert "the reply cap" in caplog.text and len(LLMCache(path)) == 0
    make(fake, cache=LLMCache(path), stall_timeout=stall).complete(user("x"), max_tokens=16)
    assert fake.count == 2  # not read back from the cache as if it were complete


@pytest.mark.parametrize("streamed", [False, True])
def test_bad_replies_back_off_like_server_errors(fake, streamed):
    fake.actions = ["nullcontent", "nullcontent", "ok"]
    policy = RetryPolicy(max_attempts=3, base_delay=0.2, max_delay=1.0, jitter=0.0)
    llm = make(fake, retry=policy)
    t0 = time.perf_counter()
    c = _ask(llm, Request(user("x")), streamed)
    assert c.text.startswith("answer") and fake.count == 3
    assert time.perf_counter() - t0 >= 0.2 + 0.4 - 0.02  # the same backoff as for a 500


def test_content_null_is_a_failed_request_not_an_empty_answer(fake):
    fake.default = "nullcontent"
    llm = make(fake)
    with pytest.raises(LLMError, match=r"no text \(finish_reason='stop'\)"):
        llm.complete(user("x"))
    fake.actions, fake.default = ["emptycontent"], "ok"
    assert llm.complete(user("x")).text.startswith("answer")  # "" was retried, not returned


def test_empty_text_with_logprobs_is_still_a_judgement(fake):
    """The P(True) judge reads the first token's alternatives, not the text."""
    fake.default = "emptycontent"
    c = make(fake).complete(user("Yes or No?"), logprobs=True, top_logprobs=2)
    assert c.text == "" and c.logprobs == [["Yes", -0.1], ["No", -2.5]] and fake.count == 1


def test_empty_reply_cached_by_an_older_version_is_asked_again(fake, tmp_path):
    from invent_core.llm import Completion

    cache = LLMCache(tmp_path / "c.sqlite")
    llm = make(fake, cache=cache)
    req = Request(user("q"))
    cache.put(llm.identity, req, Completion(""))  # what main cached after a bad reply
    assert llm.complete_many([req])[0].text.startswith("answer") and fake.count == 1


PARAPHRASES = (
    "1. Which city is the capital of France?\n"
    "2. What city serves as the capital of France?\n"
    "3. Name the capital city of France?\n"
)


@pytest.mark.parametrize("style", ["list", "single"])
def test_paraphrase_run_after_bad_replies_asks_the_server_again(fake, tmp_path, style):
    """A paraphrase run whose replies were all bad fails; re-run after recovery it succeeds."""
    from invent_core.perturb.paraphrase import paraphrase

    question = "What is the capital of France?"
    fake.content = lambda body: PARAPHRASES if style == "list" else PARAPHRASES.split("\n")[0][3:]
    fake.default = "nullcontent"
    path = tmp_path / "c.sqlite"
    kw = {"n": 3, "seed": 0, "style": style, "max_requests": 1}
    with pytest.raises(LLMError):
        paraphrase(question, llm=make(fake, cache=LLMCache(path)), **kw)
    failed = fake.count
    assert failed >= 4
    fake.default = "ok"
    out = paraphrase(question, llm=make(fake, cache=LLMCache(path)), **kw)
    assert len(out) == 3 and fake.count > failed, "the re-run must reach the server"


# -- item 15: a total deadline per request ------------------------------------------


@pytest.mark.parametrize("streamed", [False, True])
def test_trickling_server_is_cut_at_the_deadline(fake, streamed):
    """One byte every 0.2 s never trips a per-read timeout; the 2 s total deadline does."""
    from invent_core.errors import LLMTimeout

    fake.default = "trickle"
    llm = make(fake, timeout=2.0, retry=RetryPolicy(max_attempts=2, base_delay=0.01))
    t0 = time.perf_counter()
    with pytest.raises(LLMTimeout, match=r"no complete reply within the 2 s deadline \(2 attempt"):
        _ask(llm, Request(user("x")), streamed)
    elapsed = time.perf_counter() - t0
    assert fake.count == 2 and 2 * 2.0 <= elapsed < 2 * 2.0 + 2.0, elapsed


def test_deadline_leaves_a_steady_reply_alone(fake):
    fake.actions = ["slow"]  # 1.5 s, then the whole reply
    assert make(fake, timeout=3.0).complete(user("x")).text.startswith("answer")
    assert fake.count == 1


def test_timeout_must_be_positive(fake):
    with pytest.raises(ValueError, match="timeout must be > 0"):
        make(fake, timeout=0)


def test_dead_server_is_an_llm_error():
    llm = get_llm(
        "openai", base_url="http://127.0.0.1:9/v1", model="m", cache=None, retry=FAST, timeout=2
    )
    with pytest.raises(LLMError, match=r"127\.0\.0\.1:9/v1: gave up after 4 attempts"):
        llm.complete(user("x"))


# -- item 16: credentials in the base URL -----------------------------------------------


def test_credentials_in_base_url_are_sent_never_shown_or_stored(fake, tmp_path, caplog):
    import base64
    import logging

    from invent_core.llm import redact_url

    secret_url = fake.base_url.replace("http://", "http://alice:sk-url-secret@")
    path = tmp_path / "c.sqlite"
    llm = get_llm(
        "openai", base_url=secret_url, model="fake-model", cache=LLMCache(path), retry=FAST
    )
    llm.complete(user("hi"))
    sent = fake.headers[0]["authorization"]
    assert sent == "Basic " + base64.b64encode(b"alice:sk-url-secret").decode()
    plain = make(fake, cache=LLMCache(path))
    assert llm.base_url == fake.base_url == redact_url(secret_url)
    assert llm.identity == plain.identity  # the same cache key as without credentials
    plain.complete(user("hi"))
    assert fake.count == 1, "the credentials are not part of the cache key"
    fake.default = "500"
    with caplog.at_level(logging.DEBUG), pytest.raises(LLMError) as info:
        llm.complete(user("other"))
    shown = " ".join([llm.base_url, llm.identity, repr(llm), str(info.value), caplog.text])
    assert "alice" not in shown and "sk-url-secret" not in shown
    stored = b"".join(f.read_bytes() for f in tmp_path.iterdir())
    assert fake.base_url.encode() in stored and b"sk-url-secret" not in stored


def test_credentials_never_reach_a_connection_error():
    llm = get_llm(
        "openai", base_url="http://bob:sk-dead@127.0.0.1:9/v1", model="m", cache=None, retry=FAST
    )
    with pytest.raises(LLMError) as info:
        llm.complete(user("x"))
    assert "sk-dead" not in str(info.value) and "bob" not in str(info.value)


def test_concurrency_zero_is_refused_not_replaced(fake):
    with pytest.raises(ValueError, match="concurrency must be >= 1, got 0"):
        make(fake, concurrency=0)


# -- item 5: a corrupt cache costs requests, never a failed request ------------------------


@pytest.mark.parametrize("damage", ["header", "page"])
def test_every_request_succeeds_through_a_corrupt_cache(fake, tmp_path, damage):
    import os
    import sqlite3

    from invent_core.errors import CacheWarning

    path = tmp_path / "c.sqlite"
    fake.content = lambda body: body["messages"][0]["content"] * 200  # ~1 kB rows: many pages
    reqs = [Request(user(f"q{i:03d} "), max_tokens=8) for i in range(150)]
    make(fake, cache=LLMCache(path), concurrency=4).complete_many(reqs)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    with open(path, "r+b") as fh:
        fh.seek(0 if damage == "header" else 4096 * 20)
        fh.write(os.urandom(4096))
    with pytest.warns(
        CacheWarning, match=r"c\.sqlite is corrupt .* moved it to c\.sqlite\.corrupt-"
    ):
        out = make(fake, cache=LLMCache(path), concurrency=4).complete_many(reqs)
    assert [c.text for c in out] == [f"q{i:03d} " * 200 for i in range(150)]
    assert fake.count > 150  # what the bad file held was asked again


# -- answers: stop strings, states, cancel ---------------------------


def test_stop_and_state_are_sent_and_keyed(fake, tmp_path):
    from invent_core.llm.base import state_seed

    llm = make(fake, cache=LLMCache(tmp_path / "c.sqlite"))
    req = Request(user("q"), temperature=0.7, seed=3, replication=1, state=2, stop=("\n",))
    c = llm.complete_many([req])[0]
    body = fake.bodies[0]
    assert body["stop"] == ["\n"] and body["seed"] == state_seed(3, 2, 1)
    assert c.text == f"answer seed={state_seed(3, 2, 1)} temp=0.7"
    # a duplicated perturbation (same text, another state) is a new request
    dup = Request(user("q"), temperature=0.7, seed=3, replication=1, state=5, stop=("\n",))
    assert llm.complete_many([dup])[0].text != c.text and fake.count == 2
    llm.complete_many([req, dup])
    assert fake.count == 2  # both cached now


def test_reply_that_starts_with_the_stop_string_is_asked_again_without_it(fake):
    def content(body):
        return "" if "stop" in body else "\nParis"

    fake.content = content
    llm = make(fake)
    c = llm.complete_many([Request(user("q"), stop=("\n",))])[0]
    assert c.text == "\nParis" and fake.count == 2
    assert "stop" in fake.bodies[0] and "stop" not in fake.bodies[1]


def test_cancelled_complete_many_sends_nothing_more(fake, tmp_path):
    from invent_core.errors import Cancelled
    from invent_core.progress import CancelToken

    token = CancelToken()
    cache = LLMCache(tmp_path / "c.sqlite")
    llm = make(fake, cache=cache, concurrency=2)
    reqs = [Request(user(f"q{i}")) for i in range(8)]

    def content(body):
        if len(fake.bodies) >= 2:
            token.cancel()  # the person presses Stop while the second request is answered
        return _default_content(body)

    fake.content = content
    with pytest.raises(Cancelled, match="cancelled after"):
        llm.complete_many(reqs, cancel=token)
    llm.close()  # what it wrote before it gave up is then all read by the server
    fake.settle()
    sent = fake.count
    assert 2 <= sent <= 3, sent  # at most one more was on its way when it was cancelled
    # every finished answer is kept; the one being answered at Cancel was cut (its connection
    # shut, so a real server stops generating it) and is asked again next time
    kept = len(cache)
    assert kept <= sent  # (both of the first two may have been in flight at Cancel)
    again = make(fake, cache=cache).complete_many(reqs)
    assert fake.count == sent + (8 - kept) and [c.cached for c in again].count(True) == kept


def test_cancel_between_the_check_and_the_write_sends_nothing(fake, monkeypatch):
    from invent_core.errors import Cancelled
    from invent_core.llm.openai_compat import OpenAICompatLLM
    from invent_core.progress import CancelToken

    token = CancelToken()
    llm = make(fake)
    kwargs = OpenAICompatLLM._kwargs

    def cancel_now(self, request):  # built after the last Cancel check, before the write
        token.cancel()
        return kwargs(self, request)

    monkeypatch.setattr(OpenAICompatLLM, "_kwargs", cancel_now)
    with pytest.raises(Cancelled):
        llm.complete_many([Request(user("q"))], cancel=token)
    llm.close()
    fake.settle()
    assert fake.count == 0  # the request was not written once its run was cancelled


def test_replications_of_one_prompt_go_as_one_request_with_n_choices(fake, tmp_path):
    from invent_core.llm import OpenAICompatLLM

    class Grouping(OpenAICompatLLM):
        max_choices = 4

    cache = LLMCache(tmp_path / "c.sqlite")
    llm = Grouping(base_url=fake.base_url, model="m", cache=cache, retry=FAST, concurrency=8)
    reqs = [
        Request(user(f"q{i}"), temperature=0.7, seed=3, replication=k, state=i, stop=("\n",))
        for i in range(2)
        for k in range(5)
    ]
    out = llm.complete_many(reqs)
    # per state: one request for 4 choices and one for the fifth (at most max_choices)
    assert sorted(b.get("n", 1) for b in fake.bodies) == [1, 1, 4, 4]
    group0 = next(b for b in fake.bodies if b.get("n") == 4 and "q0" in json.dumps(b))
    assert group0["seed"] == reqs[0].effective_seed  # the group's first replication's seed
    texts = [c.text for c in out]
    assert texts[:4] == [
        f"answer seed={reqs[0].effective_seed} temp=0.7 choice={k}" for k in range(4)
    ]
    assert len(set(texts)) == 10 and out[0].usage and out[1].usage == {}
    again = Grouping(base_url=fake.base_url, model="m", cache=cache, retry=FAST)
    assert [c.text for c in again.complete_many(reqs)] == texts and fake.count == 4
    # a group partly cached asks for the missing replications only
    more = [
        *reqs[:5],
        Request(user("q0"), temperature=0.7, seed=3, replication=5, state=0, stop=("\n",)),
    ]
    again.complete_many(more)
    assert fake.count == 5 and fake.bodies[-1].get("n", 1) == 1


def test_an_empty_choice_is_asked_again_on_its_own(fake):
    from invent_core.llm import OpenAICompatLLM

    class Grouping(OpenAICompatLLM):
        max_choices = 8

    fake.choice_content = lambda body, k: "" if k == 1 else f"text {k}"
    fake.content = lambda body: "" if "stop" in body else "\nalone"
    llm = Grouping(base_url=fake.base_url, model="m", cache=None, retry=FAST)
    reqs = [Request(user("q"), replication=k, stop=("\n",)) for k in range(3)]
    out = llm.complete_many(reqs)
    assert [c.text for c in out] == ["text 0", "\nalone", "text 2"]
    assert fake.bodies[0]["n"] == 3 and "n" not in fake.bodies[1]


def test_states_with_the_same_text_go_as_one_request(fake):
    """A perturbation padded by duplication: its states' replications share one prompt evaluation."""
    from invent_core.llm import OpenAICompatLLM

    class Grouping(OpenAICompatLLM):
        max_choices = 8

    llm = Grouping(base_url=fake.base_url, model="m", cache=None, retry=FAST)
    reqs = [
        Request(user(text), temperature=0.7, seed=3, replication=k, state=i, stop=("\n",))
        for i, text in enumerate(["q", "p", "p", "p"])
        for k in range(2)
    ]
    out = llm.complete_many(reqs)
    assert sorted(b.get("n", 1) for b in fake.bodies) == [2, 6]  # q's two; p's three states
    assert len({c.text for c in out[2:]}) == 6  # six distinct choices for the three copies


@pytest.mark.parametrize("grouped", [False, True])
def test_cancel_cuts_the_requests_in_flight_within_a_second(fake, grouped):
    """A slow server: Cancel shuts the connections of the requests waiting for it, none retried."""
    from invent_core.errors import Cancelled
    from invent_core.llm import OpenAICompatLLM
    from invent_core.progress import CancelToken

    class Grouping(OpenAICompatLLM):
        max_choices = 4 if grouped else 1

    fake.default = "hang"
    token = CancelToken()
    llm = Grouping(base_url=fake.base_url, model="m", cache=None, retry=FAST, timeout=60.0)
    reqs = [Request(user(f"q{i % 2}"), replication=i // 2, state=i % 2) for i in range(4)]
    threading.Timer(0.5, token.cancel).start()
    t0 = time.monotonic()
    with pytest.raises(Cancelled):
        llm.complete_many(reqs, cancel=token)
    took = time.monotonic() - t0
    assert took < 2.0, took  # the reply would take 30 s
    deadline = time.monotonic() + 2.0
    while fake.hung_up < fake.count and time.monotonic() < deadline:
        time.sleep(0.05)
    assert fake.count == (2 if grouped else 4) and fake.hung_up == fake.count  # no retry


def test_cancel_of_a_run_returns_quickly_on_a_slow_server(fake, tmp_path):
    """run_question through the request pool: Cancel while the paraphrase request hangs."""
    from invent_core.config import RunConfig
    from invent_core.engine.pipeline import run_question
    from invent_core.errors import Cancelled
    from invent_core.progress import CancelToken

    fake.default = "hang"
    token = CancelToken()
    llm = make(fake, timeout=60.0, concurrency=4)
    cfg = RunConfig(n_perturbations=2, n_replications=2)
    threading.Timer(0.5, token.cancel).start()
    t0 = time.monotonic()
    with pytest.raises(Cancelled, match="cancelled after 0 of"):
        run_question("What is the capital of France?", cfg, llm=llm, cancel=token)
    took = time.monotonic() - t0
    assert took < 3.0, took
    assert fake.count >= 1 and fake.count <= 4  # the paraphrase list and the original's answers


def test_streamed_choices_are_counted_as_each_one_ends(fake):
    """A backend that streams the choices of a request counts every answer, not the group."""
    from invent_core.llm import OpenAICompatLLM

    class Streaming(OpenAICompatLLM):
        max_choices = 4
        streams_choices = True

    fake.choice_content = lambda body, k: f"answer number {k} " + "x" * (3 * k)
    llm = Streaming(base_url=fake.base_url, model="m", cache=None, retry=FAST)
    reqs = [Request(user("q"), replication=k, stop=("\n",)) for k in range(4)]
    seen = []
    out = llm.complete_many(reqs, lambda d, t: seen.append((d, t)))
    assert seen == [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4)]
    assert [c.text for c in out] == [f"answer number {k} " + "x" * (3 * k) for k in range(4)]
    assert fake.bodies[0]["stream"] and fake.bodies[0]["n"] == 4 and fake.count == 1
    assert out[0].usage == {"prompt_tokens": 7, "completion_tokens": 3} and out[1].usage == {}
