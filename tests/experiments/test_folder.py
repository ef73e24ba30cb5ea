"""The one reader of an evaluate folder, and every command that reads one through it.

The folder is the shipped MMLU evaluation's first questions (real rows, real
saved runs). Each test changes it the way a person or a spreadsheet would
(a byte-order mark, an escaped question, a relabel, a broken cell) and runs
every reader of a folder — compare, export-samples, report, the metrics
recomputed, reference build's reading — on it: they must agree, or all refuse
with the same message naming the file, the row and the column.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from invent_core.cli import main as cli
from invent_core.csv_safe import csv_line, neutralize_cell, read_csv
from invent_core.evaluation.reference import ReferenceSet
from invent_core.experiments.folder import read_evaluation
from invent_core.experiments.own_reference import build_reference
from invent_core.experiments.recompute import recompute_evaluation
from invent_core.experiments.runs import run_path
from invent_core.questions.files import BatchInputError

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "docs" / "results" / "evaluate-mmlu-100"
N = 24


def _rows(folder: Path) -> list[dict[str, str]]:
    """The rows as written (cells restored: writing them again escapes them once)."""
    return list(read_csv(folder / "scores.csv"))


def _write_rows(folder: Path, rows: list[dict[str, str]], *, bom: bool = False) -> None:
    text = csv_line(list(rows[0])) + "".join(csv_line(list(r.values())) for r in rows)
    (folder / "scores.csv").write_text(("\ufeff" if bom else "") + text, encoding="utf-8")


@pytest.fixture
def folder(tmp_path) -> Path:
    """The shipped MMLU evaluation's first N questions, with their saved runs."""
    out = tmp_path / "evaluate-mmlu"
    (out / "runs").mkdir(parents=True)
    shutil.copy(SHIPPED / "config.json", out)
    shutil.copy(SHIPPED / "results.json", out)
    lines = (SHIPPED / "scores.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    (out / "scores.csv").write_text("".join(lines[: N + 1]), encoding="utf-8")
    temperature = json.loads((SHIPPED / "config.json").read_text())["config"]["run"]["temperature"]
    for row in _rows(out):
        shutil.copy(run_path(SHIPPED / "runs", row["id"], temperature), out / "runs")
    assert len(list((out / "runs").glob("*.json"))) == N
    return out


def _spreadsheet_copy(folder: Path) -> tuple[dict[str, int], str]:
    """The folder as a spreadsheet saves it, a question escaped, two relabels: (labels, question).

    Returns the labels every reader must give after the layer (the reviewer's where the
    relabel matches the row's answer, the judge's where it is stale) and the escaped
    question's text as the evaluation asked it.
    """
    rows = _rows(folder)
    asked = "=SUM(A1) " + rows[0]["question"]  # a question a spreadsheet would run
    rows[0]["question"] = asked  # csv_line stores it escaped, as evaluate does
    _write_rows(folder, rows, bom=True)
    assert neutralize_cell(asked) in (folder / "scores.csv").read_text(encoding="utf-8")
    flipped, stale = rows[2], rows[5]
    (folder / "relabels.jsonl").write_text(
        json.dumps({"id": flipped["id"], "label": not int(flipped["correct"]),
                    "answer": flipped["canonical"], "reason": "checked by hand"}) + "\n"
        + json.dumps({"id": stale["id"], "label": not int(stale["correct"]),
                      "answer": "an answer the row no longer holds"}) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    labels = {r["id"]: int(r["correct"]) for r in rows}
    labels[flipped["id"]] = 1 - labels[flipped["id"]]
    return labels, asked


def test_every_reader_gives_a_spreadsheet_saved_folder_the_same_rows_and_labels(
    folder, tmp_path, capsys
):
    labels, asked = _spreadsheet_copy(folder)
    assert (folder / "scores.csv").read_bytes().startswith(b"\xef\xbb\xbf")
    ev = read_evaluation(folder)
    assert {r["id"]: r["correct"] for r in ev.judged} == labels
    assert ev.rows[0]["question"] == asked  # the formula-safe apostrophe is undone
    assert len(ev.layer.changed) == 1 and len(ev.layer.stale) == 1
    assert "inv_entropy" in ev.methods and ev.results  # the first column is "id", not "\ufeffid"

    # the metrics recomputed apply the same layer
    result = recompute_evaluation(folder, n_bootstrap=20)
    assert {r["id"]: int(r["correct"]) for r in result.rows} == labels

    # export-samples: each sample's label is the layer's
    out = tmp_path / "samples.jsonl"
    assert cli(["export-samples", str(folder), "-o", str(out)]) == 0
    samples = [json.loads(line) for line in out.read_text().splitlines()]
    assert {s["id"]: s["correct"] for s in samples} == labels

    # report: the relabelled count and no traceback
    page = tmp_path / "r.html"
    assert cli(["report", str(folder), "-o", str(page)]) == 0
    assert page.stat().st_size > 0

    # compare: the folder against the shipped one's rows (plain UTF-8, no layer)
    plain = tmp_path / "plain"
    shutil.copytree(folder, plain)
    (plain / "relabels.jsonl").unlink()
    _write_rows(plain, _rows(folder))
    capsys.readouterr()
    assert cli(["compare", str(folder), str(plain), "--json", "--n-bootstrap-metrics", "20"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["n_shared"] == N
    changed = [d for d in res["disagreements"] if d["correct"][0] != d["correct"][1]]
    assert all(d["correct"][0] == labels[d["id"]] for d in changed)


def _mutations(folder: Path):
    """(name, change the folder, the file, row and column the message must name)."""
    rows = _rows(folder)

    def drop_correct():
        _write_rows(folder, [{k: v for k, v in r.items() if k != "correct"} for r in rows])

    def cell(row: int, column: str, value: str):
        def change():
            new = [dict(r) for r in rows]
            new[row - 1][column] = value
            _write_rows(folder, new, bom=True)

        return change

    def extra_cell():
        text = (folder / "scores.csv").read_text(encoding="utf-8").splitlines(keepends=True)
        text[4] = text[4].rstrip("\n") + ",surplus\n"
        (folder / "scores.csv").write_text("".join(text), encoding="utf-8")

    def results_list():
        (folder / "results.json").write_text("[]", encoding="utf-8")

    def results_of_another_shape():
        results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
        results["results"]["lexsim"] = [0.5]
        (folder / "results.json").write_text(json.dumps(results), encoding="utf-8")

    return {
        "no correct column": (drop_correct, "scores.csv", "'correct'"),
        "a score that is no number": (cell(3, "semantic_entropy", "high"), "row 3", "semantic_entropy"),
        "a label that is not 0 or 1": (cell(7, "correct", "yes"), "row 7", "'correct'"),
        "an id twice": (cell(9, "id", rows[1]["id"]), "row 9", "again"),
        "an empty id": (cell(2, "id", ""), "row 2", "'id'"),
        "more cells than columns": (extra_cell, "row 4", "cells where the header"),
        "results.json not an object": (results_list, "results.json", "JSON object"),
        "results.json of another shape": (results_of_another_shape, "results.json", "'lexsim'"),
    }  # fmt: skip


@pytest.mark.parametrize(
    "name",
    [
        "no correct column",
        "a score that is no number",
        "a label that is not 0 or 1",
        "an id twice",
        "an empty id",
        "more cells than columns",
        "results.json not an object",
        "results.json of another shape",
    ],
)
def test_a_folder_of_another_shape_is_refused_by_every_reader_naming_where(
    folder, tmp_path, capsys, name
):
    change, where, what = _mutations(folder)[name]
    change()
    with pytest.raises(ValueError) as err:
        read_evaluation(folder)
    said = str(err.value)
    assert str(folder) in said and where in said and what in said
    other = tmp_path / "other"
    shutil.copytree(SHIPPED, other, ignore=shutil.ignore_patterns("runs"))
    commands = {
        "compare": ["compare", str(folder), str(other)],
        "export-samples": ["export-samples", str(folder), "-o", str(tmp_path / "s.jsonl")],
        "report": ["report", str(folder), "-o", str(tmp_path / "r.html")],
        "reference build": ["reference", "build", str(folder), "-o", str(tmp_path / "ref.json")],
    }
    with pytest.raises(ValueError) as again:  # the metrics recomputed read it so too
        recompute_evaluation(folder, n_bootstrap=10)
    assert str(again.value) == said
    for command, argv in commands.items():
        capsys.readouterr()
        assert cli(argv) == 2, command
        err_text = capsys.readouterr().err
        assert said in err_text and "Traceback" not in err_text, (command, err_text)
    assert not any((tmp_path / n).exists() for n in ("s.jsonl", "r.html", "ref.json"))


def test_compare_refuses_an_id_that_stands_for_another_question(folder, tmp_path, capsys):
    other = tmp_path / "other"
    shutil.copytree(folder, other)
    rows = _rows(other)
    rows[4]["question"] = "What is the capital of Australia?"  # same id, another question
    _write_rows(other, rows)
    assert cli(["compare", str(folder), str(other)]) == 2
    err = capsys.readouterr().err
    assert "1 id(s) stand for different questions" in err and rows[4]["id"] in err
    # nor are they paired under --intersection: the key does not stand for one question
    assert cli(["compare", str(folder), str(other), "--intersection"]) == 2


def test_reader_errors_are_batch_input_errors_with_a_location(folder):
    rows = _rows(folder)
    rows[3]["inv_entropy"] = "n/a"
    _write_rows(folder, rows)
    with pytest.raises(BatchInputError) as err:
        read_evaluation(folder)
    assert (err.value.row, err.value.line, err.value.column) == (4, 5, "inv_entropy")


def test_a_reference_from_scores_csv_holds_the_questions_as_asked(folder):
    _, asked = _spreadsheet_copy(folder)
    ref = ReferenceSet.from_scores_csv(folder / "scores.csv")
    assert ref.questions[0] == asked  # no formula-safe apostrophe, no byte-order mark


@pytest.mark.slow  # the real MiniLM embeds the reference questions
def test_reference_build_reads_the_folder_as_every_other_reader(folder, minilm):
    labels, asked = _spreadsheet_copy(folder)
    ref = build_reference(folder, embedder=minilm)
    assert ref.questions[0] == asked
    ids = [r["id"] for r in read_evaluation(folder).judged]
    assert dict(zip(ids, ref.correct, strict=True)) == labels  # the stale relabel not applied
    assert ref.settings["relabelled"] == 1


def test_a_spreadsheets_blank_trailing_columns_and_a_torn_last_row(folder):
    """Blank columns a spreadsheet appends are read; a row cut short is left out and named."""
    lines = (folder / "scores.csv").read_text(encoding="utf-8").splitlines()
    torn = lines[-1][: len(lines[-1]) // 3]
    text = "\n".join(ln + ",," for ln in lines[:-1]) + "\n" + torn
    (folder / "scores.csv").write_text("\ufeff" + text, encoding="utf-8")
    ev = read_evaluation(folder)
    assert len(ev.rows) == N - 1 and "" not in ev.methods
    (note,) = ev.torn
    assert f"line {N + 1}" in note and "cut short" in note
