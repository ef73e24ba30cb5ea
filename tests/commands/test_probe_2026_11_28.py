"""What the new-user probe of 2026-11-28 found in run, evaluate and the LLM options.

Real subprocesses of ``python -m invent_core``; the LLM, where one is named, is an
OpenAI-compatible URL on 127.0.0.1 where nothing listens, so a command that reached
it fails there, and one refused before shows the check came first.
"""

from __future__ import annotations

import csv
import json

import pytest
from test_batch_faults import cli

DEAD_LLM = ("--llm", "openai", "--base-url", "http://127.0.0.1:9/v1", "--model", "m")


@pytest.mark.slow
def test_every_question_failing_is_not_a_success(tmp_path):
    """evaluate against a server nobody answers: the question fails, is listed, status 1."""
    data = tmp_path / "qa.csv"
    data.write_text("id,question,answer\nq1,What is 1 plus 2?,3\n", encoding="utf-8")
    out = tmp_path / "out"
    proc = cli("evaluate", "--data", data, "-n", "1", "-r", "1", "-o", out, "-q", *DEAD_LLM)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "question(s) failed" in proc.stderr and "retried on the next run" in proc.stderr
    rows = list(csv.DictReader((out / "scores.csv").open(encoding="utf-8")))
    assert [r["id"] for r in rows] == ["q1"] and rows[0]["error"]
    # tsu with no run scored at all was already refused as a whole (status 2)
    proc = cli("tsu", "--data", data, "-n", "1", "-r", "1", "-o", tmp_path / "t", "-q",
               "--temperatures", "0.5", "1.0", *DEAD_LLM)  # fmt: skip
    assert proc.returncode == 2 and "no run gave a score" in proc.stderr


@pytest.mark.slow
def test_an_unusable_cache_is_one_warning_line(tmp_path):
    """A folder as --cache: one "warning: …" line naming it, not Python's warning record."""
    folder = tmp_path / "cdir"
    folder.mkdir()
    proc = cli("run", "Q?", "-n", "1", "-r", "1", "--cache", folder, *DEAD_LLM)
    lines = [ln for ln in proc.stderr.splitlines() if "LLM cache" in ln]
    assert lines == [
        f"warning: LLM cache {folder} is not used: it cannot be opened "
        "(unable to open database file); running without a cache"
    ], proc.stderr
    assert "CacheWarning" not in proc.stderr and "cache.py" not in proc.stderr


def test_one_line_warnings_only_within_and_only_for_ours(capsys):
    import warnings

    from invent_core.cli import one_line_warnings
    from invent_core.errors import InventWarning

    before = warnings.showwarning
    with one_line_warnings():
        warnings.warn("the file x.json is damaged", InventWarning, stacklevel=1)
        warnings.warn("someone else's", DeprecationWarning, stacklevel=1)
    assert warnings.showwarning is before
    err = capsys.readouterr().err
    assert "warning: the file x.json is damaged\n" in err
    assert "someone else's" not in err  # left to the machinery in place (here pytest's)


def test_a_method_with_no_value_is_said_on_stderr(tmp_path):
    """P(True) on pre-generated responses has no LLM: its empty column is named, with why."""
    data = tmp_path / "pg.csv"
    data.write_text(
        "id,question,perturbations,responses\n"
        'q1,What is the capital of France?,"[""Which city is the capital of France?""]",'
        '"[[""Paris"",""Paris""],[""Paris"",""Lyon""]]"\n',
        encoding="utf-8",
    )
    proc = cli("batch", data, "-o", tmp_path / "out.csv", "-q", "--methods", "p_true")
    assert proc.returncode == 0, proc.stderr
    assert (
        "warning: p_true gave no value on 1 row(s): P(True) needs an LLM backend; "
        "none was given for this run (see method_errors)"
    ) in proc.stderr
    meta = json.loads((tmp_path / "out.csv.meta.json").read_text(encoding="utf-8"))
    assert meta["summary"]["method_gaps"]["p_true"][0] == 1


def test_a_run_file_with_a_bom_is_read(tmp_path):
    """An editor's byte-order mark: report and the Explore page read it, as score and batch do."""
    from invent_core.engine.artifact import RunArtifact
    from invent_core.env import assets_dir

    text = (assets_dir() / "demo_run.json").read_text(encoding="utf-8")
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert RunArtifact.load(path).to_json() == RunArtifact.from_json(text).to_json()
    proc = cli("report", path, "-o", tmp_path / "r.html")
    assert proc.returncode == 0, proc.stderr


@pytest.mark.slow
def test_a_samples_file_is_placed_among_the_references_of_the_model_it_records(tmp_path):
    """export-samples records the packaged model: score reads it, no --made-by needed."""
    from invent_core.env import assets_dir

    samples = tmp_path / "s.jsonl"
    assert cli("export-samples", assets_dir() / "demo_run.json", "-o", samples).returncode == 0
    proc = cli("score", samples)
    assert proc.returncode == 0, proc.stderr
    assert "unknown LLM" not in proc.stdout and "inv_entropy: percentile" in proc.stdout


def test_progress_in_a_log_is_a_line_every_15_seconds_on_a_terminal_every_2():
    import io

    from invent_core.commands._common import CliProgress
    from invent_core.progress import LOG_INTERVAL, RENDER_INTERVAL

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert CliProgress(stream=io.StringIO()).interval == LOG_INTERVAL == 15.0
    assert CliProgress(stream=Terminal()).interval == RENDER_INTERVAL == 2.0
    assert CliProgress(stream=io.StringIO(), interval=0.5).interval == 0.5  # asked for: kept
