"""The reviewer's layer: it moves the metrics as a recomputation from scratch does, never the judge's labels."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_compare import auroc_by_pairs
from test_comparison import METHODS, toy_config, toy_evaluation

from invent_core.cli import main as cli
from invent_core.csv_safe import read_csv
from invent_core.experiments import evaluate, recompute_evaluation
from invent_core.experiments.comparison import read_side
from invent_core.experiments.relabel import (
    RELABELS,
    Relabel,
    append_relabel,
    apply_relabels,
    folder_relabels,
    read_relabels,
)
from invent_core.questions.files import BatchInputError

N = 14


@pytest.fixture
def folder(tmp_path):
    rng = np.random.default_rng(2)
    correct = np.array([1, 0] * (N // 2))
    scores = {m: rng.normal(size=N) - correct for m in METHODS}
    return toy_evaluation(tmp_path / "ev", correct, scores)


def _auroc(folder, method="inv_entropy") -> float:
    data = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    return data["results"][method]["auroc"]["point"]


def _flip(folder, i: int, reason="the judge missed it") -> dict:
    row = list(read_csv(folder / "scores.csv"))[i]
    append_relabel(folder, Relabel.now(row["id"], not int(row["correct"]), answer=row["canonical"],
                                       reason=reason, who="tester"))  # fmt: skip
    return row


def test_a_relabel_moves_auroc_to_the_value_recomputed_from_scratch(folder):
    judged_on_disk = (folder / "scores.csv").read_bytes()
    before = recompute_evaluation(folder, n_bootstrap=50)
    assert before.relabels is None and _auroc(folder) == pytest.approx(
        auroc_by_pairs(*_columns(folder, relabelled=()))
    )
    row = _flip(folder, 3)
    after = recompute_evaluation(folder, n_bootstrap=50)
    want = auroc_by_pairs(*_columns(folder, relabelled=(3,)))
    assert _auroc(folder) == pytest.approx(want) and want != pytest.approx(_auroc_before(before))
    assert (folder / "scores.csv").read_bytes() == judged_on_disk  # the judge's labels stay
    assert after.relabels.changed == (row["id"],)
    data = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    assert data["relabels"]["changed"] == [row["id"]] and data["relabels"]["agreement"] == 0.0
    assert f"Labels: 1 of {N} changed by hand (relabels.jsonl)" in after.table.to_text()


def _auroc_before(result) -> float:
    return result.evaluation.results["inv_entropy"]["auroc"].point


def _columns(folder, *, relabelled):
    rows = list(read_csv(folder / "scores.csv"))
    c = np.array([1 - int(r["correct"]) if i in relabelled else int(r["correct"])
                  for i, r in enumerate(rows)])  # fmt: skip
    return c, np.array([float(r["inv_entropy"]) for r in rows])


def test_the_layer_survives_a_reload_and_the_judges_agreement_is_counted(folder):
    flipped = _flip(folder, 0)
    kept = list(read_csv(folder / "scores.csv"))[1]  # confirmed: the reviewer agrees
    append_relabel(folder, Relabel(kept["id"], bool(int(kept["correct"])), kept["canonical"]))
    again = folder_relabels(folder)  # read back from disk, as a new session does
    assert [r.id for r in again] == [flipped["id"], kept["id"]] and again[0].who == "tester"
    side = read_side(folder)
    assert side.relabels.reviewed == (flipped["id"], kept["id"])
    assert side.relabels.agreement == 0.5
    assert "the judge agrees with the reviewer on 1 of 2 reviewed answers (50%)" in (
        side.relabels.note()
    )
    row = next(r for r in side.rows if r["id"] == flipped["id"])
    assert row["judge_correct"] == int(flipped["correct"]) != row["correct"]


def test_the_last_relabel_wins_and_applying_twice_changes_nothing(folder):
    rows = list(read_csv(folder / "scores.csv"))
    r = rows[0]
    layer = [Relabel(r["id"], False, r["canonical"]), Relabel(r["id"], True, r["canonical"])]
    once, summary = apply_relabels(rows, layer)
    twice, _ = apply_relabels(once, layer)
    assert once == twice and once[0]["correct"] == 1 and summary.reviewed == (r["id"],)


def test_a_relabel_of_another_answer_is_not_applied(folder):
    r = list(read_csv(folder / "scores.csv"))[0]
    rows, summary = apply_relabels([r], [Relabel(r["id"], False, "something else")])
    assert rows[0]["correct"] == int(r["correct"]) and len(summary.stale) == 1
    assert "1 relabel(s) not applied" in summary.note()


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ('{"id": "a", "label": "yes"}', "line 2, column 'label': must be true or false"),
        ('{"label": true}', "line 2, column 'id': missing or empty"),
        ("not json", "line 2: not JSON"),
    ],
)
def test_a_bad_relabel_file_is_refused_naming_file_line_and_field(tmp_path, line, said):
    path = tmp_path / "labels.jsonl"
    path.write_text('{"id": "x", "label": true}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(BatchInputError, match=f"{path}, {said}"):
        read_relabels(path)


def test_evaluate_labels_applies_a_file_without_any_llm_call(folder, tmp_path):
    """evaluate reuses every saved row; --labels adds the file to the folder's layer."""
    row = list(read_csv(folder / "scores.csv"))[2]
    labels = tmp_path / "mine.jsonl"
    labels.write_text(json.dumps({"id": row["id"], "label": not int(row["correct"]),
                                  "answer": row["canonical"], "reason": "r"}) + "\n")  # fmt: skip

    def no_llm():
        raise AssertionError("evaluate asked for an LLM")

    res = evaluate(toy_config(N), folder, llm_factory=no_llm, labels=labels)
    assert res.relabels.changed == (row["id"],) and not res.llm_started
    assert [r.id for r in folder_relabels(folder)] == [row["id"]]
    assert _auroc(folder) == pytest.approx(auroc_by_pairs(*_columns(folder, relabelled=(2,))))


def test_evaluate_refuses_a_bad_labels_file_before_touching_the_folder(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "q", "label": 2}\n', encoding="utf-8")
    out = tmp_path / "out"
    argv = ["evaluate", "--dataset", "arithmetic", "--limit", "2", "-o", str(out)]
    assert cli([*argv, "--labels", str(bad)]) == 2
    assert f"{bad}, line 1, column 'label'" in capsys.readouterr().err
    assert not out.exists()
    assert cli([*argv, "--labels", str(tmp_path / "none.jsonl")]) == 2
    assert "none.jsonl: no such relabel file" in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / RELABELS).exists()
