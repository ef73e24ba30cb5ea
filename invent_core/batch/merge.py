"""Joining the outputs of shards (``batch --shard i/N``), or converting one output.

Configurations must match (apart from the shard), ids are de-duplicated (the
first part listed wins) and rows ordered by their original row number; the
parts' errors sidecars are concatenated. A part's torn or corrupt row (found
as resuming ``batch`` finds it) is left out with a warning naming its line.
"""

from __future__ import annotations

import heapq
import os
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..provenance import package_versions, provenance
from ..questions.files import BatchInputError
from .config_diff import config_diff
from .output import (
    Checkpoint,
    OutputLock,
    check_output_paths,
    evaluate_output,
    iter_records,
    output_format,
    read_columns,
    read_meta,
    sidecar_config,
    sidecar_paths,
    write_json_atomic,
    write_records,
)
from .shards import parse_shard

__all__ = ["MergeSummary", "merge_outputs"]


@dataclass
class MergeSummary:
    """What :func:`merge_outputs` wrote."""

    output: str
    parts: list[str]
    n_rows: int
    n_duplicates: int
    n_errors: int
    shards: list[str]
    evaluation: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)  # torn or corrupt rows left out


def _read_part(p: Path) -> tuple[dict[str, Any], Path]:
    """A part's configuration and the file its rows are read from."""
    if not p.exists():
        raise BatchInputError("no such file", file=p)
    side = sidecar_paths(p)
    meta = read_meta(side["meta"])
    if meta is None:
        raise BatchInputError(
            f"its sidecar {side['meta'].name} is missing; is this a batch output?", file=p
        )
    own_rows = output_format(p) in ("csv", "jsonl") or not side["checkpoint"].exists()
    return sidecar_config(meta, side["meta"]), p if own_rows else side["checkpoint"]


def _check_configs(parts: list[Path], configs: list[dict[str, Any]]) -> None:
    for p, cfg in zip(parts[1:], configs[1:], strict=True):
        try:
            diff = config_diff(configs[0], cfg, ignore=("shard",))
        except ValueError as err:  # a run configuration that cannot be read: its sidecar's fault
            raise BatchInputError(str(err), file=sidecar_paths(p)["meta"]) from None
        if diff:
            raise BatchInputError(
                f"configuration differs from {parts[0].name}: " + "; ".join(diff), file=p
            )


def _check_shards(parts: list[Path], shards: list[str | None]) -> None:
    """Every shard 1 … N present, all from one split."""
    parsed = [parse_shard(s) for s in shards if s]
    n_values = {n for _, n in parsed}
    if len(n_values) > 1 or len(parsed) != len(shards):
        raise BatchInputError(f"parts come from different splits: {shards}", file=parts[0])
    (n,) = n_values
    missing = sorted(set(range(1, n + 1)) - {i for i, _ in parsed})
    if missing:
        raise BatchInputError(
            "shard(s) "
            + ", ".join(f"{i}/{n}" for i in missing)
            + " missing (pass --allow-partial to merge anyway)",
            file=parts[0],
        )


def _part_rows(path: Path, warnings: list[str]) -> Iterator[dict[str, Any]]:
    """A part's rows less a torn or corrupt one, read as ``batch`` resuming reads its output.

    A part cannot be repaired here (its rows are only read), so such a row is
    left out and named in ``warnings``; resuming that batch run scores it again.
    """
    if output_format(path) not in ("csv", "jsonl"):  # written whole, atomically: never torn
        return iter_records(path)
    columns = read_columns(path) or []
    if output_format(path) == "csv" and not {"id", "row"} <= set(columns):
        raise BatchInputError("no 'id' and 'row' columns; is this a batch output?", file=path)
    checkpoint = Checkpoint(path, columns)
    checkpoint.read_done()
    again = "it is left out; resume that batch run to score it again, then merge"
    for r in checkpoint.bad:
        warnings.append(f"{path}: line {r.line} is not a valid row ({r.problem}); {again}")
    if checkpoint.tail_line is not None and checkpoint.truncated_bytes:
        warnings.append(
            f"{path}: line {checkpoint.tail_line} is not a complete row (cut short by a crash?); "
            + again
        )
    elif checkpoint.tail_line is not None:  # whole rows swallowed by an unclosed quote
        warnings.append(
            f"{path}: lines {checkpoint.tail_line}-end are not complete rows (an unbalanced "
            "quote?); they are left out; resume that batch run to score them again, then merge"
        )
    return checkpoint.kept_rows()


def _sorted_rows(path: Path, warnings: list[str]) -> Iterator[dict[str, Any]]:
    last = -1
    for rec in _part_rows(path, warnings):
        row = rec.get("row")
        if row is None:
            raise BatchInputError("a row has no 'row' number; is this a batch output?", file=path)
        if int(row) < last:
            raise BatchInputError(
                f"rows are not in input order (row {row} after {last})", file=path
            )
        last = int(row)
        yield rec


def _merged_rows(
    sources: list[Path], counts: dict[str, int], warnings: list[str]
) -> Iterator[dict[str, Any]]:
    """Rows of every part in row order, each id once (the first part listed wins)."""
    seen: set[str] = set()
    keyed = [
        ((int(r["row"]), k, r) for r in _sorted_rows(src, warnings))
        for k, src in enumerate(sources)
    ]
    for _, _, rec in heapq.merge(*keyed, key=lambda t: (t[0], t[1])):
        rid = str(rec["id"])
        if rid in seen:
            counts["dup"] += 1
            continue
        seen.add(rid)
        yield rec


def _concat_errors(parts: list[Path], dest: Path) -> int:
    n = 0
    with open(dest, "w", encoding="utf-8") as f:
        for p in parts:
            e = sidecar_paths(p)["errors"]
            if e.exists():
                with open(e, encoding="utf-8") as src:
                    for line in src:
                        if line.strip():
                            f.write(line.rstrip("\n") + "\n")
                            n += 1
    return n


def merge_outputs(
    parts: Sequence[str | os.PathLike],
    output: str | os.PathLike,
    *,
    allow_partial: bool = False,
) -> MergeSummary:
    """Join the outputs of shards (or convert one output) into ``output``.

    Parameters
    ----------
    parts : outputs of :func:`~invent_core.batch.batch_score` (any of its
        formats); each needs its ``.meta.json`` sidecar.
    output : the merged file; its format follows the extension.
    allow_partial : accept parts that do not cover every shard 1 … N.

    Raises
    ------
    BatchInputError
        A missing part or sidecar, configurations that differ (other than
        the shard), shards that do not cover 1 … N, an output that is one of
        the parts, or an unwritable output.
    """
    if not parts:
        raise ValueError("merge needs at least one part")
    out_path = Path(output)
    part_paths = [Path(p) for p in parts]
    side = sidecar_paths(out_path)
    read = [_read_part(p) for p in part_paths]
    configs, sources = [c for c, _ in read], [s for _, s in read]
    part_files = [f for p in part_paths for f in (p, *sidecar_paths(p).values())]
    check_output_paths([out_path, side["meta"], side["errors"], side["lock"]], part_files)
    _check_configs(part_paths, configs)
    shards = [c.get("shard") for c in configs]
    if any(shards) and not allow_partial:
        _check_shards(part_paths, shards)
    columns = configs[0].get("columns") or read_columns(sources[0])
    counts = {"dup": 0}
    warnings: list[str] = []
    with OutputLock(side["lock"], out_path):
        n = write_records(_merged_rows(sources, counts, warnings), out_path, columns)
        summary = MergeSummary(
            warnings=warnings,
            output=str(out_path),
            parts=[str(p) for p in part_paths],
            n_rows=n,
            n_duplicates=counts["dup"],
            n_errors=_concat_errors(part_paths, side["errors"]),
            shards=[s for s in shards if s],
        )
        config = dict(configs[0], shard=None)
        if "correct" in columns:
            summary.evaluation = evaluate_output(out_path, list(config.get("methods", [])))
        write_json_atomic(
            side["meta"],
            {
                "config": config,
                "merged_from": [str(p) for p in part_paths],
                "versions": package_versions(),
                "provenance": provenance(),
                "created": datetime.now(UTC).isoformat(timespec="seconds"),
                "summary": asdict(summary),
            },
        )
    return summary
