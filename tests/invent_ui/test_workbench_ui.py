"""The dashboard's pure helpers of the workbench: history payloads, readable messages, small-sample
styling, per-question tables and failed batch rows (no Streamlit runtime)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from invent_core.engine.artifact import RunArtifact
from invent_core.perturb.gaap import GaapResult
from invent_core.workbench.history import HistoryStore
from invent_ui import assets
from invent_ui.data import experiments
from invent_ui.data.batch_rows import failed_rows, public_message, retry_input
from invent_ui.jobs.feedback import public_text
from invent_ui.render import tables
from invent_ui.session import archive, state
from invent_ui.session.navigation import HOME, PAGES


@pytest.fixture(scope="module")
def demo_run():
    return RunArtifact.load(assets.DEMO_RUN)


def test_a_run_is_kept_with_its_gaap_trace_and_reopens(tmp_path, demo_run):
    store = HistoryStore(tmp_path)
    run_id = archive.keep_run(store, demo_run)
    kinds = [e.kind for e in store.list()]
    assert sorted(kinds) == ["gaap", "run"]
    entry = store.get(run_id)
    assert entry.title == demo_run.question
    assert "Qwen2.5" in entry.settings_summary and "sha256" not in entry.settings_summary
    again = archive.reopen(store, run_id)
    assert again.page == "pages/1_Explore_a_question.py" and again.key == state.EXPLORE_RUN
    assert again.value.questions == demo_run.questions
    np.testing.assert_allclose(again.value.score.walk.p_x, demo_run.score.walk.p_x)
    trace = archive.reopen(store, store.latest("gaap").id)
    assert trace.key == state.GAAP_RESULT and isinstance(trace.value, GaapResult)
    assert trace.value.perturbations == demo_run.perturbations
    payload = json.loads(assets.DEMO_EVAL.read_text())
    eid = archive.keep_payload(store, "evaluation", payload, "mmlu · 10 questions")
    assert archive.reopen(store, eid).value == payload


def test_every_page_is_in_the_navigation_and_home_is_called_home():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    assert HOME.label == "Home" and (root / HOME.path).is_file()
    assert sorted(p.path for p in PAGES) == sorted(
        f"pages/{p.name}" for p in (root / "pages").glob("*.py")
    )
    config = (root / ".streamlit" / "config.toml").read_text()
    assert "showSidebarNavigation = false" in config


def test_messages_name_controls_not_flags_or_cache_paths():
    from invent_core.env import cache_dir

    raw = (
        f"all 3 answers were judged incorrect; the per-question scores are kept in "
        f"{cache_dir()}/dashboard/eval/0a1b/scores.csv (add questions with --limit, or use a "
        "stronger --llm); see --gaap-delta, a non-negative value"
    )
    text = public_text(raw)
    assert str(cache_dir()) not in text and "--" not in text
    assert '"Questions"' in text and '"LLM backend" in the sidebar' in text
    assert '"delta" under GAAP (sidebar, Advanced)' in text and "non-negative" in text
    assert public_text("/srv/x/input.csv: bad", {"/srv/x/input.csv": "mine.csv"}) == "mine.csv: bad"


def test_small_spreads_are_not_coloured():
    cmp = tables.comparison_table(
        {"minilm": {"a": 1.0, "b": 2.0}, "mpnet": {"a": 1.0009, "b": 2.5}},
    )
    css = tables.style_comparison(cmp)._compute().ctx
    spread = list(cmp.columns).index("spread")
    assert not css.get((0, spread))  # a 0.09 % spread stays white
    assert any("background-color" in prop for prop, _ in css[(1, spread)])  # 25 % is shaded


def test_a_sample_too_small_is_greyed_and_never_bold():
    from invent_core.evaluation.tables import tsu_results_table

    rt = tsu_results_table({"a": {"TSU(1.0,1.4)": 0.5}, "b": {"TSU(1.0,1.4)": 0.25}}).unmarked()
    df, marks = tables.results_frame(rt)
    html = tables.style_marks(df, np.full(marks.shape, "best"), judged=False).to_html()
    assert "font-weight: bold" not in html and tables.GREY in html


def test_per_question_payload_of_an_evaluation_folder(tmp_path, demo_run):
    from invent_core.experiments import ExperimentConfig

    out = tmp_path / "eval"
    (out / "runs").mkdir(parents=True)
    demo_run.save(out / "runs" / "q1_T0.7.json")
    pd.DataFrame(
        [
            {
                "id": "q1",
                "dataset": "triviaqa",
                "question": demo_run.question,
                "response": demo_run.responses[0][0],
                "reference": "Craig Stadler",
                "correct": 0,
                "inv_entropy": 2.3,
                "lexsim": 1.0,
            }
        ]
    ).to_csv(out / "scores.csv", index=False)
    cfg = ExperimentConfig(dataset="triviaqa", limit=1)
    payload = experiments.folder_payload(out, cfg, reason="n/a — all answers wrong", llm="local")
    assert payload["evaluation"] is None and payload["methods"] == ["inv_entropy", "lexsim"]
    table = experiments.per_question_table(payload)
    assert table.columns.tolist() == [
        "question",
        "answers",
        "canonical answer",
        "reference",
        "correct",
        "Inv-Entropy",
        "LexSim",
        "degenerate",  # read from its run: scores.csv was saved without the column
    ]
    assert table["answers"][0] == " | ".join(demo_run.responses[0])
    assert table["degenerate"][0] == ""
    assert experiments.folder_payload(tmp_path / "nothing", cfg, reason="x") is None
    # no config.json: the payload carries no round, and the page says "not recorded"
    assert "rewording_rules" not in payload


def test_a_folder_payload_carries_the_round_its_config_records_and_its_replay(tmp_path):
    import json

    from invent_core.config.paraphrase import REWORDING_RULES
    from invent_core.experiments import ExperimentConfig

    out = tmp_path / "eval"
    out.mkdir()
    pd.DataFrame([{"id": "q1", "dataset": "arithmetic", "question": "What is 2 plus 2?",
                   "response": "4", "reference": "4", "correct": 1, "inv_entropy": 1.0}]
                 ).to_csv(out / "scores.csv", index=False)  # fmt: skip
    cfg = ExperimentConfig(dataset="arithmetic", limit=1)
    older = REWORDING_RULES - 1
    (out / "config.json").write_text(json.dumps({"rewording_rules": older}))
    payload = experiments.folder_payload(out, cfg, reason="x")
    assert payload["rewording_rules"] == older and "rewording_rules_replayed" not in payload
    replay = {"rules": REWORDING_RULES, "replayed": 1, "changed": 0, "unavailable": 0}
    (out / "stale_check.json").write_text(json.dumps({"rewordings": replay}))
    payload = experiments.folder_payload(out, cfg, reason="x")
    assert payload["rewording_rules_replayed"] == REWORDING_RULES
    (out / "stale_check.json").write_text(json.dumps({"rewordings": {**replay, "changed": 1}}))
    assert "rewording_rules_replayed" not in experiments.folder_payload(out, cfg, reason="x")
    (out / "config.json").write_text("{not json")  # unreadable: not recorded, no error
    assert "rewording_rules" not in experiments.folder_payload(out, cfg, reason="x")


def test_a_folder_saved_before_degenerate_was_named_takes_it_from_its_runs(tmp_path, demo_run):
    import dataclasses

    from invent_core.experiments import ExperimentConfig

    q = demo_run.question
    copies = dataclasses.replace(demo_run, questions=[q] * len(demo_run.questions))
    assert copies.degenerate  # every perturbation the question itself
    other = dataclasses.replace(demo_run, question="Who won?", questions=["Who won?", *demo_run.questions[1:]])  # fmt: skip
    out = tmp_path / "eval"
    (out / "runs").mkdir(parents=True)
    copies.save(out / "runs" / "q1_T0.7.json")
    other.save(out / "runs" / "q2_T0.7.json")
    row = {
        "dataset": "triviaqa",
        "response": "x",
        "reference": "y",
        "correct": 0,
        "inv_entropy": 2.3,
    }
    pd.DataFrame([{"id": "q1", "question": q, **row}, {"id": "q2", "question": "Who won?", **row},
                  {"id": "q3", "question": "No run saved?", **row}]).to_csv(out / "scores.csv", index=False)  # fmt: skip
    cfg = ExperimentConfig(dataset="triviaqa", limit=3)
    payload = experiments.folder_payload(out, cfg, reason="cancelled")
    # q3 has no run: whether it is degenerate is unknown, so the count is too
    assert [r.get("degenerate") for r in payload["rows"]] == [copies.degenerate, "", None]
    assert experiments.degenerate_count(payload) is None
    assert "degenerate" not in experiments.per_question_table(payload).columns
    payload["rows"] = payload["rows"][:2]
    assert experiments.degenerate_count(payload) == 1
    table = experiments.per_question_table(payload)
    assert table["degenerate"].tolist() == [copies.degenerate, ""]


def test_evaluation_folder_question_starting_with_equals_shows_without_apostrophe(tmp_path):
    """scores.csv protects '=…' cells with an apostrophe; the page's reader takes it off."""
    from invent_core.csv_safe import write_csv
    from invent_core.experiments import ExperimentConfig

    out = tmp_path / "eval"
    out.mkdir()
    question = "=1+1 is how much?"
    write_csv(
        out / "scores.csv",
        [
            {
                "id": "q1",
                "question": question,
                "response": "=2",
                "reference": "2",
                "correct": 1,
                "inv_entropy": 0.5,
            }
        ],
        ["id", "question", "response", "reference", "correct", "inv_entropy"],
    )
    assert "'=1+1" in (out / "scores.csv").read_text(encoding="utf-8")  # protected on disk
    cfg = ExperimentConfig(dataset="arithmetic", limit=1)
    payload = experiments.folder_payload(out, cfg, reason="cancelled")
    assert payload["rows"][0]["question"] == question
    assert payload["rows"][0]["response"] == "=2"
    assert experiments.per_question_table(payload)["question"][0] == question


def test_failed_batch_rows_are_copied_with_their_ids(tmp_path):
    from invent_core.batch import inspect_input

    src = tmp_path / "input.csv"
    src.write_text("question,answer\nQ one?,a\nQ two?,b\nQ three?,c\n", encoding="utf-8")
    out = tmp_path / "scores.csv"
    errors = [
        {"id": "2", "row": 2, "line": 3, "kind": "scoring", "message": f"{src}, row 2: boom"},
        {"id": "3", "row": 3, "line": 4, "kind": "scoring", "message": "first try"},
        {"id": "3", "row": 3, "line": 4, "kind": "scoring", "message": "second try"},
    ]
    (tmp_path / "scores.csv.errors.jsonl").write_text(
        "\n".join(json.dumps(e) for e in errors) + "\n{cut short", encoding="utf-8"
    )
    failed = failed_rows(out)
    assert [e["message"] for e in failed] == [f"{src}, row 2: boom", "second try"]
    assert public_message(failed[0], {str(src): "mine.csv"}) == "mine.csv, row 2: boom"
    dest = retry_input(src, inspect_input(src), failed, tmp_path / "retry.csv")
    rows = pd.read_csv(dest, dtype=str)
    assert rows.to_dict("records") == [
        {"question": "Q two?", "answer": "b", "id": "2"},
        {"question": "Q three?", "answer": "c", "id": "3"},
    ]
    assert retry_input(src, inspect_input(src), [{"row": 9}], tmp_path / "none.csv") is None
