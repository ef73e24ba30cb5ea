"""Which engine runs a packaged model: llama.cpp (the CPU wheel) or transformers (CUDA).

The PyPI ``xllamacpp`` wheel is built for the CPU: its device list holds only
the CPU, so on a GPU machine llama.cpp would still decode on the CPU. There
the packaged GGUF goes through transformers onto the GPU instead. Both probes
are functions of their own so that the rule is tested with them patched.
"""

from __future__ import annotations

import os
import sys
from typing import get_args

from ..config.llm import Engine
from .local import llamacpp_device

#: ``--llm-engine`` choices (``LLMChoice.llm_engine``).
ENGINES: tuple[str, ...] = get_args(Engine)


#: Device files of a GPU driver on Linux (NVIDIA, ROCm, WSL): without one, torch sees no CUDA.
_GPU_DEVICE_FILES = ("/dev/nvidiactl", "/proc/driver/nvidia", "/dev/kfd", "/dev/dxg")


def cuda_available() -> bool:
    """Whether torch sees a CUDA device (imports torch only where a GPU driver is present)."""
    if sys.platform.startswith("linux") and not any(map(os.path.exists, _GPU_DEVICE_FILES)):
        return False  # a CPU machine: ``--llm local`` starts without importing torch
    import torch

    return bool(torch.cuda.is_available())


def llamacpp_has_gpu() -> bool:
    """Whether the installed llama.cpp build lists a GPU device."""
    return llamacpp_device() == "GPU"


def check_engine(engine: str) -> str:
    """Return ``engine`` when it is one of :data:`ENGINES`; else ValueError naming ``--llm-engine``."""
    if engine not in ENGINES:
        raise ValueError(f"--llm-engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    return engine


def choose_engine(engine: str = "auto") -> str:
    """Return ``"llamacpp"`` or ``"transformers"``: the engine that ``engine`` stands for.

    ``auto``: transformers only when torch sees CUDA and llama.cpp sees no
    GPU; on a CPU machine llama.cpp, the faster there.

    Raises
    ------
    ValueError
        An unknown engine, naming ``--llm-engine``.
    """
    if check_engine(engine) != "auto":
        return engine
    return "transformers" if cuda_available() and not llamacpp_has_gpu() else "llamacpp"
