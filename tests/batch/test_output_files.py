"""Output files keep every column's type, one lock per output, one mode rule, no stale temporaries.

Real files in every format (the reference columns included), real processes
for the lock (``run --save`` held in a real LLM request, a second refused
before it reaches any LLM) and for ``kill -9`` (a temporary it leaves behind).
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_batch_faults import ROOT, cli, env

from invent_core.batch import merge_outputs
from invent_core.batch.output import INT_COLUMNS, column_kind, iter_records, write_records
from invent_core.batch.scorer import output_columns
from invent_core.csv_safe import atomic_file, remove_stale_temporaries, write_csv

METHODS = ["inv_entropy", "ni_entropy", "semantic_entropy"]
COLUMNS = output_columns(METHODS, has_answers=True, generated=True)
FORMATS = ["csv", "jsonl", "json", "parquet"]


def _record(i: int) -> dict:
    """One batch row as the scorer makes it, with text that looks like numbers or formulas."""
    return {
        "id": f"q{i}" if i % 2 else str(100 + i),  # an id made of digits stays text
        "row": i + 1,
        "question": f"=SUM(A{i}) what is {i} + 1?",
        "answer": str(i + 1),
        "response": "-3.5" if i % 2 else "Paris",
        "n_perturbations": 9,
        "distinct_states": 9,
        "n_replications": 5,
        "inv_entropy": 1.25 + i,
        "ni_entropy": None if i == 1 else 0.5,
        "semantic_entropy": float("nan") if i == 2 else 2.0,
        "inv_entropy_percentile": 37.5 if i != 1 else None,
        "inv_entropy_p_correct": 0.62 if i != 1 else None,
        "inv_entropy_placed_among": (
            "12 reference questions like this one (k = 30, similarity ≥ 0.21)"
            if i != 1
            else "none like this one (no question is close enough)"
        ),
        "correct": i % 2,
        "judge_reason": f"the reference '{i + 1}' is in the answer" if i % 2 else "no match",
        "perturbations": json.dumps([f"Variant {k}?" for k in range(2)]),
        "responses": json.dumps([["a", "b"], ["c", "d"]]),
        "degenerate": "" if i != 2 else "degenerate result: all 9 perturbations are the question",
        "method_errors": "" if i != 1 else json.dumps({"ni_entropy": "failed"}),
        "seconds": 0.5 * i,
    }


def _expected(rec: dict, fmt: str) -> dict:
    out = {}
    for c in COLUMNS:
        v = rec.get(c)
        if isinstance(v, float) and v != v:
            v = None  # NaN is an empty cell / null
        if fmt == "csv" and v == "" and column_kind(c) != "text":
            v = None
        out[c] = v
    return out


def test_the_reference_columns_are_text_and_the_rest_typed_by_name():
    assert column_kind("inv_entropy_placed_among") == "text"
    assert column_kind("inv_entropy_percentile") == "float"
    assert column_kind("inv_entropy_p_correct") == "float"
    assert column_kind("correct") == "int" and column_kind("id") == "text"


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_round_trips_every_column_with_the_reference_columns(tmp_path, fmt):
    rows = [_record(i) for i in range(4)]
    dest = tmp_path / f"out.{fmt}"
    assert write_records(rows, dest, COLUMNS) == 4
    got = list(iter_records(dest))
    assert got == [_expected(r, fmt) for r in rows]
    assert isinstance(got[0]["id"], str) and isinstance(got[0]["correct"], int)


def _part(path: Path, rows: list[dict]) -> Path:
    write_records(rows, path, COLUMNS)
    meta = {"config": {"columns": COLUMNS, "methods": METHODS, "n_bootstrap": 5}}
    Path(str(path) + ".meta.json").write_text(json.dumps(meta))
    return path


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_merge_into_parquet_or_csv_keeps_the_reference_columns(tmp_path, fmt):
    rows = [_record(i) for i in range(4)]
    part = _part(tmp_path / "scored.csv", rows)
    merged = tmp_path / f"all.{fmt}"
    summary = merge_outputs([part], merged)
    assert summary.n_rows == 4
    assert list(iter_records(merged)) == [_expected(r, "csv") for r in rows]


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_merge_keeps_integer_columns_integer(tmp_path, fmt):
    """distinct_states among them: 2 stays 2, never 2.0 (the probe of 2026-11-28)."""
    part = _part(tmp_path / "scored.csv", [_record(i) for i in range(2)])
    merged = tmp_path / f"all.{fmt}"
    merge_outputs([part], merged)
    for rec in iter_records(merged):
        assert {c: type(rec[c]) for c in INT_COLUMNS} == dict.fromkeys(INT_COLUMNS, int)


def test_an_integer_written_as_a_float_reads_back_as_the_integer(tmp_path):
    """A CSV merged before distinct_states was an integer column holds 9.0."""
    part = _part(tmp_path / "old.csv", [_record(0)])
    part.write_text(part.read_text().replace(",9,9,5,", ",9.0,9.0,5,"))
    rec = next(iter_records(part))
    assert (rec["n_perturbations"], rec["distinct_states"]) == (9, 9)
    assert type(rec["n_perturbations"]) is int and type(rec["distinct_states"]) is int


def test_merge_leaves_out_a_torn_last_row_and_names_its_line(tmp_path):
    """As resuming batch cuts it off; merge cannot score it again, so it warns."""
    part = _part(tmp_path / "scored.csv", [_record(i) for i in range(3)])
    part.write_bytes(part.read_bytes()[:-40])
    merged = tmp_path / "all.csv"
    summary = merge_outputs([part], merged)
    assert summary.n_rows == 2
    assert [r["row"] for r in iter_records(merged)] == [1, 2]
    assert len(summary.warnings) == 1
    assert re.search(r"scored\.csv: line 4 is not a complete row", summary.warnings[0])


def test_the_merge_cli_writes_parquet_with_the_reference_columns(tmp_path):
    part = _part(tmp_path / "scored.jsonl", [_record(i) for i in range(3)])
    proc = cli("merge", part, "-o", tmp_path / "all.parquet", timeout=120)
    assert proc.returncode == 0, proc.stderr
    import pyarrow.parquet as pq

    table = pq.read_table(tmp_path / "all.parquet")
    assert str(table.schema.field("inv_entropy_placed_among").type) == "string"
    assert table.column("inv_entropy_placed_among")[0].as_py().startswith("12 reference")


def test_a_text_cell_in_a_numeric_parquet_column_names_the_row_and_column(tmp_path):
    rows = [_record(0), dict(_record(1), inv_entropy="high")]
    with pytest.raises(ValueError, match=r"row 2, column 'inv_entropy': 'high' is not a number"):
        write_records(rows, tmp_path / "o.parquet", COLUMNS)
    assert list(tmp_path.iterdir()) == []  # nothing half-written, no temporary


# --------------------------------------------------------------------------
# One mode rule for every output: 0666 less the umask, as batch's checkpoint
# --------------------------------------------------------------------------


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_atomic_files_get_the_mode_open_gives(tmp_path, umask):
    old = os.umask(umask)
    try:
        write_csv(tmp_path / "a.csv", [{"x": 1}], ["x"])
        with open(tmp_path / "b.csv", "w"):
            pass
    finally:
        os.umask(old)
    mode = stat.S_IMODE((tmp_path / "a.csv").stat().st_mode)
    assert mode == stat.S_IMODE((tmp_path / "b.csv").stat().st_mode) == 0o666 & ~umask


# --------------------------------------------------------------------------
# A temporary left by kill -9 is removed by the next write of the same file
# --------------------------------------------------------------------------

KILLED_WRITER = """
import sys, time
from invent_core.csv_safe import atomic_file
with atomic_file(sys.argv[1]) as f:
    f.write("half")
    f.flush()
    print("writing", flush=True)
    time.sleep(120)
"""


def test_a_temporary_left_by_kill_9_is_removed_by_the_next_write(tmp_path):
    dest = tmp_path / "scores.csv"
    worker = tmp_path / "w.py"
    worker.write_text(KILLED_WRITER)
    proc = subprocess.Popen(
        [sys.executable, str(worker), str(dest)], env=env(), stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout.readline().strip() == "writing"
        (live,) = tmp_path.glob(".scores.csv.*.tmp")
        assert remove_stale_temporaries(dest) == []  # its process is alive: left alone
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert live.exists()  # kill -9 left it
    other = tmp_path / ".other.csv.1.abc.tmp"
    other.write_text("not ours to judge")
    with atomic_file(dest) as f:
        f.write("done")
    assert dest.read_text() == "done"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [".other.csv.1.abc.tmp", "scores.csv", "w.py"]
    )


# --------------------------------------------------------------------------
# One lock per output, taken before the work: two real `run --save` processes
# --------------------------------------------------------------------------


def test_a_second_run_save_to_one_file_exits_4_before_any_work(tmp_path):
    silent = socket.socket()  # a real server that accepts and never answers: the run stays busy
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)
    url = f"http://127.0.0.1:{silent.getsockname()[1]}/v1"
    save = tmp_path / "run.json"
    args = ["--save", save, "-n", "2", "-r", "2", "--no-cache", "--model", "m", "--llm", "openai"]
    first = subprocess.Popen(
        [sys.executable, "-m", "invent_core", "run", "What is 2+2?", *map(str, args)]
        + ["--base-url", url],
        env=env(),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        lock = Path(str(save) + ".lock")
        deadline = time.monotonic() + 120
        while not (lock.exists() and lock.read_text().strip() == str(first.pid)):
            assert first.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        # the second names a dead LLM: had it not been refused first, it would fail there
        second = cli(
            "run", "What is 3+3?", *args, "--base-url", "http://127.0.0.1:9/v1", timeout=120
        )
        assert second.returncode == 4, second.stderr
        assert f"another run (process {first.pid}) is writing" in second.stderr
        assert str(save) in second.stderr and "Traceback" not in second.stderr
    finally:
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=30)
        silent.close()
    assert not save.exists()
