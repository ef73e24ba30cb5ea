"""Shards of a batch input: ``--shard i/N`` keeps the rows whose id hashes to part i.

``int(sha256(id)[:8]) % N == i - 1``: the id (not the row position) decides,
so the split is stable when rows are appended, and each machine can point at
the same server. :func:`~invent_core.batch.merge.merge_outputs` joins the parts.
"""

from __future__ import annotations

import hashlib

__all__ = ["parse_shard", "shard_of"]


def parse_shard(shard: str | tuple[int, int] | None) -> tuple[int, int] | None:
    """``"2/4"`` or ``(2, 4)`` → ``(2, 4)``; parts are numbered 1 … N.

    Raises
    ------
    ValueError
        A malformed spec or an index outside 1 … N.
    """
    if shard is None or shard == "":
        return None
    if isinstance(shard, str):
        i_s, sep, n_s = shard.partition("/")
        try:
            i, n = int(i_s), int(n_s)
        except ValueError:
            raise ValueError(f"shard must look like 'i/N' (e.g. 1/4), got {shard!r}") from None
        if not sep:
            raise ValueError(f"shard must look like 'i/N' (e.g. 1/4), got {shard!r}")
    else:
        i, n = (int(x) for x in shard)
    if n < 1 or not 1 <= i <= n:
        raise ValueError(f"shard {i}/{n}: need 1 <= i <= N (parts are numbered from 1)")
    return i, n


def shard_of(row_id: str, n_shards: int) -> int:
    """The part (1 … N) that the row with this id belongs to: a stable hash of the id."""
    digest = hashlib.sha256(str(row_id).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % n_shards + 1
