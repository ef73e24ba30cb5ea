"""An evaluation folder reproduces itself from its own config.json and the LLM cache.

``tests/data/reproduce/evaluate-arithmetic-3`` was made by ``evaluate`` with a
fresh cache; ``llm_cache.json`` is that cache. Loaded into an empty cache file,
``evaluate --from FOLDER`` (a real process, the CLI) must read every option and
the model from the folder, ask the cache only (no row added: nothing generated)
and write the same ``scores.csv``: every id, label and text equal, every number
equal to a millionth (MiniLM on the CPU sums in another order when its threads or
batches differ, so the last digits of a float may move; nothing else may).
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from invent_core.llm.cache import LLMCache

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "reproduce"
FOLDER = DATA / "evaluate-arithmetic-3"
COLUMNS = ("key", "identity", "text", "usage", "latency", "logprobs", "finish_reason", "created")


def load_cache(rows: list[dict], path: Path) -> int:
    """A cache file at ``path`` holding ``rows`` (the schema made by :class:`LLMCache`); its size."""
    LLMCache(path).close()
    with sqlite3.connect(path) as conn:
        conn.executemany(
            f"INSERT INTO completions ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})",
            [tuple(r[c] for c in COLUMNS) for r in rows],
        )
    return count_rows(path)


def count_rows(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT COUNT(*) FROM completions").fetchone()[0]


def test_the_shipped_folder_records_model_options_and_commit():
    meta = json.loads((FOLDER / "config.json").read_text(encoding="utf-8"))
    cfg = meta["config"]
    assert cfg["llm"].startswith("local:sha256=") and cfg["llm"].endswith("|model=qwen0.5b")
    assert cfg["dataset"] == "arithmetic" and cfg["limit"] == 3 and cfg["run"]["score"]
    prov = meta["provenance"]
    assert prov["source"] == "git" and len(prov["commit"]) == 40 and prov["dirty"] is False
    rows = json.loads((DATA / "llm_cache.json").read_text(encoding="utf-8"))["rows"]
    assert {r["identity"] for r in rows} == {cfg["llm"]}  # every answer is the recorded model's


@pytest.mark.slow  # the packaged model's identity (assembled once, about a minute cold)
def test_evaluate_from_the_folder_gives_the_same_scores_from_the_cache_alone(tmp_path):
    rows = json.loads((DATA / "llm_cache.json").read_text(encoding="utf-8"))["rows"]
    cache = tmp_path / "llm_cache.sqlite"
    assert load_cache(rows, cache) == len(rows)
    out = tmp_path / "again"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "invent_core", "evaluate", "--from", str(FOLDER),
         "-o", str(out), "--cache", str(cache), "-q"],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=900,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert count_rows(cache) == len(rows), "a request missed the cache: something was generated"
    want = (FOLDER / "scores.csv").read_text(encoding="utf-8")
    assert_same_scores((out / "scores.csv").read_text(encoding="utf-8"), want)
    again = json.loads((out / "config.json").read_text(encoding="utf-8"))["config"]
    assert again == json.loads((FOLDER / "config.json").read_text(encoding="utf-8"))["config"]


@pytest.mark.slow  # two evaluate calls from the cache (the model's identity, about a minute cold)
def test_a_question_set_aside_by_the_replay_is_made_again_alone(tmp_path):
    """A run whose saved verdict today's rules would not give is set aside and made again.

    As if an older round had rejected a rewording today's rules accept: the replay
    names that one run, ``set_aside`` moves it, and the folder's own evaluate call
    makes it again from the cache alone — the same scores, nothing generated, and
    the replay then finds nothing to change.
    """
    from invent_core.experiments.replay import REPLACED, rewording_drift, set_aside

    rows = json.loads((DATA / "llm_cache.json").read_text(encoding="utf-8"))["rows"]
    cache = tmp_path / "llm_cache.sqlite"
    load_cache(rows, cache)
    out = tmp_path / "again"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}

    def evaluate(*args: str) -> None:
        cmd = [sys.executable, "-m", "invent_core", "evaluate", *args, "--cache", str(cache), "-q"]
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env, timeout=900)
        assert proc.returncode == 0, proc.stderr[-3000:]

    evaluate("--from", str(FOLDER), "-o", str(out))
    assert rewording_drift(out).changed == []
    path = sorted((out / "runs").glob("*.json"))[0]
    run = json.loads(path.read_text(encoding="utf-8"))
    kept = next(c for c in run["candidates"] if c["accepted"])
    kept["accepted"] = False
    path.write_text(json.dumps(run), encoding="utf-8")
    assert rewording_drift(out).changed == [path.name]
    assert len(set_aside(out, [path.name])) == 1 and (out / REPLACED / path.name).is_file()
    evaluate("--from", str(out), "-o", str(out))
    assert count_rows(cache) == len(rows), "a request missed the cache: something was generated"
    assert rewording_drift(out).changed == [] and path.is_file()
    want = (FOLDER / "scores.csv").read_text(encoding="utf-8")
    assert_same_scores((out / "scores.csv").read_text(encoding="utf-8"), want)


def test_a_folder_without_config_is_refused_before_any_file_is_made(tmp_path):
    out = tmp_path / "never"
    proc = subprocess.run(
        [sys.executable, "-m", "invent_core", "evaluate", "--from", str(tmp_path), "-o", str(out)],
        capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode != 0 and "config.json not found" in proc.stderr
    assert not out.exists()


def assert_same_scores(got: str, want: str) -> None:
    """Two scores.csv texts: the same cells, numbers equal to a relative 1e-6."""
    import csv
    import io
    import math

    g, w = list(csv.reader(io.StringIO(got))), list(csv.reader(io.StringIO(want)))
    assert len(g) == len(w) and g[0] == w[0]
    for row_g, row_w in zip(g[1:], w[1:], strict=True):
        for name, a, b in zip(w[0], row_g, row_w, strict=True):
            try:
                fa, fb = float(a), float(b)
            except ValueError:
                assert a == b, (name, a, b)
                continue
            assert math.isclose(fa, fb, rel_tol=1e-6, abs_tol=1e-9) or (
                math.isnan(fa) and math.isnan(fb)
            ), (name, a, b)
