"""The key and the server of a served model, from the command line.

Against real HTTP servers on 127.0.0.1 (``tests/secret_server.py``) that record
what they receive and echo the Authorization header in their errors: the key
is read from the variable named and no other, never written to stderr or to
any file, and a served answer judge asks only the server the command names.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from secret_server import SecretServer

from invent_core.cli import main as invent

KEY = "sk-user-7Hq2Lm9Xp4Rt6Vw1Zb3N"  # the variable the user names holds this
DECOY = "sk-default-0Aa1Bb2Cc3Dd4Ee5"  # $OPENAI_API_KEY: must never be sent instead
URL_TOKEN = "urltok-5Nf6Gh7Jk8Lm"  # a gateway's ?token= in the URL


ROOT = Path(__file__).resolve().parents[2]


def cli(*args, env: dict[str, str]) -> subprocess.CompletedProcess:
    """``python -m invent_core ARGS`` in a process of its own, with ``env``."""
    env = {**env, "PYTHONPATH": str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")}
    command = [sys.executable, "-m", "invent_core", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)


def _leaks(folder: Path, *texts: str) -> list[str]:
    """Every file under ``folder`` (and each text given) that holds a secret."""
    found = []
    blobs = [(str(p), p.read_bytes()) for p in folder.rglob("*") if p.is_file()]
    blobs += [(f"text {i}", t.encode()) for i, t in enumerate(texts)]
    for where, blob in blobs:
        for secret in (KEY, DECOY, URL_TOKEN):
            if secret.encode() in blob:
                found.append(f"{where}: {secret}")
    return found


def _questions(folder: Path) -> Path:
    path = folder / "q.csv"
    path.write_text("id,question,answer\nq1,What is 2 plus 2?,4\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("command", ["run", "batch"])
def test_an_unset_key_variable_is_refused_before_anything(command, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", DECOY)
    monkeypatch.delenv("INVENT_TEST_NO_SUCH_KEY", raising=False)
    out = tmp_path / "out"
    where = ["What is 2 plus 2?", "--save", out / "run.json"]
    if command == "batch":
        where = [_questions(tmp_path), "-o", out / "scores.csv"]
    with SecretServer("answer") as srv:
        status = invent(
            [command, *map(str, where), "--llm", "openai", "--base-url", srv.base_url,
             "--model", "m", "--api-key-env", "INVENT_TEST_NO_SUCH_KEY"]
        )  # fmt: skip
        assert srv.seen == []  # nothing sent, not even the default variable's key
    err = capsys.readouterr().err
    assert status == 2
    assert "--api-key-env INVENT_TEST_NO_SUCH_KEY: $INVENT_TEST_NO_SUCH_KEY is not set" in err
    assert DECOY not in err and not out.exists()


@pytest.mark.parametrize("server", [True, False])
def test_a_key_typed_as_the_variable_name_is_not_echoed(server, capsys):
    """With a server named, or not (where the public API's "needs a key" would name it)."""
    with SecretServer("answer") as srv:
        where = ["--base-url", srv.base_url] if server else []
        status = invent(["run", "Q?", "--llm", "openai", *where, "--api-key-env", KEY])
        assert srv.seen == []
    err = capsys.readouterr().err
    assert status == 2 and KEY not in err and "looks like a key" in err


def _samples(folder: Path, judge: str) -> Path:
    """A samples file whose recorded settings score with a served answer judge."""
    record = {
        "schema": "invent.samples/1",
        "id": "s1",
        "question": "Why is the sky blue?",
        "perturbations": ["What makes the sky blue?"],
        "responses": [
            ["because of Rayleigh scattering", "air molecules scatter blue light more"],
            ["Rayleigh scattering", "blue light is scattered more by the air"],
        ],
        "answers": ["Rayleigh scattering"],
        "model": {"llm": "local"},
        "settings": {
            "n_perturbations": 1,
            "n_replications": 2,
            "score": {"answer_similarity": "judge", "answer_judge": judge},
        },
    }
    path = folder / "samples.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return path


def _responses(folder: Path) -> Path:
    path = folder / "r.json"
    path.write_text(
        json.dumps(
            {
                "questions": ["What is 2 plus 6?", "Can you tell me what 2 plus 6 is?"],
                "responses": [["8", "eight"], ["8", "The sum is 8"]],
            }
        ),
        encoding="utf-8",
    )
    return path


def test_a_served_judge_with_no_server_named_is_refused(tmp_path, monkeypatch, capsys):
    """Not the public API, not $OPENAI_BASE_URL: a samples file cannot send answers anywhere."""
    with SecretServer("answer") as decoy:
        monkeypatch.setenv("OPENAI_BASE_URL", decoy.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", DECOY)
        typed = invent(
            ["score", str(_responses(tmp_path)), "--answer-similarity", "judge",
             "--answer-judge", "openai"]
        )  # fmt: skip
        recorded = invent(["score", str(_samples(tmp_path, "openai"))])
        batch = invent(
            ["batch", str(_questions(tmp_path)), "-o", str(tmp_path / "s.csv"),
             "--answer-similarity", "judge", "--answer-judge", "openai"]
        )  # fmt: skip
        assert decoy.seen == []
    err = capsys.readouterr().err
    assert (typed, recorded, batch) == (2, 2, 2)
    assert err.count("a served judge is sent the questions and answers") == 3
    assert not (tmp_path / "s.csv").exists()


@pytest.mark.slow
def test_a_served_judge_asks_the_server_the_command_names(tmp_path, monkeypatch, capsys):
    with SecretServer("answer") as named, SecretServer("answer") as decoy:
        monkeypatch.setenv("OPENAI_BASE_URL", decoy.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", DECOY)
        monkeypatch.setenv("MY_JUDGE_KEY", KEY)
        status = invent(
            ["score", str(_samples(tmp_path, "openai")), "--base-url", named.base_url,
             "--model", "m", "--api-key-env", "MY_JUDGE_KEY"]
        )  # fmt: skip
        asked = [r for r in named.chats() if "mean the same" in json.dumps(r["body"])]
        assert decoy.seen == []
    assert status == 0, capsys.readouterr().err
    assert asked and all(r["headers"]["authorization"] == f"Bearer {KEY}" for r in asked)


@pytest.mark.slow
def test_a_key_the_server_echoes_is_in_no_output_nor_message(tmp_path):
    """batch and evaluate against a server whose 400s quote the key and the URL's token."""
    env = {**os.environ, "MY_SERVER_KEY": KEY, "OPENAI_API_KEY": DECOY}
    env["INVENT_CACHE"] = str(tmp_path / "cache")  # the throughput log, the history, the LLM cache
    data = _questions(tmp_path)
    with SecretServer("echo", status=400) as srv:
        url = f"{srv.base_url}?token={URL_TOKEN}"
        served = ("--llm", "openai", "--base-url", url, "--model", "m",
                  "--api-key-env", "MY_SERVER_KEY")  # fmt: skip
        (tmp_path / "b").mkdir()
        batch = cli("batch", data, "-o", tmp_path / "b" / "scores.csv", "-q", *served, env=env)
        evaluate = cli("evaluate", "--data", data, "-n", "1", "-r", "1", "-o", tmp_path / "e",
                       "-q", *served, env=env)  # fmt: skip
        chats = srv.chats()
    assert batch.returncode == 1 and evaluate.returncode == 1, batch.stderr + evaluate.stderr
    assert chats and all(r["headers"]["authorization"] == f"Bearer {KEY}" for r in chats)
    assert all(f"token={URL_TOKEN}" in r["path"] for r in chats)  # sent, as the URL said
    errors = (tmp_path / "b" / "scores.csv.errors.jsonl").read_text(encoding="utf-8")
    assert "upstream refused the request" in errors and "***" in errors  # the reason is kept
    assert (tmp_path / "e" / "scores.csv").is_file() and (tmp_path / "e" / "results.json").is_file()
    texts = (batch.stdout, batch.stderr, evaluate.stdout, evaluate.stderr)
    assert _leaks(tmp_path, *texts) == []


@pytest.mark.slow
def test_a_url_token_is_sent_but_not_saved_in_the_run_cache_or_log(tmp_path):
    env = {**os.environ, "OPENAI_API_KEY": KEY, "INVENT_CACHE": str(tmp_path / "cache")}
    with SecretServer("answer") as srv:
        url = f"{srv.base_url}?api-version=1&access_token={URL_TOKEN}"
        proc = cli("run", "What is the capital of France?", "-n", "2", "-r", "2", "--llm",
                   "openai", "--base-url", url, "--model", "m", "--save", tmp_path / "run.json",
                   "--answer-similarity", "judge", "--answer-judge", "openai", env=env)  # fmt: skip
        chats = srv.chats()
    assert proc.returncode == 0, proc.stderr
    assert all(f"access_token={URL_TOKEN}" in r["path"] for r in chats)
    assert any("mean the same" in json.dumps(r["body"]) for r in chats)  # the judge: this server
    saved = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    assert "api-version=1" in json.dumps(saved)  # what names the server is kept, not its token
    assert _leaks(tmp_path, proc.stdout, proc.stderr) == []
