"""Embeddings kept on disk: a fully cached re-run never loads the embedder.

The store keys vectors by embedder identity and text; the real MiniLM fills it,
a second process reads it, prints the same scores and imports neither
sentence-transformers nor torch.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
import warnings
from pathlib import Path

import numpy as np
import pytest

from invent_core.embedders import MINILM, SbertEmbedder
from invent_core.embedders.store import VectorStore

ROOT = Path(__file__).resolve().parents[2]


def _unit(rng, d=4):
    v = rng.standard_normal(d).astype(np.float32)
    return v / np.linalg.norm(v)


def test_store_round_trip_by_identity(tmp_path):
    rng = np.random.default_rng(0)
    store = VectorStore(tmp_path / "e.sqlite")
    a, b = _unit(rng), _unit(rng)
    store.put("model-a", {"hello": a, "wörld ✓": b})
    got = store.get("model-a", ["hello", "wörld ✓", "absent"], 4)
    assert set(got) == {"hello", "wörld ✓"}
    np.testing.assert_array_equal(got["hello"], a)  # bit for bit
    assert store.get("model-b", ["hello"], 4) == {}  # another model's vectors never answer
    assert store.get("model-a", ["hello"], 8) == {}  # nor vectors of another size
    assert len(store) == 2


def test_store_follows_invent_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("INVENT_CACHE", str(tmp_path / "c"))
    assert VectorStore().path == tmp_path / "c" / "embeddings.sqlite"


def test_broken_store_warns_once_and_embedding_goes_on(tmp_path):
    bad = tmp_path / "e.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    store = VectorStore(bad)
    with pytest.warns(RuntimeWarning, match=r"e\.sqlite: reading failed"):
        assert store.get("m", ["x"], 4) == {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # off for the process: no second warning
        store.put("m", {"x": np.ones(4, np.float32)})
        assert store.get("m", ["x"], 4) == {}


@pytest.mark.slow
def test_stored_vectors_spare_the_model_load(tmp_path):
    store = VectorStore(tmp_path / "e.sqlite")
    texts = [f"a sentence {uuid.uuid4().hex}", "Paris", "Lyon"]
    first = SbertEmbedder(MINILM, store=store)
    want = first.encode(texts)
    assert first.stats.encoded == 3 and len(store) == 3
    second = SbertEmbedder(MINILM, store=store)
    got = second.encode(texts)
    np.testing.assert_array_equal(got, want)
    assert second._model is None, "the model was loaded although every vector was stored"
    assert (second.stats.encoded, second.stats.stored) == (0, 3)


@pytest.mark.slow  # two subprocesses, the first loads the real MiniLM
def test_cached_rerun_imports_no_embedder(tmp_path):
    ex = tmp_path / "ex.json"
    tag = uuid.uuid4().hex[:8]
    questions = [f"What is the capital of France ({tag})?", "Which city is France's capital?"]
    ex.write_text(
        json.dumps({"questions": questions, "responses": [["Paris"] * 2, ["Paris", "Lyon"]]})
    )
    env = {**os.environ, "INVENT_CACHE": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}

    def score(*flags):
        proc = subprocess.run(
            [sys.executable, *flags, "-m", "invent_core", "score", str(ex)],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            cwd=tmp_path,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        return proc

    first = score()
    again = score("-X", "importtime")
    assert again.stdout == first.stdout
    imported = {ln.split("|")[-1].strip() for ln in again.stderr.splitlines() if "|" in ln}
    assert "sentence_transformers" not in imported and "torch" not in imported


def _flip_one_bit(path: Path, identity: str) -> None:
    import sqlite3

    with sqlite3.connect(path) as conn:
        key, blob = conn.execute(
            "SELECT key, vector FROM vectors WHERE identity = ? LIMIT 1", [identity]
        ).fetchone()
        damaged = bytearray(blob)
        damaged[5] ^= 0x04  # one bit of the second float
        conn.execute("UPDATE vectors SET vector = ? WHERE key = ?", [bytes(damaged), key])


def test_a_flipped_bit_is_a_miss_with_one_warning_then_replaced(tmp_path):
    rng = np.random.default_rng(1)
    path = tmp_path / "e.sqlite"
    store = VectorStore(path)
    a = _unit(rng)
    store.put("m", {"hello": a})
    store._conn.close()
    store._conn = None
    _flip_one_bit(path, "m")
    with pytest.warns(
        RuntimeWarning, match=r"e\.sqlite: 1 stored vector\(s\) failed their checksum"
    ):
        assert VectorStore(path).get("m", ["hello"], 4) == {}
    again = VectorStore(path)
    again.put("m", {"hello": a})  # what the embedder does with a miss: recompute and replace
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(again.get("m", ["hello"], 4)["hello"], a)


def test_a_vector_stored_without_a_checksum_is_a_silent_miss(tmp_path):
    import sqlite3

    path = tmp_path / "e.sqlite"
    VectorStore(path).put("m", {"x": np.ones(4, np.float32)})  # creates the table
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE vectors SET vector = ?", [np.ones(4, np.float32).tobytes()])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert VectorStore(path).get("m", ["x"], 4) == {}


@pytest.mark.slow
def test_the_real_embedder_recomputes_a_damaged_vector(tmp_path):
    path = tmp_path / "e.sqlite"
    texts = ["Paris is the capital of France.", "Lyon"]
    want = SbertEmbedder(MINILM, store=VectorStore(path)).encode(texts)
    _flip_one_bit(path, _identity(path))
    second = SbertEmbedder(MINILM, store=VectorStore(path))
    with pytest.warns(RuntimeWarning, match="failed their checksum"):
        got = second.encode(texts)
    np.testing.assert_allclose(got, want, atol=1e-6)
    assert second.stats.encoded == 1 and second.stats.stored == 1


def _identity(path: Path) -> str:
    import sqlite3

    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT identity FROM vectors LIMIT 1").fetchone()[0]
