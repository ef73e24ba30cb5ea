"""A real OpenAI-compatible server on 127.0.0.1 that records every request and leaks secrets back.

It stands in for a server (or a gateway) whose error replies echo the request:
the ``Authorization`` header, the request's URL with its query string and any
``x-api-key``. A client that copies a server's error into its own messages
would then print and save the key. Modes:

- ``"answer"``: every chat completion answered (paraphrase prompts with their
  rewordings, other prompts with a short answer: ``benchmarks/loopback_server.py``);
- ``"echo"``: every chat completion fails with ``status`` (400: never retried;
  500: retried) and a body quoting the request's credentials;
- ``"redirect"``: a chat completion is first redirected (307) to a URL carrying
  ``?key=…&access_token=…``, where it then fails as ``"echo"``.

``GET …/models`` always lists one model (``model``).

    with SecretServer("echo") as srv:
        srv.base_url     # http://127.0.0.1:PORT/v1
        srv.seen         # [{"method", "path", "headers", "body"}, …]
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from loopback_server import completion_body, reply_text  # noqa: E402


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _send(self, code: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        body = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _record(self, body: Any) -> None:
        with self.server.lock:
            self.server.seen.append(
                {
                    "method": self.command,
                    "path": self.path,
                    "headers": {k.lower(): v for k, v in self.headers.items()},
                    "body": body,
                }
            )

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self._record(None)
        self._send(200, {"object": "list", "data": [{"id": self.server.model, "object": "model"}]})

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length) or b"{}")
        self._record(body)
        srv = self.server
        if srv.mode == "redirect" and "access_token=" not in self.path:
            where = f"{self.path}?key={srv.url_secret}&access_token={srv.url_secret}"
            self._send(307, {}, {"Location": where})
            return
        if srv.mode in ("echo", "redirect"):
            auth = self.headers.get("Authorization", "")
            message = (
                f"upstream refused the request: Authorization: {auth} (x-api-key="
                f"{auth.split(' ')[-1]}) for http://127.0.0.1:{srv.server_address[1]}{self.path}"
            )
            self._send(srv.status, {"error": {"message": message, "type": "invalid_request"}})
            return
        text = reply_text(body.get("messages", []), int(body.get("seed") or 0))
        if body.get("stream"):
            self._stream(text)
        else:
            self._send(200, completion_body(text, srv.model))

    def _stream(self, text: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for chunk in (text, None):
            finish = None if chunk is not None else "stop"
            delta = {"content": chunk} if chunk is not None else {}
            event = {"id": "x", "object": "chat.completion.chunk", "created": 0,
                     "model": self.server.model,
                     "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip
            self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")


class _Server(ThreadingHTTPServer):
    daemon_threads = True


class SecretServer:
    """Context manager running the recording server in a thread (see the module)."""

    def __init__(
        self, mode: str = "echo", *, status: int = 400, model: str = "m", url_secret: str = ""
    ) -> None:
        self._srv = _Server(("127.0.0.1", 0), _Handler)
        self._srv.mode, self._srv.status, self._srv.model = mode, status, model
        self._srv.url_secret = url_secret or "url-secret-0f9e8d7c6b5a"
        self._srv.seen, self._srv.lock = [], threading.Lock()
        self._thread = threading.Thread(target=self._srv.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._srv.server_address[1]}/v1"

    @property
    def seen(self) -> list[dict[str, Any]]:
        with self._srv.lock:
            return list(self._srv.seen)

    def chats(self) -> list[dict[str, Any]]:
        """The chat-completion requests received (not the model lists)."""
        return [r for r in self.seen if r["method"] == "POST"]

    def __enter__(self) -> SecretServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._srv.shutdown()
        self._srv.server_close()
