"""Credentials of a served model: sent where they belong, never shown, saved, hashed or logged.

Against a real HTTP server on 127.0.0.1 (``tests/secret_server.py``) whose
errors echo the request's Authorization header and URL.
"""

from __future__ import annotations

import logging
import sqlite3
import traceback

import pytest
from secret_server import SecretServer

from invent_core.errors import LLMError
from invent_core.llm import LLMCache, OpenAICompatLLM, RetryPolicy, user
from invent_core.llm.specs import api_key_from, key_env_problem

KEY = "sk-test-4hJ9qL2mN8pR5tV1wX7z"  # what the user's variable holds
FAST = RetryPolicy(max_attempts=2, base_delay=0.01, max_delay=0.02)


def _all_text(err: BaseException, caplog) -> str:
    """Everything a person could be shown of ``err``: str, repr, traceback, and the log."""
    shown = "".join(traceback.format_exception(err))
    return "\n".join([str(err), repr(err), shown, caplog.text])


@pytest.mark.parametrize(("status", "mode"), [(400, "echo"), (500, "echo"), (500, "redirect")])
def test_a_server_echoing_the_key_does_not_put_it_in_the_error(status, mode, caplog):
    caplog.set_level(logging.DEBUG)
    with SecretServer(mode, status=status, url_secret="tok-Q7w8e9r0t1y2") as srv:
        llm = OpenAICompatLLM(base_url=srv.base_url, model="m", api_key=KEY, retry=FAST)
        with pytest.raises(LLMError) as got:
            llm.complete(user("What is 2 plus 2?"), max_tokens=4)
        llm.close()
        assert srv.chats(), "the request reached the server"
        assert all(r["headers"]["authorization"] == f"Bearer {KEY}" for r in srv.chats())
    text = _all_text(got.value, caplog)
    assert KEY not in text and "tok-Q7w8e9r0t1y2" not in text
    assert "***" in str(got.value)  # the server's message is still shown, its secret masked


def test_credentials_in_the_url_are_sent_but_never_part_of_the_identity(tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    with SecretServer("answer") as srv:
        host = srv.base_url.removeprefix("http://")
        url = f"http://me:pw-9Zx8Yc7Wv6@{host}?api-version=1&key=qk-5Tg6Yh7Uj8"
        cache = LLMCache(tmp_path / "cache.sqlite")
        llm = OpenAICompatLLM(base_url=url, model="m", api_key=KEY, cache=cache)
        plain = OpenAICompatLLM(base_url=f"{srv.base_url}?api-version=1", model="m")
        assert llm.identity == plain.identity  # one server, whatever credentials reach it
        llm.complete(user("What is 2 plus 2?"), max_tokens=4)
        llm.close()
        cache.close()
        sent = srv.chats()[0]
    assert "key=qk-5Tg6Yh7Uj8" in sent["path"] and "api-version=1" in sent["path"]
    assert sent["headers"]["authorization"].startswith("Basic ")  # the URL's user:password
    shown = " ".join([llm.identity, llm.base_url, repr(llm), caplog.text])
    for secret in ("pw-9Zx8Yc7Wv6", "qk-5Tg6Yh7Uj8", KEY):
        assert secret not in shown
        assert secret.encode() not in (tmp_path / "cache.sqlite").read_bytes()
    with sqlite3.connect(tmp_path / "cache.sqlite") as db:  # and no row names them
        rows = " ".join(map(str, db.execute("SELECT * FROM sqlite_master").fetchall()))
    assert "qk-5Tg6Yh7Uj8" not in rows


def test_a_named_variable_is_the_only_source_of_the_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-other-0000111122223333")
    monkeypatch.setenv("MY_SERVER_KEY", KEY)
    assert api_key_from("MY_SERVER_KEY") == KEY
    monkeypatch.delenv("MY_SERVER_KEY")
    with pytest.raises(
        ValueError, match=r"--api-key-env MY_SERVER_KEY: \$MY_SERVER_KEY is not set"
    ):
        api_key_from("MY_SERVER_KEY")  # never $OPENAI_API_KEY instead
    monkeypatch.setenv("MY_SERVER_KEY", "")
    with pytest.raises(ValueError, match=r"\$MY_SERVER_KEY is empty"):
        api_key_from("MY_SERVER_KEY")
    assert api_key_from(None) == "sk-other-0000111122223333"  # none named: the default one
    monkeypatch.delenv("OPENAI_API_KEY")
    assert api_key_from(None) is None  # a local server may need no key


@pytest.mark.parametrize(
    "typed", [KEY, "sk_live_abcdef1234567890", "ghp_abcdefghijklmnop1234", "my key=1"]
)
def test_a_key_typed_as_the_variable_name_is_never_repeated(typed):
    assert key_env_problem(typed).startswith("looks like a key")
    with pytest.raises(ValueError) as got:
        api_key_from(typed)
    assert typed not in str(got.value) and "looks like a key" in str(got.value)
