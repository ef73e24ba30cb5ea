"""A Hugging Face model folder checked by its contents before anything loads (``--llm hf:PATH``).

One check, :func:`folder_problem`, reads what transformers would trip on
later, after an output folder exists: ``config.json`` (JSON, an object, a
``model_type`` transformers knows), the weights (each ``.safetensors``
file's header and length, the shards an index names, a ``.bin`` zip's
directory) and the tokenizer (a vocabulary to encode a prompt with). It
reads headers only: a 15 GB folder is checked in milliseconds.

:func:`content_name` names the model from the same files (config.json),
never from the folder's name, so a renamed copy is the same model.
"""

from __future__ import annotations

import json
import struct
import zipfile
from pathlib import Path
from typing import Any

__all__ = ["content_name", "folder_problem"]

#: Files that hold a vocabulary; one of them (or tokenizer.json) makes a tokenizer.
_VOCAB_FILES = ("tokenizer.model", "vocab.json", "vocab.txt", "spiece.model", "tokenizer.tiktoken")
_MAX_HEADER = 100 << 20  # safetensors caps its JSON header at 100 MB


def folder_problem(folder: Path) -> str | None:
    """Why ``folder`` holds no loadable causal LM, from its files' contents; ``None``: fine."""
    for check in (_config_problem, _weights_problem, _tokenizer_problem):
        problem = check(folder)
        if problem is not None:
            return problem
    return None


def _read_json(path: Path) -> Any:
    """The JSON in ``path``; ValueError saying where it is broken."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise ValueError(f"{path.name} cannot be read ({err.strerror or err})") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path.name} is not UTF-8 text") from None
    except json.JSONDecodeError as err:
        raise ValueError(
            f"{path.name} is not valid JSON (line {err.lineno}, column {err.colno}: {err.msg})"
        ) from None


def _config_problem(folder: Path) -> str | None:
    """config.json: a JSON object whose ``model_type`` transformers knows."""
    try:
        config = _read_json(folder / "config.json")
    except ValueError as err:
        return str(err)
    if not isinstance(config, dict):
        return "config.json is not a JSON object"
    kind = config.get("model_type")
    if not isinstance(kind, str) or not kind:
        return "config.json names no model_type (not a transformers model config)"
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    if kind not in CONFIG_MAPPING_NAMES:
        return f"config.json's model_type {kind!r} is not a model transformers knows"
    return None


def _weights_problem(folder: Path) -> str | None:
    """At least one weights file, every shard an index names, each file whole."""
    files = sorted(folder.glob("*.safetensors")) + sorted(folder.glob("pytorch_model*.bin"))
    if not files:
        return "the folder has no weights (*.safetensors or pytorch_model*.bin)"
    for index in folder.glob("*.index.json"):
        try:
            shards = set(_read_json(index).get("weight_map", {}).values())
        except (ValueError, AttributeError):
            return f"{index.name} is not a weights index (no weight_map)"
        missing = sorted(s for s in shards if not (folder / str(s)).is_file())
        if missing:
            return f"{index.name} names shards that are missing: {', '.join(missing[:3])}"
    for f in files:
        problem = _safetensors_problem(f) if f.suffix == ".safetensors" else _bin_problem(f)
        if problem is not None:
            return f"{f.name}: {problem}"
    return None


def _safetensors_problem(path: Path) -> str | None:
    """The header's length, its JSON, and the file's length against the tensors' offsets."""
    size = path.stat().st_size
    with open(path, "rb") as fh:
        head = fh.read(8)
        if len(head) < 8:
            return "damaged safetensors file (shorter than its header)"
        n = struct.unpack("<Q", head)[0]
        if n > min(_MAX_HEADER, size - 8):
            return "damaged safetensors file (its header length is impossible)"
        try:
            header = json.loads(fh.read(n))
            ends = [int(t["data_offsets"][1]) for k, t in header.items() if k != "__metadata__"]
        except (ValueError, TypeError, KeyError, IndexError, AttributeError):
            return "damaged safetensors file (its header is not the tensor table)"
    expected = 8 + n + max(ends, default=0)
    if expected != size:
        return (
            f"damaged safetensors file ({size:,} bytes where its tensor table says "
            f"{expected:,}: truncated or overwritten?)"
        )
    return None


def _bin_problem(path: Path) -> str | None:
    """A zip-format PyTorch file must have its central directory (the end of the file)."""
    with open(path, "rb") as fh:
        if fh.read(2) != b"PK":
            return None  # the legacy pickle format: torch reads it or says why
    try:
        with zipfile.ZipFile(path):
            return None
    except (zipfile.BadZipFile, OSError):
        return "damaged PyTorch weights (its zip directory is missing: truncated?)"


def _tokenizer_problem(folder: Path) -> str | None:
    """A vocabulary to encode the prompt with: tokenizer.json with entries, or a vocabulary file."""
    tj = folder / "tokenizer.json"
    if tj.is_file():
        try:
            vocab = (_read_json(tj).get("model") or {}).get("vocab")
        except (ValueError, AttributeError):
            return "tokenizer.json is not a tokenizer (no model.vocab)"
        return None if vocab else "tokenizer.json has an empty vocabulary"
    if any((folder / name).is_file() for name in _VOCAB_FILES):
        return None
    return (
        "no tokenizer (tokenizer.json, tokenizer.model or vocab.json): a prompt would "
        "encode to no tokens"
    )


def content_name(folder: Path) -> str:
    """The model's name from config.json: its hub id when it records one, else its architecture.

    Never the folder's name: a renamed or moved copy of the same files has the same name.
    """
    try:
        config = _read_json(folder / "config.json")
    except (ValueError, OSError):
        return "unknown model"
    if not isinstance(config, dict):
        return "unknown model"
    hub = config.get("_name_or_path")
    if isinstance(hub, str) and hub.count("/") == 1 and not hub.startswith((".", "/", "~")):
        return hub
    archs = config.get("architectures")
    if isinstance(archs, list) and archs and isinstance(archs[0], str):
        return archs[0]
    return str(config.get("model_type") or "unknown model")
