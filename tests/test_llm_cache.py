"""The SQLite completion cache: keys, threads, processes and a crash mid-write."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from invent_core.llm import Completion, LLMCache, Request, cache_key, default_cache_path, user

ROOT = Path(__file__).resolve().parents[1]


def req(i: int, **kw) -> Request:
    return Request(user(f"question {i}"), temperature=0.7, seed=0, max_tokens=8, **kw)


def test_roundtrip_and_key_fields(tmp_path):
    cache = LLMCache(tmp_path / "c.sqlite")
    assert cache.get("id", req(1)) is None
    cache.put(
        "id",
        req(1),
        Completion("Paris", {"prompt_tokens": 3, "completion_tokens": 1}, 0.25, [["Paris", -0.1]]),
    )
    hit = cache.get("id", req(1))
    assert hit is not None and hit.cached and hit.text == "Paris" and hit.latency == 0.25
    assert hit.usage == {"prompt_tokens": 3, "completion_tokens": 1} and hit.logprobs == [
        ["Paris", -0.1]
    ]
    assert cache.get("other-backend", req(1)) is None
    base = cache_key("id", req(1))
    for changed in (req(1, replication=1), req(1, logprobs=True, top_logprobs=5), req(2)):
        assert cache_key("id", changed) != base
    assert (
        cache_key("id", Request(user("question 1"), temperature=0.7, seed=1, max_tokens=8)) != base
    )
    assert (
        cache_key("id", Request(user("question 1"), temperature=0.7, seed=0, max_tokens=9)) != base
    )
    assert (
        cache_key("id", Request(user("question 1"), temperature=0.2, seed=0, max_tokens=8)) != base
    )
    assert (cache.hits, cache.misses) == (1, 2)
    assert len(cache) == 1
    mode = sqlite3.connect(tmp_path / "c.sqlite").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_default_location_under_cache_dir():
    from invent_core._env import cache_dir

    assert default_cache_path() == cache_dir() / "llm_cache.sqlite"


def test_threads_read_and_write_at_once(tmp_path):
    cache = LLMCache(tmp_path / "c.sqlite")
    errors: list[BaseException] = []

    def work(t: int) -> None:
        try:
            for i in range(60):
                r = req(t * 1000 + i)
                cache.put("id", r, Completion(f"t{t}-{i}"))
                got = cache.get("id", r)
                assert got is not None and got.text == f"t{t}-{i}"
        except BaseException as err:  # noqa: BLE001
            errors.append(err)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    assert len(cache) == 360


WRITER = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {root!r})
    from invent_core.llm import Completion, LLMCache, Request, user
    cache = LLMCache({path!r})
    tag = sys.argv[1]
    n = int(sys.argv[2])
    i = 0
    while n < 0 or i < n:
        r = Request(user(f"{{tag}} {{i % 500}}"), max_tokens=8, replication=i // 500)
        cache.put("id", r, Completion(tag + " " + "x" * 2000))
        assert cache.get("id", r) is not None
        i += 1
        if i == 20:
            print("ready", flush=True)
    """
)


def _writer(tmp_path: Path, tag: str, n: int) -> subprocess.Popen:
    script = tmp_path / "writer.py"
    script.write_text(WRITER.format(root=str(ROOT), path=str(tmp_path / "c.sqlite")))
    return subprocess.Popen(
        [sys.executable, str(script), tag, str(n)], stdout=subprocess.PIPE, text=True
    )


def test_two_processes_write_concurrently(tmp_path):
    LLMCache(tmp_path / "c.sqlite")
    procs = [_writer(tmp_path, tag, 150) for tag in ("a", "b", "c")]
    for p in procs:
        assert p.wait(timeout=120) == 0
    cache = LLMCache(tmp_path / "c.sqlite")
    assert len(cache) == 450
    conn = sqlite3.connect(tmp_path / "c.sqlite")
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_crash_mid_write_leaves_cache_usable(tmp_path):
    LLMCache(tmp_path / "c.sqlite")
    proc = _writer(tmp_path, "k", -1)
    assert proc.stdout.readline().strip() == "ready"
    time.sleep(0.3)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    conn = sqlite3.connect(tmp_path / "c.sqlite")
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    cache = LLMCache(tmp_path / "c.sqlite")
    n_before = len(cache)
    assert n_before >= 20
    cache.put("id", req(1), Completion("after crash"))
    assert cache.get("id", req(1)).text == "after crash"
    assert len(cache) == n_before + 1


def test_disabled_cache_and_bad_request():
    from invent_core.llm import resolve_cache

    assert resolve_cache(None) is None and resolve_cache(False) is None
    with pytest.raises(ValueError, match="max_tokens must be >= 1"):
        Request(user("x"), max_tokens=0)
    with pytest.raises(ValueError, match="needs 'role' and 'content'"):
        Request([{"content": "x"}])
