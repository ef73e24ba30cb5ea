"""Packaged model files: assembled from real (tiny) installed distributions, verified, re-checked.

Three fake distributions, each with a ``.dist-info`` and one chunk, are put on
``sys.path`` in a temporary folder, so ``importlib.metadata`` finds them as it
finds the real weight packages. Nothing here touches the real models.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import time

import pytest

from invent_core import packaged
from invent_core.errors import InventWarning, ModelFileError
from invent_core.packaged import PackagedPart, assemble, verify_file

N_PARTS = 3
PART_BYTES = 64 * 1024


@pytest.fixture
def parts(tmp_path, monkeypatch):
    """``(parts, size, sha256, original bytes)`` of a three-chunk file carried by fake packages."""
    site = tmp_path / "site"
    chunks = []
    out = []
    for i in range(1, N_PARTS + 1):
        dist, module = f"invent-fake-part{i}", f"invent_fake_part{i}"
        info = site / f"{module}-0.1.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
        data = os.urandom(PART_BYTES)
        (site / module / "data").mkdir(parents=True)
        (site / module / "data" / f"part{i:02d}.bin").write_bytes(data)
        chunks.append(data)
        out.append(PackagedPart(dist, f"{module}/data/part{i:02d}.bin"))
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    whole = b"".join(chunks)
    return tuple(out), len(whole), hashlib.sha256(whole).hexdigest(), whole


@pytest.fixture
def hashes(monkeypatch):
    """Counts full-file hashes (the expensive step a valid marker saves)."""
    calls: list[str] = []
    real = packaged.sha256_file

    def counting(path, **kw):
        calls.append(str(path))
        return real(path, **kw)

    monkeypatch.setattr(packaged, "sha256_file", counting)
    return calls


def _flip(path, offset: int) -> None:
    """Change 4 bytes in place: same size, same inode."""
    time.sleep(0.05)  # past the file clock's tick, as any later edit would be
    with open(path, "r+b") as fh:
        fh.seek(offset)
        old = fh.read(4)
        fh.seek(offset)
        fh.write(bytes(b ^ 0xFF for b in old))


def test_assemble_verifies_once_then_trusts_the_marker(parts, tmp_path, hashes):
    p, size, sha, whole = parts
    dest = tmp_path / "models" / "m.gguf"
    assert assemble(p, dest, size=size, sha256=sha) == dest
    assert dest.read_bytes() == whole and len(hashes) == 1
    marker = json.loads((tmp_path / "models" / "m.gguf.verified").read_text())
    st = dest.stat()
    assert marker == {
        "sha256": sha,
        "size": size,
        "inode": st.st_ino,
        "device": st.st_dev,
        "mtime_ns": st.st_mtime_ns,
        "ctime_ns": st.st_ctime_ns,
    }
    assert verify_file(dest, size=size, sha256=sha) == sha
    assemble(p, dest, size=size, sha256=sha)
    assert len(hashes) == 1, "an unchanged file is not hashed again"


def test_four_flipped_bytes_are_detected_and_the_file_reassembled(parts, tmp_path, hashes):
    p, size, sha, whole = parts
    dest = tmp_path / "m.gguf"
    assemble(p, dest, size=size, sha256=sha)
    _flip(dest, 100_000)
    assert dest.stat().st_size == size
    with pytest.raises(ModelFileError, match="has sha256 .* expected"):
        verify_file(dest, size=size, sha256=sha)
    with pytest.warns(InventWarning, match="re-assembling m.gguf from its packages"):
        assemble(p, dest, size=size, sha256=sha)
    assert dest.read_bytes() == whole
    assert verify_file(dest, size=size, sha256=sha) == sha


def test_mtime_set_back_after_an_edit_is_still_caught(parts, tmp_path):
    p, size, sha, _ = parts
    dest = tmp_path / "m.gguf"
    assemble(p, dest, size=size, sha256=sha)
    st = dest.stat()
    _flip(dest, 10)
    os.utime(dest, ns=(st.st_atime_ns, st.st_mtime_ns))  # hide the edit from mtime
    assert dest.stat().st_mtime_ns == st.st_mtime_ns
    with pytest.raises(ModelFileError, match="has sha256"):
        verify_file(dest, size=size, sha256=sha)


def test_replaced_file_and_old_marker_are_hashed_again(parts, tmp_path, hashes):
    p, size, sha, whole = parts
    dest = tmp_path / "m.gguf"
    assemble(p, dest, size=size, sha256=sha)
    copy = tmp_path / "copy"
    copy.write_bytes(whole)
    os.replace(copy, dest)  # same bytes, another inode: hashed again, then trusted
    n = len(hashes)
    assert verify_file(dest, size=size, sha256=sha) == sha and len(hashes) == n + 1
    (tmp_path / "m.gguf.verified").write_text(sha)  # the digest-only marker of earlier versions
    verify_file(dest, size=size, sha256=sha)
    assert len(hashes) == n + 2
    verify_file(dest, size=size, sha256=sha)
    assert len(hashes) == n + 2


def test_cache_identity_comes_from_a_verified_file(parts, tmp_path, monkeypatch):
    """The local model's cache key names a sha256 only after the file on disk was verified."""
    from invent_core.llm.local import LocalLLM, LocalModelSpec

    monkeypatch.setenv("INVENT_CACHE", str(tmp_path / "cache"))
    p, size, sha, whole = parts
    spec = LocalModelSpec("fake", "a fake model", p, "fake.gguf", size, sha, "none.txt")
    llm = LocalLLM(spec, cache=None)
    assert llm.identity == f"local:sha256={sha}|model=fake"  # assembled and verified for it
    gguf = tmp_path / "cache" / "models" / "fake" / "fake.gguf"
    assert gguf.read_bytes() == whole
    _flip(gguf, 5)
    with pytest.warns(InventWarning, match="re-assembling"):
        assert llm.identity == f"local:sha256={sha}|model=fake"
    assert gguf.read_bytes() == whole
    # a part that no longer matches the release: no identity at all, the file is refused
    chunk = packaged.locate_part(p[0])
    _flip(chunk, 0)
    _flip(gguf, 5)
    with (
        pytest.warns(InventWarning),
        pytest.raises(
            ModelFileError,
            match=r"invent-fake-part1.* do not assemble into the official fake\.gguf",
        ),
    ):
        _ = llm.identity
