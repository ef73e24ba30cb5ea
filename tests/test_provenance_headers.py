"""Every printout a script or a benchmark makes starts with the code behind it.

A number in docs/ that cannot be traced to a commit cannot be told stale or
fresh, so every script under ``scripts/`` and every benchmark under
``benchmarks/`` that has a ``main`` prints :func:`invent_core.provenance.provenance_line`
when it runs; the test reads their source, and runs one to see the header.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from invent_core.provenance import COMMIT_UNKNOWN, provenance, provenance_line

ROOT = Path(__file__).resolve().parents[1]
#: Files that make no printout of numbers, with the reason.
EXEMPT = {
    "scripts/import_graph.py": "draws the import graph of the tree itself (tests/test_layout.py checks it)",
}


def _calls_header_in_main(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    main = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main"), None)
    if main is None:
        return False
    return any(
        isinstance(n, ast.Call) and getattr(n.func, "id", None) == "provenance_line"
        for n in ast.walk(main)
    )


PROGRAMS = sorted(
    p.relative_to(ROOT).as_posix()
    for p in [*(ROOT / "scripts").glob("*.py"), *(ROOT / "benchmarks").glob("bench_*.py")]
)


@pytest.mark.parametrize("name", PROGRAMS)
def test_every_script_and_benchmark_prints_the_code_behind_it(name):
    if name in EXEMPT:
        assert EXEMPT[name]
        return
    assert _calls_header_in_main(ROOT / name), f"{name}: main() does not print provenance_line(...)"


def test_the_scan_sees_the_programs():
    assert len(PROGRAMS) > 40 and "scripts/make_results.py" in PROGRAMS
    assert set(EXEMPT) <= set(PROGRAMS)


def test_the_header_names_the_commit_and_the_tree():
    line = provenance_line("scripts/x.py")
    prov = provenance()
    assert line.startswith("made by scripts/x.py with invent ")
    if prov["source"] == "git":
        assert f"at commit {prov['commit'][:12]}" in line
        assert line.endswith(("(clean tree)", "(uncommitted changes)"))
    else:
        assert "commit unknown" in line


def test_a_header_without_git_says_so(tmp_path):
    assert "commit unknown" in provenance_line("x", root=tmp_path)
    assert "before provenance was recorded" in COMMIT_UNKNOWN


def test_a_script_run_prints_its_header_first(tmp_path):
    out = tmp_path / "sample.jsonl"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make_arithmetic_sample.py"), "--out", str(out)],
        capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    first = proc.stdout.splitlines()[0]
    assert first == provenance_line("scripts/make_arithmetic_sample.py")
    assert out.is_file()


def test_every_printout_in_docs_names_its_commit_or_says_it_is_unknown():
    """Printouts made before the header existed say so rather than inventing a commit."""
    printouts = sorted((ROOT / "docs").glob("*.txt"))
    assert len(printouts) >= 20
    for path in printouts:
        text = path.read_text(encoding="utf-8")
        named = re.search(r"commit [0-9a-f]{7,40}", text)
        assert named or text.startswith(COMMIT_UNKNOWN), path.name
