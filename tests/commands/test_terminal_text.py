"""Text from a model or a server reaches the terminal as text, never as terminal commands.

A real OpenAI-compatible server on 127.0.0.1 answers with escape sequences
(a screen clear, a window title, colours, an 8-bit CSI); ``run`` in a real
process prints the rewordings and answers without any of them.
"""

from __future__ import annotations

import io

from test_batch_faults import cli
from test_llm_http import FakeOpenAI

from invent_core.commands.terminal import TerminalSafe, printable

TITLE = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J\x1b[H"


def _content(body: dict) -> str:
    prompt = body["messages"][-1]["content"]
    if prompt.startswith("Please Provide"):
        q = prompt.split(": ", 1)[1]
        return f"1. {TITLE}Could you tell me: {q}\n2. I would like to know:\x9b31m {q}"
    return f"{CLEAR}\x1b[31mParis\x1b[0m\x07"


def test_escape_sequences_from_a_server_are_not_printed():
    fake = FakeOpenAI()
    fake.content = _content
    try:
        proc = cli(
            "run",
            "What is the capital of France?",
            "--llm", "openai", "--base-url", fake.base_url, "--model", "fake-model",
            "--no-cache", "-n", "2", "-r", "2", "-B", "5",
            timeout=600,
        )  # fmt: skip
    finally:
        fake.close()
    assert proc.returncode == 0, proc.stderr
    for text in (proc.stdout, proc.stderr):
        assert not any(c in text for c in "\x1b\x07\x9b"), repr(text[:400])
    assert "Paris | Paris" in proc.stdout
    reworded = [ln for ln in proc.stdout.splitlines() if ln.startswith("   1. ")]
    assert reworded and "capital of France?" in reworded[0], proc.stdout


def test_printable_keeps_text_line_breaks_and_tabs():
    assert printable("a\tb\n\x1b[1mc\x1b[0m\x00\x7f\r") == "a\tb\nc"
    assert printable("OSC 52 \x1b]52;c;ZXZpbA==\x1b\\done") == "OSC 52 done"
    out = io.StringIO()
    safe = TerminalSafe(out)
    safe.write("\r3/10 rows" + TITLE)  # our own progress line keeps its carriage return
    safe.write("error: server said \x1b[2Jhi\n")
    assert out.getvalue() == "\r3/10 rowserror: server said hi\n"
