"""The shape rules of the style guide that ruff cannot check.

No function in ``invent_core`` or ``invent_ui`` is longer than 80 lines (STYLE.md,
"Small units"; ruff's C901 checks complexity), no page is longer than 250 lines (the app
is a shell), and no module docstring names a path on the developers' machines.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = sorted((ROOT / "invent_core").rglob("*.py"))
UI = sorted((ROOT / "invent_ui").rglob("*.py"))
PAGES = sorted((ROOT / "pages").glob("*.py"))
MAX_LINES = 80
MAX_PAGE_LINES = 250


def _functions(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node.name, node.lineno, node.end_lineno - node.lineno + 1


@pytest.mark.parametrize("path", [*CORE, *UI], ids=lambda p: str(p.relative_to(ROOT)))
def test_no_function_over_80_lines(path):
    long = [
        f"{name} (line {line}: {n} lines)" for name, line, n in _functions(path) if n > MAX_LINES
    ]
    assert not long, f"{path.relative_to(ROOT)}: " + "; ".join(long)


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_no_page_over_250_lines(path):
    n = len(path.read_text(encoding="utf-8").splitlines())
    assert n <= MAX_PAGE_LINES, f"{path.relative_to(ROOT)}: {n} lines (at most {MAX_PAGE_LINES})"


def test_the_rule_sees_a_long_function(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES))
    src = tmp_path / "long.py"
    src.write_text(f"def f():\n{body}\n")
    assert [n for _, _, n in _functions(src)] == [MAX_LINES + 1]


@pytest.mark.parametrize(
    "path",
    [*CORE, *UI, *PAGES],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_docstrings_name_repo_paths_only(path):
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    assert "/work/" not in doc and "/root/" not in doc, (
        f"{path.relative_to(ROOT)} names a machine path"
    )
