"""The suite keeps to its own cache even when the user exported ``INVENT_CACHE``.

``test_probe_writes_through_the_product`` writes through the product's default
paths (history, throughput log, LLM cache); ``test_exported_user_cache_is_left_alone``
runs it in a child pytest with the user's variables exported and checks that
nothing reached them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, TEST_CACHE, USER_ENV


def test_probe_writes_through_the_product():
    from invent_core.env import cache_dir
    from invent_core.llm.cache import default_cache_path
    from invent_core.workbench.estimate import ThroughputLog
    from invent_core.workbench.history import HistoryStore

    assert os.environ["INVENT_CACHE"] == str(TEST_CACHE)
    assert not any(os.environ.get(v) for v in USER_ENV)
    assert cache_dir() == TEST_CACHE
    assert ThroughputLog().path.parent == TEST_CACHE
    assert default_cache_path().parent == TEST_CACHE
    store = HistoryStore()
    entry = store.add("run", {"probe": True}, title="suite cache probe")
    assert (TEST_CACHE / "history").is_dir()
    store.delete(entry)


def test_exported_user_cache_is_left_alone(tmp_path):
    user_cache = tmp_path / "user-cache"
    env = {
        **os.environ,
        "INVENT_CACHE": str(user_cache),
        "INVENT_DATASETS_DIR": str(tmp_path / "datasets"),
        "INVENT_REFERENCE_DIR": str(tmp_path / "reference"),
        "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
        "OPENAI_MODEL": "user-model",
        "OPENAI_API_KEY": "user-key",
    }
    probe = f"tests/{Path(__file__).name}::test_probe_writes_through_the_product"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", probe],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "1 passed" in proc.stdout
    assert not user_cache.exists(), sorted(p.name for p in user_cache.rglob("*"))
    assert list(tmp_path.iterdir()) == []
