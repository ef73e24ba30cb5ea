"""The package layout of issue 19: a folder per concern, old module paths still import.

Written by the issue-19 codemod (restructure.py) together with ``_MOVED`` in
``invent_core/__init__.py``.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

import invent_core

ROOT = Path(__file__).resolve().parents[1]
MOVED = sorted(invent_core._MOVED.items())


def test_at_most_twelve_modules_at_the_top():
    top = sorted(p.name for p in (ROOT / "invent_core").glob("*.py"))
    assert len(top) <= 12, top


@pytest.mark.parametrize(("old", "new"), MOVED, ids=[o for o, _ in MOVED])
def test_an_old_module_path_is_the_new_module(old, new):
    moved = importlib.import_module(f"invent_core.{new}")
    assert importlib.import_module(f"invent_core.{old}") is moved
    assert not (ROOT / "invent_core" / f"{old}.py").exists()


def test_the_repo_uses_only_new_module_paths():
    olds = "|".join(re.escape(o) for o, _ in MOVED)
    pattern = re.compile(rf"(?<![\w.])invent_core[./](?:{olds})(?![\w/])")
    hits = []
    for folder in ("invent_core", "invent_ui", "pages", "tests", "scripts", "benchmarks"):
        for path in (ROOT / folder).rglob("*.py"):
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if pattern.search(line):
                    hits.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not hits, "\n".join(hits[:20])
