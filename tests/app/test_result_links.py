"""A link to any result: each kind opens from its query parameters, and a bad link says why.

Driven through Streamlit's AppTest on the real pages, with the real saved results of
the checkout (``docs/results``) and the shipped demos (``assets``); the dashboard's
own folder is a temporary one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_app_pages import TIMEOUT, assert_clean, own_history  # noqa: F401 - the fixture

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

from invent_core.engine.artifact import RunArtifact  # noqa: E402
from invent_ui import assets  # noqa: E402
from invent_ui.data.result_folders import read_evaluation, read_tsu  # noqa: E402
from invent_ui.session import archive, places, state  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EVAL = "results/evaluate-arithmetic-100"
TSU = "results/tsu-arithmetic"
RUN = f"{EVAL}/runs/arithmetic_10-1b969fc9_T0.7.json"


@pytest.fixture
def dashboard(monkeypatch, tmp_path) -> Path:
    """The dashboard's own folder, empty; the checkout's results and assets as they are."""
    folder = tmp_path / "dashboard"
    folder.mkdir()
    real = places.roots()
    monkeypatch.setattr(places, "roots", lambda: {**real, "dashboard": folder})
    return folder


def _open(page: str, **params: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=TIMEOUT)
    for k, v in params.items():
        at.query_params[k] = v
    return at.run()


def _param(at: AppTest, name: str) -> str | None:
    """The address bar's ``name`` after the run (AppTest keeps a list where the page set it)."""
    value = at.query_params.get(name)
    return value[0] if isinstance(value, list) else value


def _link(at: AppTest) -> str:
    """The address the "Copy link" button offers."""
    (code,) = [c.value for c in at.code if "?" in c.value]
    return code


def test_a_run_file_opens_from_its_link_and_keeps_it(dashboard):
    question = RunArtifact.load(places.resolve(RUN)).question
    at = _open("1_Explore_a_question.py", run=RUN)
    assert_clean(at)
    assert at.subheader[0].value == question
    assert _param(at, "run") == RUN
    assert _link(at) == f"?run={RUN.replace('/', '%2F')}"
    assert "Download report (HTML)" in [b.label for b in at.get("download_button")]
    rescored = _open("2_Compare_embedders.py", run=RUN)  # the same link on Compare embedders
    assert_clean(rescored)
    assert question in rescored.markdown[0].value


def test_a_run_kept_in_the_history_opens_from_run_and_entry(dashboard):
    run = RunArtifact.load(assets.DEMO_RUN)
    run.question = "a run kept in the history"
    entry = archive.keep_run(archive.store(), run)
    for params in ({"run": entry}, {"entry": entry}):
        at = _open("1_Explore_a_question.py", **params)
        assert_clean(at)
        assert at.subheader[0].value == "a run kept in the history"
        assert _param(at, "entry") == entry and _param(at, "run") is None
        assert _link(at) == f"?entry={entry}"


def test_an_evaluation_folder_opens_from_its_link(dashboard):
    at = _open("6_Evaluation.py", evaluation=EVAL)
    assert_clean(at)
    payload = at.session_state[state.EVAL_PAYLOAD]
    assert payload == read_evaluation(places.resolve(EVAL)) and len(payload["rows"]) == 100
    board = at.dataframe[0].value  # the leaderboard: Inv-Entropy's AUROC as evaluate wrote it
    saved = json.loads((places.resolve(EVAL) / "results.json").read_text(encoding="utf-8"))
    assert str(board.iloc[0, 0]).startswith(
        f"{saved['results']['inv_entropy']['auroc']['point']:.3f}"
    )
    assert _link(at) == f"?evaluation={EVAL.replace('/', '%2F')}"


def test_a_tsu_folder_opens_from_its_link(dashboard):
    at = _open("4_TSU.py", tsu=TSU)
    assert_clean(at)
    assert at.session_state[state.TSU_PAYLOAD] == read_tsu(places.resolve(TSU))
    assert "**20 question(s)** at T = 0.3, 0.7, 1, 1.4" in at.markdown[0].value
    assert _link(at) == f"?tsu={TSU.replace('/', '%2F')}"


@pytest.mark.parametrize(
    ("page", "kind", "key"),
    [("6_Evaluation.py", "evaluation", state.EVAL_PAYLOAD), ("4_TSU.py", "tsu", state.TSU_PAYLOAD)],
)
def test_history_entries_of_each_kind_open_from_their_link(dashboard, page, kind, key):
    reader = read_evaluation if kind == "evaluation" else read_tsu
    payload = reader(places.resolve(EVAL if kind == "evaluation" else TSU))
    entry = archive.keep_payload(archive.store(), kind, payload, f"a kept {kind}")
    at = _open(page, entry=entry)
    assert_clean(at)
    assert at.session_state[key] == payload
    assert _link(at) == f"?entry={entry}"


def test_the_demos_shown_have_links_too(dashboard):
    for page, param, name in (
        ("1_Explore_a_question.py", "run", "assets/demo_run.json"),
        ("6_Evaluation.py", "evaluation", "assets/demo_eval.json"),
        ("4_TSU.py", "tsu", "assets/demo_tsu.json"),
    ):
        at = _open(page)
        assert_clean(at)
        link = _link(at)
        assert link == f"?{param}={name.replace('/', '%2F')}", page
        again = _open(page, **{param: name})  # and the link opens it
        assert_clean(again)
        assert again.session_state[{"run": state.EXPLORE_RUN, "evaluation": state.EVAL_PAYLOAD,
                                    "tsu": state.TSU_PAYLOAD}[param]] is not None  # fmt: skip


def _refused(at: AppTest) -> str:
    assert not at.exception, [e.value for e in at.exception]
    assert at.error, "no error shown"
    return at.error[0].value


@pytest.mark.parametrize(
    ("page", "params", "says"),
    [
        ("1_Explore_a_question.py", {"entry": "20990101T000000-run-00000000"},
         "no history entry 20990101T000000-run-00000000"),
        ("1_Explore_a_question.py", {"run": "20990101T000000-run-00000000"},
         "run=20990101T000000-run-00000000 cannot be opened"),
        ("1_Explore_a_question.py", {"run": "results/no-such-run.json"}, "no such file or folder"),
        ("1_Explore_a_question.py", {"run": "/etc/passwd"}, "is an absolute path"),
        ("1_Explore_a_question.py", {"run": "results/../../README.md"}, "leads out of results/"),
        ("1_Explore_a_question.py", {"run": "home/secret.json"}, "under none of the folders"),
        ("6_Evaluation.py", {"evaluation": TSU}, "has no scores.csv: not an evaluate folder"),
        ("6_Evaluation.py", {"evaluation": "assets/demo_tsu.json"}, "not a dashboard evaluation file"),
        ("4_TSU.py", {"tsu": EVAL}, "has no uq.csv: not a tsu folder"),
    ],
)  # fmt: skip
def test_an_unknown_or_foreign_link_says_what_was_asked_and_why(dashboard, page, params, says):
    text = _refused(_open(page, **params))
    assert says in text, text
    param, value = next(iter(params.items()))
    assert value in text


def test_a_damaged_file_says_why_and_the_page_still_shows_something(dashboard):
    (dashboard / "runs").mkdir()
    (dashboard / "runs" / "cut.json").write_text('{"question": "half a run', encoding="utf-8")
    (dashboard / "runs" / "other.json").write_text('{"format": 1}', encoding="utf-8")
    at = _open("1_Explore_a_question.py", run="dashboard/runs/cut.json")
    assert "cut.json is not valid JSON" in _refused(at)
    assert at.subheader[0].value == RunArtifact.load(assets.DEMO_RUN).question  # the demo instead
    at = _open("1_Explore_a_question.py", run="dashboard/runs/other.json")
    assert "other.json is not a saved run" in _refused(at)
    entry = archive.keep_run(archive.store(), RunArtifact.load(assets.DEMO_RUN))
    (archive.store().root / entry / "payload.json").write_bytes(b"\x00garbage")  # a disk fault
    at = _open("1_Explore_a_question.py", entry=entry)
    assert f"history entry {entry} is damaged" in _refused(at)


# --- the sidebar's own reference file ------------------------------------------------------


@pytest.fixture(scope="module")
def own_reference_file(tmp_path_factory) -> Path:
    """What `invent reference build docs/results/evaluate-arithmetic-100` writes (LLM rewordings)."""
    from invent_core.experiments.own_reference import build_reference

    path = tmp_path_factory.mktemp("reference") / "arithmetic-mine.json"
    build_reference(ROOT / "docs" / "results" / "evaluate-arithmetic-100").save(path)
    return path


def _pair_run() -> RunArtifact:
    """The home page's right answer as that evaluation saved it: its settings (paraphrase, 0.5B).

    (The home page shows it re-scored with today's default scoring, which may differ.)
    """
    pair = json.loads(assets.DEMO_PAIR.read_text(encoding="utf-8"))["pair"]
    runs = ROOT / "docs" / "results" / "evaluate-arithmetic-100" / "runs"
    question = pair[0]["run"]["question"]
    (run,) = [r for p in runs.glob("*.json") if (r := RunArtifact.load(p)).question == question]
    return run


def _own(at: AppTest) -> str | None:
    """The reference file the sidebar chose (None: the shipped references)."""
    here = state.OWN_REFERENCE in at.session_state
    return at.session_state[state.OWN_REFERENCE] if here else None


def _explore_with(run: RunArtifact) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / "1_Explore_a_question.py"), default_timeout=TIMEOUT)
    at.session_state[state.EXPLORE_RUN] = run
    return at.run()


def test_an_uploaded_reference_places_the_run_among_its_questions(
    dashboard, own_reference_file, monkeypatch
):
    from invent_core.evaluation import reference
    from invent_core.evaluation.reference import load_own_reference, place
    from invent_ui.session import resources

    run = _pair_run()
    at = _explore_with(run)
    assert any(c.value.startswith("Among ") for c in at.caption)  # the shipped references
    data = own_reference_file.read_bytes()
    at.file_uploader(key="sb_reference_upload").set_value(
        ("arithmetic-mine.json", data, "application/json")
    ).run()
    assert_clean(at)
    (kept,) = (dashboard / "references").glob("*.json")
    assert kept.read_bytes() == data and _own(at) == places.name_of(kept)
    assert any(f"your file **{places.name_of(kept)}**" in c.value for c in at.caption)
    shipped_lookups = []
    monkeypatch.setattr(reference, "for_settings", lambda *a, **k: shipped_lookups.append(a))
    at.run()
    assert_clean(at)
    assert shipped_lookups == []  # the shipped references are not read
    ref = place(load_own_reference(own_reference_file), run.question,
                resources.embedder(run.config.score.embedder), task=run.task)  # fmt: skip
    want = ref.describe(float(run.score.measures["inv_entropy"]))
    percentile = next(m for m in at.metric if m.label == "Percentile")
    assert percentile.value == f"{want['percentile']:.0f}"
    # a run made with other settings (the demo run: GAAP) is refused, naming what differs
    at.session_state[state.EXPLORE_RUN] = RunArtifact.load(assets.DEMO_RUN)
    at.run()
    assert not at.exception
    (error,) = [e.value for e in at.error]
    assert "made with other settings than this run" in error and (
        "perturber: file 'paraphrase', run 'gaap'" in error
    )
    assert not [m for m in at.metric if m.label == "Percentile"]  # no number from it
    at.selectbox(key="sb_reference").set_value("shipped references").run()  # back to shipped
    assert not at.exception and _own(at) is None


def test_a_typed_reference_path_and_a_bad_file_are_checked(dashboard, own_reference_file):
    target = dashboard / "references" / "typed.json"
    target.parent.mkdir()
    target.write_bytes(own_reference_file.read_bytes())
    at = _explore_with(_pair_run())
    at.file_uploader(key="sb_reference_upload").set_value(
        ("notes.json", b'{"hello": 1}', "application/json")
    ).run()
    assert not at.exception
    assert "Reference file refused: notes.json: not a reference set" in at.sidebar.error[0].value
    assert _own(at) is None
    assert list((dashboard / "references").glob("notes*")) == []  # not kept
    at.text_input(key="sb_reference_path").input("/etc/passwd").run()
    assert "'/etc/passwd' is an absolute path" in at.sidebar.error[0].value
    at.text_input(key="sb_reference_path").input("dashboard/references/typed.json").run()
    assert_clean(at)
    assert _own(at) == "dashboard/references/typed.json"
    assert any("your file **dashboard/references/typed.json**" in c.value for c in at.caption)


def test_explore_offers_the_report_of_the_run_shown(dashboard):
    from invent_core.report import run_report

    run = _pair_run()
    at = _explore_with(run)
    button = next(b for b in at.get("download_button") if b.label == "Download report (HTML)")
    assert button.proto.id and "explore_report" in button.proto.id
    html = run_report(run)  # what the button's click makes
    assert run.question in html and "<script" in html


# --- GAAP evolution and Side by side: their history entries, with a link to copy ----------
def test_a_gaap_trace_and_a_comparison_offer_their_links(dashboard):
    from invent_core.perturb.gaap import GaapResult

    store = archive.store()
    trace = GaapResult.from_dict(json.loads(Path(assets.DEMO_GAAP).read_text(encoding="utf-8")))
    gaap = archive.keep_gaap(store, trace, settings={})
    at = _open("3_GAAP_evolution.py", entry=gaap)
    assert_clean(at)
    assert _link(at) == f"?entry={gaap}"
    run = RunArtifact.load(assets.DEMO_RUN).to_dict()
    pair = archive.keep_payload(store, "comparison", {"left": run, "right": run}, "a pair")
    at = _open("8_Side_by_side.py", entry=pair)
    assert_clean(at)
    assert _link(at) == f"?entry={pair}"
    fresh = _open("3_GAAP_evolution.py")  # no link: the newest kept trace, still named
    assert _link(fresh) == f"?entry={gaap}"
