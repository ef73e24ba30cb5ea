"""Shared samples: export → import → score identical; UQLM's frame read; bad input named."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from invent_core.batch.output.files import iter_records
from invent_core.cli import main as cli
from invent_core.config import ScoreConfig
from invent_core.csv_safe import read_csv
from invent_core.engine.artifact import RunArtifact
from invent_core.questions.files import BatchInputError
from invent_core.questions.samples import SCHEMA, read_samples, read_uqlm
from invent_core.samples import read_source

ROOT = Path(__file__).resolve().parents[2]
EVALUATION = ROOT / "docs/results/evaluate-arithmetic-100"
RUN = EVALUATION / "runs/arithmetic_0-2cfa05b8_T0.7.json"

UQLM_ROWS = [
    {
        "prompts": "What is the capital of France?",
        "responses": "Paris",
        "sampled_responses": ["Paris", "Paris", "Lyon"],
        "semantic_negentropy": 0.8,
    },
    {
        "prompts": "Who wrote Dracula?",
        "responses": "Bram Stoker",
        "sampled_responses": ["Bram Stoker", "Stoker's novel", 'He said "Stoker"'],
        "semantic_negentropy": 0.5,
    },
]


def _json_out(capsys, *argv) -> object:
    assert cli([str(a) for a in argv]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.slow
def test_a_shipped_run_exported_and_scored_again_gives_its_scores(tmp_path, capsys, minilm):
    out = tmp_path / "s.jsonl"
    assert cli(["export-samples", str(RUN), "-o", str(out)]) == 0
    assert "1 question(s), 10 state(s)" in capsys.readouterr().out
    (line,) = out.read_text(encoding="utf-8").splitlines()
    assert json.loads(line)["schema"] == SCHEMA
    run = RunArtifact.load(RUN)
    (got,) = _json_out(capsys, "score", out, "--json")
    assert got["id"] == RUN.stem and got["config"] == run.config.score.to_dict()
    assert got["measures"] == run.rescore(embedder=minilm).measures  # the same scoring, exactly
    assert got["measures"] == pytest.approx(run.measures, rel=1e-6)  # and the run's own numbers
    # an option typed on the command line wins over the file's settings
    (fewer,) = _json_out(capsys, "score", out, "--json", "-B", "7")
    assert fewer["n_bootstrap"] == 7


def test_an_evaluate_folder_exports_every_scored_question_with_its_label():
    rows = [r for r in read_csv(EVALUATION / "scores.csv") if not r["error"]]
    samples = read_source(EVALUATION)
    assert [s.id for s in samples] == [r["id"] for r in rows]
    assert [s.correct for s in samples] == [int(r["correct"]) for r in rows]
    first = samples[0]
    assert first.answers == [rows[0]["reference"]] and first.model["llm"]
    assert first.settings["n_perturbations"] == 9 and len(first.responses) == 10
    (shipped,) = [s for s in samples if s.source["run"] == RUN.name]
    assert shipped.source == {"kind": "evaluation", "path": str(EVALUATION), "run": RUN.name}
    assert shipped.responses == RunArtifact.load(RUN).responses


def test_export_then_read_back_keeps_every_field(tmp_path):
    out = tmp_path / "s.jsonl"
    assert cli(["export-samples", str(EVALUATION), "-o", str(out)]) == 0
    back = list(read_samples(out))
    assert back == read_source(EVALUATION)


@pytest.mark.parametrize("fmt", ["csv", "json", "jsonl", "parquet"])
def test_uqlm_frame_is_read_in_each_format_pandas_writes(tmp_path, fmt):
    frame = pd.DataFrame(UQLM_ROWS)
    path = tmp_path / f"uq.{fmt}"
    if fmt == "csv":
        frame.to_csv(path, index=False)  # lists become Python's repr
    elif fmt == "parquet":
        frame.to_parquet(path)
    else:
        frame.to_json(path, orient="records", lines=fmt == "jsonl")
    first, second = read_uqlm(path)
    assert first.question == "What is the capital of France?" and first.perturbations == []
    assert first.responses == [["Paris", "Paris", "Paris", "Lyon"]]  # the response, then samples
    assert second.responses[0][-1] == 'He said "Stoker"'


def test_uqlm_frame_is_refused_by_score_and_by_inv_methods_in_batch(tmp_path, capsys):
    path = tmp_path / "uq.parquet"
    pd.DataFrame(UQLM_ROWS).to_parquet(path)
    assert cli(["score", str(path)]) == 2
    assert "UQLM's result frame has no rewordings" in capsys.readouterr().err
    csv_path = tmp_path / "uq.csv"
    pd.DataFrame(UQLM_ROWS).to_csv(csv_path, index=False)
    out = tmp_path / "o.csv"
    assert cli(["batch", str(csv_path), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--methods" in err and "inv_entropy" in err and "lexsim" in err
    assert not out.exists()


@pytest.mark.slow
def test_batch_scores_a_uqlm_frame_with_the_methods_that_need_no_rewordings(tmp_path, minilm):
    path = tmp_path / "uq.csv"
    pd.DataFrame(UQLM_ROWS).to_csv(path, index=False)
    out = tmp_path / "o.csv"
    assert cli(["batch", str(path), "-o", str(out), "--methods", "lexsim,degmat", "-q"]) == 0
    rows = list(iter_records(out))
    assert [r["n_perturbations"] for r in rows] == [0, 0]
    assert [r["n_replications"] for r in rows] == [4, 4]
    assert rows[0]["lexsim"] < rows[1]["lexsim"]  # three Paris of four vs scattered authors


@pytest.mark.slow
def test_batch_reads_a_samples_file_as_it_is(tmp_path, capsys, minilm):
    samples = tmp_path / "s.jsonl"
    assert cli(["export-samples", str(RUN), "-o", str(samples)]) == 0
    out = tmp_path / "o.jsonl"
    assert cli(["batch", str(samples), "-o", str(out), "-q"]) == 0
    (row,) = iter_records(out)
    assert row["id"] == RUN.stem
    # the same answers, scored by batch's options: today's ψ_y and padding, not the run's
    today = ScoreConfig()
    again = RunArtifact.load(RUN).rescore(
        answer_similarity=today.answer_similarity, padding=today.padding
    )
    assert row["inv_entropy"] == pytest.approx(again.measures["inv_entropy"])


def _line(**changes) -> str:
    base = {"schema": SCHEMA, "id": "q", "question": "Q?", "perturbations": ["Q, please?"]}
    return json.dumps({**base, "responses": [["a", "b"], ["a", "c"]], **changes})


@pytest.mark.parametrize(
    ("bad", "field", "words"),
    [
        ({"responses": [["a", "b"], ["a"]]}, "responses", "same number r"),
        ({"responses": [["a", "b"]]}, "responses", "1 lists for 1 perturbations"),
        ({"responses": [["a", 3], ["a", "c"]]}, "responses[0]", "list of strings"),
        ({"schema": "invent.samples/9"}, "schema", "invent.samples/1"),
        ({"correct": "yes"}, "correct", "1, 0 or null"),
        ({"question": ""}, "question", "blank question"),
    ],
)
def test_a_bad_line_is_named_by_file_line_and_field(tmp_path, bad, field, words):
    path = tmp_path / "s.jsonl"
    path.write_text(_line() + "\n" + _line(**bad) + "\n", encoding="utf-8")
    with pytest.raises(BatchInputError, match=words) as err:
        list(read_samples(path))
    assert (err.value.file, err.value.line, err.value.column) == (str(path), 2, field)


def test_invalid_json_names_the_line(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(_line() + "\n{not json\n", encoding="utf-8")
    with pytest.raises(BatchInputError, match="invalid JSON") as err:
        list(read_samples(path))
    assert err.value.line == 2


def test_a_bad_uqlm_cell_names_the_row_and_column(tmp_path):
    path = tmp_path / "uq.csv"
    rows = [dict(UQLM_ROWS[0]), {**UQLM_ROWS[1], "sampled_responses": "not a list"}]
    pd.DataFrame(rows).to_csv(path, index=False)
    with pytest.raises(BatchInputError, match="list of strings") as err:
        read_uqlm(path)
    assert (err.value.row, err.value.column) == (2, "sampled_responses")


def test_options_are_checked_before_anything_is_written(tmp_path, capsys):
    assert cli(["export-samples", str(RUN), "-o", str(tmp_path / "s.csv")]) == 2
    assert "*.jsonl" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
    out = tmp_path / "s.jsonl"
    out.write_text("kept\n", encoding="utf-8")
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    assert cli(["export-samples", str(bad), "-o", str(out)]) == 2
    assert "UQLM" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "kept\n"  # a bad source writes nothing
    assert cli(["export-samples", str(out), "-o", str(out)]) == 2
    assert "would overwrite the input" in capsys.readouterr().err


def test_the_example_line_of_the_docs_is_read(tmp_path):
    text = (ROOT / "docs/samples.md").read_text(encoding="utf-8")
    line = next(ln for ln in text.splitlines() if ln.startswith('{"schema"'))
    path = tmp_path / "s.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    (sample,) = read_samples(path)
    assert sample.correct == 1 and len(sample.questions) == 3 and sample.settings["score"]
