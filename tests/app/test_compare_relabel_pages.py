"""Compare evaluations and the Evaluation page's relabel control, driven through Streamlit's AppTest."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from test_app_pages import TIMEOUT, assert_clean, own_history  # noqa: F401 - the fixture
from test_compare import auroc_by_pairs
from test_comparison import METHODS, toy_config, toy_evaluation

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

from invent_core.csv_safe import read_csv  # noqa: E402
from invent_core.experiments import recompute_evaluation  # noqa: E402
from invent_core.experiments.comparison import compare_evaluations  # noqa: E402
from invent_core.experiments.runs import example_run_path  # noqa: E402
from invent_ui.data import evaluation_folders  # noqa: E402
from invent_ui.data.experiments import eval_payload  # noqa: E402
from invent_ui.session import state  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
N = 16


def _folders(root: Path, *, drop=()) -> tuple[Path, Path]:
    rng = np.random.default_rng(4)
    correct = np.array([1, 0] * (N // 2))
    b_correct = correct.copy()
    b_correct[:2] = 1 - b_correct[:2]
    a = toy_evaluation(
        root / "evaluate-a", correct, {m: rng.normal(size=N) - correct for m in METHODS}
    )
    b = toy_evaluation(root / "evaluate-b", b_correct, {m: rng.normal(size=N) for m in METHODS},
                       drop=drop)  # fmt: skip
    return a, b


def _page(name: str, **session) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / name), default_timeout=TIMEOUT)
    for k, v in session.items():
        at.session_state[k] = v
    return at


def test_the_compare_view_pairs_two_evaluations_and_opens_a_run(tmp_path, monkeypatch):
    a, b = _folders(tmp_path)
    want = compare_evaluations(a, b, methods=["inv_entropy"], n_bootstrap=60)
    top = want.disagreements[0].rows[0]["id"]  # the first one shown, opened below
    run = example_run_path(a / "runs", type("Ex", (), {"id": top}), 0.7)
    shutil.copy(ROOT / "assets" / "demo_run.json", run)
    monkeypatch.setattr(evaluation_folders, "SHIPPED", tmp_path)
    at = _page("9_Compare_evaluations.py", cmp_boot=60)
    at.run()
    at.selectbox(key="cmp_b").set_value("shipped/evaluate-b").run()
    assert_clean(at)
    table = at.dataframe[0].value
    cells = want.results["inv_entropy"]
    assert table["A − B"].tolist() == pytest.approx([c.difference.difference for c in cells])
    assert table["95 % low"].tolist() == pytest.approx([c.difference.ci95[0] for c in cells])
    assert len(at.get("plotly_chart")) == 1
    assert len(at.main.expander) == len(want.disagreements) == 10
    key = "cmp_open_0_0"
    at.button(key=key).click().run()
    assert at.session_state[state.EXPLORE_RUN].question == json.loads(run.read_text())["question"]


def test_different_questions_are_refused_until_the_shared_ones_are_asked(tmp_path, monkeypatch):
    _folders(tmp_path, drop=(0, 1, 2))
    monkeypatch.setattr(evaluation_folders, "SHIPPED", tmp_path)
    at = _page("9_Compare_evaluations.py", cmp_boot=40)
    at.run()
    at.selectbox(key="cmp_b").set_value("shipped/evaluate-b").run()
    assert "16 judged questions, evaluate-b 13; 13 are shared" in at.error[0].value
    at.checkbox(key="cmp_inter").check().run()
    assert_clean(at)
    assert "13 paired questions (A 16, B 13)" in at.markdown[0].value


def test_a_relabel_on_the_evaluation_page_recomputes_the_metrics(tmp_path, monkeypatch):
    from invent_ui.session import places

    real = places.roots()  # an evaluation made here lies under the dashboard's own folder
    monkeypatch.setattr(places, "roots", lambda: {**real, "dashboard": tmp_path})
    rng = np.random.default_rng(1)
    correct = np.array([1, 0] * 12)
    folder = toy_evaluation(tmp_path / "ev", correct, {m: rng.normal(size=24) - correct
                                                       for m in METHODS})  # fmt: skip
    on_disk = (folder / "scores.csv").read_bytes()
    payload = eval_payload(recompute_evaluation(folder, n_bootstrap=40), toy_config(24), out=folder)
    at = _page("6_Evaluation.py", **{state.EVAL_PAYLOAD: payload})
    at.run()
    assert_clean(at)
    at.selectbox(key="relabel_row").set_value(5)
    at.radio(key="relabel_label").set_value("right")  # the judge said wrong
    at.text_input(key="relabel_reason").input("the reference in other words")
    at.button(key="relabel_save").click().run()
    assert_clean(at)
    (line,) = (folder / "relabels.jsonl").read_text(encoding="utf-8").splitlines()
    rows = list(read_csv(folder / "scores.csv"))
    assert json.loads(line)["id"] == rows[5]["id"] and json.loads(line)["label"] is True
    assert (folder / "scores.csv").read_bytes() == on_disk
    note = next(i.value for i in at.info if "changed by hand" in i.value)
    assert (
        "Labels: 1 of 24 changed by hand" in note and "agrees with the reviewer on 0 of 1" in note
    )
    c = np.array([1 if i == 5 else int(r["correct"]) for i, r in enumerate(rows)])
    auroc = auroc_by_pairs(c, np.array([float(r["inv_entropy"]) for r in rows]))
    before = payload["evaluation"]["results"]["inv_entropy"]["auroc"]["point"]
    board = at.dataframe[0].value  # the leaderboard: Inv-Entropy's AUROC first
    assert str(board.iloc[0, 0]).startswith(f"{auroc:.3f} ±") and f"{before:.3f}" != f"{auroc:.3f}"
    # each column one meaning: "correct" stays the judge's label; the reviewer's is beside it
    table = next(d.value for d in at.dataframe if "canonical answer" in d.value.columns)
    assert not table["correct"][5] and table["correct after review"][5]
    assert (table["correct"] == table["correct after review"]).sum() == 23
    assert table["why (reviewer)"][5] == "the reference in other words"
    again = _page("6_Evaluation.py", **{state.EVAL_PAYLOAD: payload})  # a reload: a new session
    again.run()
    assert any("Labels: 1 of 24 changed by hand" in i.value for i in again.info)


def test_the_compare_page_says_how_each_side_was_made_and_what_differs():
    # the shipped pair it opens on: the paraphraser with its gate against GAAP (no gate)
    at = _page("9_Compare_evaluations.py", cmp_boot=40)
    at.run()
    assert_clean(at)
    made = [c.value for c in at.caption if " made with: " in c.value]
    assert made[0].startswith("**A** made with: gate δ") and "rewording rules round" in made[0]
    assert made[1] == "**B** made with: ψ_y rules; padding distinct."
    box = next(i.value for i in at.info if i.value.startswith("A and B were made with different"))
    assert "gate, rewording rules" in box
    # one evaluation, two methods: one line, nothing to differ
    at.radio(key="cmp_mode").set_value("two methods of one evaluation").run()
    assert_clean(at)
    assert [c.value for c in at.caption if c.value.startswith("Made with: gate δ")]
    assert not [i.value for i in at.info if i.value.startswith("A and B were made")]
