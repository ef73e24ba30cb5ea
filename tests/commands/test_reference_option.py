"""Where ``--reference`` and ``$INVENT_REFERENCE_DIR`` are read: at the command line, once.

The path goes down as an argument (``run_question(reference_path=…)``,
``batch_score(reference_path=…)``); no floor below the entry points reads the
variable, and no command writes it for another floor to read.
"""

from __future__ import annotations

import os
from pathlib import Path

from invent_core.cli import build_parser
from invent_core.commands.reference import reference_path
from invent_core.env import REFERENCE_ENV

ROOT = Path(__file__).resolve().parents[2]


def test_the_option_wins_over_the_variable_which_wins_over_the_shipped(tmp_path, monkeypatch):
    monkeypatch.delenv(REFERENCE_ENV, raising=False)
    for command in (["run", "Q?"], ["batch", "in.csv", "-o", "out.csv"], ["score", "a.json"]):
        args = build_parser().parse_args(command)
        assert reference_path(args) is None  # the shipped references
    monkeypatch.setenv(REFERENCE_ENV, str(tmp_path))
    assert reference_path(build_parser().parse_args(["run", "Q?"])) == tmp_path
    mine = tmp_path / "mine.json"
    args = build_parser().parse_args(["run", "Q?", "--reference", str(mine)])
    assert reference_path(args) == mine


def test_only_the_entry_points_name_the_variable():
    """The library below the command line and the dashboard neither reads nor writes it."""
    touched = [
        path.relative_to(ROOT).as_posix()
        for folder in ("invent_core", "invent_ui")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if "environ" in line and "REFERENCE" in line
    ]
    assert touched == ["invent_core/env.py"]  # reference_override, and nothing else
    users = [
        path.relative_to(ROOT).as_posix()
        for folder in ("invent_core", "invent_ui")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if "reference_override(" in path.read_text(encoding="utf-8") and path.name != "env.py"
    ]
    assert users == ["invent_core/commands/reference.py", "invent_ui/session/resources.py"]
    assert REFERENCE_ENV not in os.environ  # the suite runs without the user's setting
