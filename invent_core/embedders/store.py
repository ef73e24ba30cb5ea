"""Embeddings kept on disk, keyed by embedder identity and text.

A fully cached re-run of ``run`` (every answer from the LLM cache) spent most
of its time loading sentence-transformers and torch (21.6 s of 28 s at load
8.5, ``benchmarks/bench_cached_run.py``) to embed texts it had embedded
before. An embedding is a pure function of the weights and the text, so a
vector stored under ``(identity, sha256(text))`` is the one the model would
return; with every text found here the model is never loaded.

The store is a cache, never a source of failure: a locked, corrupt or
unwritable file turns it off for the process with one warning, and the
embedder computes as before. Each vector is stored with a checksum of its
identity, text key and bytes: a vector changed on disk (one flipped bit
would move every measure) is a miss, recomputed and replaced, with one
warning naming the file; a vector stored before checksums is a silent miss.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import warnings
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np

from ..env import cache_dir

#: file name under ``cache_dir()``
FILE_NAME = "embeddings.sqlite"
#: seconds a writer waits for another process's lock before the store gives up
BUSY_TIMEOUT_S = 30.0
#: texts per SQL statement (SQLite's variable limit is 32766; stay well below)
CHUNK = 500


#: bytes of the checksum stored after each vector
CHECK_BYTES = 16


def text_key(text: str) -> str:
    """``sha256`` of the UTF-8 text (texts of any length, fixed-size keys)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _check(identity: str, key: str, data: bytes) -> bytes:
    """The checksum of one stored vector: its identity and key too, so a row moved is caught."""
    h = hashlib.blake2b(digest_size=CHECK_BYTES)
    for part in (identity.encode(), b"\0", key.encode(), b"\0", data):
        h.update(part)
    return h.digest()


def _blob(identity: str, key: str, vector) -> bytes:
    data = np.asarray(vector, dtype=np.float32).tobytes()
    return data + _check(identity, key, data)


def _vector(identity: str, key: str, blob: bytes, dimension: int) -> np.ndarray | None | bool:
    """The stored vector; None for a row of another size or format; False when it fails its checksum."""
    size = 4 * dimension
    if len(blob) != size + CHECK_BYTES:
        return None  # another dimension, or stored before checksums: a miss
    data, check = blob[:size], blob[size:]
    if check != _check(identity, key, data):
        return False
    vec = np.frombuffer(data, dtype=np.float32)
    return vec.copy() if np.isfinite(vec).all() else False


class VectorStore:
    """Unit vectors by ``(embedder identity, text)`` in one SQLite file.

    Parameters
    ----------
    path : the SQLite file; ``None``: ``<cache_dir()>/embeddings.sqlite``,
        resolved at each use so ``$INVENT_CACHE`` is followed.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self._path = Path(path) if path is not None else None
        self._off = False
        self._warned_damage = False
        self._lock = threading.Lock()
        # one connection per process and file, reopened after a fork or a new $INVENT_CACHE
        self._conn: sqlite3.Connection | None = None
        self._conn_key: tuple[int, Path] | None = None

    @property
    def path(self) -> Path:
        """The SQLite file in use."""
        return self._path if self._path is not None else cache_dir() / FILE_NAME

    def __repr__(self) -> str:
        return f"VectorStore({str(self.path)!r})"

    def _connect(self) -> sqlite3.Connection:
        key = (os.getpid(), self.path)
        if self._conn is not None and self._conn_key == key:
            return self._conn
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")  # a cache: a lost last write costs a re-embed
        conn.execute(
            "CREATE TABLE IF NOT EXISTS vectors (identity TEXT NOT NULL, key TEXT NOT NULL, "
            "vector BLOB NOT NULL, PRIMARY KEY (identity, key)) WITHOUT ROWID"
        )
        self._conn, self._conn_key = conn, key
        return conn

    def _guarded(self, what: str, fn):
        if self._off:
            return None
        with self._lock:
            try:
                conn = self._connect()
                with conn:
                    return fn(conn)
            except (sqlite3.Error, OSError) as err:
                self._off = True
                if self._conn is not None:
                    self._conn.close()
                self._conn = None
                warnings.warn(
                    f"embedding store {self.path}: {what} failed ({err}); "
                    "embedding without it for the rest of this process",
                    RuntimeWarning,
                    stacklevel=4,
                )
                return None

    def get(self, identity: str, texts: Sequence[str], dimension: int) -> dict[str, np.ndarray]:
        """The stored vectors of ``texts`` (those found), each ``(dimension,)`` float32."""
        keys = {text_key(t): t for t in texts}

        def read(conn: sqlite3.Connection) -> dict[str, np.ndarray]:
            found: dict[str, np.ndarray] = {}
            ks = list(keys)
            for i in range(0, len(ks), CHUNK):
                part = ks[i : i + CHUNK]
                rows = conn.execute(
                    f"SELECT key, vector FROM vectors WHERE identity = ? "
                    f"AND key IN ({','.join('?' * len(part))})",
                    [identity, *part],
                )
                for key, blob in rows:
                    vec = _vector(identity, key, bytes(blob), dimension)
                    if vec is False:
                        damaged.append(key)
                    elif vec is not None:
                        found[keys[key]] = vec
            return found

        damaged: list[str] = []
        found = self._guarded("reading", read) or {}
        if damaged and not self._warned_damage:
            self._warned_damage = True
            warnings.warn(
                f"embedding store {self.path}: {len(damaged)} stored vector(s) failed their "
                "checksum (the file was changed on disk); they are computed again and replaced",
                RuntimeWarning,
                stacklevel=2,
            )
        return found

    def put(self, identity: str, vectors: Mapping[str, np.ndarray] | Iterable) -> None:
        """Keep ``{text: vector}`` (float32 unit vectors) for ``identity``."""
        items = vectors.items() if isinstance(vectors, Mapping) else vectors
        rows = []
        for t, v in items:
            key = text_key(t)
            rows.append((identity, key, _blob(identity, key, v)))
        if rows:
            self._guarded(
                "writing",
                lambda conn: conn.executemany(
                    "INSERT OR REPLACE INTO vectors (identity, key, vector) VALUES (?, ?, ?)", rows
                ),
            )

    def __len__(self) -> int:
        n = self._guarded(
            "counting", lambda c: c.execute("SELECT COUNT(*) FROM vectors").fetchone()
        )
        return int(n[0]) if n else 0
