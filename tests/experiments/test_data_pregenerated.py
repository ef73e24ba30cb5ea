"""A ``--data`` file with pre-generated perturbations or responses is refused, naming the column.

evaluate and tsu reword and answer every question themselves; a file's own
responses would be dropped without a word (a ``responses`` column with no
``perturbations`` was, after the reader moved below batch). ``batch`` scores
them; the message says so, and nothing is written before the refusal.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from invent_core.questions.datasets import DatasetFileError, load_examples_file

ROOT = Path(__file__).resolve().parents[2]
WIDE = '"[""What is 2 + 2?""]"'
CASES = {
    "responses_only.csv": ('id,question,answer,responses\na,What is 2+2?,4,"[[""4""],[""4""]]"\n'),
    "wide.csv": f'id,question,answer,perturbations,responses\na,2+2?,4,{WIDE},"[[""4""],[""4""]]"\n',
    "long.csv": "id,question,perturbation_index,replication_index,perturbation,response\n"
    "a,2+2?,0,0,,4\na,2+2?,1,0,What is 2 + 2?,4\n",
}


@pytest.mark.parametrize(
    ("name", "column"),
    [("responses_only.csv", "responses"), ("wide.csv", "perturbations"), ("long.csv", "perturbation_index")],
)  # fmt: skip
def test_a_pregenerated_column_is_refused_with_the_file_and_column(tmp_path, name, column):
    path = tmp_path / name
    path.write_text(CASES[name], encoding="utf-8")
    with pytest.raises(DatasetFileError) as err:
        load_examples_file(path)
    msg = str(err.value)
    assert msg.startswith(f"{path}: column {column!r} holds pre-generated")
    assert "python -m invent_core batch" in msg and "remove the column" in msg


def test_a_json_row_is_named_by_its_line(tmp_path):
    path = tmp_path / "q.json"
    rows = [{"question": "2+2?", "answer": "4"}, {"question": "3+3?", "Responses": [["6"]]}]
    path.write_text(json.dumps(rows), encoding="utf-8")
    with pytest.raises(DatasetFileError, match=r"q\.json line 2: column 'Responses' holds"):
        load_examples_file(path)


def test_questions_and_answers_alone_still_load(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text("id,question,answer\na,What is 2+2?,4\n", encoding="utf-8")
    assert [ex.question for ex in load_examples_file(path)] == ["What is 2+2?"]


def test_cli_evaluate_refuses_before_any_folder(tmp_path):
    path = tmp_path / "responses_only.csv"
    path.write_text(CASES["responses_only.csv"], encoding="utf-8")
    out = tmp_path / "o"
    argv = ["evaluate", "--data", str(path), "-o", str(out)]
    done = subprocess.run(
        [sys.executable, "-m", "invent_core", *argv], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 2, done.stderr
    assert f"{path}: column 'responses' holds pre-generated" in done.stderr
    assert not out.exists()
