"""The sidebar's "your model" path, checked as it is typed (pure: no Streamlit).

A GGUF file (its ``GGUF`` magic and header) runs on the embedded llama.cpp,
as ``--llm gguf:FILE``; a folder with ``config.json`` is a Hugging Face model
for the transformers engine (``--llm hf:PATH``). The verdict names the model, the engine and the
device, or what is wrong with the path.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from invent_core.llm import spec_problem
from invent_core.llm.gguf_file import gguf_spec
from invent_core.llm.local import llamacpp_device

__all__ = ["PathCheck", "check_model_path", "model_spec"]


@dataclass(frozen=True)
class PathCheck:
    """What a typed path is: ``level`` "ok", "warning" (cannot run yet) or "error"; the spec."""

    level: str
    message: str
    spec: str | None = None

    @property
    def ok(self) -> bool:
        """Whether the path can be run now."""
        return self.level == "ok"


def model_spec(path: str) -> str:
    """The ``get_llm`` spec of a path: ``hf:`` for a folder, else ``gguf:``."""
    path = path.strip()
    return f"hf:{path}" if os.path.isdir(os.path.expanduser(path)) else f"gguf:{path}"


def check_model_path(path: str) -> PathCheck:
    """Check ``path`` (exists; GGUF magic, or a folder with ``config.json``) and describe it."""
    typed = (path or "").strip()
    if not typed:
        return PathCheck("error", "Type the path of a GGUF file or of a model folder.")
    p = Path(typed).expanduser()
    try:
        exists, is_dir = p.exists(), p.is_dir()
    except OSError as err:  # a name longer than the system allows: said, never raised
        return PathCheck("error", f"{typed[:80]}…: cannot be read ({err.strerror or err}).")
    if not exists:
        return PathCheck("error", f"{typed}: no such file or folder on this machine.")
    if is_dir:
        return _check_folder(typed, p)

    try:
        spec = gguf_spec(p)
    except ValueError as err:
        return PathCheck("error", f"{typed}: {getattr(err, 'reason', err)}.")
    size = p.stat().st_size / 1e9
    return PathCheck(
        "ok",
        f"{spec.description}, {size:.2f} GB · engine: llama.cpp (embedded) · "
        f"device: {llamacpp_device()}",
        f"gguf:{typed}",
    )


def _check_folder(typed: str, folder: Path) -> PathCheck:
    """A Hugging Face model folder: ``config.json``, its contents, then whether an engine can run it."""
    if not (folder / "config.json").is_file():
        return PathCheck("error", f"{typed}: a folder without config.json, not a model folder.")

    problem = spec_problem(f"hf:{typed}")
    if problem is None:
        import torch

        device = "cuda:0" if torch.cuda.is_available() else "CPU"
        return PathCheck(
            "ok",
            f"Hugging Face model folder · engine: transformers · device: {device}",
            f"hf:{typed}",
        )
    return PathCheck("error", f"{problem}.")
