"""Where a batch output goes: its format, its sidecars, and checks before anything is written.

An output ``OUTPUT`` (``.csv``, ``.jsonl``, ``.json`` or ``.parquet``) has
sidecars beside it: ``OUTPUT.meta.json`` (settings and summary),
``OUTPUT.errors.jsonl`` (failed rows), ``OUTPUT.checkpoint.jsonl`` (for .json
and .parquet, whose final file is written at the end) and ``OUTPUT.lock``.
An output that is an input (the same path, a hard or a symbolic link) or
cannot be written is refused before any work; sidecars are written atomically.
"""

from __future__ import annotations

import errno
import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ...csv_safe import atomic_file
from ...questions import schema as qs
from ...questions.files import BatchInputError

__all__ = [
    "check_output_folder",
    "check_output_paths",
    "lock_path",
    "output_format",
    "probe_space",
    "read_meta",
    "sidecar_config",
    "sidecar_paths",
    "write_json_atomic",
]


def output_format(path: str | os.PathLike) -> str:
    """``csv``, ``jsonl``, ``json`` or ``parquet`` from the extension."""
    suffix = Path(path).suffix.lower()
    fmt = {
        ".csv": "csv",
        ".jsonl": "jsonl",
        ".ndjson": "jsonl",
        ".json": "json",
        ".parquet": "parquet",
    }.get(suffix)
    if fmt is None:
        raise BatchInputError(
            f"unsupported output extension {suffix or '(none)'!r}; use .csv, .jsonl, .json or .parquet",
            file=path,
        )
    return fmt


def sidecar_paths(output: str | os.PathLike) -> dict[str, Path]:
    """``meta``, ``errors``, ``checkpoint`` and ``lock`` paths that belong to an output file."""
    out = Path(output)
    fmt = output_format(out)
    checkpoint = out if fmt in ("csv", "jsonl") else out.with_name(out.name + ".checkpoint.jsonl")
    return {
        "meta": out.with_name(out.name + ".meta.json"),
        "errors": out.with_name(out.name + ".errors.jsonl"),
        "checkpoint": checkpoint,
        "lock": lock_path(out),
    }


def lock_path(output: str | os.PathLike) -> Path:
    """``OUTPUT.lock`` beside the file a name leads to: a symbolic link shares its target's lock."""
    real = Path(os.path.realpath(output))
    return real.with_name(real.name + ".lock")


def _same_file(a: Path, b: Path) -> str | None:
    """How ``a`` is ``b`` ("the same file", "a hard link", "a symbolic link"), or None."""
    try:
        if not os.path.samefile(a, b):  # same device and inode: hard and symbolic links too
            return None
    except OSError:  # one of them does not exist (yet): compare where the names lead
        return "the same file" if a.resolve() == b.resolve() else None
    if a.is_symlink() or b.is_symlink():
        return "a symbolic link to it"
    if a.resolve() != b.resolve():
        return "a hard link to it"
    return "the same file"


def _check_writable(out: Path) -> None:
    if out.is_dir():
        raise BatchInputError(
            "the output path is a folder; give a file name such as scores.csv", file=out
        )
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.exists():
        raise BatchInputError(f"cannot write the output: folder {parent} does not exist", file=out)
    if not parent.is_dir():
        raise BatchInputError(f"cannot write the output: {parent} is not a folder", file=out)
    existed = out.exists()
    try:
        with open(out, "ab"):
            pass
        if not existed:
            out.unlink()
    except OSError as err:
        raise BatchInputError(f"cannot write the output: {err.strerror or err}", file=out) from None


def check_output_paths(outputs: Iterable[Path], inputs: Iterable[Path] = ()) -> None:
    """Refuse an output that is an input (same inode: the path, a hard or a symbolic link) or unwritable.

    Runs before anything is written, whatever the flags (``--no-resume``
    included), so an input is never truncated.
    """
    inputs = [Path(p) for p in inputs]
    for out in map(Path, outputs):
        for inp in inputs:
            how = _same_file(out, inp)
            if how is not None:
                raise BatchInputError(
                    f"the output would overwrite the input ({how}: {inp}); choose another output path",
                    file=out,
                )
        _check_writable(out)


def check_output_folder(
    folder: str | os.PathLike, names: Iterable[str], inputs: Iterable[str | os.PathLike] = ()
) -> None:
    """The checks of :func:`output_folder` (the folder is created), for a command to run early."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise BatchInputError("the output path is a file, not a folder; give a folder", file=folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        if err.errno in (errno.ENOSPC, errno.EDQUOT):
            raise  # the disk is full: exit 3, as any write
        raise BatchInputError(
            f"cannot create the output folder: {err.strerror or err}", file=folder
        ) from None
    check_output_paths([folder / n for n in names], [Path(p) for p in inputs])
    probe_space(folder)


def probe_space(folder: Path, size: int = 4096) -> None:
    """Write, fsync and remove ``size`` bytes in ``folder``.

    A full disk then shows at once (``OSError`` ENOSPC: exit 3), before the
    work whose result it could not hold.
    """
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".invent-space.", suffix=".tmp")
    try:
        os.write(fd, b"\0" * size)
        os.fsync(fd)
    finally:
        os.close(fd)
        os.unlink(tmp)


def write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    """Write a sidecar atomically (a crash or a full disk leaves the old one, and no temp file)."""
    with atomic_file(path) as f:
        json.dump(data, f, indent=1, ensure_ascii=False, default=str)
        f.write("\n")


#: What to do about a sidecar that cannot be read.
_SIDECAR_HINT = "delete it with the output to start over"


def read_meta(path: Path) -> dict[str, Any] | None:
    """A ``.meta.json`` sidecar (None when absent), read with the input size limit."""
    if not path.exists():
        return None
    limit = qs.FIELD_SIZE_LIMIT
    hint = _SIDECAR_HINT
    if path.stat().st_size > limit:
        raise BatchInputError(f"the sidecar is larger than {limit:,} bytes; {hint}", file=path)
    try:
        with open(path, encoding="utf-8") as f:
            data = qs.parse_json(f.read(limit + 1))
    except (ValueError, UnicodeDecodeError) as err:
        raise BatchInputError(f"the sidecar is not valid JSON ({err}); {hint}", file=path) from None
    if not isinstance(data, dict):
        raise BatchInputError(f"the sidecar is not a JSON object; {hint}", file=path)
    return data


def sidecar_config(meta: dict[str, Any], path: Path) -> dict[str, Any]:
    """The batch configuration a sidecar records, refused (naming the sidecar) when malformed.

    Resuming and merging compare it key by key; a ``config`` that is not an
    object, is empty, or holds a ``run`` or ``columns`` of the wrong type would
    otherwise crash the comparison or list every setting as changed.
    """
    config = meta.get("config")
    if config is None or config == {}:
        raise BatchInputError(f"the sidecar records no configuration; {_SIDECAR_HINT}", file=path)
    if not isinstance(config, dict):
        raise _wrong_shape(path, "config", config, "a JSON object")
    for key, kind, expected in (("run", dict, "a JSON object"), ("columns", list, "a list")):
        if key in config and not isinstance(config[key], kind):
            raise _wrong_shape(path, f"config.{key}", config[key], expected)
    return config


def _wrong_shape(path: Path, key: str, value: Any, expected: str) -> BatchInputError:
    return BatchInputError(
        f"the sidecar's {key} is not {expected} (got {type(value).__name__}); {_SIDECAR_HINT}",
        file=path,
    )
