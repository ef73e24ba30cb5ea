"""The dashboard's "your model" path and paraphrasing model under AppTest.

The path field is checked at once against real files (the packaged GGUF, a
text file, a folder with and without ``config.json``); an Explore run with
two recording OpenAI-compatible servers on 127.0.0.1 sends the rewordings to
one and the answers to the other, and the caption names both.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402
from test_model_files import hf_folder  # noqa: E402
from test_paraphrase_llm import REWORDINGS, RecordingServer, rewording_for  # noqa: E402
from test_thinking import Server  # noqa: E402

from invent_core.llm import user  # noqa: E402
from invent_core.llm.local import QWEN_05B  # noqa: E402
from invent_ui.session.own_model import check_model_path  # noqa: E402
from invent_ui.session.resources import chosen_llm_identity, llm_for  # noqa: E402
from invent_ui.session.settings import Settings  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 180

pytestmark = pytest.mark.slow  # the Explore run loads the packaged embedder


@pytest.fixture(autouse=True)
def own_history(monkeypatch, tmp_path):
    from invent_core.workbench.history import HistoryStore
    from invent_ui.session import archive

    monkeypatch.setattr(archive, "store", lambda: HistoryStore(tmp_path / "history"))


@pytest.fixture(scope="module")
def gguf() -> Path:
    return QWEN_05B.path()


def test_the_path_check_names_model_engine_and_device_or_the_problem(tmp_path, gguf):
    ok = check_model_path(str(gguf))
    assert ok.ok and ok.spec == f"gguf:{gguf}"
    assert "0.5B" in ok.message and "llama.cpp" in ok.message and "device: CPU" in ok.message
    (tmp_path / "notes.txt").write_text("hello")
    assert "not a GGUF file" in check_model_path(str(tmp_path / "notes.txt")).message
    assert "no such file" in check_model_path(str(tmp_path / "nope.gguf")).message
    assert "without config.json" in check_model_path(str(tmp_path)).message
    (tmp_path / "config.json").write_text("{}")  # a config.json of nothing: checked by content
    assert "names no model_type" in check_model_path(str(tmp_path)).message
    whole = hf_folder(tmp_path / "model")
    folder = check_model_path(str(whole))
    assert folder.ok and folder.spec == f"hf:{whole}"  # the transformers engine runs it
    assert "engine: transformers" in folder.message
    long = check_model_path(str(tmp_path / ("m" * 300)))  # said, never raised
    assert long.level == "error" and "File name too long" in long.message


def test_your_model_in_the_sidebar_is_checked_as_typed(tmp_path, gguf):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.selectbox(key="sb_llm").set_value("own").run()
    at.text_input(key="sb_llm_path").set_value(str(gguf)).run()
    assert not at.exception
    assert any("llama.cpp" in s.value for s in at.sidebar.success)
    saved = at.session_state["invent_settings"]
    assert saved["llm"] == "own" and saved["llm_path"] == str(gguf)
    # a file that is no model: said at once, the previous (usable) settings stay
    (tmp_path / "notes.txt").write_text("hello")
    at.text_input(key="sb_llm_path").set_value(str(tmp_path / "notes.txt")).run()
    assert not at.exception
    errors = [e.value for e in at.sidebar.error]
    assert any("not a GGUF file" in e for e in errors)
    assert any("Keeping the previous settings" in e for e in errors)
    assert at.session_state["invent_settings"]["llm_path"] == str(gguf)
    # a name over the system's limit: an error in the sidebar, every page still draws
    at.text_input(key="sb_llm_path").set_value("/tmp/" + "m" * 300).run()
    assert not at.exception
    assert any("File name too long" in e.value for e in at.sidebar.error)
    at.switch_page("pages/1_Explore_a_question.py").run()
    assert not at.exception


def test_llama_cpp_threads_are_a_sidebar_setting():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    assert at.session_state["invent_settings"]["llm_threads"] == 0  # llama.cpp's choice
    at.number_input(key="sb_llm_threads").set_value(1).run()
    assert not at.exception and at.session_state["invent_settings"]["llm_threads"] == 1


def test_explore_with_a_paraphrasing_model_names_both(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    rewriter = RecordingServer(rewording_for)
    answerer = RecordingServer(lambda body, k: "Paris")
    try:
        at = AppTest.from_file(
            str(ROOT / "pages/1_Explore_a_question.py"), default_timeout=TIMEOUT
        ).run()
        at.selectbox(key="sb_llm").set_value("openai").run()
        at.text_input(key="sb_base_url").set_value(answerer.base_url)
        at.text_input(key="sb_model").set_value("answerer").run()
        at.selectbox(key="sb_paraphrase_llm").set_value("openai").run()
        at.text_input(key="sb_paraphrase_base_url").set_value(rewriter.base_url)
        at.text_input(key="sb_paraphrase_model").set_value("rewriter").run()
        at.number_input(key="sb_n_perturbations").set_value(2).run()
        at.number_input(key="sb_n_replications").set_value(2).run()
        at.selectbox(key="sb_paraphrase_style").set_value("single").run()
        assert not at.exception and not at.error, [e.value for e in at.error]
        estimate = " ".join(c.value for c in at.caption)
        assert "(answers) and rewriter at 127.0.0.1" in estimate  # counted before Run
        at.text_area(key="explore_question").set_value("What is the capital of France?")
        at.button(key="explore_run_button").click().run()
        job = at.session_state["explore_job"]
        assert job.wait(TIMEOUT)
        at.run()
        assert not at.exception and not at.error, [e.value for e in at.error]
    finally:
        rewriter.close()
        answerer.close()
    assert rewriter.bodies and answerer.bodies
    assert all(b["model"] == "rewriter" for b in rewriter.bodies)
    assert all(b["model"] == "answerer" for b in answerer.bodies)
    captions = " ".join(c.value for c in at.caption)
    assert "paraphrases by **rewriter at 127.0.0.1" in captions
    run = at.session_state["explore_run"]
    assert set(run.perturbations) <= set(REWORDINGS)
    assert run.identities["paraphrase_llm"] == f"{rewriter.base_url}|model=rewriter"
    assert run.identities["llm"] == f"{answerer.base_url}|model=answerer"
    from invent_core.workbench.history import HistoryStore

    kept = HistoryStore(tmp_path / "history").list("run")[0]  # the run kept in the history
    assert "paraphrases: rewriter at 127.0.0.1" in kept.settings_summary
    settings = json.dumps(at.session_state["invent_settings"])
    assert '"paraphrase_llm": "openai"' in settings


def test_the_thinking_switch_is_a_sidebar_setting_sent_to_the_server(monkeypatch):
    """The thinking switch in the dashboard: off by default; on, the server is told and the identity says so."""
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    assert at.session_state["invent_settings"]["llm_thinking"] is False
    at.checkbox(key="sb_llm_thinking").check().run()
    assert not at.exception and at.session_state["invent_settings"]["llm_thinking"] is True
    server = Server("tags")
    try:
        chosen = {**at.session_state["invent_settings"], "llm": "openai", "base_url": server.url}
        settings = Settings.from_dict({**chosen, "model": "qwen3"})
        llm = llm_for(settings)
        got = llm.complete(user("Capital of France?"))
        assert (got.text, got.thinking) == ("Paris", "Let me think about 'Capital of France?'.")
        assert server.bodies[-1]["chat_template_kwargs"] == {"enable_thinking": True}
        assert (
            llm.identity.endswith("|thinking=on") and chosen_llm_identity(settings) == llm.identity
        )
        off = llm_for(Settings.from_dict({**chosen, "model": "qwen3", "llm_thinking": False}))
        assert off.complete(user("Capital of France?")).thinking == ""
        assert server.bodies[-1]["chat_template_kwargs"] == {"enable_thinking": False}
    finally:
        server.close()
