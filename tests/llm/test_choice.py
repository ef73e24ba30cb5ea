"""``LLMChoice``: the command line and the dashboard make the same choice, built and named once."""

from __future__ import annotations

import dataclasses
import re
from typing import get_args

import pytest
from secret_server import SecretServer

from invent_core.cli import build_parser
from invent_core.commands.common import choice_from_args, identity_from_args, llm_from_args
from invent_core.config import LLMChoice
from invent_core.config.llm import Dtype, Engine
from invent_core.llm import ENGINES
from invent_core.llm.choice import build_llm, choice_identity, paraphrase_identity
from invent_core.llm.hf import DTYPES
from invent_core.llm.local import LOCAL_MODELS
from invent_ui.session.settings import Settings

#: The same choice, typed on the command line and picked in the sidebar.
SAME = [
    (
        ["--llm", "openai", "--base-url", "http://gpu1:8000/v1", "--base-url",
         "http://gpu2:8000/v1", "--model", "llama", "--thinking", "on"],
        {"llm": "openai", "base_url": "http://gpu1:8000/v1,http://gpu2:8000/v1",
         "model": "llama", "llm_thinking": True},
    ),
    (
        ["--llm", "qwen0.5b", "--threads", "2", "--llm-engine", "llamacpp"],
        {"llm": "qwen0.5b", "llm_threads": 2, "llm_engine": "llamacpp"},
    ),
    (
        ["--llm", "qwen0.5b", "--paraphrase-llm", "openai", "--paraphrase-base-url",
         "http://para:1/v1", "--paraphrase-model", "gpt"],
        {"llm": "qwen0.5b", "paraphrase_llm": "openai", "paraphrase_base_url": "http://para:1/v1",
         "paraphrase_model": "gpt"},
    ),
]  # fmt: skip


def _args(*options: str):
    return build_parser().parse_args(["run", "Q?", *options])


@pytest.mark.parametrize(("typed", "picked"), SAME)
def test_the_same_choice_from_the_cli_and_the_sidebar_is_one_object(typed, picked):
    from_cli = choice_from_args(_args(*typed))
    from_sidebar = Settings.from_dict(picked).llm_choice
    assert from_cli == from_sidebar
    assert choice_identity(from_cli) == choice_identity(from_sidebar)
    assert paraphrase_identity(from_cli) == paraphrase_identity(from_sidebar)


def test_a_served_identity_asks_no_server_and_matches_the_built_backend():
    with SecretServer("answer") as srv:
        choice = LLMChoice(llm="openai", base_url=srv.base_url, model="m", thinking=True)
        built = build_llm(choice)
        assert choice_identity(choice) == built.identity == f"{srv.base_url}|model=m|thinking=on"
        assert srv.seen == []  # neither the identity nor the build contacted it
    assert choice_identity(choice.replace(model=None)) == "openai"  # the server would name it


def test_credentials_do_not_change_which_server_a_choice_names():
    plain = LLMChoice(llm="openai", base_url="https://h:8443/v1", model="m")
    keyed = plain.replace(base_url="https://me:pw@h:8443/v1?access_token=t0k3n")
    assert choice_identity(keyed) == choice_identity(plain) == "https://h:8443/v1|model=m"


def test_the_paraphraser_falls_back_to_the_answering_server():
    choice = LLMChoice(llm="openai", base_url="http://a/v1", model="m", paraphrase_llm="openai",
                       paraphrase_model="p", api_key_env="K")  # fmt: skip
    para = choice.paraphraser()
    assert (para.llm, para.base_url, para.model, para.api_key_env) == (
        "openai",
        "http://a/v1",
        "p",
        "K",
    )
    assert choice.replace(paraphrase_model=None).paraphraser() is None  # the answering model
    assert choice.answerer().paraphraser() is None


def test_the_packaged_file_named_as_paraphraser_is_the_answering_model():
    packaged = LOCAL_MODELS["qwen0.5b"].path()
    choice = LLMChoice(llm="local", paraphrase_llm=f"gguf:{packaged}", no_cache=True)
    llm = build_llm(choice)
    assert not hasattr(llm, "paraphraser")  # one backend for one set of weights
    assert paraphrase_identity(choice) == choice_identity(choice)  # the estimate: one rate


def test_the_cli_options_are_the_fields():
    """Every field is an option (and nothing else is): a new field reaches the CLI at once."""
    text = build_parser()._subparsers._group_actions[0].choices["run"].format_help()
    group = text[text.index("LLM backend:") :]
    flags = set(re.findall(r"^  (--[a-z-]+)", group, re.M))
    fields = {"--" + f.name.replace("_", "-") for f in dataclasses.fields(LLMChoice)}
    assert fields <= flags
    assert choice_from_args(_args()) == LLMChoice()  # the defaults are the config's
    assert identity_from_args(_args()) == choice_identity(LLMChoice())
    assert llm_from_args(_args("--no-cache")).identity == choice_identity(LLMChoice())


def test_the_engines_and_dtypes_are_written_once():
    assert ENGINES == get_args(Engine)
    assert tuple(DTYPES) == get_args(Dtype)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"llm": " "}, "LLMChoice.llm must name a model"),
        ({"llm_engine": "vulkan"}, "LLMChoice.llm_engine must be one of"),
        ({"threads": 0}, "LLMChoice.threads must be at least 1"),
        ({"thinking": "on"}, "LLMChoice.thinking must be true or false"),
    ],
)
def test_a_bad_choice_is_refused_naming_the_field(changes, message):
    with pytest.raises(ValueError, match=message):
        LLMChoice(**changes)


def test_blank_fields_are_not_given():
    choice = LLMChoice(base_url=" ", model="", paraphrase_base_url="")
    assert (choice.base_url, choice.model, choice.paraphrase_base_url) == (None, None, None)


def test_the_sidebar_shows_and_saves_its_servers_without_credentials():
    picked = {"llm": "openai", "base_url": "http://me:pw-77aa@h:1/v1?key=k-99zz,http://h2:1/v1",
              "paraphrase_base_url": "https://p/v1?access_token=t-55yy"}  # fmt: skip
    settings = Settings.from_dict(picked)
    shown = " ".join([settings.llm_label, str(settings.public_dict())])
    assert all(s not in shown for s in ("pw-77aa", "k-99zz", "t-55yy"))
    assert settings.public_dict()["base_url"] == "http://h:1/v1,http://h2:1/v1"
    assert settings.to_dict()["base_url"] == picked["base_url"]  # the session keeps what it sends


def test_a_bad_option_is_named_as_typed():
    with pytest.raises(ValueError, match="^--llm-dtype must be one of 'auto', 'bf16'"):
        choice_from_args(_args("--llm-dtype", "fp8"))
