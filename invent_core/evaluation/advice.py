"""Model advice: say when the packaged 0.5B model is too weak, and what to do instead.

With the packaged Qwen2.5-0.5B, accuracy on TriviaQA was 0/3 and 0/12 in
an early trial; uncertainty metrics then have no correct answers to rank
and the page or the command ends silently. :func:`model_advice` returns the
message that names the two ways to a stronger model, with the exact steps
for where the user is (the dashboard names its controls, the CLI its flags).
"""

from __future__ import annotations

import math
from typing import Literal

from ..llm.local import QWEN_15B
from ..llm.names import local_model

__all__ = ["ACCURACY_FLOOR", "MIN_ANSWERS", "STRONG_LABEL", "SERVER_LABEL", "model_advice"]

#: Below this accuracy the packaged model is called too weak (ours).
ACCURACY_FLOOR = 0.10
#: Fewest judged answers before saying so (ours: 0/1 or 0/2 is chance).
MIN_ANSWERS = 3
#: The sidebar's names of the two choices (invent_ui.session.settings.LLM_LABELS begins with these;
#: tests/evaluation/test_advice.py checks they stay in step).
STRONG_LABEL = "Local · Qwen2.5-1.5B"
SERVER_LABEL = "OpenAI-compatible server"


def _strong_installed() -> bool:
    return QWEN_15B.installed()


def _dashboard_steps(strong_installed: bool) -> str:
    if strong_installed:
        strong = f'choose "{STRONG_LABEL}" under LLM backend in the sidebar and run again'
    else:
        strong = (
            "stop the dashboard, run `pip install -r requirements-strong.txt` (1.1 GB), "
            f'start it again and choose "{STRONG_LABEL}" under LLM backend in the sidebar'
        )
    server = (
        f'choose "{SERVER_LABEL}" under LLM backend in the sidebar and enter its '
        "Server URL (…/v1), Model and API key"
    )
    return (
        f"(1) the optional local 1.5B model: {strong}; (2) any OpenAI-compatible server: {server}."
    )


def _cli_steps(strong_installed: bool) -> str:
    install = "" if strong_installed else "`pip install -r requirements-strong.txt` (1.1 GB), then "
    strong = f"{install}add `--llm qwen1.5b`"
    server = (
        "add `--llm openai --base-url http://HOST:PORT/v1 --model MODEL` "
        "(the key from $OPENAI_API_KEY)"
    )
    return (
        f"(1) the optional local 1.5B model: {strong}; (2) any OpenAI-compatible server: {server}."
    )


def model_advice(
    accuracy: float,
    n: int,
    llm_identity: str,
    *,
    surface: Literal["dashboard", "cli"] = "dashboard",
    strong_installed: bool | None = None,
) -> str | None:
    """Advice to use a stronger model, or ``None`` when there is nothing to advise.

    Parameters
    ----------
    accuracy : share of answers judged correct, in [0, 1] (NaN: no advice).
    n : answers (questions) it rests on; fewer than :data:`MIN_ANSWERS`: no advice.
    llm_identity : the LLM's ``identity`` (or spec); only the packaged 0.5B is advised on.
    surface : ``"dashboard"`` names the sidebar controls, ``"cli"`` the options.
    strong_installed : whether requirements-strong.txt is installed (default:
        look); when it is, the install step is left out.

    Returns
    -------
    str or None
        A message when ``accuracy`` < 10 % on ≥ 3 answers with the packaged
        Qwen2.5-0.5B, naming the optional 1.5B model and the OpenAI-compatible
        backend with exact steps.

    Examples
    --------
    >>> model_advice(0.5, 12, "local") is None
    True
    """
    if surface not in ("dashboard", "cli"):
        raise ValueError(f"surface must be 'dashboard' or 'cli', got {surface!r}")
    if local_model(llm_identity) != "qwen0.5b" or n < MIN_ANSWERS:
        return None
    if not math.isfinite(accuracy) or accuracy >= ACCURACY_FLOOR:
        return None
    if strong_installed is None:
        strong_installed = _strong_installed()
    steps = (
        _dashboard_steps(strong_installed)
        if surface == "dashboard"
        else _cli_steps(strong_installed)
    )
    correct = round(accuracy * n)
    return (
        f"Only {correct} of {n} answers were correct ({accuracy:.0%}) with the packaged "
        "Qwen2.5-0.5B, a small model that often does not know the answer; uncertainty "
        "scores mean little when almost every answer is wrong. For a stronger model: " + steps
    )
