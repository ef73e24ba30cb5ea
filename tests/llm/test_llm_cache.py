"""The SQLite completion cache: keys, threads, processes and a crash mid-write."""

from __future__ import annotations

import os
import shutil
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

ROOT = Path(__file__).resolve().parents[2]


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
    from invent_core.env import cache_dir

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


# -- a corrupt or read-only file: worked around with a warning, never an error ---------


def _filled(path: Path, n: int = 300) -> list[Request]:
    """A cache file with ``n`` rows of ~1 kB, checkpointed so every row is in the main file."""
    cache = LLMCache(path)
    reqs = [req(i) for i in range(n)]
    for r in reqs:
        cache.put("id", r, Completion("x" * 1000))
    cache.close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return reqs


def _corrupt_copies(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".corrupt-*"))


def test_garbage_header_is_moved_aside_and_a_fresh_cache_started(tmp_path):
    from invent_core.errors import CacheWarning

    path = tmp_path / "c.sqlite"
    _filled(path)
    with open(path, "r+b") as fh:
        fh.write(b"this is no sqlite header" * 5)
    garbage = path.read_bytes()
    with pytest.warns(CacheWarning, match=r"c\.sqlite is corrupt \(file is not a database\)"):
        cache = LLMCache(path)
    (moved,) = [p for p in _corrupt_copies(path) if not p.name.endswith(("-wal", "-shm"))]
    assert moved.read_bytes() == garbage  # kept for a look, not deleted
    assert len(cache) == 0
    cache.put("id", req(1), Completion("fresh"))
    assert LLMCache(path).get("id", req(1)).text == "fresh"


def test_garbled_page_is_detected_on_read_and_the_run_goes_on(tmp_path):
    from invent_core.errors import CacheWarning

    path = tmp_path / "c.sqlite"
    reqs = _filled(path)
    with open(path, "r+b") as fh:
        fh.seek(4096 * 20)  # a table page in the middle of the file
        fh.write(os.urandom(4096))
    cache = LLMCache(path)  # the header is fine: nothing to see yet
    with pytest.warns(
        CacheWarning, match=r"c\.sqlite is corrupt \(database disk image is malformed"
    ):
        found = [cache.get("id", r) for r in reqs]  # never raises
    assert any(f is None for f in found) and _corrupt_copies(path)
    cache.put("id", req(1), Completion("after"))
    assert cache.get("id", req(1)).text == "after" and len(cache) == 1
    assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_other_threads_follow_a_moved_aside_file(tmp_path):
    from invent_core.errors import CacheWarning

    path = tmp_path / "c.sqlite"
    reqs = _filled(path)
    cache = LLMCache(path)
    other = threading.Thread(target=lambda: cache.get("id", req(0)))  # its own connection
    other.start()
    other.join()
    with open(path, "r+b") as fh:
        fh.seek(4096 * 20)
        fh.write(os.urandom(4096))
    with pytest.warns(CacheWarning):
        [cache.get("id", r) for r in reqs]
    errors: list[BaseException] = []

    def work() -> None:
        try:
            cache.put("id", req(7), Completion("from a thread"))
        except BaseException as err:  # noqa: BLE001
            errors.append(err)

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert not errors and LLMCache(path).get("id", req(7)).text == "from a thread"


NOT_ROOT = textwrap.dedent(
    """
    import sys, warnings
    sys.path.insert(0, {root!r})
    warnings.simplefilter("always")
    from invent_core.llm import Completion, LLMCache, Request, user
    cache = LLMCache(sys.argv[1])
    hit = cache.get("id", Request(user("question 0"), temperature=0.7, max_tokens=8))
    for i in range(3):
        cache.put("id", Request(user(f"new {{i}}")), Completion("x"))
    print("hit" if hit is not None else "miss", cache.enabled, cache.writable, len(cache))
    """
)


def _run_without_root(tmp_path: Path, cache_path: Path) -> subprocess.CompletedProcess:
    """Run NOT_ROOT where file permissions bind (as root: without the override capabilities)."""
    script = tmp_path / "not_root.py"
    script.write_text(NOT_ROOT.format(root=str(ROOT)))
    cmd = [sys.executable, str(script), str(cache_path)]
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: permissions cannot bind")
        cmd = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner", *cmd]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def test_read_only_file_is_read_and_writes_are_skipped(tmp_path):
    path = tmp_path / "c.sqlite"
    LLMCache(path).put("id", req(0), Completion("Paris"))
    for f in tmp_path.glob("c.sqlite*"):
        f.chmod(0o444)
    try:
        done = _run_without_root(tmp_path, path)
    finally:
        for f in tmp_path.glob("c.sqlite*"):
            f.chmod(0o644)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert done.stdout.split() == ["hit", "True", "False", "1"]
    assert done.stderr.count("CacheWarning") == 1
    assert f"LLM cache {path} is read-only (attempt to write a readonly database)" in done.stderr


def test_read_only_folder_runs_without_a_cache(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        done = _run_without_root(tmp_path, folder / "c.sqlite")
    finally:
        folder.chmod(0o755)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert done.stdout.split() == ["miss", "False", "False", "0"]
    assert f"LLM cache {folder / 'c.sqlite'} is not used" in done.stderr


def test_processes_sharing_a_corrupt_file_repair_it_once_and_lose_nothing(tmp_path):
    path = tmp_path / "c.sqlite"
    _filled(path, n=50)
    with open(path, "r+b") as fh:
        fh.write(b"garbage!" * 64)
    procs = [_writer(tmp_path, tag, 150) for tag in ("a", "b", "c")]
    for p in procs:
        assert p.wait(timeout=120) == 0
    assert len(LLMCache(path)) == 450  # every process wrote into the one fresh file
    assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    moved = [p for p in _corrupt_copies(path) if not p.name.endswith(("-wal", "-shm"))]
    assert len(moved) == 1


# -- contention: a locked file delays a write, never loses it -------------------------------


def test_moving_a_corrupt_file_aside_never_takes_a_fresh_files_log(tmp_path, monkeypatch):
    """The three-writer test once lost one writer's 150 rows: this is the interleaving.

    The process that repairs a corrupt file renamed the file, then its ``-wal``.
    In between, another process could start a fresh file and commit into a
    fresh ``-wal``, which the repair then moved aside with the corrupt file:
    that writer read its rows back (its connection follows the renamed log)
    and the shared file never had them. Here the other writer runs exactly
    in that gap (a hook on the rename); its row must be in the file after.
    """
    from invent_core.errors import CacheWarning

    path = tmp_path / "c.sqlite"
    _filled(path, n=5)
    with open(path, "r+b") as fh:
        fh.write(b"garbage!" * 64)
    real_replace, other = os.replace, []

    def replace(src, dst):
        real_replace(src, dst)
        if Path(src) == path and not other:  # the corrupt file is gone: another writer starts
            other.append(LLMCache(path))
            other[0].put("id", req(1), Completion("written in the gap"))

    monkeypatch.setattr(os, "replace", replace)
    with pytest.warns(CacheWarning, match="is corrupt"):
        LLMCache(path)
    monkeypatch.undo()
    assert other, "the repair renamed the file"
    assert LLMCache(path).get("id", req(1)).text == "written in the gap"


def test_a_write_that_finds_the_file_locked_waits_instead_of_being_skipped(tmp_path):
    """SQLite may answer "database is locked" at once (busy timeout 0 here, as for a stale
    WAL snapshot): the write is tried again until the lock is gone, not dropped."""
    import warnings

    path = tmp_path / "c.sqlite"
    cache = LLMCache(path, busy_timeout_ms=0)
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN EXCLUSIVE")
    release = threading.Timer(0.3, lambda: holder.execute("COMMIT"))
    release.start()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a skipped write warns: here that fails the test
        cache.put("id", req(1), Completion("kept"))
    release.join()
    assert LLMCache(path).get("id", req(1)).text == "kept"
