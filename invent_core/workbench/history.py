"""A bounded run history on disk: every run, GAAP trace, evaluation, TSU sweep kept.

Layout under ``root`` (default ``<cache_dir>/history``)::

    index.json            listing of every entry's metadata (a cache: rebuilt from
                          the entries when missing, corrupt or out of step)
    .lock                 flock'ed while the store changes (several processes may share it)
    <id>/payload.json     the artefact itself, exactly as given (a run, a trace, …)
    <id>/meta.json        kind, title, created, size, settings summary

An entry exists once its ``meta.json`` does: ``add`` writes the payload
first, then the metadata, each atomically (temporary file + ``os.replace``),
so a crash leaves either a whole entry or a folder without metadata that the
next rebuild removes. Ids are generated here and checked against one pattern
before any path is built from them, so no id reaches outside ``root``.
Beyond ``max_entries`` entries or ``max_bytes`` bytes the oldest go first.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import json
import os
import re
import secrets
import shutil
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..csv_safe import atomic_file
from ..env import cache_dir
from ..errors import InventError, UnknownEntry
from ..llm.names import describe_llm

try:  # POSIX: a lock shared with other processes; elsewhere threads only
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "KINDS",
    "HistoryEntry",
    "HistoryStore",
    "UnknownEntry",
    "summarize_settings",
    "atomic_write",
]

#: What the dashboard keeps: a scored question, a GAAP trace, an evaluation,
#: a TSU sweep, two runs side by side.
KINDS = ("run", "gaap", "evaluation", "tsu", "comparison")
#: Default bounds (ours): 200 entries; 256 MiB (a run is ~0.3 MB, a GAAP trace ~0.2 MB).
MAX_ENTRIES = 200
MAX_BYTES = 256 * 1024 * 1024
MAX_TITLE = 200

_ID = re.compile(r"[0-9]{8}T[0-9]{6}-[a-z]{1,16}-[0-9a-f]{8}")
_INDEX, _META, _PAYLOAD, _LOCK = "index.json", "meta.json", "payload.json", ".lock"
_THREAD_LOCK = threading.RLock()  # fcntl locks do not order threads of one process


@dataclass(frozen=True)
class HistoryEntry:
    """What the history list shows of one entry (the payload is read by ``load``).

    Attributes
    ----------
    id : the entry's id (safe as a widget key and a file name).
    kind : one of :data:`KINDS`.
    title : the user's name for it (the question, by default).
    created : ISO 8601 time in UTC, microseconds.
    size : bytes on disk.
    settings_summary : ``"paraphrase · n=9 · r=5 · T=0.7 · minilm · Qwen2.5-…"``.
    """

    id: str
    kind: str
    title: str
    created: str
    size: int
    settings_summary: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HistoryEntry:
        """Inverse of :meth:`to_dict`; raises ValueError on a malformed record."""
        try:
            entry = cls(**{f.name: data[f.name] for f in dataclasses.fields(cls)})
        except (KeyError, TypeError) as err:
            raise ValueError(f"malformed history record: {err}") from err
        if not _ID.fullmatch(str(entry.id)) or entry.kind not in KINDS:
            raise ValueError(f"malformed history record {entry.id!r}")
        texts = (entry.title, entry.created, entry.settings_summary)
        if not all(isinstance(t, str) for t in texts) or type(entry.size) is not int:
            raise ValueError(f"malformed history record {entry.id!r}: a field of the wrong type")
        try:
            dt.datetime.fromisoformat(entry.created)
        except ValueError:
            raise ValueError(f"malformed history record {entry.id!r}: created") from None
        return entry


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so readers see the old file or the new one, never half.

    The one writer of every output (:func:`invent_core.csv_safe.atomic_file`):
    a temporary file beside it, fsynced, moved over ``path``; removed on failure.
    """
    with atomic_file(path, "wb") as fh:
        fh.write(data)


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _short(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list | tuple):
        return ",".join(_short(v) for v in value)
    return str(value)


#: Settings shown in a summary, in order: key → label ("" = the value alone).
_SUMMARY_KEYS = (
    ("dataset", ""),
    ("limit", "limit="),
    ("perturber", ""),
    ("n_perturbations", "n="),
    ("n_replications", "r="),
    ("temperature", "T="),
    ("temperatures", "T="),
    ("embedder", ""),
    ("seed", "seed="),
)


def _flatten(data: Mapping[str, Any], out: dict[str, Any]) -> dict[str, Any]:
    for key, value in data.items():
        if isinstance(value, Mapping):
            _flatten(value, out)
        else:
            out.setdefault(key, value)
    return out


def summarize_settings(payload: Mapping[str, Any]) -> str:
    """One line of the settings a payload records (its ``config`` / ``settings``).

    Reads the flat ``settings`` of a run artefact, a nested ``RunConfig``
    dict under ``config`` (the LLM then from ``identities``), or an
    evaluation / TSU ``config``; unknown shapes give ``""``. The LLM is named for people (:func:`invent_core.llm.names.describe_llm`).
    """
    found: dict[str, Any] = {}
    for key in ("config", "settings"):
        if isinstance(payload.get(key), Mapping):
            _flatten(payload[key], found)
    if "temperatures" in payload:
        found.setdefault("temperatures", payload["temperatures"])
    if "temperatures" in found:
        found.pop("temperature", None)
    parts = [
        f"{label}{_short(found[key])}" for key, label in _SUMMARY_KEYS if found.get(key) is not None
    ]
    identities = payload.get("identities")
    identities = identities if isinstance(identities, Mapping) else {}
    # identities: a run artefact, format /2; top level: an evaluation or TSU payload
    llm = found.get("llm") or identities.get("llm") or payload.get("llm")
    para = found.get("paraphrase_llm") or identities.get("paraphrase_llm")
    para = para or payload.get("paraphrase_llm")
    if isinstance(llm, str) and llm:
        parts.append(describe_llm(llm))
        if isinstance(para, str) and para and para != llm:  # --paraphrase-llm
            parts.append(f"paraphrases: {describe_llm(para)}")
    return " · ".join(parts)


def _clean_title(title: Any) -> str:
    text = " ".join(str(title if title is not None else "").split())  # one line
    if not text:
        raise ValueError("a history entry needs a non-empty title")
    return text if len(text) <= MAX_TITLE else text[: MAX_TITLE - 1] + "…"


def _encode(payload: Mapping[str, Any]) -> bytes:
    if not isinstance(payload, Mapping):
        raise ValueError(f"a history payload must be a dict, got {type(payload).__name__}")
    try:
        return json.dumps(payload, ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError) as err:
        raise ValueError(f"the history payload is not JSON-serialisable: {err}") from err


class HistoryStore:
    """Runs and results kept on disk, newest first, bounded in count and bytes.

    Safe to share between threads and processes (a dashboard and a CLI on
    the same cache dir): every change holds an exclusive lock on ``.lock``.

    Parameters
    ----------
    root : folder of the store; default ``<cache_dir>/history``.
    max_entries : most entries kept (default 200); the oldest go first.
    max_bytes : most payload bytes kept (default 256 MiB); the newest entry
        is kept even when it alone is larger.

    Examples
    --------
    >>> store = HistoryStore(tmp_path)  # doctest: +SKIP
    >>> eid = store.add("run", run.to_dict(), title=run.question)  # doctest: +SKIP
    >>> store.list("run")[0].id == eid  # doctest: +SKIP
    True
    """

    def __init__(
        self,
        root: str | os.PathLike[str] | None = None,
        *,
        max_entries: int = MAX_ENTRIES,
        max_bytes: int = MAX_BYTES,
    ) -> None:
        for name, value in (("max_entries", max_entries), ("max_bytes", max_bytes)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        self.root = Path(root) if root is not None else cache_dir() / "history"
        self.max_entries = max_entries
        self.max_bytes = max_bytes

    # -- public API -----------------------------------------------------------
    def add(
        self,
        kind: str,
        payload: Mapping[str, Any],
        *,
        title: str,
        settings_summary: str | None = None,
    ) -> str:
        """Keep ``payload`` as a new entry; return its id.

        Parameters
        ----------
        kind : one of :data:`KINDS`.
        payload : a JSON-serialisable dict (a run artefact's ``to_dict()`` …).
        title : shown in the list; one line, at most 200 characters.
        settings_summary : default :func:`summarize_settings` of the payload.

        Raises
        ------
        ValueError
            On an unknown kind, an empty title or a payload JSON cannot hold.
        """
        if kind not in KINDS:
            raise ValueError(f"unknown history kind {kind!r}; one of {', '.join(KINDS)}")
        title = _clean_title(title)
        data = _encode(payload)
        summary = summarize_settings(payload) if settings_summary is None else settings_summary
        with self._locked():
            entries = self._entries()
            created = _now()
            entry = HistoryEntry(
                id=f"{created:%Y%m%dT%H%M%S}-{kind}-{secrets.token_hex(4)}",
                kind=kind,
                title=title,
                created=created.isoformat(timespec="microseconds"),
                size=len(data),
                settings_summary=str(summary),
            )
            self._write_entry(entry, data)
            self._write_index(self._evict([*entries, entry], keep=entry.id))
        return entry.id

    def list(self, kind: str | None = None) -> list[HistoryEntry]:
        """Entries, newest first; only those of ``kind`` when given."""
        if kind is not None and kind not in KINDS:
            raise ValueError(f"unknown history kind {kind!r}; one of {', '.join(KINDS)}")
        if not self.root.is_dir():
            return []
        with self._locked():
            entries = self._entries()
        entries = [e for e in entries if kind is None or e.kind == kind]
        return sorted(entries, key=lambda e: (e.created, e.id), reverse=True)

    def latest(self, kind: str | None = None) -> HistoryEntry | None:
        """Return the newest entry (of ``kind``), ``None`` when there is none."""
        entries = self.list(kind)
        return entries[0] if entries else None

    def get(self, entry_id: str) -> HistoryEntry:
        """Return one entry's metadata; :class:`UnknownEntry` if it does not exist."""
        self._folder(entry_id)  # validates the id
        for entry in self.list():
            if entry.id == entry_id:
                return entry
        raise UnknownEntry(f"no history entry {entry_id}: it was deleted or evicted")

    def load(self, entry_id: str) -> dict[str, Any]:
        """Return the payload of one entry, as it was given to :meth:`add`."""
        path = self._folder(entry_id) / _PAYLOAD
        try:
            if (path.parent / _META).is_file():
                return json.loads(path.read_bytes())
        except FileNotFoundError:
            pass  # deleted between the check and the read
        except ValueError as err:
            raise InventError(f"history entry {entry_id} is damaged: {err}") from err
        raise UnknownEntry(f"no history entry {entry_id}: it was deleted or evicted")

    def export(self, entry_id: str) -> bytes:
        """Return the payload as indented UTF-8 JSON, for a download button.

        It is the artefact itself (no history metadata around it), so an
        exported run reads back like one saved with ``run --save``.
        """
        return json.dumps(self.load(entry_id), ensure_ascii=False, indent=2).encode("utf-8")

    def rename(self, entry_id: str, title: str) -> HistoryEntry:
        """Give an entry a new title; return its updated metadata."""
        title = _clean_title(title)
        folder = self._folder(entry_id)
        with self._locked():
            entries = self._entries()
            old = next((e for e in entries if e.id == entry_id), None)
            if old is None:
                raise UnknownEntry(f"no history entry {entry_id}: it was deleted or evicted")
            new = dataclasses.replace(old, title=title)
            atomic_write(folder / _META, json.dumps(new.to_dict()).encode("utf-8"))
            self._write_index([new if e.id == entry_id else e for e in entries])
        return new

    def delete(self, entry_id: str) -> None:
        """Remove one entry; :class:`UnknownEntry` if it does not exist."""
        self._folder(entry_id)
        with self._locked():
            entries = self._entries()
            if not any(e.id == entry_id for e in entries):
                raise UnknownEntry(f"no history entry {entry_id}: it was deleted or evicted")
            self._remove(entry_id)
            self._write_index([e for e in entries if e.id != entry_id])

    def clear(self) -> None:
        """Remove every entry (and nothing else that may share the folder)."""
        if not self.root.is_dir():
            return
        with self._locked():
            for child in self.root.iterdir():
                if child.is_dir() and _ID.fullmatch(child.name):
                    self._remove(child.name)
                elif child.name.endswith(".tmp"):
                    child.unlink(missing_ok=True)
            self._write_index([])

    # -- internals (the lock is held) --------------------------------------------
    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True)
        with _THREAD_LOCK, open(self.root / _LOCK, "ab") as fh:
            if fcntl is not None:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX)  # released when fh closes
            yield

    def _folder(self, entry_id: str) -> Path:
        # The id is the only user-reachable part of a path: a strict pattern, no "/" or "..".
        if not isinstance(entry_id, str) or not _ID.fullmatch(entry_id):
            raise ValueError(f"not a history entry id: {entry_id!r}")
        return self.root / entry_id

    def _write_entry(self, entry: HistoryEntry, data: bytes) -> None:
        folder = self._folder(entry.id)
        folder.mkdir()
        try:  # payload first: the metadata file is what makes the entry exist
            atomic_write(folder / _PAYLOAD, data)
            atomic_write(folder / _META, json.dumps(entry.to_dict()).encode("utf-8"))
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise

    def _remove(self, entry_id: str) -> None:
        folder = self._folder(entry_id)
        (folder / _META).unlink(missing_ok=True)  # un-commit first, then the rest
        shutil.rmtree(folder, ignore_errors=True)

    def _evict(self, entries: list[HistoryEntry], *, keep: str) -> list[HistoryEntry]:
        """Drop the oldest entries beyond the bounds, never ``keep`` (the new one)."""
        entries = sorted(entries, key=lambda e: (e.created, e.id))
        total = sum(e.size for e in entries)
        while len(entries) > 1 and (len(entries) > self.max_entries or total > self.max_bytes):
            victim = next(e for e in entries if e.id != keep)
            entries.remove(victim)
            total -= victim.size
            self._remove(victim.id)
        return entries

    def _write_index(self, entries: list[HistoryEntry]) -> None:
        data = {"version": 1, "entries": [e.to_dict() for e in entries]}
        atomic_write(self.root / _INDEX, json.dumps(data, ensure_ascii=False).encode("utf-8"))

    def _entries(self) -> list[HistoryEntry]:
        """Return the index when it matches the committed entry folders, else rebuild it."""
        committed = {
            p.name
            for p in self.root.iterdir()
            if p.is_dir() and _ID.fullmatch(p.name) and (p / _META).is_file()
        }
        try:
            data = json.loads((self.root / _INDEX).read_bytes())
            entries = [HistoryEntry.from_dict(d) for d in data["entries"]]
        except (OSError, ValueError, KeyError, TypeError):
            return self._rebuild()
        ids = [e.id for e in entries]
        if len(ids) != len(set(ids)) or set(ids) != committed:
            return self._rebuild()
        return entries

    def _rebuild(self) -> list[HistoryEntry]:
        """Read every entry's metadata; drop leftovers of interrupted writes."""
        entries = []
        for child in self.root.iterdir():
            if child.name.endswith(".tmp") and child.is_file():
                child.unlink(missing_ok=True)
            elif child.is_dir() and _ID.fullmatch(child.name):
                damaged = (child / _META).exists()  # absent: an add cut short, removed
                entry = _read_meta(child) or (_recover(child) if damaged else None)
                if entry is not None:
                    entries.append(entry)
                elif not damaged:
                    self._remove(child.name)
        self._write_index(entries)
        return entries


def _read_meta(folder: Path) -> HistoryEntry | None:
    """Read an entry folder's metadata; ``None`` when it is not a whole entry."""
    for stray in folder.glob("*.tmp"):
        if stray.is_file():
            stray.unlink(missing_ok=True)
    if not (folder / _PAYLOAD).is_file():
        return None
    try:
        entry = HistoryEntry.from_dict(json.loads((folder / _META).read_bytes()))
    except (OSError, ValueError):
        return None
    return entry if entry.id == folder.name else None


def _recover(folder: Path) -> HistoryEntry | None:
    """Rebuild the metadata of an entry whose payload is whole but whose ``meta.json`` is damaged.

    The id names the time and the kind; the title is the payload's question.
    ``None`` (the folder is left as it is, unlisted) when the payload is not a
    whole JSON object either.
    """
    try:
        data = (folder / _PAYLOAD).read_bytes()
        payload = json.loads(data)
        stamp, kind, _ = folder.name.split("-")
        created = dt.datetime.strptime(stamp, "%Y%m%dT%H%M%S").replace(tzinfo=dt.UTC)
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(payload, dict) or kind not in KINDS:
        return None
    title = payload.get("question") or payload.get("title") or f"{kind} (recovered)"
    entry = HistoryEntry(
        id=folder.name,
        kind=kind,
        title=_clean_title(str(title)[:200]) if str(title).strip() else f"{kind} (recovered)",
        created=created.isoformat(timespec="microseconds"),
        size=len(data),
        settings_summary=str(summarize_settings(payload)),
    )
    try:
        atomic_write(folder / _META, json.dumps(entry.to_dict()).encode("utf-8"))
    except OSError:
        pass  # listed now; rebuilt again next time
    return entry
