"""Every dashboard page under Streamlit's AppTest, on the shipped demo artefacts (no LLM run).

Each page is opened directly (as a deep link on a fresh server would run it),
so the shared sidebar helper must initialise the defaults by itself. Charts
are checked through the plotly spec each page sends to the browser.
"""

from __future__ import annotations

import dataclasses
import json
import re
import threading
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("streamlit")
from plotly_spec import array_from_spec as decode  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from invent_ui import assets  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(p.name for p in (ROOT / "pages").glob("*.py"))
TIMEOUT = 180  # first model load and, under load, a slow CPU

pytestmark = pytest.mark.slow  # loads the packaged embedders


@pytest.fixture(autouse=True)
def own_history(monkeypatch, tmp_path):
    """Each test starts with an empty run history of its own (the pages' ``archive.store``)."""
    from invent_core.workbench.history import HistoryStore
    from invent_ui.jobs.feedback import job_registry
    from invent_ui.session import archive

    root = tmp_path / "history"
    monkeypatch.setattr(archive, "store", lambda: HistoryStore(root))
    job_registry.clear()  # no page adopts another test's job (the registry is process-wide)
    yield root
    job_registry.clear()


def open_page(name: str, **state) -> AppTest:
    path = ROOT / ("app.py" if name == "app.py" else f"pages/{name}")
    at = AppTest.from_file(str(path), default_timeout=TIMEOUT)
    for k, v in state.items():
        at.session_state[k] = v
    return at.run()


def finish_job(at: AppTest, key: str, timeout: float = TIMEOUT) -> None:
    """Wait for the page's background job, then rerun the page so that it shows the result."""
    job = at.session_state[key]
    assert job.wait(timeout), f"{key} still running after {timeout} s"
    at.run()


def chart(at: AppTest, key: str) -> dict:
    """The plotly spec of the chart with this key."""
    return json.loads(at.get_by_key(key).proto.spec)


def charts(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


@pytest.fixture(scope="module")
def demo_run():
    from invent_core.engine.artifact import RunArtifact

    assert assets.DEMO_RUN.exists(), (
        "assets/demo_run.json is missing: python scripts/make_demo_run.py"
    )
    return RunArtifact.load(assets.DEMO_RUN)


def test_every_page_is_a_file_with_the_expected_name():
    assert PAGES == [
        "1_Explore_a_question.py",
        "2_Compare_embedders.py",
        "3_GAAP_evolution.py",
        "4_TSU.py",
        "5_Batch_scoring.py",
        "6_Evaluation.py",
        "7_History.py",
        "8_Side_by_side.py",
        "9_Compare_evaluations.py",
    ]


def test_demo_assets_are_real_runs(demo_run):
    assert demo_run.settings["llm"].startswith("local:sha256=")  # the packaged model made it
    assert len(demo_run.questions) == demo_run.settings["n_perturbations"] + 1 == 10
    assert len(demo_run.responses[0]) == demo_run.settings["n_replications"] == 5
    assert demo_run.usage["requests"] == 50
    gaap = json.loads(assets.DEMO_GAAP.read_text())
    assert gaap["perturbations"] == demo_run.perturbations
    for path in (assets.DEMO_EVAL, assets.DEMO_TSU):
        assert path.exists(), (
            f"{path.name} is missing: python scripts/{'make_demo_eval' if 'eval' in path.name else 'make_demo_tsu'}.py"
        )


def test_home_shows_one_right_and_one_wrong_answer_side_by_side():
    from invent_core.engine.artifact import RunArtifact

    pair = json.loads(assets.DEMO_PAIR.read_text())
    assert [p["label"] for p in pair["pair"]] == ["right", "wrong"]
    assert [p["correct"] for p in pair["pair"]] == [True, False]
    runs = [RunArtifact.from_dict(p["run"]) for p in pair["pair"]]
    at = open_page("app.py")
    assert_clean(at)
    assert "invent" in at.title[0].value
    tiles = [m for m in at.metric if m.label == "Inv-Entropy"]
    assert [float(m.value) for m in tiles] == [
        pytest.approx(r.measures["inv_entropy"], abs=1e-3) for r in runs
    ]
    # the wrong answer is visibly more uncertain (the class medians of the 100-question
    # evaluation), and both are placed among the reference as their stored placement says
    # (each among the questions like it, so their percentiles need not be in that order)
    assert runs[1].measures["inv_entropy"] - runs[0].measures["inv_entropy"] > 0.05
    percentiles = [float(m.value) for m in at.metric if m.label.startswith("Percentile")]
    stored = [r.reference["percentile"] for r in runs]
    assert percentiles == [pytest.approx(p, abs=1) for p in stored]
    for label in ("right", "wrong"):
        z = decode(chart(at, f"home_p_x_given_y_{label}")["data"][0]["z"])
        np.testing.assert_allclose(z.sum(axis=1), 1.0)
        assert chart(at, f"home_{label}_reference")["data"]  # the marker on the distribution
    assert len(at.main.get("page_link")) == len(PAGES) == 9  # every page
    nav = [link.proto.label for link in at.sidebar.get("page_link")]
    assert nav[:2] == ["Home", "Explore a question"] and "History" in nav  # not "app"
    assert at.sidebar.selectbox(key="sb_llm").value == "qwen0.5b"


def test_the_reference_lookup_is_cached_across_reruns(monkeypatch):
    """A run's placement is read, not made, on every rerun of a page.

    The demo runs (re-made by today's code) carry the placement the pipeline stored
    among the shipped references, so the page places nothing; a run placed among
    other references would be placed once and cached (tests/engine/test_placement.py).
    """
    import invent_core.engine.placement as placing
    from invent_ui.session import resources

    calls = []
    real = placing.placement

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(placing, "placement", counting)
    resources.cached_placement.clear()
    at = open_page("app.py")
    assert_clean(at)
    first = len(calls)
    assert first == 0  # both demo runs carry their stored placement
    at.run()
    assert_clean(at)
    assert len(calls) == first
    assert len([m for m in at.metric if m.label.startswith("Percentile")]) == 2
    # P(right) says where it was calibrated and that base rate (it holds for such questions)
    # with its interval and support, or no number when too few reference questions are near
    notes = [
        c.value
        for c in at.caption
        if ("calibrated on arithmetic" in c.value and ": right on" in c.value)
        or "not enough reference questions near this value" in c.value
    ]
    assert len(notes) == 2
    # each demo question is placed among the reference questions like it
    placed = [c.value for c in at.caption if c.value.startswith("Placed among these ")]
    assert len(placed) == 2 and all("arithmetic-like reference questions" in c for c in placed)
    tables = [df.value for df in at.dataframe if "reference question" in df.value.columns]
    assert len(tables) == 2 and all((t["similarity"] >= 0.10).all() for t in tables)


def test_explore_shows_the_demo_run(demo_run):
    at = open_page("1_Explore_a_question.py")
    assert_clean(at)
    assert "demo run" in at.info[0].value
    assert at.subheader[0].value == demo_run.question
    for name in ("p_x", "p_y", "p_x_given_y"):
        data = chart(at, f"explore_{name}")["data"][0]
        z = decode(data["z"])
        np.testing.assert_allclose(z.sum(axis=1), 1.0, err_msg=name)
        np.testing.assert_allclose(z, getattr(demo_run.score.walk, name))
    hover = chart(at, "explore_p_x")["data"][0]["customdata"]
    assert hover[0][0][0].startswith(demo_run.question[:20])  # row x0's text is the question
    answers = chart(at, "explore_p_y")["data"][0]["customdata"]
    assert answers[1][0][0].replace("<br>", " ") == demo_run.responses[1][0]  # wrapped for hover
    boot = decode(chart(at, "explore_boot")["data"][0]["x"])
    np.testing.assert_allclose(boot, demo_run.score.values["inv_entropy"])
    for key in ("explore_graph_x", "explore_graph_y", "explore_boot_grid"):
        assert chart(at, key)["data"]
    frames = {tuple(d.value.columns): d.value for d in at.dataframe}
    grid = next(v for k, v in frames.items() if "rep 5" in k)
    assert grid.shape == (10, 6) and grid.iloc[0, 1] == demo_run.responses[0][0]
    methods = next(v for k, v in frames.items() if "status" in k)
    offline = methods[~methods["needs"].str.contains("llm")]
    assert (offline["status"] == "ok").all(), offline
    assert methods.loc[methods["method"] == "Inv-Entropy", "uncertainty"].item() == pytest.approx(
        demo_run.measures["inv_entropy"]
    )
    assert (methods.loc[methods["needs"].str.contains("llm"), "status"] == "not computed").all()
    assert at.get("download_button")


def test_explore_threshold_is_display_only(demo_run):
    at = open_page("1_Explore_a_question.py")
    before = chart(at, "explore_graph_x")["layout"]["title"]["text"]
    t0 = time.perf_counter()
    at.slider(key="explore_threshold").set_value(0.0).run()
    rerun = time.perf_counter() - t0
    assert_clean(at)
    after = chart(at, "explore_graph_x")["layout"]["title"]["text"]
    assert before != after and "90 edges" in after  # 10 states: every off-diagonal transition
    at.selectbox(key="explore_colorscale").set_value("Viridis").run()
    assert_clean(at)
    assert "explore_run" not in at.session_state  # nothing was (re)computed: still the demo
    assert rerun < 20, f"a display-only rerun took {rerun:.1f} s"


def test_explore_opens_a_saved_run_and_refuses_garbage(demo_run):
    small = demo_run.rescore(n_bootstrap=5)
    small.question = "an uploaded run"
    at = open_page("1_Explore_a_question.py")
    at.file_uploader(key="explore_upload").set_value(
        ("run.json", small.to_json().encode(), "application/json")
    ).run()
    assert_clean(at)
    assert at.subheader[0].value == "an uploaded run"
    at.file_uploader(key="explore_upload").set_value(
        ("run.json", b"{not json", "application/json")
    ).run()
    assert not at.exception
    assert (
        "Reading the run file failed" in at.error[0].value and "not valid JSON" in at.error[0].value
    )
    assert at.subheader[0].value == demo_run.question  # falls back to the demo run


def test_explore_warns_that_a_run_of_copies_is_degenerate(demo_run):
    n = len(demo_run.perturbations)
    copies = dataclasses.replace(
        demo_run, perturbations=[demo_run.question] * n, questions=[demo_run.question] * (n + 1)
    ).rescore(n_bootstrap=5)
    at = open_page("1_Explore_a_question.py")
    at.file_uploader(key="explore_upload").set_value(
        ("run.json", copies.to_json().encode(), "application/json")
    ).run()
    assert_clean(at)
    warnings = [w.value for w in at.warning]
    assert any(w.startswith(f"Degenerate result: all {n} perturbations") for w in warnings), (
        warnings
    )


def test_explore_reports_a_backend_failure_readably():
    at = open_page("1_Explore_a_question.py")
    at.selectbox(key="sb_llm").set_value("openai").run()
    at.text_input(key="sb_base_url").set_value("http://127.0.0.1:9/v1")  # nothing listens on port 9
    at.text_input(key="sb_model").set_value("m")
    at.text_input(key="sb_api_key_input").set_value("sk-test-not-saved")
    # GAAP perturbs without the LLM, so the first request is an answer to the dead server
    at.radio(key="explore_perturber").set_value("gaap")
    at.text_area(key="explore_question").set_value("What is the capital of France?")
    at.button(key="explore_run_button").click().run()
    finish_job(at, "explore_job")
    assert not at.exception
    assert "The run failed" in at.error[0].value and "127.0.0.1:9" in at.error[0].value
    assert "Traceback" not in at.error[0].value
    assert "sk-test" not in json.dumps(at.session_state["invent_settings"])  # the key is no setting


def test_sidebar_settings_survive_a_page_switch():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.number_input(key="sb_n_perturbations").set_value(3).run()
    at.switch_page("pages/6_Evaluation.py").run()
    assert_clean(at)
    assert at.number_input(key="sb_n_perturbations").value == 3
    assert at.session_state["invent_settings"]["n_perturbations"] == 3


def test_sidebar_has_a_widget_for_every_run_option():
    from invent_core.config import RunConfig, iter_options
    from invent_ui.session.sidebar import PAGE_OPTIONS

    at = open_page("app.py")
    kinds = ("selectbox", "number_input", "slider", "checkbox", "text_input")
    keys = {w.key for kind in kinds for w in at.sidebar.get(kind)}
    expected = {"sb_" + o.name for o in iter_options(RunConfig) if o.name not in PAGE_OPTIONS}
    assert expected <= keys, sorted(expected - keys)
    assert {"sb_affinity", "sb_wd_ground", "sb_max_variant", "sb_gaap_delta"} <= keys
    # an advanced option reaches the settings every page reads
    at.selectbox(key="sb_affinity").set_value("abs_cosine").run()
    assert_clean(at)
    assert at.session_state["invent_settings"]["affinity"] == "abs_cosine"
    at.switch_page("pages/4_TSU.py").run()
    assert at.selectbox(key="sb_affinity").value == "abs_cosine"
    # an invalid combination is explained, and the previous settings stay
    at.number_input(key="sb_gaap_n_parents").set_value(40).run()
    assert not at.exception
    assert "max_population" in at.sidebar.error[0].value
    assert at.session_state["invent_settings"]["gaap_n_parents"] == 10


def test_sidebar_profile_sets_the_scoring_options_in_one_word():
    """The sidebar's Profile is --profile: released-code sets |cos|, B = 10 …; ours restores."""
    at = open_page("app.py")
    at.sidebar.selectbox(key="sb_profile").set_value("released-code").run()
    assert_clean(at)
    got = at.session_state["invent_settings"]
    assert (got["affinity"], got["n_bootstrap"], got["max_variant"]) == (
        "abs_cosine",
        10,
        "released_code",
    )
    assert at.selectbox(key="sb_affinity").value == "abs_cosine"
    at.number_input(key="sb_n_bootstrap").set_value(20).run()  # still editable after
    assert at.session_state["invent_settings"]["n_bootstrap"] == 20
    at.sidebar.selectbox(key="sb_profile").set_value("ours").run()
    assert at.session_state["invent_settings"]["affinity"] == "exp_cosine"
    assert at.session_state["invent_settings"]["n_bootstrap"] == 30


def test_compare_embedders(demo_run):
    at = open_page("2_Compare_embedders.py")
    assert_clean(at)
    chosen = at.multiselect(key="compare_embedders").value
    assert chosen[:2] == ["minilm", "mpnet"]
    table = at.dataframe[0].value
    assert list(table.columns) == [*chosen, "spread"]
    assert table.loc["Inv-Entropy", "minilm"] == pytest.approx(demo_run.measures["inv_entropy"])
    at.radio(key="compare_matrix").set_value("p_x_given_y").run()
    heat_mini, heat_mpnet = (chart(at, f"compare_heat_{e}")["data"][0] for e in ("minilm", "mpnet"))
    assert (heat_mini["zmin"], heat_mini["zmax"]) == (
        heat_mpnet["zmin"],
        heat_mpnet["zmax"],
    )  # one scale
    z_mini, z_mpnet = decode(heat_mini["z"]), decode(heat_mpnet["z"])
    # rescoring with the same ψ: float32 embeddings, sharpened by the exp kernel's 1/τ
    np.testing.assert_allclose(z_mini, demo_run.score.walk.p_x_given_y, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(z_mpnet.sum(axis=1), 1.0)
    assert not np.allclose(z_mini, z_mpnet)
    diff = decode(chart(at, "compare_diff_mpnet")["data"][0]["z"])
    np.testing.assert_allclose(diff, z_mpnet - z_mini, atol=1e-12)


def test_gaap_evolution_replays_the_demo_trace():
    from invent_core.perturb.gaap import GaapResult

    res = GaapResult.from_dict(json.loads(assets.DEMO_GAAP.read_text()))
    at = open_page("3_GAAP_evolution.py")
    assert_clean(at)
    spec = chart(at, "gaap_scatter_view")
    assert spec["layout"]["shapes"][0]["y0"] == pytest.approx(res.trace.config.delta)
    shown = sum(len(decode(t["y"])) for t in spec["data"] if "Per" not in t["name"])
    assert shown == len(res.trace.generations[0].members)  # generation 0 only
    at.button(key="gaap_next").click().run()
    assert at.slider(key="gaap_generation").value == 1
    members = [d.value for d in at.dataframe if "provenance" in d.value.columns][0]
    assert len(members) == len(res.trace.generations[1].members)
    assert members["provenance"].str.contains("crossover|selected parent|mutation").all()
    at.button(key="gaap_play").click().run()
    assert_clean(at)
    last = len(res.trace.generations) - 1
    assert at.slider(key="gaap_generation").value == last
    per = [d.value for d in at.dataframe if "perturbation" in d.value.columns][0]
    assert list(per["perturbation"]) == res.perturbations


def test_tsu_page_on_the_demo_sweep():
    payload = json.loads(assets.DEMO_TSU.read_text())
    at = open_page("4_TSU.py")
    assert_clean(at)
    curves = chart(at, "tsu_curves")
    assert [float(x) for x in decode(curves["data"][0]["x"])] == payload["temperatures"]
    tsu = [d.value for d in at.dataframe if any("TSU(" in c for c in d.value.columns)][0]
    assert "Inv-Entropy" in tsu.index
    cells = tsu.to_numpy().ravel()
    assert all(0.0 <= float(c) <= 100.0 for c in cells if c != "–")
    bars = chart(at, "tsu_bars")
    assert all(0.0 <= float(v) <= 100.0 for t in bars["data"] for v in decode(t["y"]))
    at.toggle(key="tsu_normalize").set_value(False).run()
    assert_clean(at)


def _wide_csv(tmp_path: Path) -> bytes:
    """Four questions with pre-generated responses (no LLM call) and reference answers."""
    rows = [
        ("1", "What is the capital of France?", "Paris", ["Paris", "Paris"], "Paris"),
        ("2", "Which planet is called the Red Planet?", "Mars", ["Mars", "Venus"], "Mars"),
        ("3", "Who wrote Hamlet?", "Shakespeare", ["Marlowe", "Bacon"], "Marlowe"),
        ("4", "What is the largest ocean?", "Pacific", ["Atlantic", "Indian"], "Atlantic"),
    ]
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["id", "question", "answer", "perturbations", "responses"])
    for rid, q, a, alts, first in rows:
        perts = [q.replace("What", "Which") if q.startswith("What") else "Tell me: " + q, q.lower()]
        responses = [[first, alts[0]], [alts[0], alts[1]], [alts[1], first]]
        w.writerow([rid, q, a, json.dumps(perts), json.dumps(responses)])
    return buf.getvalue().encode()


def test_batch_scoring_scores_downloads_and_resumes(tmp_path, monkeypatch):
    from streamlit.delta_generator import DeltaGenerator

    monkeypatch.setenv("INVENT_CACHE", str(tmp_path / "cache"))
    saved_as: list[str] = []  # the file names downloads are offered under
    offered: dict[str, bytes] = {}
    offer = DeltaGenerator.download_button

    def recording(self, label, data, file_name=None, *args, **kwargs):
        saved_as.append(file_name)
        offered[file_name] = data
        return offer(self, label, data, file_name, *args, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "download_button", recording)
    data = _wide_csv(tmp_path)
    at = open_page("5_Batch_scoring.py")
    assert_clean(at)
    at.file_uploader(key="batch_upload").set_value(("qa.csv", data, "text/csv")).run()
    assert_clean(at)
    assert "Schema OK" in at.success[0].value and "wide" in at.success[0].value
    at.multiselect(key="batch_methods").set_value(["lexsim"]).run()
    at.button(key="batch_run").click().run()
    finish_job(at, "batch_job")
    assert_clean(at)
    assert "Scored 4 row(s)" in at.success[-1].value
    results = [d.value for d in at.dataframe if "inv_entropy" in d.value.columns][0]
    assert (
        len(results) == 4
        and results["inv_entropy"].notna().all()
        and results["lexsim"].notna().all()
    )
    assert results["correct"].tolist() == [1, 1, 0, 0]
    assert {b.proto.label for b in at.get("download_button")} >= {"Download CSV", "Download JSON"}
    # named after the uploaded file, not the stored copy ("input")
    assert {"qa_scores.csv", "qa_scores.json"} <= set(saved_as)
    # the JSON holds the rewordings and answers as lists, not strings of JSON inside JSON
    rows = json.loads(offered["qa_scores.json"])
    assert len(rows) == 4 and not any(isinstance(r.get("method_errors"), str) for r in rows)
    judged = [d.value for d in at.dataframe if "auroc" in d.value.columns][0]
    assert str(judged["n"].dtype) == "Int64" and judged["n"].tolist()[0] == 4  # 4, not 4.000000
    assert chart(at, "batch_roc")["data"] and chart(at, "batch_rejection")["data"]
    # a finished file offers nothing to resume
    assert at.button(key="batch_run").label == "All rows scored"
    assert at.button(key="batch_run").disabled
    # another upload: the first file's "done" is not shown with it
    at.file_uploader(key="batch_upload").set_value(("other.csv", data + b"\n", "text/csv")).run()
    assert_clean(at)
    assert not any("Scoring qa.csv" in s.value for s in at.success)
    assert at.button(key="batch_run").label == "Score"
    # a browser refresh is a new session: the same upload finds its scored rows
    again = open_page("5_Batch_scoring.py")
    again.file_uploader(key="batch_upload").set_value(("qa.csv", data, "text/csv")).run()
    again.multiselect(key="batch_methods").set_value(["lexsim"]).run()
    assert_clean(again)
    assert "All 4 row(s) are scored" in again.success[-1].value
    assert again.button(key="batch_run").label == "All rows scored"
    uploads = sorted((tmp_path / "cache" / "dashboard" / "batch").iterdir())
    assert len(uploads) == 2 and data in {(u / "input.csv").read_bytes() for u in uploads}


def test_batch_rejects_a_file_without_questions(tmp_path, monkeypatch):
    monkeypatch.setenv("INVENT_CACHE", str(tmp_path / "cache"))
    at = open_page("5_Batch_scoring.py")
    at.file_uploader(key="batch_upload").set_value(
        ("bad.csv", b"name,age\nbob,3\n", "text/csv")
    ).run()
    assert not at.exception
    assert "Checking the file failed" in at.error[0].value and "question" in at.error[0].value


def test_evaluation_page_on_the_demo():
    payload = json.loads(assets.DEMO_EVAL.read_text())
    at = open_page("6_Evaluation.py")
    assert_clean(at)
    board = at.dataframe[0].value
    assert "Inv-Entropy" in board.index and any(c.startswith("AUROC") for c in board.columns)
    assert int(at.metric[1].value) == len(payload["rows"])
    shown = at.multiselect(key="eval_methods").value
    roc = chart(at, "eval_roc")
    assert len(roc["data"]) == len(shown) + 1  # + the random diagonal
    assert chart(at, "eval_rejection")["data"] and chart(at, "eval_reliability")["data"]


@pytest.mark.parametrize("page", ["app.py", *PAGES])
def test_page_opens_first_without_error(page):
    at = open_page(page)
    assert_clean(at)
    assert at.sidebar.number_input(key="sb_n_perturbations").value == 9
    assert at.title


# --- the workbench: jobs, Cancel, history, re-ask, honest small samples -----------


class FakeLLM:
    """A recording LLM (no model): answers "Lyon" to everything; can hold before answer k.

    Its ``identity`` is the packaged model's, so that it may re-ask the shipped demo run.
    """

    prefers_single_paraphrase = True
    concurrency = 1

    def __init__(self, identity: str, hold_at: int | None = None) -> None:
        import threading

        self.identity = identity
        self.requests: list = []
        self.hold_at = hold_at
        self.held = threading.Event()
        self.release = threading.Event()

    def complete(self, messages, **kw):
        from invent_core.llm import Completion

        self.requests.append(messages)
        return Completion(text="Lyon")

    def complete_many(self, requests, progress=None, *, cancel=None, concurrency=None):
        from invent_core.llm import Completion

        out = []
        for req in requests:
            if self.hold_at is not None and len(self.requests) == self.hold_at:
                self.held.set()
                self.release.wait(60)
            self.requests.append(req)
            out.append(Completion(text="Lyon"))
            if progress is not None:
                progress(len(out), len(requests))
        return out

    def close(self):
        pass


@pytest.fixture
def fake_llm(monkeypatch, tmp_path, demo_run):
    """Every page gets this LLM; history and throughput go to a fresh cache dir."""
    import invent_ui.session.resources as resources

    monkeypatch.setenv("INVENT_CACHE", str(tmp_path / "cache"))
    llm = FakeLLM(demo_run.identities["llm"])
    monkeypatch.setattr(resources, "llm_for", lambda settings: llm)
    return llm


def _small_run_settings(at: AppTest, n: int = 2, r: int = 3) -> None:
    at.number_input(key="sb_n_perturbations").set_value(n).run()
    at.number_input(key="sb_n_replications").set_value(r).run()
    at.radio(key="explore_perturber").set_value("gaap")


def test_cancel_mid_run_keeps_finished_work_and_the_page_stays_usable(fake_llm, demo_run):
    from invent_ui.session import archive

    # r = 3 replications of a state are one job (one n-choice request on the packaged
    # server): the original's 3 answers arrive, the first perturbation's job waits
    fake_llm.hold_at = 3
    at = open_page("1_Explore_a_question.py")
    _small_run_settings(at)
    at.text_area(key="explore_question").set_value("What is the capital of France?")
    at.button(key="explore_run_button").click().run()
    assert fake_llm.held.wait(TIMEOUT)
    at.run()  # what the page's 1-second fragment shows while the run works
    bars = [p.proto.text for p in at.get("progress")]
    assert any(t.startswith("answers received 3/9") for t in bars), bars
    assert at.button(key="explore_run_button").disabled  # one run at a time
    at.button(key="explore_job_cancel").click().run()
    fake_llm.release.set()
    finish_job(at, "explore_job")
    assert_clean(at)
    # the job in flight stops at its next answer (Cancel does not wait for it);
    # the last state's job was never sent
    assert 4 <= len(fake_llm.requests) <= 6
    note = at.warning[0].value
    assert re.search(r"cancelled after [3-6] of 9 answers", note) and "in the LLM cache" in note
    assert note.count("cache") == 1  # said once (the page's own sentence is left out)
    assert archive.store().list() == []  # a cancelled run is no history entry
    # the page is usable: the demo still shows, and a new run goes through
    assert at.subheader[0].value == demo_run.question
    fake_llm.hold_at = None
    at.button(key="explore_run_button").click().run()
    finish_job(at, "explore_job")
    assert_clean(at)
    assert at.subheader[0].value == "What is the capital of France?"
    assert "done in" in at.success[0].value and "history" in at.success[0].value
    assert [e.kind for e in archive.store().list()] == ["run", "gaap"]


def test_history_survives_a_new_session_and_reopens(fake_llm):
    at = open_page("1_Explore_a_question.py")
    _small_run_settings(at, n=2, r=2)
    at.text_area(key="explore_question").set_value("Who painted the Mona Lisa?")
    at.button(key="explore_run_button").click().run()
    finish_job(at, "explore_job")
    assert_clean(at)
    # a server restart (no job in memory) and a reload: Explore shows the last run made
    # here, not the demo
    from invent_ui.jobs.feedback import job_registry

    job_registry.clear()
    again = open_page("1_Explore_a_question.py")
    assert_clean(again)
    assert again.subheader[0].value == "Who painted the Mona Lisa?"
    assert "latest run in the history" in again.info[0].value
    # a browser refresh or a server restart is a new session: the history is on disk
    page = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    page.switch_page("pages/7_History.py").run()
    assert_clean(page)
    table = page.dataframe[0].value
    assert table["title"].tolist() == ["Who painted the Mona Lisa?"] * 2
    assert set(table["kind"]) == {"run", "GAAP trace"}
    run_id = table.loc[table["kind"] == "run", "id"].item()
    page.button(key=f"history_open_{run_id}").click().run()
    assert_clean(page)
    assert page.session_state["explore_run"].question == "Who painted the Mona Lisa?"
    assert page.subheader[0].value == "Who painted the Mona Lisa?"  # now on Explore
    # GAAP evolution opens the trace of the GAAP run just made, in a fresh session
    gaap_page = open_page("3_GAAP_evolution.py")
    assert_clean(gaap_page)
    assert gaap_page.subheader[0].value == "Who painted the Mona Lisa?"
    # rename, then delete
    page = open_page("7_History.py")
    page.text_input(key=f"history_title_{run_id}").set_value("Mona Lisa, n=2")
    page.button(key=f"history_save_{run_id}").click().run()
    assert "Mona Lisa, n=2" in open_page("7_History.py").dataframe[0].value["title"].tolist()
    page = open_page("7_History.py")
    page.button(key=f"history_delete_{run_id}").click().run()
    assert open_page("7_History.py").dataframe[0].value["kind"].tolist() == ["GAAP trace"]
    page = open_page("7_History.py")
    page.checkbox(key="history_clear_sure").check().run()
    page.button(key="history_clear").click().run()
    assert "Nothing kept yet" in open_page("7_History.py").info[0].value


def test_editing_one_perturbation_reasks_exactly_r(fake_llm, demo_run):
    at = open_page("1_Explore_a_question.py", explore_run=demo_run)
    assert_clean(at)
    [editor] = at.data_editor
    assert editor.value["perturbation"].tolist() == demo_run.perturbations
    at.session_state[editor.key] = {
        "edited_rows": {2: {"perturbation": "Which writer gave us the play Hamlet?"}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    r = demo_run.config.n_replications
    assert any(f"→ {r} LLM request(s)" in c.value for c in at.caption)
    at.button(key="explore_reask").click().run()
    finish_job(at, "explore_job")
    assert_clean(at)
    assert len(fake_llm.requests) == r
    new = at.session_state["explore_run"]
    assert new.questions[3] == "Which writer gave us the play Hamlet?"
    assert new.extras["edited"] == [i == 3 for i in range(len(demo_run.questions))]
    assert new.responses[3] == ["Lyon"] * r and new.responses[4] == demo_run.responses[4]
    assert at.data_editor[0].value["edited by you"].tolist()[2] is True
    assert any("1 edited by you" in c.value for c in at.caption)


def _html_of(frame) -> bytes:
    return frame.proto.SerializeToString()


def _first_questions_of_the_demo_evaluation(k: int) -> dict:
    """The demo evaluation cut to its first k questions, its metrics computed again by the core."""
    from invent_core.experiments.evaluation import judged_evaluation
    from invent_ui.data.experiments import payload_config

    payload = json.loads(assets.DEMO_EVAL.read_text())
    rows = payload["rows"][:k]
    evaluation, _ = judged_evaluation(rows, payload["methods"], payload_config(payload))
    return {**payload, "rows": rows, "evaluation": evaluation.to_dict()}


def _first_questions_of_the_demo_sweep(k: int) -> dict:
    """The demo TSU sweep cut to its first k questions, its TSU table computed again by the core."""
    from invent_core.evaluation.metrics import tsu_table
    from invent_core.experiments import default_tsu_columns
    from invent_ui.data.experiments import tsu_arrays

    payload = json.loads(assets.DEMO_TSU.read_text())
    keep = list(dict.fromkeys(r["id"] for r in payload["rows"]))[:k]
    small = {**payload, "rows": [r for r in payload["rows"] if r["id"] in keep]}
    temps, _, arrays = tsu_arrays(small)
    pairs, chains = default_tsu_columns(temps)
    small["tsu"] = tsu_table(arrays, temps, pairs=pairs, chains=chains, nan_policy="omit")
    return small


def test_small_samples_are_greyed_and_never_bold():
    from invent_ui.session import state

    small = _first_questions_of_the_demo_evaluation(10)
    assert 0 < sum(r["correct"] for r in small["rows"]) < 10  # both classes: metrics exist
    at = open_page("6_Evaluation.py", **{state.EVAL_PAYLOAD: small})
    assert_clean(at)
    board = _html_of(at.dataframe[0])
    assert b"font-weight: bold" not in board and b"#9e9e9e" in board
    assert any("too few to judge: 10 questions (< 20)" in c.value for c in at.caption)
    assert "help" in str(at.metric[1].proto) or at.metric[1].value == "10"
    tsu = open_page("4_TSU.py", **{state.TSU_PAYLOAD: _first_questions_of_the_demo_sweep(4)})
    assert_clean(tsu)
    frame = next(d for d in tsu.dataframe if any("TSU(" in c for c in d.value.columns))
    assert b"font-weight: bold" not in _html_of(frame)
    assert any("too few to judge: 4 questions" in c.value for c in tsu.caption)


def test_an_all_wrong_evaluation_shows_its_per_question_table(fake_llm):
    at = open_page("6_Evaluation.py")
    at.number_input(key="sb_n_perturbations").set_value(1).run()
    at.number_input(key="sb_n_replications").set_value(2).run()
    at.radio(key="eval_perturber").set_value("gaap")
    at.selectbox(key="eval_dataset").set_value("arithmetic").run()
    at.number_input(key="eval_limit").set_value(3).run()
    assert "3 of " in at.caption[1].value and "drawn with seed 0" in at.caption[1].value
    at.button(key="eval_run").click().run()
    finish_job(at, "eval_job")
    assert_clean(at)  # not "the evaluation failed": its questions are all there
    assert any("n/a — all answers wrong" in w.value for w in at.warning), [
        w.value for w in at.warning
    ]
    table = next(d.value for d in at.dataframe if "canonical answer" in d.value.columns)
    assert len(table) == 3 and not table["correct"].any()
    assert (table["canonical answer"] == "Lyon").all()
    assert table["answers"].str.contains("Lyon").all()
    assert {"Inv-Entropy", "NI-Entropy"} <= set(table.columns)
    assert table["Inv-Entropy"].notna().all()
    assert "scores.csv" not in " ".join(w.value for w in at.warning)  # no cache path
    # 0 of 3 with the packaged 0.5B: the page says how to get a stronger model
    advice = next(w.value for w in at.warning if "Only 0 of 3" in w.value)
    assert "Qwen2.5-1.5B" in advice and "OpenAI-compatible server" in advice
    # kept: a refresh finds it in the history
    history = open_page("7_History.py").dataframe[0].value
    assert history["kind"].tolist() == ["evaluation"]


def test_failed_batch_rows_are_retried_with_the_other_perturber(fake_llm, monkeypatch):
    def refuse_paraphrases(requests, progress=None, *, cancel=None):  # the LLM Protocol's
        if any("paraphrase" in str(req.messages) for req in requests):
            raise RuntimeError("this server cannot paraphrase")
        return FakeLLM.complete_many(fake_llm, requests, progress, cancel=cancel)

    monkeypatch.setattr(fake_llm, "complete_many", refuse_paraphrases)
    data = b"question,answer\nWhat is the capital of France?,Paris\nWho wrote Hamlet?,Shakespeare\n"
    at = open_page("5_Batch_scoring.py")
    at.number_input(key="sb_n_perturbations").set_value(1).run()
    at.number_input(key="sb_n_replications").set_value(2).run()
    at.file_uploader(key="batch_upload").set_value(("my questions.csv", data, "text/csv")).run()
    at.multiselect(key="batch_methods").set_value([]).run()
    at.radio(key="batch_perturber").set_value("paraphrase").run()
    at.button(key="batch_run").click().run()
    finish_job(at, "batch_job")
    assert not at.exception
    assert "2 row(s) failed" in at.warning[-1].value
    failed = next(d.value for d in at.dataframe if "reason" in d.value.columns)
    assert failed["kind"].tolist() == ["scoring", "scoring"]
    assert failed["reason"].str.contains("could not score").all()
    texts = " ".join([*failed["reason"], *(w.value for w in at.warning)])
    assert "my questions.csv" in texts and ".cache" not in texts and "input.csv" not in texts
    assert at.selectbox(key="batch_retry_perturber").value == "gaap"
    at.button(key="batch_retry").click().run()
    finish_job(at, "batch_job")
    assert not at.exception
    retried = next(
        d.value for d in at.dataframe if "inv_entropy" in d.value.columns and len(d.value) == 2
    )
    assert retried["id"].astype(str).tolist() == ["1", "2"]  # the original rows' ids
    assert retried["inv_entropy"].notna().all()


def test_side_by_side_shares_the_colour_scale_and_shows_differences(
    monkeypatch, tmp_path, demo_run
):
    from invent_ui.session import archive

    monkeypatch.setenv("INVENT_CACHE", str(tmp_path / "cache"))
    other = demo_run.rescore(affinity="abs_cosine", n_bootstrap=5)
    store = archive.store()
    archive.keep_run(store, demo_run)
    archive.keep_run(store, other, title="the demo, |cos| affinity")
    at = open_page("8_Side_by_side.py")  # the two newest runs, the older one on the left
    assert_clean(at)
    measures = at.dataframe[0].value.set_index("measure")
    inv = measures.loc["Inv-Entropy"]
    assert inv["left"] == pytest.approx(demo_run.measures["inv_entropy"])
    assert inv["right"] == pytest.approx(other.measures["inv_entropy"])
    assert inv["right − left"] == pytest.approx(inv["right"] - inv["left"])
    left, right = (chart(at, f"side_heat_{side}")["data"][0] for side in ("left", "right"))
    assert (left["zmin"], left["zmax"]) == (right["zmin"], right["zmax"])  # one scale
    np.testing.assert_allclose(decode(right["z"]), other.score.walk.p_x)


def test_a_reload_reattaches_to_the_running_run_then_shows_its_result(monkeypatch, demo_run):
    """A reload (a new session) shows the running job, its settings, then its result."""
    from invent_core.engine import pipeline
    from invent_core.progress import Progress

    release, calls = threading.Event(), []

    def held_run(question, config=None, **kw):  # the pipeline, held until the test lets it go
        calls.append(question)
        kw["progress"](Progress("perturb", 0, config.n_perturbations))
        assert release.wait(120)
        return demo_run

    monkeypatch.setattr(pipeline, "run_question", held_run)
    first = open_page("1_Explore_a_question.py")
    first.text_area(key="explore_question").set_value("What is 17 + 25?")
    first.radio(key="explore_perturber").set_value("gaap")
    first.button(key="explore_run_button").click().run()
    started = first.session_state["explore_job"]
    assert started.running and calls == ["What is 17 + 25?"]

    second = open_page("1_Explore_a_question.py")  # the browser reloads: a new session
    assert_clean(second)
    job = second.session_state["explore_job"]
    assert job.job is started and job.running  # the same job, not a new one
    assert second.text_area(key="explore_question").value == "What is 17 + 25?"
    assert second.radio(key="explore_perturber").value == "gaap"  # the form kept its settings
    assert second.button(key="explore_run_button").disabled  # no second Run by mistake
    assert any("The run" in m.value and "elapsed" in m.value for m in second.markdown)

    release.set()
    assert job.wait(60)
    second.run()
    assert_clean(second)
    shown = second.session_state["explore_run"]
    assert shown.question == demo_run.question  # the finished result, not the demo's default
    assert any("done in" in s.value for s in second.success)
    third = open_page("1_Explore_a_question.py")  # a later reload still shows the last result
    assert third.session_state["explore_run"].question == demo_run.question
    assert calls == ["What is 17 + 25?"]  # one run in all


def test_evaluation_reattaches_after_a_reload_with_its_settings_then_shows_the_result(
    monkeypatch,
):
    """A reload 30 s into a job keeps it: not the demo, not the form reset (8 → 10), not no job."""
    from invent_core import experiments as experiment
    from invent_ui.data import experiments

    release, calls = threading.Event(), []
    payload = json.loads(assets.DEMO_EVAL.read_text())
    payload["marker"] = "this evaluation"

    def held_evaluate(cfg, out, **kw):  # the evaluation, held until the test lets it go
        calls.append(cfg.limit)
        assert release.wait(120)
        return "result"

    monkeypatch.setattr(experiment, "evaluate", held_evaluate)
    monkeypatch.setattr(experiments, "eval_payload", lambda result, cfg, **kw: payload)
    first = open_page("6_Evaluation.py")
    first.number_input(key="eval_limit").set_value(8).run()
    first.button(key="eval_run").click().run()
    assert first.session_state["eval_job"].running and calls == [8]

    second = open_page("6_Evaluation.py")  # the browser reloads: a new session
    assert_clean(second)
    assert second.session_state["eval_job"].running
    assert second.number_input(key="eval_limit").value == 8  # not the default 10
    assert second.button(key="eval_run").disabled
    assert any("Evaluating 8" in m.value for m in second.markdown)

    release.set()
    assert second.session_state["eval_job"].wait(60)
    second.run()
    assert_clean(second)
    assert second.session_state["eval_payload"]["marker"] == "this evaluation"
    assert calls == [8]


def test_gaap_page_reattaches_after_a_reload(monkeypatch):
    """The same helper on GAAP evolution: the running evolution, its question, then its trace."""
    from invent_core.perturb import gaap as gaap_module
    from invent_core.perturb.gaap import GaapResult

    release = threading.Event()
    trace = GaapResult.from_dict(json.loads(assets.DEMO_GAAP.read_text()))

    def held_gaap(question, **kw):  # GAAP, held until the test lets it go
        kw["progress"](1, 5)
        assert release.wait(120)
        return trace

    monkeypatch.setattr(gaap_module, "gaap", held_gaap)
    first = open_page("3_GAAP_evolution.py")
    first.text_area(key="gaap_question").set_value("Who discovered penicillin?")
    first.button(key="gaap_run").click().run()
    assert first.session_state["gaap_job"].running
    second = open_page("3_GAAP_evolution.py")  # a reload
    assert_clean(second)
    assert second.session_state["gaap_job"].running
    assert second.text_area(key="gaap_question").value == "Who discovered penicillin?"
    assert second.button(key="gaap_run").disabled
    release.set()
    assert second.session_state["gaap_job"].wait(60)
    second.run()
    assert_clean(second)
    assert second.session_state["gaap_result"] is trace


def test_evaluation_keeps_the_testbed_levels_chosen_and_passes_them_to_the_run(monkeypatch):
    """A stronger model needs the testbed's hard levels: the page offers them, draws over them."""
    from invent_core import experiments as experiment
    from invent_ui.data import experiments

    seen = []
    payload = json.loads(assets.DEMO_EVAL.read_text())

    def recorded_evaluate(cfg, out, **kw):  # the evaluation itself is tested elsewhere
        seen.append((cfg.difficulty, cfg.limit, str(out)))
        return "result"

    monkeypatch.setattr(experiment, "evaluate", recorded_evaluate)
    monkeypatch.setattr(experiments, "eval_payload", lambda result, cfg, **kw: payload)
    at = open_page("6_Evaluation.py")
    at.selectbox(key="eval_dataset").set_value("arithmetic").run()
    assert at.multiselect(key="eval_levels").value == [1, 2, 3, 4, 5]
    at.number_input(key="eval_limit").set_value(100).run()
    at.multiselect(key="eval_levels").set_value([4, 5]).run()
    assert any("100 of 120 questions, drawn with seed 0 (difficulty 4, 5)" in c.value
               for c in at.caption)  # fmt: skip
    at.button(key="eval_run").click().run()
    finish_job(at, "eval_job")
    assert_clean(at)
    assert seen[0][:2] == ((4, 5), 100)
    at.multiselect(key="eval_levels").set_value([]).run()  # none chosen: all kept, and said
    assert any("at least one difficulty level" in w.value for w in at.warning)
    at.multiselect(key="eval_levels").set_value([1, 2, 3, 4, 5]).run()
    at.button(key="eval_run").click().run()
    finish_job(at, "eval_job")
    assert seen[1][0] is None and seen[1][2] != seen[0][2]  # all levels: the usual folder
    at.selectbox(key="eval_dataset").set_value("mmlu").run()
    assert not [m for m in at.multiselect if m.key == "eval_levels"]  # MMLU has no levels


def test_compare_answer_similarities_rescores_the_stored_answers(demo_run):
    """The same page compares ψ_y options: the run's answers scored again, no generation."""
    at = open_page("2_Compare_embedders.py")
    at.radio(key="compare_vary").set_value("answer similarities (ψ_y)").run()
    assert_clean(at)
    # the run's caption names how its answers were compared (the demo run: today's default)
    own = demo_run.config.score.answer_similarity
    assert any(f"answers compared by **{own}**" in c.value for c in at.caption)
    at.multiselect(key="compare_similarities").set_value(["embedding", "canonical"]).run()
    assert_clean(at)
    table = at.dataframe[0].value
    assert list(table.columns) == ["embedding", "canonical", "spread"]
    embedding = demo_run.rescore(answer_similarity="embedding").score.measures["inv_entropy"]
    assert table.loc["Inv-Entropy", "embedding"] == pytest.approx(embedding)
    canonical = demo_run.rescore(answer_similarity="canonical").score.measures["inv_entropy"]
    assert table.loc["Inv-Entropy", "canonical"] == pytest.approx(canonical)
    # P_x (the picker's first matrix) does not depend on ψ_y: said, not drawn as a blank chart
    assert any("no difference, the two give the same matrix" in i.value for i in at.info)


def test_sidebar_offers_every_answer_similarity_and_the_judge():
    """ψ_y and its judge are sidebar options like any other, kept in the session's settings."""
    from invent_core.responses.same import ANSWER_SIMILARITIES

    at = open_page("app.py")
    box = at.selectbox(key="sb_answer_similarity")
    assert list(box.options) == list(ANSWER_SIMILARITIES) and box.value == "rules"
    box.set_value("judge").run()
    at.text_input(key="sb_answer_judge").input("qwen1.5b").run()
    assert_clean(at)
    got = at.session_state["invent_settings"]
    assert (got["answer_similarity"], got["answer_judge"]) == ("judge", "qwen1.5b")
    assert at.selectbox(key="sb_padding").value == "distinct"
