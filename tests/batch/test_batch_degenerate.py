"""Batch output rows say when they are degenerate, and ``batch -o X.parquet`` reads back typed.

A row whose perturbations are all the question (or it with its numbers written
another way) has scores that measure nothing: its ``degenerate`` cell says why,
the summary counts such rows and the command line warns. A question-only run
against a real HTTP server (the loopback of ``benchmarks/``) written to Parquet
by the command line carries the reference placement and reads back every
column with its type.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from loopback_server import LoopbackServer  # noqa: E402

from invent_core.batch import batch_score, iter_records  # noqa: E402
from invent_core.batch.output import read_meta  # noqa: E402
from invent_core.batch.scorer import FILE_COPIES_HINT  # noqa: E402
from invent_core.commands.batch import report_batch  # noqa: E402
from invent_core.config import RunConfig  # noqa: E402
from invent_core.llm import get_llm  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CONFIG = RunConfig(n_perturbations=1, n_replications=1).replace(n_bootstrap=3)
COPIES = {
    "id": "copies",
    "question": "What is 7 + 5?",
    "answer": "12",
    "perturbations": ["What is seven + 5?", "what is 7 + 5"],
    "responses": [["12", "12"], ["12", "13"], ["11", "12"]],
}
REWORDED = {
    **COPIES,
    "id": "reworded",
    "perturbations": ["What do you get when you add 7 and 5?", "What is the sum of 7 and 5?"],
}


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("ext", ["csv", "parquet"])
def test_a_row_of_copies_says_so_in_the_output_the_summary_and_the_report(
    minilm, tmp_path, capsys, ext
):
    out = tmp_path / f"out.{ext}"
    summary = batch_score(_jsonl(tmp_path / "in.jsonl", [COPIES, REWORDED]), out, CONFIG)
    copies, reworded = iter_records(out)
    assert copies["degenerate"].startswith(
        "degenerate result: all 2 perturbations are the question itself up to how its numbers "
        "are written"
    )
    assert copies["degenerate"].endswith(f"({FILE_COPIES_HINT})")
    assert reworded["degenerate"] == ""  # text, not a missing number
    assert (
        summary.n_degenerate == 1
        and read_meta(Path(summary.meta_path))["summary"]["n_degenerate"] == 1
    )
    report_batch(summary)
    err = capsys.readouterr().err
    assert "warning: 1 row(s) are degenerate" in err and "see the degenerate column" in err


@pytest.mark.slow
def test_a_generated_gaap_row_of_copies_is_degenerate(minilm, tmp_path):
    """GAAP's meaning check keeps only "What is seven + 5?": the row says so, with the way out."""
    cfg = RunConfig(n_perturbations=3, n_replications=1, perturber="gaap").replace(
        n_bootstrap=3, gaap_meaning_check=True
    )
    path = tmp_path / "q.csv"
    path.write_text("id,question\nsum,What is 7 + 5?\n", encoding="utf-8")
    with LoopbackServer(delay=0.0) as srv:
        llm = get_llm("openai", base_url=srv.base_url, model="loopback", cache=None)
        summary = batch_score(path, tmp_path / "out.jsonl", cfg, llm=llm, embedder=minilm)
    [row] = iter_records(tmp_path / "out.jsonl")
    assert json.loads(row["perturbations"]) == ["What is seven + 5?"] * 3
    assert "--no-gaap-meaning-check" in row["degenerate"] and summary.n_degenerate == 1


def _questions(path: Path) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "question", "answer"])
        w.writerow(["q0", "What is the capital of France?", "Paris"])
        w.writerow(["q1", "Who wrote the play Hamlet?", "Shakespeare"])
    return path


def _toy_reference(folder: Path, identity: str) -> list[float]:
    """A reference set for exactly these settings and this LLM, in ``folder``."""
    from invent_core.evaluation.reference import ReferenceSet, reference_settings

    folder.mkdir()
    values = [0.1 * k for k in range(40)]
    settings = reference_settings(CONFIG, identity, "inv_entropy")
    ReferenceSet(values, [1] * 20 + [0] * 20, settings).save(folder / "toy.json")
    return values


@pytest.mark.slow
def test_batch_to_parquet_on_the_command_line_keeps_the_reference_columns_typed(tmp_path):
    import pyarrow.parquet as pq

    out = tmp_path / "X.parquet"
    with LoopbackServer(delay=0.0) as srv:
        identity = get_llm("openai", base_url=srv.base_url, model="loopback", cache=None).identity
        values = _toy_reference(tmp_path / "ref", identity)
        env = {**os.environ, "INVENT_REFERENCE_DIR": str(tmp_path / "ref")}
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        args = ["--llm", "openai", "--base-url", srv.base_url, "--model", "loopback"]
        args += ["-n", "1", "-r", "1", "-B", "3", "--no-cache", "-q"]
        proc = subprocess.run(
            [sys.executable, "-m", "invent_core", "batch", _questions(tmp_path / "q.csv")]
            + ["-o", out, *args],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
            cwd=ROOT,
        )
    assert proc.returncode == 0, proc.stderr
    types = {f.name: str(f.type) for f in pq.read_schema(out)}
    assert types["inv_entropy_placed_among"] == types["degenerate"] == "string"
    assert types["inv_entropy_percentile"] == types["inv_entropy"] == "double"
    assert types["row"] == types["correct"] == "int64"
    rows = list(iter_records(out))
    assert [r["id"] for r in rows] == ["q0", "q1"]
    for r in rows:
        assert r["inv_entropy_placed_among"].startswith("40 reference questions")
        assert r["inv_entropy_percentile"] == pytest.approx(
            100 * sum(v <= r["inv_entropy"] for v in values) / 40
        )
        assert 0 < r["inv_entropy_p_correct"] < 1 and r["correct"] in (0, 1)
        assert isinstance(r["judge_reason"], str) and r["degenerate"] == ""
