"""A real OpenAI-compatible server on 127.0.0.1 that streams its reply one token at a time.

``python tests/llm/slow_stream_server.py GAP TOKENS STALL_AFTER`` serves
``/v1/chat/completions`` (streamed or not) in a process of its own and
prints its port: a token every ``GAP`` seconds, ``TOKENS`` of them, and,
when ``STALL_AFTER`` ≥ 0, silence (the connection open) after that many.
The stall tests run it in-thread (:class:`SlowStreamServer`) or as a
process they kill.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def _event(delta: dict, finish: str | None = None, n: int = 1) -> bytes:
    choices = [{"index": k, "delta": delta, "finish_reason": finish} for k in range(n)]
    body = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "slow"}
    return b"data: " + json.dumps({**body, "choices": choices}).encode() + b"\n\n"


class SlowStreamServer:
    """Streams ``tokens`` tokens ``gap`` s apart; after ``stall_after`` tokens (≥ 0) it goes silent."""

    def __init__(self, gap: float, tokens: int, stall_after: int = -1) -> None:
        self.gap, self.tokens, self.stall_after = gap, tokens, stall_after
        self.requests = 0
        self.stopping = threading.Event()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                body = json.dumps({"object": "list", "data": [{"id": "slow", "object": "model"}]})
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(body.encode())

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                owner.requests += 1
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                try:
                    owner.stream(self.wfile, bool(body.get("stream")), int(body.get("n", 1)))
                except OSError:  # the client gave up
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_port
        self.base_url = f"http://127.0.0.1:{self.port}/v1"

    def stream(self, out, streamed: bool, n: int = 1) -> None:
        """The reply: token by token (streamed; ``n`` choices alike), or the whole text at the end."""
        words = []
        for k in range(self.tokens):
            if k == self.stall_after:
                self.stopping.wait(3600)  # silent, the connection open, until the server closes
                return
            time.sleep(self.gap)
            words.append(f"w{k} ")
            if streamed:
                out.write(_event({"content": f"w{k} "}, n=n))
                out.flush()
        if streamed:
            out.write(_event({}, "stop", n) + b"data: [DONE]\n\n")
        else:
            message = {"role": "assistant", "content": "".join(words)}
            reply = {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
            out.write(json.dumps({"id": "x", "object": "chat.completion", **reply}).encode())

    def serve(self) -> SlowStreamServer:
        """Serve in a daemon thread."""
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def close(self) -> None:
        """Stop serving (a silent reply ends)."""
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()


if __name__ == "__main__":
    gap, tokens, stall_after = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    server = SlowStreamServer(gap, tokens, stall_after)
    print(server.port, flush=True)
    server.httpd.serve_forever()
