"""``python -m invent_core batch`` / ``merge`` in subprocesses: exit codes, messages, kill -9 and resume."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from invent_core.batch import batch_score, iter_records
from invent_core.config import RunConfig

pytestmark = pytest.mark.slow  # subprocesses load the real MiniLM

ROOT = Path(__file__).resolve().parents[2]
INV = ["inv_entropy", "ni_entropy", "nr_inv_entropy", "wd_px_py", "max_py_x"]
ANSWERS = ["Paris", "London", "Berlin", "Rome", "Madrid", "Vienna", "Lisbon"]


def write_wide(path: Path, n_rows: int, *, n: int = 2, r: int = 2) -> Path:
    rng = np.random.default_rng(1)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "question", "answer", "perturbations", "responses"])
        for i in range(n_rows):
            perts = [f"Variant {k} of question {i}?" for k in range(1, n + 1)]
            reps = [[str(rng.choice(ANSWERS)) for _ in range(r)] for _ in range(n + 1)]
            w.writerow(
                [
                    f"q{i}",
                    f"Capital of country {i}?",
                    reps[0][0] if i % 2 else "Oslo",
                    json.dumps(perts),
                    json.dumps(reps),
                ]
            )
    return path


def env() -> dict[str, str]:
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT) + os.pathsep + e.get("PYTHONPATH", "")
    return e


def cli(*args, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "invent_core", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env(),
        cwd=ROOT,
    )


def data_rows(path: Path) -> int:
    if not path.exists():
        return 0
    return max(0, path.read_bytes().count(b"\n") - 1)


def test_batch_ok_then_resume_is_a_no_op(tmp_path):
    inp = write_wide(tmp_path / "in.csv", 6)
    out = tmp_path / "out.csv"
    res = cli("batch", inp, "-o", out, "-B", 5, "-q")
    assert res.returncode == 0, res.stderr
    assert "6 rows scored, 0 already there, 0 failed" in res.stdout and "AUROC" in res.stdout
    # 6 rows: the values are shown with the caveat evaluate and the dashboard give
    assert "Not judged: too few to judge: 6 rows (< 20)" in res.stdout
    res = cli("batch", inp, "-o", out, "-B", 5, "-q")
    assert res.returncode == 0 and "0 rows scored, 6 already there" in res.stdout
    res = cli("batch", inp, "-o", out, "-B", 6, "-q")
    assert res.returncode == 2 and "different configuration (--n-bootstrap: 5 → 6)" in res.stderr


def _bad_inputs(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    png = tmp_path / "img.csv"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    nocol = tmp_path / "nocol.csv"
    nocol.write_text("text,answer\nhi,there\n")
    latin = tmp_path / "latin.csv"
    latin.write_bytes("id,question\n1,Où?\n".encode("latin-1"))
    u16 = tmp_path / "u16.csv"
    u16.write_bytes("id,question\n1,Where?\n".encode("utf-16-le"))
    return {
        "png": (png, r"img\.csv: this is a PNG image"),
        "empty": (empty, r"empty\.csv: the file is empty"),
        "no question column": (
            nocol,
            r"nocol\.csv, line 1: no question column; found 'text', 'answer'",
        ),
        "latin-1": (
            latin,
            r"latin\.csv, row 1 \(line 2\), byte 15, column 'question': not valid UTF-8",
        ),
        "utf-16 without BOM": (
            u16,
            r"u16\.csv, byte 1: looks like UTF-16 text without a byte-order mark",
        ),
        "missing": (tmp_path / "nope.csv", r"nope\.csv: no such file"),
    }


def test_fatal_input_errors_exit_2_without_traceback(tmp_path):
    import re

    for what, (path, pattern) in _bad_inputs(tmp_path).items():
        res = cli("batch", path, "-o", tmp_path / f"{path.stem}.out.csv", "-q", timeout=120)
        assert res.returncode == 2, (what, res.stderr)
        assert re.search(pattern, res.stderr), (what, res.stderr)
        assert "Traceback" not in res.stderr, what


def test_unwritable_output_exit_2(tmp_path):
    inp = write_wide(tmp_path / "in.csv", 2)
    res = cli("batch", inp, "-o", inp / "out.csv", "-q")
    assert (
        res.returncode == 2
        and "cannot write the output" in res.stderr
        and "Traceback" not in res.stderr
    )


def test_row_failures_exit_1_and_keep_the_rest(tmp_path):
    inp = write_wide(tmp_path / "in.csv", 5)
    lines = inp.read_text().splitlines()
    lines[2] = lines[2].replace("Capital of country 1?", " ")  # blank question in row 2
    lines[4] = lines[4].replace("q3", "q0", 1)  # duplicate id in row 4
    inp.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.jsonl"
    res = cli("batch", inp, "-o", out, "-B", 5, "-q")
    assert res.returncode == 1
    assert "3 rows scored, 0 already there, 2 failed" in res.stdout
    assert "in.csv, row 2 (line 3), column 'question': blank question" in res.stderr
    assert "in.csv, row 4 (line 5), column 'id': duplicate id 'q0'" in res.stderr
    assert len(list(iter_records(out))) == 3
    errs = [json.loads(x) for x in Path(str(out) + ".errors.jsonl").read_text().splitlines()]
    assert [e["row"] for e in errs] == [2, 4]


WORKER = """
import sys, time
from invent_core.batch import batch_score
from invent_core.config import RunConfig
# a slow progress callback stretches the run so the test can kill it mid-file
batch_score(sys.argv[1], sys.argv[2], RunConfig().replace(n_bootstrap=5), progress=lambda ev: time.sleep(float(sys.argv[3])))
"""


def test_kill_9_then_resume_loses_nothing(minilm, tmp_path):
    inp = write_wide(tmp_path / "in.csv", 30)
    worker = tmp_path / "worker.py"
    worker.write_text(WORKER)
    ref = tmp_path / "ref.csv"
    batch_score(
        inp, ref, config=RunConfig().replace(n_bootstrap=5)
    )  # the uninterrupted run, in-process

    out = tmp_path / "out.csv"
    proc = subprocess.Popen([sys.executable, str(worker), inp, out, "0.15"], env=env())
    try:
        deadline = time.monotonic() + 240
        while data_rows(out) < 4:
            assert proc.poll() is None, "the worker ended before it could be killed"
            assert time.monotonic() < deadline
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    n_before = data_rows(out)
    assert 4 <= n_before < 30
    with open(out, "ab") as f:  # as if the crash tore the next row in half
        f.write(b"q999,31,Capital of")
    subprocess.run([sys.executable, str(worker), inp, out, "0"], check=True, env=env(), timeout=300)
    got, want = list(iter_records(out)), list(iter_records(ref))
    ids = [r["id"] for r in got]
    assert ids == [f"q{i}" for i in range(30)] and len(set(ids)) == 30  # no duplicate, none lost
    for name in INV:
        np.testing.assert_allclose(
            [r[name] for r in got], [r[name] for r in want], rtol=0, atol=1e-6
        )
    meta = json.loads(Path(str(out) + ".meta.json").read_text())
    assert meta["summary"]["n_resumed"] == n_before and meta["summary"]["truncated_bytes"] == len(
        b"q999,31,Capital of"
    )


def test_shards_and_merge_cli(minilm, tmp_path):
    inp = write_wide(tmp_path / "in.csv", 12)
    one = tmp_path / "one.csv"
    batch_score(inp, one, config=RunConfig().replace(n_bootstrap=5))  # one run, in-process
    parts = []
    for i in (1, 2):
        part = tmp_path / f"p{i}.csv"
        res = cli("batch", inp, "-o", part, "-B", 5, "--shard", f"{i}/2", "-q")
        assert res.returncode == 0, res.stderr
        parts.append(part)
    merged = tmp_path / "merged.parquet"
    res = cli("merge", *parts, "-o", merged)
    assert res.returncode == 0, res.stderr
    assert "12 rows from 2 part(s)" in res.stdout
    assert "AUROC" in res.stdout and "Not judged: too few to judge: 12 rows (< 20)" in res.stdout
    got, want = list(iter_records(merged)), list(iter_records(one))
    assert [r["id"] for r in got] == [r["id"] for r in want]
    np.testing.assert_allclose(
        [r["inv_entropy"] for r in got], [r["inv_entropy"] for r in want], atol=1e-6
    )
    res = cli("merge", parts[0], "-o", tmp_path / "m.csv")
    assert res.returncode == 2 and "shard(s) 2/2 missing" in res.stderr
    res = cli("batch", inp, "-o", tmp_path / "x.csv", "--shard", "0/2", "-q")
    assert res.returncode == 2 and "need 1 <= i <= N" in res.stderr


def test_the_cli_progress_line_reads_the_one_progress_event(capsys):
    """batch reports progress as run and evaluate do: one Progress event per row."""
    from invent_core.commands.batch import BatchPrinter
    from invent_core.progress import Progress

    printer = BatchPrinter()
    printer(Progress("rows", 3, 10, 65.0))
    printer(Progress("rows", 10, 10, 0.0))
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "3/10 rows (30%)  ETA 1:05"
    assert lines[-1] == "10/10 rows (100%)  ETA 0:00"


def test_batch_summary_judges_like_evaluate(capsys):
    """One rule (``judgeable``): a caveat below 20 rows or 5 per class, none above, none twice."""
    from invent_core.commands.batch import print_evaluation

    ok = {"inv_entropy": {"auroc": 0.71, "prr": 0.4}}
    print_evaluation(0.5, 40, ok)
    assert "Not judged" not in capsys.readouterr().out
    print_evaluation(0.6, 5, {"inv_entropy": {"auroc": 1.0, "prr": 1.0}})
    assert "Not judged: too few to judge: 5 rows (< 20)" in capsys.readouterr().out
    print_evaluation(0.1, 40, ok)  # 4 correct of 40
    assert "Not judged: only 4 correct answers (< 5)" in capsys.readouterr().out
    gone = {"inv_entropy": {"auroc": None, "prr": None, "undefined": "all answers right"}}
    print_evaluation(1.0, 5, gone)
    out = capsys.readouterr().out
    assert "n/a — all answers right" in out and "Not judged" not in out
