"""Persistent LLM response cache (SQLite, WAL).

Key: sha256 of the backend identity (base_url or the local model's sha256),
the model name, the messages, temperature, seed, max_tokens, the replication
index and the logprobs settings. API keys are never part of the key nor
stored. Several threads and processes may read and write at once: one
connection per thread (and per process), WAL journal, a busy timeout and one
short transaction per write. SQLite's atomic commit means a crash mid-write
loses at most that row.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path

from .._env import cache_dir
from .base import Completion, Request

_SCHEMA = """
CREATE TABLE IF NOT EXISTS completions (
    key TEXT PRIMARY KEY,
    identity TEXT NOT NULL,
    text TEXT NOT NULL,
    usage TEXT NOT NULL,
    latency REAL NOT NULL,
    logprobs TEXT,
    finish_reason TEXT,
    created REAL NOT NULL
)
"""


def default_cache_path() -> Path:
    """``<cache_dir()>/llm_cache.sqlite``."""
    return cache_dir() / "llm_cache.sqlite"


def cache_key(identity: str, request: Request) -> str:
    """Hex sha256 of everything that determines a completion (never a key)."""
    payload = {
        "identity": identity,
        "messages": request.message_list,
        "temperature": round(float(request.temperature), 6),
        "seed": int(request.seed),
        "max_tokens": int(request.max_tokens),
        "replication": int(request.replication),
        "logprobs": bool(request.logprobs),
        "top_logprobs": int(request.top_logprobs) if request.logprobs else 0,
    }
    if request.tag:
        payload["tag"] = request.tag
    if request.frequency_penalty:
        payload["frequency_penalty"] = round(float(request.frequency_penalty), 6)
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class LLMCache:
    """Thread- and process-safe completion store.

    Parameters
    ----------
    path
        SQLite file; created with its folder. Default ``default_cache_path()``.
    busy_timeout_ms
        How long a writer waits for another one's lock.
    """

    def __init__(self, path: str | os.PathLike | None = None, *, busy_timeout_ms: int = 30_000):
        self.path = Path(path) if path is not None else default_cache_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.busy_timeout_ms = int(busy_timeout_ms)
        self._local = threading.local()
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()
        self._connect()  # create schema now so errors show early

    def __repr__(self) -> str:
        return f"LLMCache({str(self.path)!r})"

    def _connect(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is not None and getattr(self._local, "pid", None) == os.getpid():
            return conn
        conn = sqlite3.connect(
            str(self.path), timeout=self.busy_timeout_ms / 1000, isolation_level=None
        )
        conn.execute(f"PRAGMA busy_timeout={self.busy_timeout_ms}")
        for attempt in range(50):
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute(_SCHEMA)
                break
            except sqlite3.OperationalError:  # pragma: no cover - another process is creating it
                if attempt == 49:
                    raise
                time.sleep(0.05)
        self._local.conn = conn
        self._local.pid = os.getpid()
        return conn

    def get(self, identity: str, request: Request) -> Completion | None:
        """The stored completion (``cached=True``) or None."""
        key = cache_key(identity, request)
        row = (
            self._connect()
            .execute(
                "SELECT text, usage, latency, logprobs, finish_reason FROM completions WHERE key=?",
                (key,),
            )
            .fetchone()
        )
        with self._lock:
            if row is None:
                self.misses += 1
            else:
                self.hits += 1
        if row is None:
            return None
        text, usage, latency, logprobs, finish = row
        return Completion(
            text=text,
            usage=json.loads(usage),
            latency=float(latency),
            logprobs=json.loads(logprobs) if logprobs is not None else None,
            cached=True,
            finish_reason=finish,
        )

    def put(self, identity: str, request: Request, completion: Completion) -> None:
        """Store (or replace) one completion in its own short transaction."""
        key = cache_key(identity, request)
        self._connect().execute(
            "INSERT OR REPLACE INTO completions "
            "(key, identity, text, usage, latency, logprobs, finish_reason, created) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                key,
                identity,
                completion.text,
                json.dumps(completion.usage),
                float(completion.latency),
                json.dumps(completion.logprobs) if completion.logprobs is not None else None,
                completion.finish_reason,
                time.time(),
            ),
        )

    def __len__(self) -> int:
        return int(self._connect().execute("SELECT COUNT(*) FROM completions").fetchone()[0])

    def clear(self) -> None:
        self._connect().execute("DELETE FROM completions")

    def close(self) -> None:
        """Close this thread's connection (others close when their thread ends)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None


def resolve_cache(cache: bool | str | os.PathLike | LLMCache | None) -> LLMCache | None:
    """``True`` → default file, a path → that file, ``None``/``False`` → no cache."""
    if cache is None or cache is False:
        return None
    if isinstance(cache, LLMCache):
        return cache
    if cache is True:
        return LLMCache()
    return LLMCache(cache)
