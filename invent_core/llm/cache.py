"""Persistent LLM response cache (SQLite, WAL).

Key: sha256 of the backend identity (base_url or the local model's sha256),
the model name, the messages, temperature, seed, max_tokens, the replication
index, the logprobs settings and, when set, the state index and the stop
strings (keys of requests without them are unchanged). API keys are never part of the key nor
stored. Several threads and processes may read and write at once: one
connection per thread (and per process), WAL journal, a busy timeout and one
short transaction per write. SQLite's atomic commit means a crash mid-write
loses at most that row. The cache is an optimisation: a corrupt, read-only or
unreachable file is repaired or bypassed with a warning, never an error.

WAL keeps its index in shared memory, which processes on different hosts of a
network file system (NFS, CIFS, Lustre, GPFS, BeeGFS, sshfs, …) do not share:
there it can corrupt the file. A cache whose folder is on one of those
(:func:`filesystem_type` reads ``/proc/mounts``) switches to the rollback
journal (``journal_mode=DELETE``, locking the whole file through the file
system, ``synchronous=FULL``) and says so once; a cluster's tasks are better
given one local cache each (docs/cluster.md).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sqlite3
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from ..env import cache_dir
from ..errors import CacheWarning
from .base import Completion, Request
from .thinking import join_thinking, split_thinking

_T = TypeVar("_T")

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


#: File-system types (as ``/proc/mounts`` names them) on which SQLite's WAL is unsafe:
#: no memory shared between the hosts that open the file.
NETWORK_FILESYSTEMS = frozenset(
    {
        "nfs", "nfs4", "cifs", "smb3", "smbfs", "lustre", "gpfs", "beegfs", "ceph",
        "glusterfs", "afs", "9p", "panfs", "orangefs", "fuse.sshfs", "fuse.ceph",
        "fuse.glusterfs", "fuse.s3fs", "fuse.gcsfuse", "fuse.rclone", "fuse.beegfs",
    }
)  # fmt: skip
#: Where the kernel lists the mounted file systems (Linux).
MOUNTS = Path("/proc/mounts")
#: Journal modes a cache may be asked for; "auto" picks by the file system.
JOURNAL_MODES = ("auto", "wal", "delete")


def filesystem_type(path: str | os.PathLike, mounts: str | os.PathLike | None = None) -> str | None:
    r"""The type of the file system holding ``path`` (e.g. ``"nfs4"``); None when unknown.

    The mount point that is the longest prefix of the resolved path wins (the
    last listed, when one is mounted over another); ``mounts`` is a table in
    ``/proc/mounts`` form (octal escapes such as ``\040`` for a space), default :data:`MOUNTS`.
    """
    target = os.path.realpath(path)
    try:
        lines = (
            Path(MOUNTS if mounts is None else mounts)
            .read_text(encoding="utf-8", errors="replace")
            .splitlines()
        )
    except OSError:
        return None  # not Linux, or no /proc: assume a local disk
    best, fstype = -1, None
    for line in lines:
        fields = line.split()
        if len(fields) < 3:
            continue
        point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[1])
        inside = point == "/" or target == point or target.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= best:
            best, fstype = len(point), fields[2]
    return fstype


def journal_mode_for(folder: str | os.PathLike, mounts: str | os.PathLike | None = None) -> str:
    """``"delete"`` on a network file system (:data:`NETWORK_FILESYSTEMS`), else ``"wal"``."""
    return "delete" if filesystem_type(folder, mounts) in NETWORK_FILESYSTEMS else "wal"


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
    if request.state is not None:  # a duplicated perturbation is its own state
        payload["state"] = int(request.state)
    if request.stop:
        payload["stop"] = list(request.stop)
    if request.frequency_penalty:
        payload["frequency_penalty"] = round(float(request.frequency_penalty), 6)
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class LLMCache:
    """Thread- and process-safe completion store that never stops a run.

    A cache that cannot be used is worked around, with one ``CacheWarning``
    naming the file: a corrupt file (bad header, bad page) is moved aside to
    ``<name>.corrupt-<timestamp>`` (with its ``-wal``/``-shm``) and a fresh
    one started; a read-only file is read but not added to; a file that can be
    neither opened nor moved (a read-only folder) turns the cache off. A
    failed read is a miss and a failed write is skipped.

    Parameters
    ----------
    path
        SQLite file; created with its folder. Default ``default_cache_path()``.
    busy_timeout_ms
        How long a writer waits for another one's lock.
    journal
        ``"auto"`` (WAL, or DELETE on a network file system, said once with a
        ``CacheWarning``), ``"wal"`` or ``"delete"``.
    """

    def __init__(
        self,
        path: str | os.PathLike | None = None,
        *,
        busy_timeout_ms: int = 30_000,
        journal: str = "auto",
    ):
        if journal not in JOURNAL_MODES:
            raise ValueError(f"journal must be one of {', '.join(JOURNAL_MODES)}, got {journal!r}")
        self.path = Path(path) if path is not None else default_cache_path()
        self.busy_timeout_ms = int(busy_timeout_ms)
        self._local = threading.local()
        self.hits = 0
        self.misses = 0
        self._lock = threading.RLock()
        self._generation = 0  # bumped when the file is replaced: every thread reconnects
        self.writable = True  # False: a read-only file, read but not added to
        self.enabled = True  # False: no usable file, every get misses and put is a no-op
        self._warned: set[str] = set()
        self._open_error: sqlite3.Error | None = None  # why a read-write open failed
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            self._turn_off(f"its folder cannot be created ({err})")
        self.journal = journal if journal != "auto" else self._auto_journal()
        self._connect()  # open (and repair) now so problems show early

    def __repr__(self) -> str:
        """Show the file."""
        return f"LLMCache({str(self.path)!r})"

    def _auto_journal(self) -> str:
        """WAL, or DELETE (said once) when the cache's folder is on a network file system."""
        mode = journal_mode_for(self.path.parent)
        if mode == "delete":
            self._warn_once(
                "journal",
                f"LLM cache {self.path} is on a network file system "
                f"({filesystem_type(self.path.parent)}), where SQLite's write-ahead log is unsafe: "
                "using journal_mode=DELETE instead (slower with many writers; a local --cache "
                "per task is faster)",
            )
        return mode

    # -- connection ---------------------------------------------------------------
    def _open(self) -> sqlite3.Connection:
        """Open a connection with WAL and the schema (read-only: ``mode=ro``, no setup)."""
        if self.writable:
            target, uri = str(self.path), False
        else:
            target, uri = f"{self.path.absolute().as_uri()}?mode=ro", True
        conn = sqlite3.connect(
            target, timeout=self.busy_timeout_ms / 1000, isolation_level=None, uri=uri
        )
        try:
            conn.execute(f"PRAGMA busy_timeout={self.busy_timeout_ms}")
            if self.writable:
                _setup(conn, self.journal)
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # reads the header
        except BaseException:
            conn.close()
            raise
        return conn

    def _connect(self) -> sqlite3.Connection | None:
        """Return the calling thread's connection, opened (or re-opened after a repair)."""
        local = self._local
        conn = getattr(local, "conn", None)
        fresh = getattr(local, "pid", None) == os.getpid() and local.generation == self._generation
        if conn is not None and fresh:
            return conn
        if conn is not None and getattr(local, "pid", None) == os.getpid():
            conn.close()
        local.conn = None
        repairs = busy = 0
        while repairs < 3:  # open; after a repair open again
            if not self.enabled:
                return None
            generation, before = self._generation, _inode(self.path)
            try:
                conn = self._open()
            except sqlite3.Error as err:
                if _is_busy(err) and busy < BUSY_RETRIES:  # locked is not read-only: wait
                    busy += 1
                    time.sleep(min(0.5, 0.01 * busy))
                    continue
                if not self._recover(err, "open", inode=before):
                    return None
                repairs += 1
                continue
            local.conn, local.pid, local.generation = conn, os.getpid(), generation
            local.inode = _inode(self.path)
            if self._open_error is not None:
                self._warn_once(
                    "read-only",
                    f"LLM cache {self.path} cannot be opened for writing ({self._open_error}): "
                    "reading it without adding to it",
                )
            return conn
        return None

    def _guarded(self, what: str, fn: Callable[[sqlite3.Connection], _T], default: _T) -> _T:
        """``fn(connection)``, or ``default`` when the file fails (repaired when it can be).

        Tried again after a corrupt file was moved aside, and while the file is
        busy: SQLite returns "database is locked" without waiting out the busy
        timeout in some cases (a WAL snapshot gone stale, another connection
        recovering the WAL), and a write skipped then would be an answer lost.
        """
        repairs = busy = 0
        while repairs < 2 and busy < BUSY_RETRIES:
            conn = self._connect()
            if conn is None or (what == "write" and not self.writable):
                return default
            try:
                return fn(conn)
            except sqlite3.Error as err:
                if _is_busy(err):
                    busy += 1
                    time.sleep(min(0.5, 0.01 * busy))
                    continue
                if not self._recover(err, what, inode=getattr(self._local, "inode", None)):
                    return default
                repairs += 1
        self._warn_once(what, f"LLM cache {self.path}: a {what} failed (still locked); skipped")
        return default

    # -- recovery -----------------------------------------------------------------
    def _recover(self, err: sqlite3.Error, what: str, *, inode: int | None) -> bool:
        """Handle a failed ``what``; True when the operation should be tried again."""
        code = getattr(err, "sqlite_errorcode", 0) or 0
        with self._lock:
            if inode is not None and _inode(self.path) != inode:
                self._generation += 1  # another process already replaced the file
                return True
            if code & 0xFF in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
                return self._move_aside(err, inode=inode)
            if what == "open" and self.writable:
                self.writable = False  # maybe only writing is refused: try read-only
                self._open_error = err
                return True
            if what == "open":
                self._turn_off(f"it cannot be opened ({self._open_error or err})")
                return False
            if code & 0xFF == sqlite3.SQLITE_READONLY and what == "write":
                self.writable = False
                self._warn_once(
                    "read-only",
                    f"LLM cache {self.path} is read-only ({err}): reading it without adding to it",
                )
                return False
            self._warn_once(what, f"LLM cache {self.path}: a {what} failed ({err}); skipped")
            return False

    def _move_aside(self, err: sqlite3.Error, *, inode: int | None) -> bool:
        """Rename a corrupt file (and its WAL files) to ``<name>.corrupt-<time>``.

        Under a lock on the folder, and only if the file is still the one that
        failed (``inode``): several processes may find the same corruption, and
        only the first may move it — the others must not move its fresh file.
        """
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
        stamp = time.strftime("%Y%m%d-%H%M%S")
        target = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        if target.exists():
            target = target.with_name(f"{target.name}-{os.getpid()}")
        with _folder_lock(self.path.parent):
            if inode is not None and _inode(self.path) != inode:
                self._generation += 1  # moved by another process meanwhile
                return True
            try:
                # the corrupt file's log first: once the file itself is gone, another process
                # may start a fresh one and write its log at once, which must stay
                for suffix in ("-wal", "-shm"):
                    side = self.path.with_name(self.path.name + suffix)
                    if side.exists():
                        os.replace(side, target.with_name(target.name + suffix))
                os.replace(self.path, target)
            except OSError as move_err:
                self._turn_off(f"it is corrupt ({err}) and cannot be moved aside ({move_err})")
                return False
        self._generation += 1
        self._warn_once(
            f"moved:{target}",
            f"LLM cache {self.path} is corrupt ({err}): moved it to {target.name} "
            "and started an empty cache",
        )
        return True

    def _turn_off(self, why: str) -> None:
        self.enabled = False
        self._warn_once("off", f"LLM cache {self.path} is not used: {why}; running without a cache")

    def _warn_once(self, kind: str, message: str) -> None:
        with self._lock:
            if kind in self._warned:
                return
            self._warned.add(kind)
        warnings.warn(message, CacheWarning, stacklevel=2)

    # -- the store ------------------------------------------------------------------
    def get(self, identity: str, request: Request) -> Completion | None:
        """Return the stored completion (``cached=True``) or None.

        A stored reply with neither text nor logprobs (written by versions that
        cached failed replies) is a miss, so it is asked again.
        """
        key = cache_key(identity, request)
        row = self._guarded(
            "read",
            lambda conn: conn.execute(
                "SELECT text, usage, latency, logprobs, finish_reason FROM completions WHERE key=?",
                (key,),
            ).fetchone(),
            None,
        )
        if row is not None and not row[0] and row[3] in (None, "null", "[]"):
            row = None
        with self._lock:
            if row is None:
                self.misses += 1
            else:
                self.hits += 1
        if row is None:
            return None
        raw, usage, latency, logprobs, finish = row
        text, thinking = split_thinking(raw)
        return Completion(
            text=text,
            thinking=thinking,
            usage=json.loads(usage),
            latency=float(latency),
            logprobs=json.loads(logprobs) if logprobs is not None else None,
            cached=True,
            finish_reason=finish,
        )

    def put(self, identity: str, request: Request, completion: Completion) -> None:
        """Store (or replace) one completion in its own short transaction."""
        row = (
            cache_key(identity, request),
            identity,
            join_thinking(completion.text, completion.thinking),  # the reply as it came
            json.dumps(completion.usage),
            float(completion.latency),
            json.dumps(completion.logprobs) if completion.logprobs is not None else None,
            completion.finish_reason,
            time.time(),
        )
        self._guarded(
            "write",
            lambda conn: conn.execute(
                "INSERT OR REPLACE INTO completions "
                "(key, identity, text, usage, latency, logprobs, finish_reason, created) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            ),
            None,
        )

    def __len__(self) -> int:
        """Count the stored completions (0 when the cache is off)."""
        return int(
            self._guarded(
                "read",
                lambda conn: conn.execute("SELECT COUNT(*) FROM completions").fetchone()[0],
                0,
            )
        )

    def clear(self) -> None:
        """Delete every stored completion."""
        self._guarded("write", lambda conn: conn.execute("DELETE FROM completions"), None)

    def close(self) -> None:
        """Close this thread's connection (others close when their thread ends)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None


#: Tries of a read or write that found the file locked after the busy timeout (about 10 s).
BUSY_RETRIES = 50


def _is_busy(err: sqlite3.Error) -> bool:
    """Whether ``err`` is SQLITE_BUSY or SQLITE_LOCKED ("database is locked"): try again."""
    code = (getattr(err, "sqlite_errorcode", 0) or 0) & 0xFF
    return code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or "locked" in str(err).lower()


def _setup(conn: sqlite3.Connection, journal: str = "wal") -> None:
    """The journal (WAL, or DELETE) and the schema; retried while another process creates them."""
    for attempt in range(50):
        try:
            conn.execute(f"PRAGMA journal_mode={journal.upper()}")
            # WAL commits are atomic at NORMAL; a rollback journal needs FULL to survive a crash
            conn.execute(f"PRAGMA synchronous={'NORMAL' if journal == 'wal' else 'FULL'}")
            conn.execute(_SCHEMA)
            return
        except sqlite3.OperationalError as err:
            if not _is_busy(err) or attempt == 49:
                raise
            time.sleep(0.05)


@contextlib.contextmanager
def _folder_lock(folder: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``folder`` (no lock file left; none where unsupported)."""
    try:
        import fcntl

        fd = os.open(folder, os.O_RDONLY)
    except (ImportError, OSError):
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _inode(path: Path) -> int | None:
    try:
        return path.stat().st_ino
    except OSError:
        return None


def resolve_cache(cache: bool | str | os.PathLike | LLMCache | None) -> LLMCache | None:
    """Open the cache ``cache`` names.

    ``True``: the default file; a path: that file; ``None``/``False``: no cache.
    """
    if cache is None or cache is False:
        return None
    if isinstance(cache, LLMCache):
        return cache
    if cache is True:
        return LLMCache()
    return LLMCache(cache)
