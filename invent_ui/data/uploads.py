"""The Batch scoring page's stored uploads: one folder per file content, each read on its own.

``ROOT/<sha256[:16]>/`` holds ``input.<ext>`` (the bytes uploaded) and
``upload.json`` (``{"name", "sha256", "bytes"}``). Both are written atomically
(:func:`invent_core.csv_safe.atomic_file`). A damaged ``upload.json`` or a
folder without its input affects that upload only: it is listed under its
folder name or left out, never hiding the others, and nothing is deleted.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from invent_core.batch.output import write_json_atomic
from invent_core.csv_safe import atomic_file

__all__ = ["earlier_uploads", "store_upload", "upload_input", "upload_meta"]


def store_upload(root: Path, name: str, data: bytes) -> Path:
    """Keep an uploaded file under ``root`` (once per content); return its folder."""
    sha = hashlib.sha256(data).hexdigest()
    folder = root / sha[:16]
    folder.mkdir(parents=True, exist_ok=True)
    suffix = "." + name.rsplit(".", 1)[-1].lower() if "." in name else ".csv"
    path = folder / f"input{suffix}"
    if not path.is_file():
        with atomic_file(path, "wb") as f:
            f.write(data)
    if upload_meta(folder).get("sha256") != sha:  # absent or damaged: written again
        write_json_atomic(folder / "upload.json", {"name": name, "sha256": sha, "bytes": len(data)})
    return folder


def upload_meta(folder: Path) -> dict[str, Any]:
    """``upload.json`` of one upload; ``{}`` when it is absent or damaged."""
    try:
        data = json.loads((folder / "upload.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def upload_input(folder: Path) -> Path | None:
    """The stored input file of one upload, or None when it is missing."""
    try:
        return next((p for p in sorted(folder.iterdir()) if _is_input(p)), None)
    except OSError:
        return None


def _is_input(path: Path) -> bool:
    return path.name.startswith("input") and not path.name.endswith(".tmp") and path.is_file()


def earlier_uploads(root: Path) -> dict[str, str]:
    """``{folder path: name shown}`` of the uploads that can be reopened, newest first.

    An upload whose ``upload.json`` is damaged is shown under its folder name;
    one without its input file is left out.
    """
    if not root.is_dir():
        return {}
    found = []
    for folder in root.iterdir():
        if folder.is_dir() and upload_input(folder) is not None:
            name = upload_meta(folder).get("name")
            shown = name if isinstance(name, str) and name else f"upload {folder.name}"
            found.append((folder.stat().st_mtime, str(folder), shown))
    return {path: shown for _, path, shown in sorted(found, reverse=True)}


def download_stem(name: str | None, fallback: str) -> str:
    """The stem a download is named after: the uploaded file's (``questions.csv`` → ``questions``).

    Only a plain file name is kept (no folder, no character a file system refuses).
    """
    stem = Path(str(name or "")).name.rsplit(".", 1)[0] if name else ""
    stem = re.sub(r"[^\w.-]+", "_", stem).strip("._")
    return stem[:100] or fallback
