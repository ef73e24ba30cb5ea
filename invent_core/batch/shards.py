"""Shards of a batch input: ``--shard i/N`` keeps the rows whose id hashes to part i.

``int(sha256(id)[:8]) % N == i - 1``: the id (not the row position) decides,
so the split is stable when rows are appended, and each machine can point at
the same server. :func:`~invent_core.batch.merge.merge_outputs` joins the parts.

``--shard auto`` reads i and N from a cluster scheduler's environment
(:func:`shard_from_env`): a Slurm job array or a Kubernetes indexed Job.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping

__all__ = ["MAX_SHARDS", "SHARD_COUNT_VAR", "parse_shard", "shard_from_env", "shard_of"]

#: Most parts a split may have: more machines than any cluster lends, and merge
#: checks every part 1 … N is there (10^12 parts would exhaust its memory).
MAX_SHARDS = 10_000

#: Kubernetes gives a pod its index (JOB_COMPLETION_INDEX) but not the Job's
#: ``completions``: the manifest sets this variable to the same number.
SHARD_COUNT_VAR = "INVENT_SHARD_COUNT"

_SLURM = ("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT")
_LOOKED_FOR = (
    "Slurm array (SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_COUNT "
    f"or SLURM_ARRAY_TASK_MAX) or Kubernetes indexed Job (JOB_COMPLETION_INDEX with {SHARD_COUNT_VAR})"
)


def parse_shard(
    shard: str | tuple[int, int] | None, environ: Mapping[str, str] | None = None
) -> tuple[int, int] | None:
    """``"2/4"`` or ``(2, 4)`` → ``(2, 4)``; parts are numbered 1 … N.

    ``"auto"``: :func:`shard_from_env` on ``environ`` (default ``os.environ``).

    Raises
    ------
    ValueError
        A malformed spec, an index outside 1 … N, or ``auto`` outside an array job.
    """
    if shard is None or shard == "":
        return None
    if isinstance(shard, str) and shard.strip().lower() == "auto":
        return shard_from_env(os.environ if environ is None else environ)[:2]
    if isinstance(shard, str):
        i_s, sep, n_s = shard.partition("/")
        try:
            i, n = int(i_s), int(n_s)
        except ValueError:
            raise ValueError(
                f"shard must look like 'i/N' (e.g. 1/4) or 'auto', got {shard!r}"
            ) from None
        if not sep:
            raise ValueError(f"shard must look like 'i/N' (e.g. 1/4) or 'auto', got {shard!r}")
    else:
        i, n = (int(x) for x in shard)
    if n < 1 or not 1 <= i <= n:
        raise ValueError(f"shard {i}/{n}: need 1 <= i <= N (parts are numbered from 1)")
    _bounded(n, f"--shard {i}/{n}")
    return i, n


def _bounded(n: int, what: str) -> None:
    """Refuse a split into more than :data:`MAX_SHARDS` parts, naming where N came from."""
    if n > MAX_SHARDS:
        raise ValueError(f"{what}: at most {MAX_SHARDS:,} parts (N), got {n:,}")


def shard_from_env(environ: Mapping[str, str]) -> tuple[int, int, str]:
    """``(i, N, where)``: this task's part of an array job, from the scheduler's variables.

    Slurm numbers array tasks as the user wrote ``--array`` (``0-3``, ``1-4``,
    ``0-6:2``), so i counts from ``SLURM_ARRAY_TASK_MIN`` in steps of
    ``SLURM_ARRAY_TASK_STEP``; N is ``SLURM_ARRAY_TASK_COUNT`` (else
    ``(MAX - MIN) / STEP + 1``). A list with gaps (``--array=1,5,9``) has no
    such numbering and is refused. Kubernetes' ``JOB_COMPLETION_INDEX`` counts
    from 0; N comes from :data:`SHARD_COUNT_VAR`. ``where`` names the source.

    Raises
    ------
    ValueError
        Neither scheduler's variables are set (the message names the ones looked
        for), or they are not whole numbers or do not give 1 <= i <= N.
    """
    if environ.get("SLURM_ARRAY_TASK_ID"):
        i, n = _slurm(environ)
        where = f"Slurm array task {environ['SLURM_ARRAY_TASK_ID']}"
    elif environ.get("JOB_COMPLETION_INDEX"):
        if not environ.get(SHARD_COUNT_VAR):
            raise ValueError(
                f"--shard auto: JOB_COMPLETION_INDEX is set but {SHARD_COUNT_VAR} is not; "
                "Kubernetes does not tell a pod the Job's completions: set it to the same number "
                "in the Job's env"
            )
        i = _whole(environ, "JOB_COMPLETION_INDEX") + 1
        n = _whole(environ, SHARD_COUNT_VAR)
        where = f"Kubernetes completion index {i - 1}"
    else:
        raise ValueError(f"--shard auto: not inside an array job; looked for a {_LOOKED_FOR}")
    if n < 1 or not 1 <= i <= n:
        raise ValueError(f"--shard auto: {where} gives part {i} of {n}, outside 1 … N")
    _bounded(n, f"--shard auto: {where}")
    return i, n, where


def _slurm(environ: Mapping[str, str]) -> tuple[int, int]:
    """(i, N) of a Slurm array task (see :func:`shard_from_env`)."""
    missing = [v for v in _SLURM[:2] if not environ.get(v)]
    if missing:
        raise ValueError(f"--shard auto: SLURM_ARRAY_TASK_ID is set but not {', '.join(missing)}")
    task, low = _whole(environ, "SLURM_ARRAY_TASK_ID"), _whole(environ, "SLURM_ARRAY_TASK_MIN")
    step = _whole(environ, "SLURM_ARRAY_TASK_STEP") if environ.get("SLURM_ARRAY_TASK_STEP") else 1
    if environ.get("SLURM_ARRAY_TASK_COUNT"):
        n = _whole(environ, "SLURM_ARRAY_TASK_COUNT")
    elif environ.get("SLURM_ARRAY_TASK_MAX"):
        n = (_whole(environ, "SLURM_ARRAY_TASK_MAX") - low) // max(step, 1) + 1
    else:
        raise ValueError(
            "--shard auto: SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_COUNT "
            "nor SLURM_ARRAY_TASK_MAX"
        )
    if step < 1 or (task - low) % step:
        raise ValueError(
            f"--shard auto: Slurm array task {task} is not MIN {low} plus a multiple of STEP "
            f"{step}; use a range such as --array=1-{n} (not a list with gaps), or --shard i/N"
        )
    return (task - low) // step + 1, n


def _whole(environ: Mapping[str, str], name: str) -> int:
    try:
        return int(environ[name])
    except ValueError:
        raise ValueError(f"--shard auto: {name}={environ[name]!r} is not a whole number") from None


def shard_of(row_id: str, n_shards: int) -> int:
    """The part (1 … N) that the row with this id belongs to: a stable hash of the id."""
    digest = hashlib.sha256(str(row_id).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % n_shards + 1
