"""A loopback OpenAI-compatible server that answers every request after a fixed delay.

It stands in for a vLLM / SGLang / llama.cpp cluster whose latency does not
depend on load, so a benchmark measures the *client*: how full it keeps the
request pool. Paraphrase requests (the paper's prompt, "Please Provide N
paraphrases for this sentence: S") get N distinct rewordings of S that keep
its words (so they pass the validity gate); every other request gets a short
answer drawn from the request's seed. Chat completions, streamed or not, and
``GET /v1/models`` are served; nothing else.

    with LoopbackServer(delay=0.5) as srv:
        srv.base_url   # http://127.0.0.1:PORT/v1
        srv.requests   # chat completions served so far

Options make it a server with a capacity: ``slots`` answers that many at once
and queues the rest (a GPU server's batch: latency grows with load), ``limit``
answers 429 with ``Retry-After: retry_after`` to any request above that many
in flight (a gateway that throttles), ``model`` is the name it serves.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_PARAPHRASE = re.compile(r"Please Provide (\d+) paraphrases? for this sentence: (.*)", re.S)
_LEADS = (
    "Can you tell me: {q}",
    "Do you know: {q}",
    "I would like to know: {q}",
    "Tell me: {q}",
    "Quick question: {q}",
    "Here is my question: {q}",
    "Could you say: {q}",
    "Please answer: {q}",
    "I wonder: {q}",
    "Help me out: {q}",
)
_ANSWERS = ("Paris", "London", "Tom Watson", "42", "Jupiter", "Mozart", "B")


def reply_text(messages: list[dict[str, Any]], seed: int) -> str:
    """What the fake model says to ``messages``."""
    last = str(messages[-1].get("content", "")) if messages else ""
    m = _PARAPHRASE.search(last)
    if m:
        n, q = int(m.group(1)), m.group(2).strip()
        return "\n".join(f"{i + 1}. {_LEADS[i % len(_LEADS)].format(q=q)}" for i in range(n))
    return _ANSWERS[seed % len(_ANSWERS)]


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _json(
        self, code: int, payload: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        body = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        srv = self.server
        if self.path.rstrip("/").endswith("/stats"):  # what LoopbackProcess reads
            self._json(
                200,
                {
                    "requests": srv.requests,
                    "max_in_flight": srv.max_in_flight,
                    "throttled": srv.throttled,
                },
            )
            return
        self._json(200, {"object": "list", "data": [{"id": srv.model, "object": "model"}]})

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        length = int(self.headers.get("Content-Length", 0))
        req = json.loads(self.rfile.read(length) or b"{}")
        srv = self.server
        if not srv.enter():
            message = {"error": {"message": f"more than {srv.limit} requests in flight"}}
            self._json(429, message, {"Retry-After": f"{srv.retry_after:g}"})
            return
        try:
            with srv.slots:
                time.sleep(srv.delay)
            text = reply_text(req.get("messages", []), int(req.get("seed") or 0))
        finally:
            srv.leave()
        if req.get("stream"):
            self._stream(text)
        else:
            self._json(200, completion_body(text, srv.model))

    def _stream(self, text: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for chunk in (text, None):
            delta = {"content": chunk} if chunk is not None else {}
            finish = None if chunk is not None else "stop"
            ev = {
                "id": "x",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": self.server.model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            self.wfile.write(f"data: {json.dumps(ev)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")


def completion_body(text: str, model: str = "loopback") -> dict[str, Any]:
    return {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13},
    }


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def __init__(
        self,
        delay: float,
        *,
        model: str = "loopback",
        slots: int = 0,
        limit: int = 0,
        retry_after: float = 1.0,
    ) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.delay = delay
        self.model = model
        self.limit, self.retry_after = limit, retry_after
        self.slots: Any = threading.Semaphore(slots) if slots else contextlib.nullcontext()
        self.requests = 0  # answered or being answered (not the 429s)
        self.throttled = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()

    def enter(self) -> bool:
        """Count a request in; False (and counted as throttled) above ``limit`` in flight."""
        with self._lock:
            if self.limit and self.in_flight >= self.limit:
                self.throttled += 1
                return False
            self.requests += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            return True

    def leave(self) -> None:
        with self._lock:
            self.in_flight -= 1


class LoopbackServer:
    """Context manager running :class:`_Server` in a thread on 127.0.0.1."""

    def __init__(self, delay: float = 0.5, **options: Any) -> None:
        self._srv = _Server(delay, **options)
        self._thread = threading.Thread(target=self._srv.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._srv.server_address[1]}/v1"

    @property
    def requests(self) -> int:
        return self._srv.requests

    @property
    def max_in_flight(self) -> int:
        return self._srv.max_in_flight

    @property
    def throttled(self) -> int:
        return self._srv.throttled

    def __enter__(self) -> LoopbackServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._srv.shutdown()
        self._srv.server_close()


class LoopbackProcess:
    """The same server in a process of its own (what a benchmark should use).

    In a thread, the server's HTTP handling takes the client's GIL, so a
    benchmark of the client would partly measure the server. Its counters
    are read over HTTP (``GET /stats``).
    """

    def __init__(self, delay: float = 0.5, **options: Any) -> None:
        self.delay = delay
        self.options = options  # model, slots, limit, retry_after: as _Server takes them
        self._proc: Any = None
        self._port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._port}/v1"

    def _stats(self) -> dict[str, int]:
        import urllib.request

        with urllib.request.urlopen(f"{self.base_url}/stats", timeout=10) as resp:
            return json.loads(resp.read())

    @property
    def requests(self) -> int:
        return self._stats()["requests"]

    @property
    def max_in_flight(self) -> int:
        return self._stats()["max_in_flight"]

    @property
    def throttled(self) -> int:
        return self._stats()["throttled"]

    def __enter__(self) -> LoopbackProcess:
        import subprocess
        import sys

        argv = [sys.executable, __file__, "--delay", str(self.delay)]
        for name, value in self.options.items():
            argv += [f"--{name.replace('_', '-')}", str(value)]
        self._proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
        self._port = int(self._proc.stdout.readline())
        return self

    def kill(self) -> None:
        """Kill the server at once (SIGKILL): its connections drop, new ones are refused."""
        self._proc.kill()
        self._proc.wait(timeout=10)

    def __exit__(self, *exc: Any) -> None:
        if self._proc.poll() is None:
            self._proc.terminate()
        self._proc.wait(timeout=10)


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description="serve the loopback model on 127.0.0.1")
    ap.add_argument("--delay", type=float, default=0.5)
    ap.add_argument("--model", default="loopback", help="the model name it serves")
    ap.add_argument("--slots", type=int, default=0, help="answers at once, the rest queue (0: all)")
    ap.add_argument("--limit", type=int, default=0, help="429 above this many in flight (0: none)")
    ap.add_argument("--retry-after", type=float, default=1.0, help="seconds its 429 asks to wait")
    a = ap.parse_args()
    srv = _Server(a.delay, model=a.model, slots=a.slots, limit=a.limit, retry_after=a.retry_after)
    print(srv.server_address[1], flush=True)
    srv.serve_forever()
