"""Shipped benchmark samples and user question files."""

from __future__ import annotations

import json

import pytest

from invent_core.prompts import answer_prompt
from invent_core.questions.datasets import (
    DatasetFileError,
    available_datasets,
    datasets_dir,
    load_dataset,
    load_examples_file,
)

NAMES = ("triviaqa", "sciq", "nq_open", "mmlu", "gsm8k")
SHIPPED = (*NAMES, "arithmetic")  # + the generated testbed (tests/questions/test_testbed.py)


def test_assets_ship_manifest_and_licences():
    d = datasets_dir()
    manifest = json.loads((d / "MANIFEST.json").read_text())
    assert set(manifest) == set(SHIPPED) == set(available_datasets())
    licences = (d / "LICENSES.md").read_text()
    for entry in manifest.values():
        assert (d / entry["file"]).is_file()
        assert entry["file"] in licences


@pytest.mark.parametrize("name", NAMES)
def test_loaders_return_300_complete_rows(name):
    ex = load_dataset(name)
    assert len(ex) == 300
    assert len({e.id for e in ex}) == 300
    for e in ex:
        assert e.question.strip() and e.answers and all(a.strip() for a in e.answers)
        assert e.dataset == name
        assert e.task == {"mmlu": "mmlu", "gsm8k": "gsm8k"}.get(name, "qa")
        if name == "mmlu":
            assert len(e.choices) >= 2 and e.answers[0] in "ABCD"
            assert e.choices[ord(e.answers[0]) - 65] == e.answers[1]
        else:
            assert e.choices is None


def test_mmlu_prompt_keeps_choices():
    e = load_dataset("mmlu", limit=1)[0]
    prompt = answer_prompt(e.question, e.task, e.choices)
    assert e.question in prompt and f"D. {e.choices[3]}" in prompt


def test_triviaqa_csv_quotes_are_undone():
    q = {e.id: e.question for e in load_dataset("triviaqa")}
    assert q["llmfoundry_triviaqa_sm_sub:4"] == 'What type of clothing is a "sou-wester"?'
    assert not any(s.startswith('"') and s.endswith('"') for s in q.values())


def test_limit_and_seed():
    full = load_dataset("sciq")
    assert load_dataset("sciq", limit=5) == full[:5]
    a, b = load_dataset("sciq", limit=20, seed=1), load_dataset("sciq", limit=20, seed=1)
    assert a == b and a != full[:20] and {e.id for e in a} <= {e.id for e in full}
    assert load_dataset("nq", limit=2)[0].dataset == "nq_open"  # alias
    with pytest.raises(ValueError, match="unknown dataset 'squad'"):
        load_dataset("squad")
    with pytest.raises(ValueError, match="limit must be a positive integer"):
        load_dataset("sciq", limit=0)


def test_missing_assets_dir_is_explained(tmp_path, monkeypatch):
    monkeypatch.setenv("INVENT_DATASETS_DIR", str(tmp_path))
    with pytest.raises(DatasetFileError, match="sciq_sample300.jsonl is missing"):
        load_dataset("sciq")


# --- user files ------------------------------------------------------------------------


def test_csv_with_question_value_columns(tmp_path):
    # the paper's released tool reads question,value CSVs
    p = tmp_path / "qs.csv"
    p.write_text(
        'question,value\n"What is the capital of France?",Paris\n'
        'Who wrote Hamlet?,"[""Shakespeare"", ""William Shakespeare""]"\n'
        "Largest planet?,Jupiter|jupiter planet\n",
        encoding="utf-8",
    )
    ex = load_examples_file(p)
    assert [e.question for e in ex] == [
        "What is the capital of France?",
        "Who wrote Hamlet?",
        "Largest planet?",
    ]
    assert ex[0].answers == ("Paris",)
    assert ex[1].answers == ("Shakespeare", "William Shakespeare")
    assert ex[2].answers == ("Jupiter", "jupiter planet")
    assert ex[0].id == "qs:2" and ex[0].task == "qa" and ex[0].dataset == "custom"
    assert ex[0].judge_dataset == "qa"


def test_jsonl_with_lists_choices_and_bom(tmp_path):
    p = tmp_path / "q.jsonl"
    rows = [
        {"id": "x1", "Question": "2+2?", "answers": [4], "task": "gsm8k"},
        {"question": "Pick one", "answer": "B", "choices": ["red", "blue"]},
        {"question": "No answer here"},
    ]
    p.write_text("\ufeff" + "\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    ex = load_examples_file(p)
    assert ex[0].id == "x1" and ex[0].answers == ("4",) and ex[0].task == "gsm8k"
    assert ex[1].task == "mmlu" and ex[1].choices == ("red", "blue")
    assert ex[2].answers == ()


def test_multiline_csv_field(tmp_path):
    p = tmp_path / "q.csv"
    p.write_text('question,answer\n"line one\nline two",x\n', encoding="utf-8")
    assert load_examples_file(p)[0].question == "line one\nline two"


@pytest.mark.parametrize(
    ("name", "content", "msg"),
    [
        ("e.csv", "", r"e\.csv: the file is empty"),
        ("e.csv", "   \n", "the file is empty"),
        (
            "h.csv",
            "text,answer\nhello,x\n",
            r"h\.csv, line 1: no question column; found 'text', 'answer'",
        ),
        ("r.csv", "question,answer\nfine,x\n,y\n", r"r\.csv line 3: empty 'question'"),
        ("n.csv", "question\n", "no data rows after the header"),
        ("j.jsonl", '{"question": "a"}\n{bad\n', r"j\.jsonl line 2: invalid JSON"),
        ("l.jsonl", '["a"]\n', r"line 1\): expected a JSON object"),
        ("t.csv", "question,task\nq,essay\n", "line 2: task 'essay' in column 'task'"),
        ("m.csv", "question,task\nq,mmlu\n", "task 'mmlu' needs a choices column"),
        ("x.xlsx", "question\nq\n", "unsupported file type '.xlsx'"),
    ],
)
def test_user_file_errors_name_file_line_and_column(tmp_path, name, content, msg):
    p = tmp_path / name
    p.write_text(content, encoding="utf-8")
    with pytest.raises(DatasetFileError, match=msg):
        load_examples_file(p)


def test_user_file_bad_encoding_and_missing(tmp_path):
    p = tmp_path / "latin.csv"
    p.write_bytes("question,answer\nQuelle capitale ?,Br\xfcssel\n".encode("latin-1"))
    with pytest.raises(
        DatasetFileError,
        match=r"latin\.csv, row 1 \(line 2\), byte 36, column 'answer': not valid UTF-8",
    ):
        load_examples_file(p)
    with pytest.raises(DatasetFileError, match="no such file"):
        load_examples_file(tmp_path / "nope.csv")


def test_require_answers(tmp_path):
    p = tmp_path / "q.csv"
    p.write_text("question\nWhat?\n", encoding="utf-8")
    with pytest.raises(DatasetFileError, match="no answer column"):
        load_examples_file(p, require_answers=True)
    p.write_text("question,reference\nWhat?,\n", encoding="utf-8")
    with pytest.raises(DatasetFileError, match="line 2: empty 'reference'"):
        load_examples_file(p, require_answers=True)
    assert isinstance(DatasetFileError("x"), ValueError)


def test_answer_and_answers_columns_keep_every_alias(tmp_path):
    """TriviaQA rows carry ``answer`` (canonical) and ``answers`` (aliases): none is dropped."""
    p = tmp_path / "tqa.jsonl"
    rows = [
        {
            "question": "Capital of France?",
            "answer": "Paris",
            "answers": ["City of Light", "Paris"],
        },
        {"question": "Largest planet?", "answers": ["Jupiter", "Jove"]},
    ]
    p.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    ex = load_examples_file(p, require_answers=True)
    assert ex[0].answers == ("Paris", "City of Light")  # canonical first, no duplicate
    assert ex[1].answers == ("Jupiter", "Jove")
    c = tmp_path / "tqa.csv"
    c.write_text('question,answer,answers\nQ?,Paris,"[""Paris"", ""Paree""]"\n', encoding="utf-8")
    assert load_examples_file(c)[0].answers == ("Paris", "Paree")


@pytest.mark.parametrize(
    ("row", "msg"),
    [
        ({"question": 42}, r"line 1: 'question' must be text, got a number"),
        ({"question": ["a"]}, r"'question' must be text, got a list"),
        ({"question": "q", "id": {"a": 1}}, r"'id' must be text, got a JSON object"),
        ({"question": "q", "answer": {"a": 1}}, r"'answer' must be text, got a JSON object"),
        ({"question": "q", "answers": [["x"]]}, r"'answers' must be text, got a list"),
        ("[" * 100_000, r"line 1\): not JSON Lines: invalid JSON \(nested too deeply"),
    ],
)
def test_jsonl_wrong_types_are_refused_with_the_column(tmp_path, row, msg):
    p = tmp_path / "t.jsonl"
    p.write_text(row if isinstance(row, str) else json.dumps(row), encoding="utf-8")
    with pytest.raises(DatasetFileError, match=msg):
        load_examples_file(p)
