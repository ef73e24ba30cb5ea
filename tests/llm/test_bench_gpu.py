"""benchmarks/bench_gpu.py --device cpu --quick: the GPU benchmark's code path on the tiny model.

Run as a real process, as a person would, so the benchmark cannot rot while no
GPU is at hand (the figures themselves are not checked: they are the CPU's).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_quick_mode_replays_a_recorded_question_on_the_tiny_model():
    work = json.loads((ROOT / "benchmarks" / "gpu_workload.json").read_text())
    q = work["questions"][0]
    assert any(r["state"] is not None for c in q["calls"] for r in c["requests"])  # answers
    assert any(r["state"] is None for c in q["calls"] for r in c["requests"])  # paraphrases
    res = subprocess.run(
        [sys.executable, "benchmarks/bench_gpu.py", "--device", "cpu", "--quick"]
        + ["--kv-cache", "static,dynamic", "--step-latency", "1,4", "--concurrent", "2"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=600,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    out = res.stdout
    for kv in ("static", "dynamic"):  # both decode paths, in that order
        assert f"random Qwen2.5-tiny · transformers · cpu · fp32 · {kv} KV cache" in out
    assert out.count("decode step, batch   4") == 2 and out.count("static-cache step") == 4
    assert out.count("2 in flight") == 2 and "questions/min" in out and "µs" not in out  # CPU
    line = next(ln for ln in out.splitlines() if "wall" in ln and "decode" in ln)
    assert "batches [" in line and "(load " in line and "llama.cpp CPU" in line
    forced = sum(max(1, r["tokens"]) for c in q["calls"] for r in c["requests"])
    assert out.count(f"decoded {forced} tokens") == 2  # the recorded lengths were forced
    assert "mean wall" in out


def test_smoke_runs_every_path_the_next_gpu_session_will_measure():
    """``--smoke`` on the CPU: graphs auto/off, the critical path, the warm second question."""
    res = subprocess.run(
        [sys.executable, "benchmarks/bench_gpu.py", "--device", "cpu", "--smoke"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=900,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    out = res.stdout
    assert "static KV cache · graphs auto" in out and "static KV cache · graphs off" in out
    assert out.count("critical path: paraphrase") == 3  # static ×2, dynamic
    # the same question with every answer after the paraphrases, beside the overlapped wall
    assert out.count("vs sequential") == 3 and "after the last paraphrase round" in out
    assert "sequential decode steps" in out and "decode path eager" in out  # no CUDA: eager
    assert "decode path dynamic" in out
    assert out.count("dashboard: first question") == 3 and "warm second" in out
