"""Reasoning models: traces split from answers, kept in the artefact; the thinking switch sent.

The server is a real HTTP server on 127.0.0.1 that answers like vLLM with a
reasoning model: ``<think>`` in the text, or ``reasoning_content`` beside it;
one variant refuses any unknown field with a 400, as strict servers do.
"""

from __future__ import annotations

import http.server
import json
import threading

import pytest

from invent_core.llm import LLMCache, Request, get_llm, user
from invent_core.llm.thinking import join_thinking, split_thinking
from invent_core.responses.cleaning import clean_response


@pytest.mark.parametrize(
    ("text", "reasoning", "answer", "thinking"),
    [
        ("<think>2+2 is 4</think>\n\n4", None, "4", "2+2 is 4"),
        ("<THINK>a</THINK>Paris<think>b</think>", None, "Paris", "a\n\nb"),
        ("the template opened it</think> Paris", None, "Paris", "the template opened it"),
        ("<think>ran out of tokens while", None, "", "ran out of tokens while"),
        ("Paris", "  it is the capital ", "Paris", "it is the capital"),
        ("  Paris\n", None, "  Paris\n", ""),  # no trace: the text as it came
    ],
)
def test_split_thinking(text, reasoning, answer, thinking):
    assert split_thinking(text, reasoning) == (answer, thinking)
    assert split_thinking(join_thinking(answer, thinking)) == (answer, thinking)


@pytest.mark.parametrize(
    ("text", "answer", "thinking"),
    [
        ("<thinking>step one</thinking>B", "B", "step one"),
        ("<Reasoning>why</Reasoning>\n42", "42", "why"),
        ("<think>a<think>inner</think>b</think>Paris", "Paris", "a<think>inner</think>b"),
        ("<think>x<thinking>y</thinking></think> 7 ", "7", "x<thinking>y</thinking>"),
        ("Paris\n<think>I was sure of it</think>", "Paris", "I was sure of it"),
        ("Paris <think>cut off after the answer", "Paris", "cut off after the answer"),
        ("<think>one</think>Paris<think>two", "Paris", "one\n\ntwo"),
        ("opened by the template</think>Rome</think>", "Rome", "opened by the template"),
        ("<thinking>never closed<think>deeper</think>", "", "never closed<think>deeper</think>"),
        ("4 < 5 and 7 > 3", "4 < 5 and 7 > 3", ""),  # comparison signs are no tags
    ],
)
def test_every_form_of_trace_is_kept_out_of_the_answer(text, answer, thinking):
    assert split_thinking(text) == (answer, thinking)
    got, _ = split_thinking(text)
    assert "<think" not in got.lower() and "</" not in got


def test_cleaning_drops_a_trace_in_answers_read_from_a_file():
    assert clean_response("<think>\nFrance... capital\n</think>\n\nParis.") == "Paris"
    assert clean_response("<think>never closed") == ""


class Server:
    """A loopback chat-completions server; ``mode``: "tags", "field" or "strict" (400 on extras)."""

    def __init__(self, mode: str):
        self.mode, self.bodies = mode, []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.bodies.append(body)
                status, payload = outer.reply(body)
                data = json.dumps(payload).encode()
                self.send_response(status)
                for key, value in (
                    ("Content-Type", "application/json"),
                    ("Content-Length", len(data)),
                ):
                    self.send_header(key, str(value))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def reply(self, body: dict) -> tuple[int, dict]:
        if self.mode == "strict" and "chat_template_kwargs" in body:
            return 400, {
                "error": {"message": "Unrecognized request argument: chat_template_kwargs"}
            }
        question = body["messages"][-1]["content"]
        think = (body.get("chat_template_kwargs") or {}).get("enable_thinking", True)
        trace = f"Let me think about {question!r}." if think else ""
        message = {"role": "assistant", "content": "Paris"}
        if trace and self.mode == "field":
            message["reasoning_content"] = trace
        elif trace:
            message["content"] = f"<think>{trace}</think>\n\nParis"
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        usage = {"prompt_tokens": 5, "completion_tokens": 9, "total_tokens": 14}
        return 200, {"id": "x", "object": "chat.completion", "created": 0, "model": "qwen3",
                     "choices": [choice], "usage": usage}  # fmt: skip

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server(request):
    srv = Server(request.param)
    yield srv
    srv.close()


def llm_for(srv: Server, cache, *, thinking: bool):
    return get_llm("openai", base_url=srv.url, model="qwen3", cache=cache, thinking=thinking)


@pytest.mark.parametrize("server", ["tags", "field"], indirect=True)
def test_traces_are_stripped_and_kept_and_the_switch_is_sent(server, tmp_path):
    cache = LLMCache(tmp_path / "c.sqlite")
    on = llm_for(server, cache, thinking=True)
    got = on.complete(user("Capital of France?"))
    assert got.text == "Paris" and got.thinking == "Let me think about 'Capital of France?'."
    assert server.bodies[-1]["chat_template_kwargs"] == {"enable_thinking": True}
    again = llm_for(server, cache, thinking=True).complete(user("Capital of France?"))
    assert again.cached and (again.text, again.thinking) == (got.text, got.thinking)
    off = llm_for(server, cache, thinking=False)
    assert off.identity == on.identity.removesuffix("|thinking=on") != on.identity
    plain = off.complete(user("Capital of France?"))  # not the cached answer made thinking
    assert not plain.cached and (plain.text, plain.thinking) == ("Paris", "")
    assert server.bodies[-1]["chat_template_kwargs"] == {"enable_thinking": False}
    assert len(server.bodies) == 2


@pytest.mark.parametrize("server", ["strict"], indirect=True)
def test_a_server_that_refuses_the_field_is_asked_without_it_and_remembered(server):
    llm = llm_for(server, None, thinking=False)
    assert llm.complete(user("Capital of France?")).text == "Paris"
    assert ["chat_template_kwargs" in b for b in server.bodies] == [True, False]
    requests = [Request(messages=user(f"Q{k}?"), seed=k) for k in range(3)]
    assert [c.text for c in llm.complete_many(requests)] == ["Paris"] * 3
    assert len(server.bodies) == 5 and not any(
        "chat_template_kwargs" in b for b in server.bodies[1:]
    )


class Suffix:
    """A perturber that needs no LLM: the question with a word added."""

    name, label, needs_llm = "thinking-test-suffix", "Question with a word added", False

    def perturb(self, question, config, *, llm=None, embedder=None, progress=None, on_accept=None):
        from invent_core.perturb import PerturbResult

        words = ["please", "now", "today", "quickly"][: config.n_perturbations]
        return PerturbResult([f"{question} {w}" for w in words])


@pytest.mark.parametrize("server", ["tags"], indirect=True)
def test_a_run_keeps_the_traces_beside_the_answers(server, minilm, tmp_path):
    from invent_core import run_question
    from invent_core.config import RunConfig
    from invent_core.perturb import available_perturbers, register_perturber

    if Suffix.name not in available_perturbers():
        register_perturber(Suffix())
    llm = llm_for(server, LLMCache(tmp_path / "c.sqlite"), thinking=True)
    config = RunConfig(perturber=Suffix.name, n_perturbations=2, n_replications=2)
    run = run_question(
        "Capital of France?", config.replace(n_bootstrap=5), llm=llm, embedder=minilm
    )
    assert run.responses == [["Paris"] * 2] * 3
    assert run.raw_responses == [["Paris"] * 2] * 3  # what is cleaned and embedded holds no trace
    assert [r[0] for r in run.thinking] == [f"Let me think about {q!r}." for q in run.prompts]
    saved = json.loads(run.to_json())
    assert saved["thinking"] == run.thinking and saved["identities"]["llm"].endswith("thinking=on")
