"""Faults on the input and output side: each test fails on the code before the fix and passes after.

Unclosed quotes, an output that is the input, the output lock (two real
processes and ``kill -9``), one CSV writer, corrupt rows in the middle of an
output, a full disk, size limits, deep JSON, JSON Lines types, a BOM and
stray temporary files.
"""

from __future__ import annotations

import csv
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import invent_core.questions.schema as qs
from invent_core.batch import (
    BatchInputError,
    batch_score,
    iter_records,
    merge_outputs,
    sidecar_paths,
    write_records,
)
from invent_core.config import RunConfig

pytestmark = pytest.mark.slow  # most tests embed with the real MiniLM; some start processes

ROOT = Path(__file__).resolve().parents[2]
B = 5
CONFIG = RunConfig().replace(n_bootstrap=B)
ANSWERS = ["Paris", "London", "Berlin", "Rome"]
INV = ["inv_entropy", "ni_entropy", "nr_inv_entropy", "wd_px_py", "max_py_x"]


def wide_rows(n_rows: int, *, seed: int = 0) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_rows):
        reps = [[str(rng.choice(ANSWERS)) for _ in range(2)] for _ in range(3)]
        rows.append(
            {
                "id": f"q{i}",
                "question": f"Which city is number {i}?",
                "answer": reps[0][0] if i % 2 else "Oslo",
                "perturbations": [f"Variant {k} of city {i}?" for k in (1, 2)],
                "responses": reps,
            }
        )
    return rows


def write_csv(path: Path, rows: list[dict]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(list(rows[0]))
        for row in rows:
            w.writerow([json.dumps(v) if isinstance(v, list) else v for v in row.values()])
    return path


def write_jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def env() -> dict[str, str]:
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT) + os.pathsep + e.get("PYTHONPATH", "")
    return e


def cli(*args, timeout: float = 300, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "invent_core", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env(),
        cwd=ROOT,
        **kwargs,
    )


def errors_of(output: Path) -> list[dict]:
    p = sidecar_paths(output)["errors"]
    return [json.loads(line) for line in p.read_text().splitlines() if line.strip()]


# --------------------------------------------------------------------------
# Item 2: an unclosed quote is reported with its line, before any scoring
# --------------------------------------------------------------------------


def test_unbalanced_quote_in_a_five_line_file(tmp_path):
    p = tmp_path / "q.csv"
    p.write_text(
        'question,answer\n"Unbalanced quote starts here,Paris\n'
        "What is 2+2?,4\nCapital of Italy?,Rome\nLargest ocean?,Pacific\n"
    )
    out = tmp_path / "o.csv"
    with pytest.raises(
        BatchInputError,
        match=r"q\.csv, line 2: a quoted cell opened on this line runs on to line 5",
    ):
        batch_score(p, out, CONFIG)
    assert not out.exists() and not sidecar_paths(out)["meta"].exists()  # nothing scored


def test_unbalanced_quote_in_a_one_column_file_runs_to_the_end(tmp_path):
    p = tmp_path / "one.csv"
    p.write_text('question\nWhat is 1+1?\n"Never closed\nWhat is 2+2?\nWhat is 3+3?\n')
    with pytest.raises(BatchInputError, match=r"one\.csv, line 3: .* never closed before the end"):
        batch_score(p, tmp_path / "o.csv", CONFIG)


def test_unbalanced_quote_larger_than_a_cell(tmp_path, monkeypatch):
    """The quote swallows more than one cell may hold: still an unclosed quote, with its line."""
    monkeypatch.setattr(qs, "FIELD_SIZE_LIMIT", 300)
    lines = [f"q{i},What is {i} plus {i}?" for i in range(60)]
    lines[10] = 'q10,"What is ten plus ten?'
    p = tmp_path / "big.csv"
    p.write_text("id,question\n" + "\n".join(lines) + "\n")
    with pytest.raises(
        BatchInputError, match=r"big\.csv, line 12: a quoted cell .* never closed within 300"
    ):
        batch_score(p, tmp_path / "o.csv", CONFIG)
    assert not (tmp_path / "o.csv").exists()


def test_unterminated_quote_in_a_responses_cell_names_the_quote(tmp_path):
    """The message is about the quote, not 'responses is empty' (item 17)."""
    rows = wide_rows(3)
    p = write_csv(tmp_path / "w.csv", rows)
    text = p.read_text().splitlines()
    text[2] = text[2].replace('"[[', '"[[', 1).rsplit('"', 1)[0]  # drop the closing quote of row 2
    p.write_text("\n".join(text) + "\n")
    with pytest.raises(BatchInputError, match=r"w\.csv, line 3: a quoted cell opened on this line"):
        batch_score(p, tmp_path / "o.csv", CONFIG)


def test_multiline_quoted_cells_are_still_read(minilm, tmp_path):
    """A closed quoted cell with line breaks (and commas) is not an unclosed quote."""
    rows = wide_rows(3)
    rows[1]["question"] = "Which city,\nof all the cities,\nis number 1?"
    p = write_csv(tmp_path / "m.csv", rows)
    s = batch_score(p, tmp_path / "o.csv", CONFIG, embedder=minilm)
    assert s.ok and list(iter_records(tmp_path / "o.csv"))[1]["question"] == rows[1]["question"]


# --------------------------------------------------------------------------
# Item 3: an output that is the input is refused under every flag
# --------------------------------------------------------------------------


@pytest.mark.parametrize("link", ["hard", "symbolic", "same"])
@pytest.mark.parametrize("resume", [True, False])
def test_output_that_is_the_input_is_refused(tmp_path, link, resume):
    inp = write_csv(tmp_path / "in.csv", wide_rows(3))
    before = inp.read_bytes()
    out = {"hard": tmp_path / "out.csv", "symbolic": tmp_path / "out.csv", "same": inp}[link]
    if link == "hard":
        os.link(inp, out)
    elif link == "symbolic":
        out.symlink_to(inp)
    how = {"hard": "a hard link", "symbolic": "a symbolic link", "same": "the same file"}[link]
    with pytest.raises(BatchInputError, match=rf"would overwrite the input \({how}"):
        batch_score(inp, out, CONFIG, resume=resume)
    assert inp.read_bytes() == before


def test_merge_output_that_is_a_part_is_refused(minilm, tmp_path):
    inp = write_csv(tmp_path / "in.csv", wide_rows(4))
    part = tmp_path / "p.csv"
    batch_score(inp, part, CONFIG, embedder=minilm)
    before = part.read_bytes()
    link = tmp_path / "merged.csv"
    os.link(part, link)
    with pytest.raises(BatchInputError, match="would overwrite the input"):
        merge_outputs([part], link)
    assert part.read_bytes() == before


# --------------------------------------------------------------------------
# Item 4: an OS lock on the output; two real processes and kill -9
# --------------------------------------------------------------------------

# After three rows it holds while the file argv[3] (when given) exists: the test never
# removes it, so the run stays alive until killed, however slow the CLI calls are.
SLOW_WORKER = """
import os, sys, time
from invent_core.batch import batch_score
from invent_core.config import RunConfig
def hold(ev):
    time.sleep(0.3)
    while ev.done >= 3 and len(sys.argv) > 3 and os.path.exists(sys.argv[3]):
        time.sleep(0.2)
batch_score(sys.argv[1], sys.argv[2], RunConfig().replace(n_bootstrap=5), progress=hold)
"""


def test_second_run_on_one_output_is_refused_until_the_first_dies(tmp_path):
    n_rows = 12  # the first run holds after 3 rows (SLOW_WORKER), so a few more suffice
    inp = write_csv(tmp_path / "in.csv", wide_rows(n_rows))
    out = tmp_path / "out.csv"
    worker = tmp_path / "worker.py"
    worker.write_text(SLOW_WORKER)
    held = tmp_path / "hold"
    held.touch()
    first = subprocess.Popen([sys.executable, str(worker), inp, out, held], env=env())
    try:
        deadline = time.monotonic() + 240
        while not out.exists() or out.read_bytes().count(b"\n") < 3:
            assert first.poll() is None, "the first run ended too early"
            assert time.monotonic() < deadline
            time.sleep(0.05)
        second = cli("batch", inp, "-o", out, "-B", 5, "-q")
        assert second.returncode == 4, second.stderr
        assert re.search(
            rf"out\.csv: another run \(process {first.pid}\) is writing", second.stderr
        )
        assert "Traceback" not in second.stderr
        again = cli(
            "batch", inp, "-o", out, "-B", 5, "-q", "--no-resume"
        )  # even when starting over
        assert again.returncode == 4
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=30)
    finally:
        if first.poll() is None:
            first.kill()
    n_before = out.read_bytes().count(b"\n") - 1
    third = cli("batch", inp, "-o", out, "-B", 5, "-q")  # the lock died with the process
    assert third.returncode == 0, third.stderr
    ids = [r["id"] for r in iter_records(out)]
    assert ids == [f"q{i}" for i in range(n_rows)]  # written once each
    assert f"{n_rows - n_before} rows scored, {n_before} already there" in third.stdout
    assert not sidecar_paths(out)["lock"].exists()


# --------------------------------------------------------------------------
# Item 7: one CSV writer for every CSV
# --------------------------------------------------------------------------


def test_write_csv_escapes_and_read_csv_restores(tmp_path):
    from invent_core.csv_safe import read_csv, write_csv

    rows = [{"id": "=1+1", "question": "@SUM(A1)", "score": -0.5}, {"id": "+x", "question": "ok"}]
    p = tmp_path / "s.csv"
    assert write_csv(p, rows, ["id", "question", "score"]) == 2
    raw = list(csv.reader(p.open(newline="")))
    assert raw[1] == ["'=1+1", "'@SUM(A1)", "-0.5"] and raw[2][0] == "'+x"
    back = list(read_csv(p))
    assert back[0]["id"] == "=1+1" and back[0]["question"] == "@SUM(A1)" and back[1]["id"] == "+x"


def test_every_csv_in_invent_core_goes_through_csv_safe():
    """evaluate's scores.csv kept '=…' cells: only csv_safe may write CSV."""
    writers = []
    for path in (ROOT / "invent_core").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"csv\.(writer|DictWriter)\(", text):
            writers.append(f"{path.relative_to(ROOT)}:{text[: m.start()].count(chr(10)) + 1}")
    assert [w for w in writers if not w.startswith("invent_core/csv_safe.py")] == []


# --------------------------------------------------------------------------
# Item 9: a corrupt row in the middle of an output
# --------------------------------------------------------------------------


@pytest.mark.parametrize("ext", ["csv", "jsonl"])
def test_corrupt_middle_row_keeps_the_rows_after_it(minilm, tmp_path, ext):
    inp = write_csv(tmp_path / "in.csv", wide_rows(12))
    full = tmp_path / f"full.{ext}"
    batch_score(inp, full, CONFIG, embedder=minilm)
    part = tmp_path / f"part.{ext}"
    lines = full.read_bytes().splitlines(keepends=True)
    bad = 5 if ext == "csv" else 4  # the 5th data row (CSV has a header line)
    lines[bad] = b"this is not a row\n" if ext == "csv" else b'{"id": "q4", "row": \n'
    part.write_bytes(b"".join(lines))
    sidecar_paths(part)["meta"].write_text(sidecar_paths(full)["meta"].read_text())
    s = batch_score(inp, part, CONFIG, embedder=minilm)
    assert (s.n_resumed, s.n_scored) == (11, 1)  # the rows after the bad one were kept
    assert len(s.dropped) == 1 and re.search(
        rf"line {bad + 1} is .*; it is removed and its question scored again", s.dropped[0]
    )
    got, want = list(iter_records(part)), list(iter_records(full))
    assert [r["id"] for r in got] == [f"q{i}" for i in range(12)]  # back in input order
    for name in INV:
        np.testing.assert_allclose([r[name] for r in got], [r[name] for r in want], atol=1e-6)
    meta = json.loads(sidecar_paths(part)["meta"].read_text())
    assert meta["summary"]["dropped"] == s.dropped


def test_unbalanced_quote_in_an_output_says_what_is_rescored(minilm, tmp_path):
    inp = write_csv(tmp_path / "in.csv", wide_rows(8))
    out = tmp_path / "o.csv"
    batch_score(inp, out, CONFIG, embedder=minilm)
    lines = out.read_bytes().splitlines(keepends=True)
    lines[3] = b'q2,3,"Which city\n'  # a quote that never closes swallows rows 3-7
    out.write_bytes(b"".join(lines))
    s = batch_score(inp, out, CONFIG, embedder=minilm)
    assert (s.n_resumed, s.n_scored) == (2, 6)
    assert "lines 4-end are not complete rows" in s.dropped[0]
    assert [r["id"] for r in iter_records(out)] == [f"q{i}" for i in range(8)]


# --------------------------------------------------------------------------
# Item 11: a full disk has its own message and exit status
# --------------------------------------------------------------------------


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_disk_full_exit_3_without_traceback(tmp_path):
    inp = write_csv(tmp_path / "in.csv", wide_rows(2))
    out = tmp_path / "out.csv"
    out.symlink_to("/dev/full")  # every write fails with ENOSPC
    res = cli("batch", inp, "-o", out, "-B", 5, "-q")
    assert res.returncode == 3, res.stderr
    assert "the disk is full" in res.stderr and "run the same command again" in res.stderr
    assert "Traceback" not in res.stderr
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


# --------------------------------------------------------------------------
# Item 12: size limits for JSON input and the sidecar
# --------------------------------------------------------------------------


def test_score_input_over_the_limit(tmp_path, monkeypatch):
    from invent_core.commands.score import load_score_input

    monkeypatch.setattr(qs, "FIELD_SIZE_LIMIT", 1000)
    p = tmp_path / "big.json"
    p.write_text(json.dumps({"questions": ["q" * 600, "p"], "responses": [["a"], ["b" * 600]]}))
    with pytest.raises(
        ValueError, match=r"big\.json: the file is 1,2\d\d bytes; the limit .* is 1,000"
    ):
        load_score_input(p)


def test_jsonl_line_over_the_limit_is_refused_at_its_line_before_any_row_is_scored(
    minilm, tmp_path, monkeypatch
):
    monkeypatch.setattr(qs, "FIELD_SIZE_LIMIT", 2000)
    rows = wide_rows(5)
    rows[3]["question"] = "x" * 3000
    p = write_jsonl(tmp_path / "in.jsonl", rows)
    out = tmp_path / "o.jsonl"
    with pytest.raises(BatchInputError, match=r"in\.jsonl, line 4: the line is longer than 2,000"):
        batch_score(p, out, CONFIG, embedder=minilm)
    assert list(tmp_path.iterdir()) == [p]  # found by the pre-scan: no output, no sidecar


def test_oversized_sidecar_is_refused(minilm, tmp_path, monkeypatch):
    inp = write_csv(tmp_path / "in.csv", wide_rows(2))
    out = tmp_path / "o.csv"
    batch_score(inp, out, CONFIG, embedder=minilm)
    meta = sidecar_paths(out)["meta"]
    meta.write_text(json.dumps({"config": {}, "pad": "x" * 5000}))
    monkeypatch.setattr(qs, "FIELD_SIZE_LIMIT", 4000)
    with pytest.raises(
        BatchInputError, match=r"meta\.json: the sidecar is larger than 4,000 bytes"
    ):
        batch_score(inp, out, CONFIG, embedder=minilm)


# --------------------------------------------------------------------------
# Item 13: deep JSON, "responses": null, a closed pipe
# --------------------------------------------------------------------------


def test_score_deeply_nested_and_null_responses(tmp_path):
    from invent_core.commands.score import load_score_input

    deep = tmp_path / "deep.json"
    deep.write_text('{"questions": ["q"], "responses": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(ValueError, match=r"deep\.json: not valid JSON: .*nested too deeply"):
        load_score_input(deep)
    null = tmp_path / "null.json"
    null.write_text('{"questions": ["q"], "responses": null}')
    with pytest.raises(ValueError, match=r"null\.json: responses is NoneType, expected a list"):
        load_score_input(null)


def test_batch_jsonl_deep_line_is_a_row_error_and_the_good_row_is_written(minilm, tmp_path):
    rows = wide_rows(2)
    p = write_jsonl(tmp_path / "in.jsonl", [rows[0], "[" * 100_000, rows[1]])
    out = tmp_path / "o.jsonl"
    s = batch_score(p, out, CONFIG, embedder=minilm)
    assert (s.n_scored, s.n_failed) == (2, 1)
    assert [r["id"] for r in iter_records(out)] == ["q0", "q1"]
    (err,) = errors_of(out)
    assert err["line"] == 2 and "nested too deeply" in err["error"]


def test_score_piped_to_a_closed_reader_exits_quietly(tmp_path):
    p = tmp_path / "in.json"
    p.write_text(
        json.dumps({"questions": ["Capital?", "Main city?"], "responses": [["Paris"], ["Lyon"]]})
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "invent_core", "score", str(p), "-B", "3"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env(),
        cwd=ROOT,
    )
    proc.stdout.close()  # like `| head -c 0`: the reader is gone before anything is printed
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 141 and err.decode() == "", err.decode()


# --------------------------------------------------------------------------
# Item 14: JSON Lines values of the wrong type; keys missing from the first line
# --------------------------------------------------------------------------


def test_jsonl_wrong_types_are_row_errors_with_the_column(minilm, tmp_path):
    good = wide_rows(6)
    bad = [
        dict(good[1], question=42),
        dict(good[2], question=["a", "list"]),
        dict(good[3], id={"an": "object"}),
        dict(good[4], id=1.5),
        dict(good[5], answer={"text": "Paris"}),
    ]
    p = write_jsonl(tmp_path / "in.jsonl", [good[0], *bad])
    out = tmp_path / "o.jsonl"
    s = batch_score(p, out, CONFIG, embedder=minilm)
    assert (s.n_scored, s.n_failed) == (1, 5)
    errs = {e["row"]: e for e in errors_of(out)}
    assert errs[2]["column"] == "question" and "must be text, got a number" in errs[2]["error"]
    assert errs[3]["column"] == "question" and "got a list" in errs[3]["error"]
    assert errs[4]["column"] == "id" and "got a JSON object" in errs[4]["error"]
    assert errs[5]["column"] == "id" and "got a number" in errs[5]["error"]
    assert errs[6]["column"] == "answer" and "got a JSON object" in errs[6]["error"]


def test_jsonl_key_missing_from_the_first_line_is_not_ignored(minilm, tmp_path):
    rows = wide_rows(3)
    first = {k: v for k, v in rows[0].items() if k != "answer"}
    p = write_jsonl(
        tmp_path / "in.jsonl", [first, rows[1], {k: v for k, v in rows[2].items() if k != "answer"}]
    )
    out = tmp_path / "o.jsonl"
    s = batch_score(p, out, CONFIG, embedder=minilm)
    assert (s.n_scored, s.n_failed) == (2, 1)
    (err,) = errors_of(out)
    assert err["row"] == 2 and err["column"] == "answer"
    assert "not in the first line" in err["error"]


# --------------------------------------------------------------------------
# Item 17: a BOM in score's input; no stray temporary files
# --------------------------------------------------------------------------


def test_score_input_with_a_utf8_bom(tmp_path):
    from invent_core.commands.score import load_score_input

    p = tmp_path / "bom.json"
    p.write_bytes(b"\xef\xbb\xbf" + json.dumps({"questions": ["q"], "responses": [["a"]]}).encode())
    assert load_score_input(p) == (["q"], [["a"]])


@pytest.mark.parametrize("ext", ["csv", "jsonl", "json", "parquet"])
def test_a_failed_write_leaves_no_temporary_file(tmp_path, ext):
    dest = tmp_path / f"r.{ext}"
    dest.write_bytes(b"old")

    def rows():
        yield {"id": "a", "row": 1, "question": "q"}
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        write_records(rows(), dest, ["id", "row", "question"])
    assert sorted(p.name for p in tmp_path.iterdir()) == [dest.name]
    assert dest.read_bytes() == b"old"


def test_a_cell_with_a_lone_carriage_return_stays_one_cell():
    import csv
    import io

    from invent_core.csv_safe import csv_line, restore_cell

    line = csv_line(["a\rb", "c", "\rx"])
    assert line.endswith('"\n') or line.endswith("\n")
    rows = list(csv.reader(io.StringIO(line, newline="")))
    assert [[restore_cell(c) for c in r] for r in rows] == [["a\rb", "c", "\rx"]]
