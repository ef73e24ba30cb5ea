"""The LLM cache on a network file system: detected from the mounts table, rollback journal there."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

from invent_core.errors import CacheWarning
from invent_core.llm import cache as cache_mod
from invent_core.llm.base import Completion, Request
from invent_core.llm.cache import LLMCache, filesystem_type, journal_mode_for

ROOT = Path(__file__).resolve().parents[2]


def mounts_table(path: Path, home_fs: str = "nfs4") -> Path:
    """A /proc/mounts of a cluster node: local root and scratch, the home on ``home_fs``."""
    path.write_text(
        textwrap.dedent(
            f"""\
            /dev/sda1 / ext4 rw,relatime 0 0
            proc /proc proc rw,nosuid 0 0
            tmpfs /tmp tmpfs rw 0 0
            filer:/export/home /home {home_fs} rw,vers=4.2,hard 0 0
            /dev/nvme0n1 /home/alice/scratch xfs rw 0 0
            lustre@o2ib:/fs /lus lustre rw,flock 0 0
            user@host:/x /mnt/my\\040drive fuse.sshfs rw 0 0
            """
        ),
        encoding="utf-8",
    )
    return path


def test_the_deepest_mount_point_decides(tmp_path):
    table = mounts_table(tmp_path / "mounts")
    assert filesystem_type("/home/alice/.cache/invent", table) == "nfs4"
    assert filesystem_type("/home/alice/scratch/cache", table) == "xfs"  # mounted inside /home
    assert filesystem_type("/homework", table) == "ext4"  # a prefix of the name, not a folder
    assert filesystem_type("/lus/project/c", table) == "lustre"
    assert filesystem_type("/mnt/my drive/c", table) == "fuse.sshfs"  # \040 is a space
    assert filesystem_type("/var/cache", table) == "ext4"
    assert filesystem_type("/x", tmp_path / "no-such-table") is None


@pytest.mark.parametrize(
    ("fs", "mode"),
    [("nfs", "delete"), ("nfs4", "delete"), ("cifs", "delete"), ("smb3", "delete"),
     ("lustre", "delete"), ("gpfs", "delete"), ("beegfs", "delete"), ("fuse.sshfs", "delete"),
     ("ext4", "wal"), ("xfs", "wal"), ("btrfs", "wal"), ("tmpfs", "wal")],
)  # fmt: skip
def test_network_file_systems_get_the_rollback_journal(tmp_path, fs, mode):
    assert journal_mode_for("/home/alice/.cache", mounts_table(tmp_path / "m", fs)) == mode


def test_a_cache_in_a_folder_on_nfs_switches_to_delete_and_says_so(tmp_path, monkeypatch):
    """The real folder is mounted, in the table, from an NFS filer: the file's journal is DELETE."""
    folder = tmp_path / "home"
    folder.mkdir()
    table = tmp_path / "mounts"
    table.write_text(f"/dev/sda1 / ext4 rw 0 0\nfiler:/h {folder} nfs4 rw 0 0\n", encoding="utf-8")
    monkeypatch.setattr(cache_mod, "MOUNTS", table)
    with pytest.warns(CacheWarning, match=r"network file system \(nfs4\).*journal_mode=DELETE"):
        cache = LLMCache(folder / "llm.sqlite")
    cache.put("m", Request(messages=[{"role": "user", "content": "q"}]), Completion("a"))
    assert cache.journal == "delete" and len(cache) == 1
    assert not (folder / "llm.sqlite-wal").exists()
    with sqlite3.connect(folder / "llm.sqlite") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def test_a_cache_on_a_local_disk_keeps_wal_without_a_word(tmp_path, monkeypatch):
    table = tmp_path / "mounts"
    table.write_text(f"/dev/sda1 / ext4 rw 0 0\ntmpfs {tmp_path} tmpfs rw 0 0\n", encoding="utf-8")
    monkeypatch.setattr(cache_mod, "MOUNTS", table)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)
        cache = LLMCache(tmp_path / "llm.sqlite")
    assert cache.journal == "wal"
    with pytest.raises(ValueError, match=r"journal must be one of auto, wal, delete, got 'off'"):
        LLMCache(tmp_path / "x.sqlite", journal="off")


WRITER = """
import sys
from invent_core.llm.base import Completion, Request
from invent_core.llm.cache import LLMCache

path, who, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
cache = LLMCache(path, journal="delete", busy_timeout_ms=60_000)
for k in range(n):
    req = Request(messages=[{"role": "user", "content": f"{who} {k}"}], seed=k)
    cache.put("model", req, Completion(f"{who}-{k}", {"completion_tokens": 1}))
    assert cache.get("model", req).text == f"{who}-{k}"
print(cache.journal)
"""


def test_two_processes_write_one_cache_in_the_safe_mode(tmp_path):
    """Real processes, the rollback journal: every row of both arrives, none is lost."""
    path, n = tmp_path / "shared.sqlite", 150
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), who, str(n)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for who in ("a", "b")
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [o[1] for o in outs]
    assert [o[0].strip() for o in outs] == ["delete", "delete"]
    cache = LLMCache(path, journal="delete")
    assert len(cache) == 2 * n
    for who in ("a", "b"):
        for k in (0, n - 1):
            req = Request(messages=[{"role": "user", "content": f"{who} {k}"}], seed=k)
            assert cache.get("model", req).text == f"{who}-{k}"
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
