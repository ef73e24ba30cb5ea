"""docs/cluster.md's recipes, run: the sbatch script and the Job's command per task, then merge.

The scheduler is played by the environment (SLURM_* or JOB_COMPLETION_INDEX,
as Slurm and Kubernetes set them); the input holds pre-generated answers, so
no LLM is asked and the ``--llm openai`` server the recipes name is never
contacted. The merged parts must score as one run over the whole file.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from test_batch_cli import ROOT, write_wide

from invent_core.batch import batch_score, iter_records
from invent_core.cli import main
from invent_core.config import RunConfig

pytestmark = pytest.mark.slow  # each task is a process that loads the real MiniLM

DOC = (ROOT / "docs" / "cluster.md").read_text(encoding="utf-8")
N_ROWS = 12


def blocks(kind: str) -> list[str]:
    return re.findall(rf"^```{kind}\n(.*?)^```", DOC, flags=re.S | re.M)


def task_env(tmp_path: Path, **scheduler: str) -> dict[str, str]:
    """The environment of one task: a `python` that is this interpreter, the scheduler's variables.

    `python` runs ``sys.executable`` by its own path: a symbolic link to it would start the
    interpreter from another folder, where a virtualenv's ``pyvenv.cfg`` is not found and the
    task would lose the environment's packages.
    """
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    if not (bin_dir / "python").exists():
        (bin_dir / "python").write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} "$@"\n')
        (bin_dir / "python").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "JOB_COMPLETION"))}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["TMPDIR"] = str(tmp_path / "node-local")
    return {**env, **scheduler}


def run_tasks(commands: list[tuple[list[str], dict[str, str]]], cwd: Path) -> list[str]:
    """Start every task at once (as a scheduler would), wait; the stderr of each."""
    procs = [
        subprocess.Popen(argv, cwd=cwd, env=env, stderr=subprocess.PIPE, text=True)
        for argv, env in commands
    ]
    errs = [p.communicate(timeout=600)[1] for p in procs]
    for p, err in zip(procs, errs, strict=True):
        assert p.returncode == 0, err
    return errs


def merge_and_compare(cwd: Path, merge_line: str) -> None:
    res = subprocess.run(
        ["bash", "-c", merge_line], cwd=cwd, env=task_env(cwd), capture_output=True, text=True
    )
    assert res.returncode == 0, res.stderr
    assert f"{N_ROWS} rows from 4 part(s)" in res.stdout
    one = cwd / "one.csv"
    batch_score(cwd / "questions.csv", one, config=RunConfig())
    got, want = list(iter_records(cwd / "scores.csv")), list(iter_records(one))
    assert [r["id"] for r in got] == [r["id"] for r in want]
    np.testing.assert_allclose(
        [r["inv_entropy"] for r in got], [r["inv_entropy"] for r in want], atol=1e-6
    )


def test_the_sbatch_array_script_then_merge(minilm, tmp_path):
    script = next(b for b in blocks("sh") if "#SBATCH --array" in b)
    first, last = map(int, re.search(r"#SBATCH --array=(\d+)-(\d+)", script).groups())
    write_wide(tmp_path / "questions.csv", N_ROWS)
    (tmp_path / "invent-array.sbatch").write_text(script, encoding="utf-8")
    tasks = [
        (
            ["bash", "invent-array.sbatch"],
            task_env(
                tmp_path,
                SLURM_ARRAY_JOB_ID="4242",
                SLURM_ARRAY_TASK_ID=str(t),
                SLURM_ARRAY_TASK_MIN=str(first),
                SLURM_ARRAY_TASK_MAX=str(last),
                SLURM_ARRAY_TASK_COUNT=str(last - first + 1),
                SLURM_ARRAY_TASK_STEP="1",
            ),
        )
        for t in range(first, last + 1)
    ]
    (tmp_path / "node-local").mkdir()
    errs = run_tasks(tasks, tmp_path)
    assert [re.search(r"shard \d/\d", e).group() for e in errs] == [
        f"shard {k}/4" for k in range(1, 5)
    ]
    submit = next(b for b in blocks("sh") if "--dependency" in b)
    wrapped = shlex.split(submit.splitlines()[-1])
    merge_and_compare(tmp_path, wrapped[wrapped.index("--wrap") + 1])


def test_the_kubernetes_indexed_job_then_merge(minilm, tmp_path):
    job = yaml.safe_load(next(iter(blocks("yaml"))))
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed"
    container = spec["template"]["spec"]["containers"][0]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env["INVENT_SHARD_COUNT"] == str(spec["completions"])  # the one fact the pod lacks
    data = tmp_path / "data"
    data.mkdir()
    write_wide(data / "questions.csv", N_ROWS)
    (tmp_path / "node-local").mkdir()
    cache_dir = tmp_path / "cache"  # the emptyDir
    cache_dir.mkdir()
    command = [c.replace("/cache/", f"{cache_dir}/") for c in container["command"]]
    tasks = [
        (command, task_env(tmp_path, **env, JOB_COMPLETION_INDEX=str(index)))
        for index in range(spec["completions"])
    ]
    errs = run_tasks(tasks, data)
    assert sorted(re.search(r"shard \d/\d", e).group() for e in errs) == [
        f"shard {k}/4" for k in range(1, 5)
    ]
    merge_line = next(b for b in blocks("sh") if b.startswith("python -m invent_core merge"))
    merge_and_compare(data, merge_line.strip())


def test_a_task_runs_this_interpreter_with_its_environment(tmp_path):
    """In a virtualenv too: the task's `python` has this one's prefix and packages."""
    env = task_env(tmp_path)
    probe = "import sys, numpy, yaml; print(sys.prefix)"
    got = subprocess.run(
        ["python", "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    assert got.stdout.strip() == sys.prefix


def test_shard_auto_outside_an_array_job_exits_2_before_any_file(tmp_path, monkeypatch, capsys):
    for var in [v for v in os.environ if v.startswith(("SLURM_", "JOB_COMPLETION"))]:
        monkeypatch.delenv(var)
    inp = write_wide(tmp_path / "q.csv", 2)
    out = tmp_path / "out.csv"
    assert main(["batch", str(inp), "-o", str(out), "--shard", "auto", "-q"]) == 2
    err = capsys.readouterr().err
    assert "not inside an array job" in err and "SLURM_ARRAY_TASK_ID" in err
    assert "JOB_COMPLETION_INDEX with INVENT_SHARD_COUNT" in err
    assert not out.exists() and list(tmp_path.iterdir()) == [inp]
