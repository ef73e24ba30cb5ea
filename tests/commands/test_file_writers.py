"""Writers that never eat their inputs: reference build, export-samples and report.

Each writes its one output file as batch does (``batch.output.output_file``):
refused when it is a file the command reads (the path, a symbolic or a hard
link, a file inside the evaluation folder read), one writer at a time (the
output's lock), and atomically (a kill leaves the old file whole). The class
is tried on every command and every way an output can be an input; the kill
is a real process killed between writing and renaming.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from invent_core.batch.output import OutputLock, lock_path
from invent_core.cli import main as cli
from invent_core.commands.exits import BUSY
from invent_core.csv_safe import read_csv
from invent_core.experiments.runs import run_path

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "docs" / "results" / "evaluate-mmlu-100"
N = 12


@pytest.fixture
def folder(tmp_path) -> Path:
    """The shipped MMLU evaluation's first N questions with their runs, and a relabel layer."""
    out = tmp_path / "ev"
    (out / "runs").mkdir(parents=True)
    for name in ("config.json", "results.json"):
        shutil.copy(SHIPPED / name, out)
    lines = (SHIPPED / "scores.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    (out / "scores.csv").write_text("".join(lines[: N + 1]), encoding="utf-8")
    temperature = json.loads((out / "config.json").read_text())["config"]["run"]["temperature"]
    rows = list(read_csv(out / "scores.csv"))
    for row in rows:
        shutil.copy(run_path(SHIPPED / "runs", row["id"], temperature), out / "runs")
    relabel = {"id": rows[0]["id"], "label": True, "reason": "checked"}
    (out / "relabels.jsonl").write_text(json.dumps(relabel) + "\n", encoding="utf-8")
    return out


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _a_run(folder: Path) -> Path:
    return sorted((folder / "runs").glob("*.json"))[0]


# how -o can lead to a file the command reads: (command, output as made from the folder)
CASES = {
    "reference -o scores.csv": ("reference", lambda d, t: d / "scores.csv"),
    "reference -o config.json": ("reference", lambda d, t: d / "config.json"),
    "reference -o a link to relabels.jsonl": (
        "reference",
        lambda d, t: _link(t / "ref.json", d / "relabels.jsonl"),
    ),
    "reference -o a hard link to a saved run": (
        "reference",
        lambda d, t: _hard(t / "ref.json", _a_run(d)),
    ),
    "export-samples -o relabels.jsonl": ("export-samples", lambda d, t: d / "relabels.jsonl"),
    "export-samples -o a link to a saved run": (
        "export-samples",
        lambda d, t: _link(t / "s.jsonl", _a_run(d)),
    ),
    "report -o a hard link to scores.csv": (
        "report",
        lambda d, t: _hard(t / "r.html", d / "scores.csv"),
    ),
    "report -o a link to results.json": (
        "report",
        lambda d, t: _link(t / "r.html", d / "results.json"),
    ),
}


def _link(path: Path, target: Path) -> Path:
    path.symlink_to(target)
    return path


def _hard(path: Path, target: Path) -> Path:
    os.link(target, path)
    return path


def _argv(command: str, source: Path, out: Path) -> list[str]:
    if command == "reference":
        return ["reference", "build", str(source), "-o", str(out)]
    return [command, str(source), "-o", str(out)]


@pytest.mark.parametrize("case", list(CASES))
def test_an_output_that_is_a_file_read_is_refused_and_nothing_changes(
    folder, tmp_path, capsys, case
):
    command, make = CASES[case]
    out = make(folder, tmp_path)
    before = _snapshot(folder)
    assert cli(_argv(command, folder, out)) == 2
    err = capsys.readouterr().err
    assert "would overwrite the input" in err and "Traceback" not in err, err
    assert _snapshot(folder) == before


def test_a_report_of_a_run_file_refuses_that_file(folder, tmp_path, capsys):
    run = tmp_path / "run.html"  # a run artefact saved under a name that looks like a page
    shutil.copy(_a_run(folder), run)
    before = run.read_bytes()
    assert cli(["report", str(run), "-o", str(run)]) == 2
    assert "would overwrite the input" in capsys.readouterr().err
    assert run.read_bytes() == before


@pytest.mark.parametrize("command", ["report", "export-samples"])
def test_a_second_writer_of_one_output_is_refused_and_the_first_file_kept(
    folder, tmp_path, capsys, command
):
    out = tmp_path / ("r.html" if command == "report" else "s.jsonl")
    out.write_text("the first writer's file\n", encoding="utf-8")
    with OutputLock(lock_path(out), out):  # another writer holds the output
        # held by this thread, so the command must run in another process to be refused
        proc = subprocess.run(
            [sys.executable, "-m", "invent_core", *_argv(command, folder, out)],
            capture_output=True, text=True, cwd=ROOT, timeout=300,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )  # fmt: skip
    assert proc.returncode == BUSY, proc.stderr
    assert "another run" in proc.stderr
    assert out.read_text(encoding="utf-8") == "the first writer's file\n"


#: Runs a command and kills its own process at the last moment of a write: after the
#: temporary file of the output (named by KILL_WRITING) is written and before it is renamed
#: over the output (SIGKILL: no cleanup).
KILL_AT_FSYNC = """
import os, signal, sys
real = os.fsync
def fsync(fd):
    real(fd)
    name = os.path.basename(os.readlink(f"/proc/self/fd/{fd}"))
    if name.startswith("." + os.environ["KILL_WRITING"] + ".") and name.endswith(".tmp"):
        os.kill(os.getpid(), signal.SIGKILL)
os.fsync = fsync
from invent_core.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize(
    "command",
    ["report", "export-samples", pytest.param("reference", marks=pytest.mark.slow)],
)
def test_a_writer_killed_mid_write_leaves_the_old_file_whole(folder, tmp_path, command):
    out = tmp_path / {"report": "r.html", "export-samples": "s.jsonl"}.get(command, "ref.json")
    out.write_text("the good file from before\n", encoding="utf-8")
    run = [sys.executable, "-c", KILL_AT_FSYNC, *_argv(command, folder, out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KILL_WRITING": out.name}
    proc = subprocess.run(run, capture_output=True, text=True, cwd=ROOT, timeout=600, env=env)
    assert proc.returncode == -9, proc.stderr  # killed, by its own hand, mid-write
    assert out.read_text(encoding="utf-8") == "the good file from before\n"
    assert list(tmp_path.glob(f".{out.name}.*.tmp"))  # the kill left its temporary file
    # the next writer removes the dead one's temporary file, and is not locked out
    assert cli(_argv(command, folder, out)) == 0
    assert out.read_text(encoding="utf-8") != "the good file from before\n"
    assert not list(tmp_path.glob(f".{out.name}.*.tmp"))
    assert not lock_path(out).exists()
