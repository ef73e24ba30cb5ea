"""A GGUF file the user names (``--llm gguf:FILE``): checked, named and identified by its bytes.

The header is read (magic ``GGUF``, version, the key/value table, the
tensor table) without loading a tensor, so a wrong path, a file that is not
GGUF, a truncated header, a file cut short of its tensors' data, or one of
an architecture the engine cannot run as a chat model is refused before any
server starts (:func:`gguf_problem`). The model's name
(``general.name``) and whether it carries its own chat template
(``tokenizer.chat_template``, which llama.cpp applies to every chat request)
come from the same read. The identity is the file's sha256
(:func:`invent_core.packaged.file_sha256`: hashed once, again only when the
file's size, inode, mtime or ctime changed), so renaming or moving the file
keeps its cached answers, and the packaged Qwen file named by its path is the
packaged model.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ..errors import LLMError
from ..packaged import file_sha256

__all__ = [
    "GGUF_MAGIC",
    "gguf_problem",
    "GGUFFileError",
    "GGUFFileSpec",
    "GGUFInfo",
    "gguf_spec",
    "read_gguf_header",
]

GGUF_MAGIC = b"GGUF"

#: Byte sizes of the fixed-size GGUF value types (8 = string, 9 = array are read apart).
_SIZES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_STRING, _ARRAY = 8, 9
_LIMIT = 1 << 31  # a count or length beyond this is a corrupt header, not a model
#: Architectures llama.cpp loads but cannot chat with (encoders, embedders, vision towers, audio).
_NOT_CHAT = frozenset(
    {"clip", "bert", "nomic-bert", "nomic-bert-moe", "jina-bert-v2", "jina-bert-v3"}
    | {"modern-bert", "neo-bert", "eurobert", "t5encoder", "wavtokenizer-dec"}
    | {"gemma-embedding", "llama-embed"}
)


class GGUFFileError(ValueError):
    """A path that is no usable GGUF file: ``str`` is ``"PATH: reason"``; ``reason`` alone too."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = path, reason


@dataclass(frozen=True)
class GGUFInfo:
    """What the header says: format version, ``general.name``/``architecture``, a chat template."""

    path: Path
    version: int
    name: str | None
    architecture: str | None
    chat_template: bool
    size: int = 0  # the file's bytes
    needed: int = 0  # bytes its tensor table says the file holds (header + data)


def _u(fh: BinaryIO, fmt: str) -> int:
    size = struct.calcsize(fmt)
    data = fh.read(size)
    if len(data) != size:
        raise EOFError
    return int(struct.unpack(fmt, data)[0])


def _string(fh: BinaryIO) -> bytes:
    n = _u(fh, "<Q")
    if n > _LIMIT:
        raise EOFError
    data = fh.read(n)
    if len(data) != n:
        raise EOFError
    return data


def _skip(fh: BinaryIO, kind: int) -> None:
    """Step over one value of type ``kind`` (arrays of fixed-size items by one seek)."""
    if kind == _STRING:
        _string(fh)
    elif kind == _ARRAY:
        item, count = _u(fh, "<I"), _u(fh, "<Q")
        if count > _LIMIT:
            raise EOFError
        if item in _SIZES:
            fh.seek(_SIZES[item] * count, 1)
        else:
            for _ in range(count):
                _skip(fh, item)
    elif kind in _SIZES:
        fh.seek(_SIZES[kind], 1)
    else:
        raise EOFError


def read_gguf_header(path: str | Path) -> GGUFInfo:
    """Read a GGUF file's header; ``ValueError`` naming the path when it is none.

    Raises
    ------
    GGUFFileError
        (a ``ValueError``) No such file, a folder, not starting with ``GGUF``, or a header that
        ends early (a truncated download).
    """
    path = Path(path).expanduser()
    try:
        exists, is_file = path.exists(), path.is_file()
    except OSError as err:  # e.g. a name longer than the system allows
        raise GGUFFileError(path, f"cannot be read ({err.strerror or err})") from None
    if not exists:
        raise GGUFFileError(path, "no such file")
    if not is_file:
        raise GGUFFileError(path, "is a folder, not a GGUF file")
    try:
        with open(path, "rb") as fh:
            magic = fh.read(4)
            if magic != GGUF_MAGIC:
                raise GGUFFileError(
                    path, f"not a GGUF file (it starts with {magic!r}, not b'GGUF')"
                )
            return _read_table(fh, path)
    except (EOFError, struct.error):
        raise GGUFFileError(path, "the GGUF header ends early (a truncated file?)") from None
    except OSError as err:
        raise GGUFFileError(path, f"cannot be read ({err.strerror or err})") from None


def _read_table(fh: BinaryIO, path: Path) -> GGUFInfo:
    version = _u(fh, "<I")
    n_tensors, n_kv = _u(fh, "<Q"), _u(fh, "<Q")
    if n_kv > _LIMIT or n_tensors > _LIMIT:
        raise EOFError
    found: dict[str, str] = {}
    template, alignment = False, 32
    for _ in range(n_kv):
        key = _string(fh).decode("utf-8", "replace")
        kind = _u(fh, "<I")
        if kind == _STRING and key in ("general.name", "general.architecture"):
            found[key] = _string(fh).decode("utf-8", "replace")
            continue
        if key == "general.alignment" and kind == 4:  # uint32
            alignment = max(1, _u(fh, "<I"))
            continue
        template = template or key == "tokenizer.chat_template"
        _skip(fh, kind)
    data_end = _tensor_data_end(fh, n_tensors)
    table_end = fh.tell()
    start = -(-table_end // alignment) * alignment  # the data begins aligned after the table
    return GGUFInfo(
        path=path,
        version=version,
        name=found.get("general.name"),
        architecture=found.get("general.architecture"),
        chat_template=template,
        size=path.stat().st_size,
        needed=start + data_end if data_end else table_end,  # no data: no padding either
    )


def _tensor_data_end(fh: BinaryIO, n_tensors: int) -> int:
    """The end of the last tensor's bytes, from the start of the data section.

    Each tensor's entry: its name, dimensions, ggml type and offset; its bytes
    are ``elements / block size * type size`` (``gguf.GGML_QUANT_SIZES``). A
    type this table does not know counts as empty (a newer format: not refused).
    """
    from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType

    sizes = {int(k): v for k, v in GGML_QUANT_SIZES.items() if isinstance(k, GGMLQuantizationType)}
    end = 0
    for _ in range(n_tensors):
        _string(fh)
        n_dims = _u(fh, "<I")
        if n_dims > 8:
            raise EOFError
        elements = 1
        for _ in range(n_dims):
            elements *= _u(fh, "<Q")
        kind, offset = _u(fh, "<I"), _u(fh, "<Q")
        block, width = sizes.get(kind, (1, 0))
        end = max(end, offset + elements // block * width)
    return end


def gguf_problem(path: str | Path, *, engine: str = "llamacpp") -> GGUFInfo:
    """:func:`read_gguf_header`, then whether the file is whole and ``engine`` can chat with it.

    Raises
    ------
    GGUFFileError
        Besides the header's problems: a file shorter than its tensor table
        says (a truncated download), no ``general.architecture``, or an
        architecture ``engine`` ("llamacpp" or "transformers") cannot run as a
        chat model.
    """
    info = read_gguf_header(path)
    if info.size < info.needed:
        raise GGUFFileError(
            info.path,
            f"the file has {info.size:,} bytes but its tensors end at byte {info.needed:,} "
            "(a truncated download?)",
        )
    arch = info.architecture
    if not arch:
        raise GGUFFileError(info.path, "the header names no model architecture")
    known = _chat_architectures(engine)
    if arch not in known:
        runner = "llama.cpp" if engine == "llamacpp" else "transformers' GGUF loader"
        raise GGUFFileError(
            info.path, f"architecture {arch!r} is not a chat model {runner} can run"
        )
    return info


def _chat_architectures(engine: str) -> frozenset[str]:
    """Architectures ``engine`` runs as chat models (llama.cpp's from ``gguf``, the same source)."""
    if engine == "llamacpp":
        from gguf.constants import MODEL_ARCH_NAMES

        return frozenset(MODEL_ARCH_NAMES.values()) - _NOT_CHAT
    from transformers.integrations.ggml import GGUF_CONFIG_MAPPING

    names = set(GGUF_CONFIG_MAPPING) - {"general", "tokenizer"}
    return frozenset(names | {n.replace("_", "") for n in names})


@dataclass(frozen=True)
class GGUFFileSpec:
    """A user's GGUF file, served like a packaged model (:class:`~invent_core.llm.local.LocalLLM`).

    The same interface as :class:`~invent_core.llm.local.LocalModelSpec`
    (``name``, ``description``, ``installed``, ``path``, ``verified_sha256``),
    so the embedded server, its slots, the cache, seeds and Cancel are the
    packaged model's.
    """

    file: Path  # absolute
    name: str  # general.name, else the file's stem
    description: str

    def installed(self) -> bool:
        """Always: nothing to install (the file itself is checked by :meth:`path` at each start)."""
        return True

    def path(self) -> Path:
        """The file, checked again (it may have been moved or replaced since)."""
        try:
            with open(self.file, "rb") as fh:  # the magic only: this runs before every request
                magic = fh.read(4)
        except OSError as err:
            raise LLMError(f"gguf:{self.file}: {err.strerror or err}") from None
        if magic != GGUF_MAGIC:
            raise LLMError(f"gguf:{self.file}: no longer a GGUF file (replaced since it was named)")
        return self.file

    def verified_sha256(self) -> str:
        """The file's sha256 (hashed once; again when its size, inode or times changed)."""
        return file_sha256(self.path())


def gguf_spec(path: str | Path) -> GGUFFileSpec:
    """Check ``path`` (:func:`gguf_problem`) and describe it; ``ValueError`` if unusable."""
    info = gguf_problem(path)
    file = info.path.resolve()
    name = info.name or file.stem
    template = "its own chat template" if info.chat_template else "no chat template (llama.cpp's)"
    arch = f"{info.architecture}, " if info.architecture else ""
    return GGUFFileSpec(file=file, name=name, description=f"{name} ({arch}GGUF file, {template})")
