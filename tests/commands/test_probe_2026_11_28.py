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

    from invent_core.commands.common import CliProgress
    from invent_core.progress import LOG_INTERVAL, RENDER_INTERVAL

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert CliProgress(stream=io.StringIO()).interval == LOG_INTERVAL == 15.0
    assert CliProgress(stream=Terminal()).interval == RENDER_INTERVAL == 2.0
    assert CliProgress(stream=io.StringIO(), interval=0.5).interval == 0.5  # asked for: kept


# -- what the review of the day's changes found -------------------------------------------


def test_blank_or_unread_columns_may_repeat_read_ones_may_not(tmp_path):
    """A spreadsheet's blank trailing columns or two "notes" columns are fine; two ids are not."""
    from invent_core.questions.files import BatchInputError
    from invent_core.questions.files.reader import inspect_file

    ok = {
        "blank.csv": "question,answer,,\nWhat is 2+2?,4,,\n",
        "notes.csv": "question,notes,notes\nQ?,a,b\n",
    }
    for name, text in ok.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        assert inspect_file(tmp_path / name).columns[0] == "question"
    (tmp_path / "ids.csv").write_text("id,ID,question\na,b,Q?\n", encoding="utf-8")
    with pytest.raises(BatchInputError, match="'id' and 'ID' are one name"):
        inspect_file(tmp_path / "ids.csv")


@pytest.mark.slow
def test_merge_keeps_a_row_with_a_cell_over_csvs_default_limit(tmp_path):
    """merge runs in a process of its own: a 200,000-character answer is still a row."""
    long_answer = "Paris " * 34_000
    data = tmp_path / "pg.csv"
    responses = json.dumps([[long_answer, "Paris"], ["Paris", "Lyon"]])
    data.write_text(
        "id,question,perturbations,responses\n"
        f'q1,What is the capital of France?,"[""Which city is it?""]",'
        f'"{responses.replace(chr(34), chr(34) * 2)}"\n'
        'q2,What is the capital of Peru?,"[""Which city is it?""]",'
        '"[[""Lima"",""Lima""],[""Lima"",""Cusco""]]"\n',
        encoding="utf-8",
    )
    out = tmp_path / "out.csv"
    assert cli("batch", data, "-o", out, "-q").returncode == 0
    proc = cli("merge", out, "-o", tmp_path / "m.csv")
    assert proc.returncode == 0 and "warning" not in proc.stderr, proc.stderr
    assert "2 rows" in proc.stdout


def test_a_refused_url_is_shown_without_its_credentials():
    import argparse

    from invent_core.commands.served import check_urls

    args = argparse.Namespace(base_url="http://me:s3cret#x@host/v1", paraphrase_base_url=None)
    with pytest.raises(ValueError) as err:
        check_urls(args)
    assert "s3cret" not in str(err.value) and "me:" not in str(err.value)
    assert str(err.value).startswith("--base-url 'http://…@host/v1': not a URL")


def test_the_reference_hint_leaves_out_a_setting_that_follows_another():
    """A set made with --affinity shifted_cosine records no kernel τ: no "--kernel-tau None"."""
    from invent_core.commands.reference import matching_options
    from invent_core.config import RunConfig
    from invent_core.evaluation.reference import ReferenceSet, reference_settings

    cfg = RunConfig().replace(affinity="shifted_cosine")
    ref = ReferenceSet([0.1, 0.2], [1, 0], reference_settings(cfg, "local", "inv_entropy"))
    hint = matching_options(ref)
    assert "--affinity shifted_cosine" in hint and "None" not in hint
