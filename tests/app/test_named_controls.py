"""A message that names a control names one the page shows (the sidebar's or the page's own).

invent_core's messages speak of command-line flags; the dashboard says which
control does the same (``invent_ui.jobs.feedback.public_text``). Each flag of a
run option, and each flag the dashboard maps by hand, must come out as the
label of a widget really drawn: read from the Evaluation page under AppTest,
with the sidebar set to a server so that its URL and model boxes are drawn too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

from invent_core.config import RunConfig, iter_options  # noqa: E402
from invent_ui.jobs.feedback import CONTROLS, public_text  # noqa: E402
from invent_ui.session import state  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _labels(at: AppTest) -> set[str]:
    labels = set()

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        label = getattr(proto, "label", None) if proto is not None else None
        if isinstance(label, str) and label:
            labels.add(label)
        children = getattr(node, "children", None)
        for child in (children.values() if isinstance(children, dict) else children) or []:
            walk(child)

    walk(at._tree)
    return labels


def _sections(at: AppTest) -> set[str]:
    return {m.value.strip("*") for m in at.sidebar.markdown if m.value.startswith("**")}


def test_every_control_a_message_names_is_drawn():
    at = AppTest.from_file(str(ROOT / "pages" / "6_Evaluation.py"), default_timeout=120)
    at.session_state[state.SIDEBAR_PREFIX + "llm"] = "openai"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    labels, sections = _labels(at), _sections(at)
    flags = [opt.long_flag for opt in iter_options(RunConfig)]
    flags += [f for f in CONTROLS if f != "--data"]  # the uploaded file: no control
    missing = []
    for flag in flags:
        said = public_text(f"see {flag}")
        named = re.findall(r'"([^"]+)"', said)
        assert named, f"{flag} → {said!r} names no control"
        if not any(label.startswith(named[0]) for label in labels):
            missing.append(f"{flag} → {said}")
        under = re.search(r"under (.+) \(sidebar, Advanced\)", said)
        if under and under.group(1) not in sections:
            missing.append(f"{flag} → {said} (no section {under.group(1)!r})")
    assert not missing, "\n".join(missing)
