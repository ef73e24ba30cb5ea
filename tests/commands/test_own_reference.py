"""``invent reference build`` from a shipped evaluation, and ``--reference FILE`` on run, batch, score.

No LLM call: the reference is built from (the first questions of) the shipped
MMLU evaluation, and run, batch and score place one of its stored runs, through
the code each command runs (the pipeline's placement for run, the row scorer
for batch, the score command itself), with the real MiniLM.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from invent_core.cli import main as cli
from invent_core.engine.artifact import RunArtifact
from invent_core.evaluation.reference import ReferenceSet

pytestmark = pytest.mark.slow  # the real MiniLM embeds the reference questions

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "docs" / "results" / "evaluate-mmlu-100"
N_QUESTIONS = 40


@pytest.fixture(scope="module")
def evaluation(tmp_path_factory) -> Path:
    """The shipped MMLU evaluation's first questions, with their saved runs."""
    folder = tmp_path_factory.mktemp("ev") / "evaluate-mmlu-40"
    (folder / "runs").mkdir(parents=True)
    shutil.copy(SHIPPED / "config.json", folder)
    lines = (SHIPPED / "scores.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    (folder / "scores.csv").write_text("".join(lines[: N_QUESTIONS + 1]), encoding="utf-8")
    wanted = {r["question"].strip() for r in csv.DictReader(lines[: N_QUESTIONS + 1])}
    for path in sorted((SHIPPED / "runs").glob("*.json")):
        if json.loads(path.read_text(encoding="utf-8"))["question"].strip() in wanted:
            shutil.copy(path, folder / "runs")
    return folder


@pytest.fixture(scope="module")
def built(evaluation, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ref") / "mine.json"
    assert cli(["reference", "build", str(evaluation), "-o", str(out)]) == 0
    return out


def test_build_writes_a_reference_in_the_shipped_format(built, evaluation):
    ref = ReferenceSet.load(built)
    assert ref.size == N_QUESTIONS and ref.has_labels
    assert json.loads(built.read_text())["format"] == "invent.reference/1"
    assert ref.settings["llm"] == "qwen0.5b" and ref.settings["source"] == evaluation.name
    assert ref.embeddings.shape[0] == N_QUESTIONS  # questions can be placed among it
    rows = list(csv.DictReader(open(evaluation / "scores.csv", encoding="utf-8")))
    assert list(ref.correct) == [int(r["correct"]) for r in rows]


def test_relabels_change_the_labels_not_the_judges_file(evaluation, tmp_path):
    folder = tmp_path / evaluation.name
    shutil.copytree(evaluation, folder)
    rows = list(csv.DictReader(open(folder / "scores.csv", encoding="utf-8")))
    before = (folder / "scores.csv").read_bytes()
    flipped = 1 - int(rows[3]["correct"])
    (folder / "relabels.jsonl").write_text(
        json.dumps({"id": rows[3]["id"], "label": bool(1 - flipped)})
        + "\n"
        + json.dumps({"id": rows[3]["id"], "label": bool(flipped), "reason": "later wins"})
        + "\n"
    )
    out = tmp_path / "relabelled.json"
    assert cli(["reference", "build", str(folder), "-o", str(out)]) == 0
    ref = ReferenceSet.load(out)
    assert ref.correct[3] == flipped and ref.settings["relabelled"] == 1
    assert (folder / "scores.csv").read_bytes() == before  # the judge's labels stay on disk


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("not json", "not JSON"),
        ('{"label": true}', "id"),
        ('{"id": "x", "correct": true}', "label"),  # the layer's field is "label"
        ('{"id": "nope", "label": true}', "not among the scored questions"),
    ],
)
def test_a_bad_relabel_file_names_the_file_and_writes_nothing(
    evaluation, tmp_path, capsys, line, said
):
    folder = tmp_path / "ev"
    shutil.copytree(evaluation, folder)
    (folder / "relabels.jsonl").write_text(line + "\n")
    out = tmp_path / "ref.json"
    assert cli(["reference", "build", str(folder), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "relabels.jsonl" in err and said in err and not out.exists()


def _made_options(evaluation: Path) -> list[str]:
    """The score options that differ from today's defaults in the folder's config (none if equal)."""
    from invent_core.config import ScoreConfig

    score = json.loads((evaluation / "config.json").read_text())["config"]["run"]["score"]
    now = ScoreConfig()
    made = (score["answer_similarity"], score["padding"])
    if made == (now.answer_similarity, now.padding):
        return []
    return ["--answer-similarity", made[0], "--padding", made[1]]


def _stored_run(evaluation: Path) -> RunArtifact:
    """A stored MMLU run whose question lists its options (score reads the format off the text)."""
    run = RunArtifact.load(sorted((evaluation / "runs").glob("*.json"))[0])
    listed = run.question + " " + " ".join(f"{'ABCD'[i]}. {c}" for i, c in enumerate(run.choices))
    return dataclasses.replace(run, question=listed, questions=[listed, *run.questions[1:]])


def test_run_batch_and_score_place_a_question_the_same_way(built, evaluation, tmp_path, capsys):
    run = _stored_run(evaluation)
    # score: the command itself, on the stored run's rewordings and answers
    data = tmp_path / "answers.json"
    data.write_text(json.dumps({"questions": run.questions, "responses": run.responses}))
    # score as the evaluation the reference was built from was made (today's defaults since
    # the MMLU re-make of 2026-11-29; the paper's way before)
    made = _made_options(evaluation)
    assert (
        cli(["score", str(data), "--made-by", "qwen0.5b", "--reference", str(built), "--json",
             *made]) == 0
    )  # fmt: skip
    scored = json.loads(capsys.readouterr().out)
    value = scored["measures"]["inv_entropy"]
    # run: the pipeline's placement of the same answers (what run prints and saves)
    placed = run.rescore(run.config.score, reference_path=built).reference
    # batch: the command on a file holding the same answers
    rows = tmp_path / "rows.csv"
    with open(rows, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "question", "task", "choices", "perturbations", "responses"])
        w.writerow(
            [
                "q1",
                run.question,
                run.task,
                json.dumps(list(run.choices or [])),
                json.dumps(run.questions[1:]),
                json.dumps(run.responses),
            ]
        )
    out = tmp_path / "scores.csv"
    args = ["batch", str(rows), "-o", str(out), "--methods", "inv", "--reference", str(built), "-q",
            *made]  # fmt: skip
    assert cli(args) == 0
    (row,) = csv.DictReader(open(out, encoding="utf-8"))
    assert placed is not None and placed["percentile"] is not None  # it is placed at all
    assert placed["value"] == pytest.approx(value)
    assert scored["reference"]["percentile"] == pytest.approx(placed["percentile"])
    assert float(row["inv_entropy_percentile"]) == pytest.approx(placed["percentile"])
    for got in (scored["reference"]["p_correct"], row["inv_entropy_p_correct"] or None):
        assert (got is None) == (placed["p_correct"] is None)
        if got is not None:
            assert float(got) == pytest.approx(placed["p_correct"])
    assert placed["files"] == [built.name]


def test_a_reference_of_other_settings_is_refused_before_any_work(built, tmp_path, capsys):
    data = tmp_path / "answers.json"
    data.write_text(
        json.dumps({"questions": ["Q?", "Q again?"], "responses": [["a", "b"], ["a", "c"]]})
    )
    assert cli(["score", str(data), "--reference", str(built)]) == 2
    err = capsys.readouterr().err
    assert f"--reference {built}" in err and "n_perturbations: file 9, run 1" in err
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    out = tmp_path / "never.csv"
    assert cli(["batch", str(data), "-o", str(out), "--reference", str(bad)]) == 2
    assert "not a reference set" in capsys.readouterr().err and not out.exists()
    assert cli(["run", "What?", "--reference", str(tmp_path / "missing.json")]) == 2
    assert "no such reference file" in capsys.readouterr().err


def test_the_printed_run_takes_the_reference(built, evaluation, tmp_path, capsys):
    """The hint names the options that match the folder, none when it was made with the defaults."""
    import shlex

    from invent_core.cli import build_parser
    from invent_core.commands.common import config_from_args, identity_from_args
    from invent_core.commands.reference import check_reference

    folder = tmp_path / evaluation.name
    shutil.copytree(evaluation, folder)
    out = tmp_path / "again.json"
    assert cli(["reference", "build", str(folder), "-o", str(out)]) == 0
    hint = capsys.readouterr().out.splitlines()[-1]
    made = _made_options(evaluation)
    assert hint.endswith(" ".join(made) if made else str(out)), hint
    args = build_parser().parse_args(shlex.split(hint.split("use it with: invent ")[1]))
    check_reference(args.reference, config_from_args(args), identity_from_args(args))  # no refusal


def test_a_torn_last_row_is_named_with_its_line(evaluation, tmp_path, capsys):
    folder = tmp_path / evaluation.name
    shutil.copytree(evaluation, folder)
    text = (folder / "scores.csv").read_text(encoding="utf-8")
    (folder / "scores.csv").write_text(text[: text.rindex("\n", 0, -1) + 60], encoding="utf-8")
    assert cli(["reference", "build", str(folder), "-o", str(tmp_path / "ref.json")]) == 0
    err = capsys.readouterr().err
    line = N_QUESTIONS + 1  # the header, then one line per question: the last is torn
    assert f"warning: {folder / 'scores.csv'}: line {line} (id " in err
    assert "the row is cut short" in err


def test_the_hint_names_the_options_of_a_folder_made_the_papers_way(evaluation, tmp_path, capsys):
    """A folder whose config says the paper's ψ_y and padding gets them in the printed command."""
    folder = tmp_path / evaluation.name
    shutil.copytree(evaluation, folder)
    meta = json.loads((folder / "config.json").read_text())
    meta["config"]["run"]["score"] |= {"answer_similarity": "embedding", "padding": "paper"}
    (folder / "config.json").write_text(json.dumps(meta))
    assert cli(["reference", "build", str(folder), "-o", str(tmp_path / "paper.json")]) == 0
    hint = capsys.readouterr().out.splitlines()[-1]
    assert hint.endswith("--answer-similarity embedding --padding paper"), hint
