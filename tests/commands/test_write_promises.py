"""Every command that reads or writes keeps batch's promises.

evaluate, tsu, run --save, the history and the Batch scoring page's uploads:
one reader (batch's), one writer discipline (input never touched, a lock per
resolved path, atomic files, a full disk exit 3, a read-only or wrong kind of
path exit 2 before any work). Real subprocesses, real tmpfs mounts (a full
one, a read-only one) and ``kill -9``; the helpers are test_batch_faults'.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_batch_faults import SLOW_WORKER, cli, env, errors_of, wide_rows, write_csv
from test_experiment_honest import ScriptLLM

from invent_core.batch import BatchInputError, iter_records
from invent_core.experiments import ExperimentConfig, evaluate
from invent_core.workbench.history import HistoryStore

#: An OpenAI-compatible URL where nothing listens: a command that reached the LLM would fail
#: there, so a test passing with it shows the check came before any LLM call.
DEAD_LLM = ("--llm", "openai", "--base-url", "http://127.0.0.1:9/v1", "--model", "m")
QA = "id,question,answer\nq1,What is the capital of France?,Paris\nq2,What is 2+2?,4\n"


def _questions(path: Path, text: str = QA) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _no_traceback(proc: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in proc.stderr, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and proc.stderr.rstrip().endswith(errors[0]), proc.stderr


@contextlib.contextmanager
def _tmpfs(path: Path, options: str):
    """A real tmpfs at ``path`` (root only: skipped elsewhere)."""
    path.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)], check=False)
    if done.returncode != 0:
        pytest.skip("mounting a tmpfs needs root")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


@pytest.fixture
def full_disk(tmp_path):
    """A 256 KiB tmpfs filled to the last byte, with folders o/ and t/ made before."""
    with _tmpfs(tmp_path / "full", "size=256k") as root:
        (root / "o").mkdir()
        (root / "t").mkdir()
        with open(root / "fill", "wb", buffering=0) as f, contextlib.suppress(OSError):
            while True:
                f.write(b"\0" * 4096)
        yield root


@pytest.fixture
def read_only(tmp_path):
    with _tmpfs(tmp_path / "ro", "ro,size=64k") as root:
        yield root


# --------------------------------------------------------------------------
# 1. evaluate and tsu never overwrite their input; config.json's link is not followed
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "name"),
    [("evaluate", "scores.csv"), ("tsu", "uq.csv"), ("evaluate", "config.json")],
)
def test_an_input_named_like_an_output_is_refused(tmp_path, command, name):
    rows = [{"id": "q1", "question": "What is the capital of France?", "answer": "Paris"}]
    data = tmp_path / name
    if name.endswith(".json"):
        data.write_text(json.dumps(rows))
    else:
        _questions(data)
    before = data.read_bytes()
    proc = cli(command, "--data", data, "-o", tmp_path, *DEAD_LLM, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert f"{name}: the output would overwrite the input" in proc.stderr
    _no_traceback(proc)
    assert data.read_bytes() == before


def test_a_link_in_place_of_config_json_is_replaced_not_followed(tmp_path, minilm):
    data = _questions(tmp_path / "q.csv")
    out = tmp_path / "o"
    out.mkdir()
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me")
    (out / "config.json").symlink_to(victim)
    evaluate(_cfg(data), out, llm_factory=ScriptLLM)
    assert victim.read_text() == "keep me"
    assert not (out / "config.json").is_symlink()
    assert json.loads((out / "config.json").read_text())["n_questions"] == 2


def _small_run():
    from invent_core.config import RunConfig

    return RunConfig().replace(
        n_perturbations=2, n_replications=2, n_bootstrap=5, paraphrase_gate_max_extra_requests=1
    )


def _cfg(data: Path) -> ExperimentConfig:
    return ExperimentConfig(
        run=_small_run(), data=str(data), methods=("inv_entropy",), n_bootstrap_metrics=5
    )


# --------------------------------------------------------------------------
# 2. repeated ids refused; a saved row is reused only for the same question
# --------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["evaluate", "tsu"])
def test_repeated_ids_are_refused(tmp_path, command):
    data = _questions(tmp_path / "d.csv", "id,question,answer\nq1,A?,x\nq2,B?,y\nq1,C?,z\n")
    proc = cli(command, "--data", data, "-o", tmp_path / "o", *DEAD_LLM, timeout=120)
    assert proc.returncode == 2
    assert "d.csv: id 'q1' is repeated (questions 1 and 3)" in proc.stderr
    _no_traceback(proc)


def test_a_saved_row_under_the_same_id_but_another_question_is_scored_again(tmp_path, minilm):
    out = tmp_path / "o"
    first = _questions(tmp_path / "a.csv")
    evaluate(_cfg(first), out, llm_factory=ScriptLLM)
    second = _questions(
        tmp_path / "b.csv",
        "id,question,answer\nq1,What is the capital of Japan?,Tokyo\nq2,What is 2+2?,4\n",
    )
    llm = ScriptLLM()
    res = evaluate(_cfg(second), out, llm_factory=lambda: llm)
    rows = {r["id"]: r for r in csv.DictReader(open(out / "scores.csv", encoding="utf-8"))}
    assert rows["q1"]["question"] == "What is the capital of Japan?"
    assert rows["q1"]["response"] == "Tokyo" and rows["q1"]["correct"] == "1"
    assert any("Japan" in p for p in llm.prompts)  # generated again, not read back
    assert not any("2+2" in p for p in llm.prompts)  # the unchanged question is reused
    assert res.evaluation.n_questions == 2


# --------------------------------------------------------------------------
# 3 and 4. one run per folder (evaluate, tsu) and per resolved file (batch); kill -9 frees it
# --------------------------------------------------------------------------

FOLDER_WORKER = """
import sys, time
from invent_core.batch.output import output_folder
from invent_core.experiments import EVALUATE_FILES
with output_folder(sys.argv[1], EVALUATE_FILES):
    print("holding", flush=True)
    time.sleep(120)
"""


def _hold(tmp_path: Path, folder: Path) -> subprocess.Popen:
    worker = tmp_path / "hold.py"
    worker.write_text(FOLDER_WORKER)
    proc = subprocess.Popen(
        [sys.executable, str(worker), str(folder)], env=env(), stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline().strip() == "holding"
    return proc


def test_a_second_run_on_one_folder_is_refused_until_the_first_dies(tmp_path):
    data = _questions(tmp_path / "q.csv")
    out = tmp_path / "o"
    first = _hold(tmp_path, out)
    try:
        for command in ("evaluate", "tsu"):
            proc = cli(command, "--data", data, "-o", out, *DEAD_LLM, timeout=120)
            assert proc.returncode == 4, proc.stderr
            assert f"another run (process {first.pid}) is writing" in proc.stderr
            _no_traceback(proc)
        link = tmp_path / "link"
        link.symlink_to(out)  # another name for the same folder: the same lock
        proc = cli("evaluate", "--data", data, "-o", link, *DEAD_LLM, timeout=120)
        assert proc.returncode == 4, proc.stderr
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=30)
    finally:
        if first.poll() is None:
            first.kill()
    again = _hold(tmp_path, out)  # the kernel released the lock with the process
    again.kill()
    again.wait(timeout=30)


def test_batch_lock_cannot_be_bypassed_through_a_symbolic_link(tmp_path):
    inp = write_csv(tmp_path / "in.csv", wide_rows(40))
    out = tmp_path / "out.csv"
    link = tmp_path / "link.csv"
    link.symlink_to(out)
    worker = tmp_path / "worker.py"
    worker.write_text(SLOW_WORKER)
    held = tmp_path / "hold"  # the first run holds after three rows until it is killed
    held.touch()
    first = subprocess.Popen([sys.executable, str(worker), inp, out, held], env=env())
    try:
        deadline = time.monotonic() + 240
        while not out.exists() or out.read_bytes().count(b"\n") < 3:
            assert first.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        second = cli("batch", inp, "-o", link, "-B", 5, "-q", "--no-resume")
        assert second.returncode == 4, second.stderr
        assert f"another run (process {first.pid}) is writing" in second.stderr
    finally:
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=30)
    ids = [r["id"] for r in iter_records(out)]
    assert len(ids) == len(set(ids))  # nothing written twice


# --------------------------------------------------------------------------
# 5 and 6. the one reader: a BOM with --encoding utf-8, an unclosed quote in the last record
# --------------------------------------------------------------------------


@pytest.mark.parametrize("encoding", ["utf-8", "UTF8"])
def test_a_bom_with_an_explicit_utf8_encoding_keeps_the_id_column(tmp_path, encoding):
    plain = write_csv(tmp_path / "plain.csv", wide_rows(2))
    inp = tmp_path / "bom.csv"
    inp.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    out = tmp_path / "out.csv"
    proc = cli("batch", inp, "-o", out, "-B", 5, "-q", "--encoding", encoding)
    assert proc.returncode == 0, proc.stderr
    assert [r["id"] for r in iter_records(out)] == ["q0", "q1"]


def test_a_bom_with_question_first_is_read(tmp_path):
    inp = tmp_path / "bom.csv"
    inp.write_bytes(b"\xef\xbb\xbfquestion,answer\nWhat?,x\n")
    proc = cli("batch", inp, "-o", tmp_path / "o.csv", "--encoding", "utf-8", *DEAD_LLM, "-q")
    assert "no question column" not in proc.stderr


@pytest.mark.parametrize("command", ["batch", "evaluate"])
def test_an_unclosed_quote_in_the_last_record_is_reported(tmp_path, command):
    inp = _questions(tmp_path / "q.csv", 'question,answer\n"What is the capital of France?,Paris\n')
    args = ("-o", tmp_path / ("o.csv" if command == "batch" else "o"), *DEAD_LLM)
    proc = cli(command, *(("--data", inp) if command == "evaluate" else (inp,)), *args)
    assert proc.returncode == 2, proc.stderr
    assert "q.csv, line 2: a quoted cell opened on this line is never closed" in proc.stderr
    _no_traceback(proc)


# --------------------------------------------------------------------------
# 7. history records damaged one at a time
# --------------------------------------------------------------------------


def test_a_truncated_meta_json_keeps_its_run(tmp_path):
    store = HistoryStore(tmp_path)
    damaged = store.add("run", {"question": "What is the capital of France?", "a": 1}, title="t")
    other = store.add("run", {"question": "Who wrote Hamlet?"}, title="Hamlet")
    meta = tmp_path / damaged / "meta.json"
    meta.write_bytes(meta.read_bytes()[:20])
    (tmp_path / "index.json").unlink()  # force a rebuild
    entries = {e.id: e for e in HistoryStore(tmp_path).list()}
    assert set(entries) == {damaged, other}
    assert entries[damaged].title == "What is the capital of France?"
    assert store.load(damaged)["a"] == 1


@pytest.mark.parametrize(
    "damage", ["created-number", "size-text", "tmp-folder", "payload-and-meta-damaged"]
)
def test_an_odd_record_does_not_hide_the_others(tmp_path, damage):
    store = HistoryStore(tmp_path)
    odd = store.add("run", {"question": "odd"}, title="odd")
    good = store.add("run", {"question": "good"}, title="good")
    meta = tmp_path / odd / "meta.json"
    record = json.loads(meta.read_text())
    if damage == "created-number":
        record["created"] = 20240101
    elif damage == "size-text":
        record["size"] = "big"
    elif damage == "tmp-folder":
        (tmp_path / "folder.tmp").mkdir()
        (tmp_path / "folder.tmp" / "x").write_text("user data")
    else:
        (tmp_path / odd / "payload.json").write_text("{")
    meta.write_text(json.dumps(record) if damage != "payload-and-meta-damaged" else "{")
    (tmp_path / "index.json").unlink()
    ids = [e.id for e in HistoryStore(tmp_path).list()]
    assert good in ids
    assert (tmp_path / odd / "payload.json").exists()  # never deleted
    if damage == "tmp-folder":
        assert (tmp_path / "folder.tmp" / "x").read_text() == "user data"


# --------------------------------------------------------------------------
# 8 and 9. bounded options; n = 0 perturbations is not "certain"
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("batch", "IN", "-o", "OUT", "--concurrency", "1000000000"),
            "--concurrency: must be in 1",
        ),
        (("evaluate", "--data", "IN", "--concurrency", "0"), "--concurrency: must be in 1"),
        (("batch", "IN", "-o", "OUT", "-B", str(10**12)), "--n-bootstrap must be at most 100,000"),
        (("batch", "IN", "-o", "OUT", "-n", str(10**9)), "--n-perturbations must be at most"),
        (("batch", "IN", "-o", "OUT", "--encoding", "rot13"), "unknown text encoding 'rot13'"),
        (
            ("evaluate", "--data", "IN", "--difficulty", "1-99999999999"),
            "'1-99999999999': levels go up to 1,000 at most",
        ),
        (
            ("evaluate", "--data", "IN", "--n-bootstrap-metrics", "100000000"),
            "--n-bootstrap-metrics must be a whole number from 1 to 10,000",
        ),
        (("tsu", "--data", "IN", "--difficulty", "2-5000"), "levels go up to 1,000 at most"),
    ],
)
def test_unbounded_or_unknown_options_are_refused_before_work(tmp_path, args, message):
    inp = _questions(tmp_path / "q.csv")
    argv = [str(inp) if a == "IN" else str(tmp_path / "o.csv") if a == "OUT" else a for a in args]
    proc = cli(*argv, *DEAD_LLM, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "o.csv").exists()


def test_a_file_of_a_million_columns_is_refused_at_its_header(tmp_path):
    from invent_core.batch.input import inspect_input

    wide = tmp_path / "wide.csv"
    header = "question," + ",".join(f"c{i}" for i in range(1_000_000))
    wide.write_text(header + "\nWhat is 2+2?," + "," * 999_999 + "\n")
    message = "line 1: 1,000,001 columns; a question file may have at most 1,000"
    with pytest.raises(BatchInputError, match=message):
        inspect_input(wide)  # what the Batch scoring page checks an upload with
    proc = cli("batch", wide, "-o", tmp_path / "o.csv", *DEAD_LLM, timeout=120)
    assert proc.returncode == 2 and f"{wide}, {message}" in proc.stderr, proc.stderr
    assert not (tmp_path / "o.csv").exists()


def test_score_with_a_huge_bootstrap_is_refused(tmp_path):
    f = tmp_path / "s.json"
    f.write_text(json.dumps({"questions": ["a", "b"], "responses": [["x"], ["y"]]}))
    proc = cli("score", f, "-B", str(10**12), timeout=60)
    assert proc.returncode == 2 and "at most 100,000" in proc.stderr


def test_n_zero_perturbations_is_a_row_error_not_a_certain_score(tmp_path):
    inp = tmp_path / "n0.csv"
    inp.write_text(
        'id,question,perturbations,responses\nz,Q?,[],"[[""Paris"", ""Rome""]]"\n', encoding="utf-8"
    )
    out = tmp_path / "o.csv"
    proc = cli("batch", inp, "-o", out, "-q")
    assert proc.returncode == 1, proc.stderr
    (err,) = errors_of(out)
    assert err["id"] == "z" and "no perturbed questions (n = 0)" in err["error"]
    assert list(iter_records(out)) == []


def test_a_huge_long_layout_index_is_a_row_error(tmp_path):
    inp = tmp_path / "long.csv"
    inp.write_text(
        "id,question,perturbation,perturbation_index,replication_index,response\n"
        "a,Q?,,0,0,x\na,Q?,P?,1000000000000,0,y\n",
        encoding="utf-8",
    )
    out = tmp_path / "o.csv"
    proc = cli("batch", inp, "-o", out, "-q", timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert (
        "perturbation index(es) [1, 2] missing (expected 0 … 1000000000000)"
        in errors_of(out)[0]["error"]
    )


# --------------------------------------------------------------------------
# Full disk, read-only folder, a file where a folder belongs: one line, nothing half-written
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("evaluate", "--data", "Q", "-o", "FULL/o"),
        ("tsu", "--data", "Q", "-o", "FULL/t"),
        ("run", "What is the capital of France?", "--save", "FULL/r.json"),
    ],
)
def test_a_full_disk_exits_3_before_any_llm_call(tmp_path, full_disk, args):
    data = _questions(tmp_path / "q.csv")
    argv = [str(data) if a == "Q" else a.replace("FULL", str(full_disk)) for a in args]
    proc = cli(*argv, *DEAD_LLM, timeout=120)
    assert proc.returncode == 3, proc.stderr
    assert "the disk is full" in proc.stderr
    _no_traceback(proc)
    left = [p.name for p in full_disk.rglob("*") if p.is_file()]
    assert left == ["fill"]  # no .tmp, no half-written file


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("evaluate", "--data", "Q", "-o", "RO"), "scores.csv: cannot write the output: Read-only"),
        (("tsu", "--data", "Q", "-o", "RO/sub"), "cannot create the output folder: Read-only"),
        (("run", "Q?", "--save", "RO/r.json"), "r.json: cannot write the output: Read-only"),
    ],
)
def test_a_read_only_folder_exits_2_before_any_work(tmp_path, read_only, args, message):
    data = _questions(tmp_path / "q.csv")
    argv = [str(data) if a == "Q" else a.replace("RO", str(read_only)) for a in args]
    proc = cli(*argv, *DEAD_LLM, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    _no_traceback(proc)


@pytest.mark.parametrize("command", ["evaluate", "tsu", "run"])
def test_a_file_where_the_output_folder_belongs_exits_2(tmp_path, command):
    data = _questions(tmp_path / "q.csv")
    afile = tmp_path / "afile"
    afile.write_text("mine")
    if command == "run":
        argv = ("run", "Q?", "--save", afile / "r.json")
    else:
        argv = (command, "--data", data, "-o", afile)
    proc = cli(*argv, *DEAD_LLM, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert "afile" in proc.stderr and "NotADirectoryError" not in proc.stderr
    _no_traceback(proc)
    assert afile.read_text() == "mine"


# --------------------------------------------------------------------------
# A damaged evaluate folder and a large --data cell
# --------------------------------------------------------------------------


@pytest.mark.parametrize("damage", ["run-file-list", "scores-without-id", "scores-torn"])
def test_a_damaged_evaluate_folder_is_scored_again(tmp_path, minilm, damage):
    data = _questions(tmp_path / "q.csv")
    out = tmp_path / "o"
    evaluate(_cfg(data), out, llm_factory=ScriptLLM)
    scores = out / "scores.csv"
    if damage == "run-file-list":
        for run in (out / "runs").glob("*.json"):
            run.write_text("[]")
    elif damage == "scores-without-id":
        lines = scores.read_text().splitlines()
        scores.write_text("\n".join(line.split(",", 1)[1] for line in lines) + "\n")
    else:
        scores.write_bytes(scores.read_bytes()[:-15])
    res = evaluate(_cfg(data), out, llm_factory=ScriptLLM)
    assert res.evaluation.n_questions == 2
    assert [r["id"] for r in csv.DictReader(open(scores, encoding="utf-8"))] == ["q1", "q2"]


def test_a_large_data_cell_is_read_by_batchs_reader(tmp_path):
    from invent_core.questions.datasets import load_examples_file

    big = "x" * 200_000
    data = _questions(tmp_path / "q.csv", f'id,question,answer\nq1,What is it?,"{big}"\n')
    (ex,) = load_examples_file(data)
    assert ex.answers == (big,)


# --------------------------------------------------------------------------
# A damaged NLI model folder; the Batch scoring page's upload records
# --------------------------------------------------------------------------


def test_an_nli_folder_with_damaged_safetensors_is_one_line(tmp_path):
    import shutil

    from invent_core.embedders import EMBEDDERS, get_embedder
    from invent_core.embedders.sbert import model_folder
    from invent_core.errors import ModelFileError

    folder = tmp_path / "nli"
    shutil.copytree(model_folder(EMBEDDERS["minilm"]), folder)
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])
    with pytest.raises(ModelFileError, match=r"nli: the model cannot be loaded \(\w+"):
        get_embedder(str(folder)).load()


def test_batch_page_survives_damaged_upload_records(tmp_path, monkeypatch):
    from test_app_pages import assert_clean, open_page

    monkeypatch.setenv("INVENT_CACHE", str(tmp_path / "cache"))
    root = tmp_path / "cache" / "dashboard" / "batch"
    good, torn, empty = root / "aaaa", root / "bbbb", root / "cccc"
    for folder in (good, torn, empty):
        folder.mkdir(parents=True)
    (good / "input.csv").write_text(QA)
    (good / "upload.json").write_text(json.dumps({"name": "good.csv"}))
    (torn / "input.csv").write_text(QA)
    (torn / "upload.json").write_text('{"name": "to')  # truncated
    (empty / "upload.json").write_text(json.dumps({"name": "lost.csv"}))  # its input is gone
    at = open_page("5_Batch_scoring.py")
    assert_clean(at)
    options = at.selectbox(key="batch_reopen").options
    assert any("good.csv" in o for o in options) and any("upload bbbb" in o for o in options)
    assert not any("lost.csv" in o for o in options)
    at.selectbox(key="batch_reopen").set_value(str(torn)).run()
    assert_clean(at)
    assert "Schema OK" in at.success[0].value
