"""Shared fixtures. Loaded models are session-scoped: each loads once per test run."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# Keep test runs from touching the user's cache.
os.environ.setdefault("INVENT_CACHE", str(ROOT / ".cache" / "test"))

import invent_core  # noqa: E402,F401  (sets the offline environment first)


@pytest.fixture(scope="session")
def minilm():
    """The real packaged MiniLM embedder, loaded once."""
    from invent_core.embedders import get_embedder

    emb = get_embedder("minilm")
    emb.load()
    return emb


@pytest.fixture(scope="session")
def local_llm():
    """The packaged Qwen 0.5B on an embedded llama.cpp server, started once (no cache)."""
    from invent_core.llm import get_llm

    llm = get_llm("local", cache=None)
    llm.complete([{"role": "user", "content": "Hi"}], max_tokens=1)  # start the server now
    yield llm
    llm.close()
