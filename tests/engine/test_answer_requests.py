"""Answers asked while the gate still re-asks are the answers of a run that waits for every rewording.

A real OpenAI-compatible server on 127.0.0.1 (:class:`CannedServer`) answers
deterministically from each request's text and seed: the first paraphrase
reply holds one rewording the gate keeps and answers it rejects, so the gate
asks again; a re-ask holds more rewordings. The same question runs through
the real engine, the real gate and the packaged MiniLM with the stages
overlapped (the default) and one after the other (``overlap=False``), and the
two runs must be the same run.
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from invent_core.config import RunConfig
from invent_core.engine.answers import critical_path
from invent_core.engine.pipeline import run_question
from invent_core.llm import get_llm

Q = "What is the capital city of France?"
_PARAPHRASE = re.compile(r"Please Provide (\d+) paraphrases? for this sentence: (.*)", re.S)
#: The one rewording of the first reply the gate keeps: its answers are the ones to watch.
FIRST = "Can you tell me: {q}"
#: Leads of the re-asks' rewordings, one list per re-ask.
LATER = ("Do you know: {q}", "I would like to know: {q}", "Quick question: {q}", "I wonder: {q}")
ANSWERS = ("Paris", "Lyon", "Paris", "Marseille", "Paris, France")


class CannedServer:
    """Chat completions (streamed or not) from the request alone: text and seed, never timing.

    With ``hold_reask``, a re-ask (a paraphrase request after the first) is
    answered only once an answer request for the first reply's kept rewording
    has come in (at most ``hold_s`` seconds; ``held_in_vain`` says whether it
    never came): a run that answered nothing before the gate's last re-ask
    would wait out the limit and be seen to.
    """

    def __init__(self, *, hold_reask: bool = False, hold_s: float = 60.0) -> None:
        self.hold_reask, self.hold_s = hold_reask, hold_s
        self.paraphrase_requests = 0
        self.held_in_vain = False
        self.first_answered = threading.Event()
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                self._send({"object": "list", "data": [{"id": "canned", "object": "model"}]})

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                text = owner.reply(body.get("messages", []), int(body.get("seed") or 0))
                if body.get("stream"):
                    self._stream(text)
                else:
                    message = {"role": "assistant", "content": text}
                    choice = {"index": 0, "message": message, "finish_reason": "stop"}
                    usage = {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}
                    self._send({"id": "x", "object": "chat.completion", "created": 0,
                                "model": "canned", "choices": [choice], "usage": usage})  # fmt: skip

            def _send(self, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, text: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for delta, finish in (({"content": text}, None), ({}, "stop")):
                    choice = {"index": 0, "delta": delta, "finish_reason": finish}
                    event = {"id": "x", "object": "chat.completion.chunk", "created": 0,
                             "model": "canned", "choices": [choice]}  # fmt: skip
                    self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_port}/v1"

    def reply(self, messages: list[dict], seed: int) -> str:
        """What the canned model says: a function of the last message and the seed."""
        last = str(messages[-1].get("content", "")) if messages else ""
        m = _PARAPHRASE.search(last)
        if m:
            return self._paraphrases(int(m.group(1)), m.group(2).strip())
        if "ask for exactly the same answer" in last:  # the gate's meaning check
            return "Yes"
        if FIRST.format(q="").strip() in last:
            self.first_answered.set()
        return ANSWERS[seed % len(ANSWERS)]

    def _paraphrases(self, n: int, q: str) -> str:
        with self._lock:
            k, self.paraphrase_requests = self.paraphrase_requests, self.paraphrase_requests + 1
        if k == 0:  # one keeper; the rest are answers, which the gate rejects
            items = [FIRST.format(q=q), *["The capital of France is Paris."] * (n - 1)]
        else:
            if self.hold_reask and not self.first_answered.wait(self.hold_s):
                self.held_in_vain = True
            items = [LATER[(k - 1) % len(LATER)].format(q=q), "Paris is the capital."]
        return "\n".join(f"{i + 1}. {t}" for i, t in enumerate(items))

    def __enter__(self) -> CannedServer:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


CFG = RunConfig(n_perturbations=3, n_replications=3).replace(n_bootstrap=20)


def _run(server: CannedServer, minilm, *, overlap: bool):
    llm = get_llm("openai", base_url=server.base_url, model="canned", cache=None, concurrency=8)
    try:
        return run_question(Q, CFG, llm=llm, embedder=minilm, overlap=overlap)
    finally:
        llm.close()


def _same_run(run) -> dict:
    """The run as saved, less what says when and where it ran: timings, provenance, the port."""
    data = run.to_dict()
    for key in ("timings", "provenance", "identities"):
        data.pop(key, None)
    # when the answers came, not what they were
    data["usage"] = {k: v for k, v in data["usage"].items() if k != "answers_while_perturbing"}
    return data


@pytest.mark.slow
def test_answers_asked_while_the_gate_reasks_are_the_answers_of_the_sequential_run(minilm):
    with CannedServer(hold_reask=True) as overlapped_server:
        overlapped = _run(overlapped_server, minilm, overlap=True)
    with CannedServer() as sequential_server:
        sequential = _run(sequential_server, minilm, overlap=False)
    # the gate asked again, and the kept rewording's answers reached the server first
    assert overlapped_server.paraphrase_requests >= 2
    assert not overlapped_server.held_in_vain
    assert overlapped.perturbations[0] == FIRST.format(q=Q)
    assert sequential_server.paraphrase_requests == overlapped_server.paraphrase_requests
    assert _same_run(overlapped) == _same_run(sequential)
    assert len(set(overlapped.perturbations)) == 3  # kept in two rounds, no copy
    # the sequential run answered nothing while perturbing; the overlapped one did
    assert sequential.timings["answer_wait"] >= sequential.timings["generate"]
    assert critical_path(sequential.timings)["beside"] == 0.0
    assert sequential.usage["answers_while_perturbing"] == 0
    assert critical_path(overlapped.timings)["beside"] > 0.0


def test_the_critical_path_is_what_the_run_waited_on():
    timings = {"perturb": 4.0, "generate": 5.0, "answer_wait": 1.5, "score": 0.5, "total": 6.2}
    path = critical_path(timings)
    assert path == {
        "perturb": 4.0,
        "answer_wait": 1.5,
        "score": 0.5,
        "path": 6.0,
        "beside": 3.5,  # answers asked while the perturber worked
    }
    # a run saved before answer_wait was recorded: all of its answering was waited for
    old = critical_path({"perturb": 4.0, "generate": 5.0, "score": 0.5})
    assert old["answer_wait"] == 5.0 and old["beside"] == 0.0 and old["path"] == 9.5
