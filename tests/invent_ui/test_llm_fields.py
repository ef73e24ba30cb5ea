"""The model choice in the sidebar is generated from ``LLMChoice`` and is the CLI's object."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

from invent_core.cli import build_parser  # noqa: E402
from invent_core.commands.common import choice_from_args  # noqa: E402
from invent_core.config import LLMChoice  # noqa: E402
from invent_core.llm.choice import choice_identity, paraphrase_identity  # noqa: E402
from invent_core.llm.local import QWEN_05B  # noqa: E402
from invent_ui.session import state  # noqa: E402
from invent_ui.session.llm_fields import FIELDS, choice_from_flat, settings_key  # noqa: E402
from invent_ui.session.settings import Settings  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 180  # a model file hashed, under load

#: The same choice typed on the command line and set in the sidebar's widgets (key → value).
SAME = {
    "served, two servers, thinking, in flight": (
        ["--llm", "openai", "--base-url", "http://gpu1:8000/v1", "--base-url",
         "http://gpu2:8000/v1", "--model", "llama", "--thinking", "on", "--concurrency", "auto",
         "--stall-timeout", "45"],
        [("selectbox", "llm", "openai"),
         ("text_input", "base_url", "http://gpu1:8000/v1,http://gpu2:8000/v1"),
         ("text_input", "model", "llama"), ("checkbox", "llm_thinking", True),
         ("text_input", "concurrency", "auto"), ("number_input", "stall_timeout", 45.0)],
    ),
    "packaged, its engine, dtype and threads": (
        ["--llm", "qwen0.5b", "--threads", "2", "--llm-engine", "llamacpp", "--llm-dtype", "fp32"],
        [("selectbox", "llm", "qwen0.5b"), ("number_input", "llm_threads", 2),
         ("selectbox", "llm_engine", "llamacpp"), ("selectbox", "llm_dtype", "fp32")],
    ),
    "your model answers, a server rewords": (
        ["--llm", f"gguf:{QWEN_05B.path()}", "--paraphrase-llm", "openai",
         "--paraphrase-base-url", "http://para:1/v1", "--paraphrase-model", "gpt",
         "--concurrency", "3"],
        [("selectbox", "llm", "own"), ("text_input", "llm_path", str(QWEN_05B.path())),
         ("selectbox", "paraphrase_llm", "openai"),
         ("text_input", "paraphrase_base_url", "http://para:1/v1"),
         ("text_input", "paraphrase_model", "gpt"), ("text_input", "concurrency", "3")],
    ),
}  # fmt: skip


def _sidebar() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("case", list(SAME))
def test_the_same_choice_from_the_cli_and_the_sidebar_is_one_object(case):
    typed, widgets = SAME[case]
    from_cli = choice_from_args(build_parser().parse_args(["run", "Q?", *typed]))
    at = _sidebar()
    for widget, name, value in widgets:
        control = getattr(at, widget)(key=state.SIDEBAR_PREFIX + name)
        (control.check() if value is True else control.set_value(value)).run()
        assert not at.exception, [e.value for e in at.exception]
    assert not at.sidebar.error, [e.value for e in at.sidebar.error]  # "own" waits for its path
    from_sidebar = Settings.from_dict(at.session_state[state.SETTINGS]).llm_choice
    assert from_sidebar == from_cli
    assert choice_identity(from_sidebar) == choice_identity(from_cli)
    assert paraphrase_identity(from_sidebar) == paraphrase_identity(from_cli)


def test_every_dashboard_field_has_its_widget_and_the_others_say_why():
    at = _sidebar()
    at.selectbox(key="sb_llm").set_value("openai").run()
    at.selectbox(key="sb_paraphrase_llm").set_value("openai").run()
    served = {w.key for w in at.sidebar if getattr(w, "key", None)}
    at.selectbox(key="sb_llm").set_value("qwen0.5b").run()
    local = {w.key for w in at.sidebar if getattr(w, "key", None)}
    for opt in FIELDS:  # each one drawn where it applies, under its saved name
        assert state.SIDEBAR_PREFIX + settings_key(opt) in served | local, opt.name
    assert {"sb_base_url", "sb_model"} <= served - local  # a server's fields: only for one
    assert {"sb_llm_engine", "sb_llm_threads"} <= local - served
    shown = {opt.name for opt in FIELDS}
    for f in dataclasses.fields(LLMChoice):
        if f.name not in shown:  # a field the dashboard leaves out says why, in the config
            assert f.metadata["ui"] is False and len(f.metadata["ui_why"]) > 20, f.name
    assert shown >= {"llm", "base_url", "model", "thinking", "threads", "concurrency"}


def test_settings_saved_before_the_choice_was_one_object_still_load():
    """A settings dict as the sidebar saved it before (its keys, "own" and its path,
    0 threads, blank servers) gives the same choice, and saves back the same way."""
    old = {"llm": "own", "base_url": "", "model": "", "llm_engine": "llamacpp",
           "llm_threads": 0, "llm_thinking": True, "llm_path": "/models/m.gguf",
           "paraphrase_llm": "openai", "paraphrase_path": "", "paraphrase_base_url":
           "http://p:1/v1", "paraphrase_model": "", "n_perturbations": 4}  # fmt: skip
    settings = Settings.from_dict(old)
    assert settings.llm_choice == LLMChoice(
        llm="gguf:/models/m.gguf", llm_engine="llamacpp", thinking=True,
        paraphrase_llm="openai", paraphrase_base_url="http://p:1/v1",
    )  # fmt: skip
    assert settings.run.n_perturbations == 4
    saved = settings.to_dict()
    assert {k: saved[k] for k in old} == old  # the same keys and values as before
    assert Settings.from_dict(saved) == settings
    assert Settings.from_dict({"llm": "qwen0.5b"}).llm_choice == LLMChoice(llm="qwen0.5b")


@pytest.mark.parametrize(
    ("flat", "message"),
    [
        ({"llm_threads": 600}, '^"llama.cpp threads" must be at most 512'),
        ({"concurrency": "lots"}, '^"Requests in flight .*" must be a number in 1 … 256'),
        ({"concurrency": "0"}, "must be a number in 1 … 256"),
        ({"llm_engine": "vulkan"}, '^"LLM engine" must be one of'),
    ],
)
def test_a_value_the_choice_refuses_is_named_by_its_widget(flat, message):
    with pytest.raises(ValueError, match=message):
        choice_from_flat(flat)


def test_a_refused_value_in_the_sidebar_keeps_the_previous_choice():
    at = _sidebar()
    at.text_input(key="sb_concurrency").set_value("4").run()
    at.text_input(key="sb_concurrency").set_value("lots").run()
    errors = " ".join(e.value for e in at.sidebar.error)
    assert "Requests in flight" in errors and "Keeping the previous settings" in errors
    assert Settings.from_dict(at.session_state[state.SETTINGS]).llm_choice.concurrency == 4
