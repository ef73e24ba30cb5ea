"""The floors of the house: every import runs down a declared order of folders.

``LAYERS`` lists the folders of ``invent_core`` bottom to top, then ``invent_ui``
and ``pages``. A module may import its own folder or a folder below it, never one
above; the module graph has no circle; and an in-project import sits at the top of
its file (so a file's header tells what it depends on) except in the CLI's commands
and the lazy ``__getattr__`` of a package face. Heavy third-party libraries may
still be imported inside functions: the rule is about our own modules only.

Inside ``invent_ui`` the parts keep their own order (``UI_ALLOWED``: ``render`` above
``session`` above ``jobs``; ``data`` and ``plots`` beside them; ``text`` and ``assets`` at
the bottom).

Also: at most twelve modules loose at the top of ``invent_core``, none over 600
lines, and no issue numbers in file names or code.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from import_graph import LAYERS, RANK, draw, edges, module_name, sources, unit  # noqa: E402

#: Where an in-project import may sit inside a function: the CLI's commands import
#: only what the chosen command needs, so ``invent --help`` stays fast.
LAZY_ALLOWED = ("invent_core/commands/", "invent_core/cli.py")

SOURCES = sources()
EDGES = edges()
_unit = unit


def test_every_folder_has_a_floor():
    units = {unit(module_name(p)) for p in SOURCES}
    assert units <= set(RANK), sorted(units - set(RANK))


def test_no_import_runs_up_or_across_a_floor():
    bad = []
    for source, path, target, line, _ in EDGES:
        a, b = _unit(source), _unit(target)
        if RANK[b] > RANK[a]:
            bad.append(f"{path.relative_to(ROOT)}:{line}: {source} -> {target}")
    assert not bad, "\n".join(bad)


def test_every_floor_rests_on_the_one_below():
    """A floor sits where it does because it needs the floor beneath it.

    Some folder of each floor imports some folder of the floor directly below; a floor
    that needs nothing from there could sit lower, and its place would say nothing. The
    one exception is the dashboard's helpers: ``invent_ui`` sits above the whole library,
    command line included, so that no module of the library can import it.
    """
    resting = {RANK[_unit(t)] for s, _, t, _, _ in EDGES if RANK[_unit(s)] == RANK[_unit(t)] + 1}
    floating = [
        f"{' '.join(LAYERS[i])} imports nothing from {' '.join(LAYERS[i - 1])}"
        for i in range(1, len(LAYERS))
        if i - 1 not in resting and LAYERS[i] != ("invent_ui",)
    ]
    assert not floating, "\n".join(floating)


def test_no_in_project_import_inside_a_function():
    bad = [
        f"{path.relative_to(ROOT)}:{line}: {target} inside {fn}()"
        for _, path, target, line, fn in EDGES
        if fn is not None
        and not str(path.relative_to(ROOT)).startswith(LAZY_ALLOWED)
        and not (path.name == "__init__.py" and fn == "__getattr__")
    ]
    assert not bad, f"{len(bad)} in-function imports:\n" + "\n".join(bad)


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = 2
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_circle_among_modules():
    graph: dict[str, set[str]] = {}
    for source, _, target, _, _ in EDGES:
        if source != target and not target.startswith(source + "."):  # a face importing its own
            graph.setdefault(source, set()).add(target)
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_the_rules_see_a_violation():
    assert _cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    assert RANK["invent_core.paper"] < RANK["invent_core.embedders"]  # paper imports no adapter
    assert _unit("invent_core.engine.pipeline") == "invent_core.engine"
    assert len(LAYERS) == len({RANK[u] for u in RANK})


def test_the_drawing_of_the_imports_is_current():
    """docs/imports.md is what scripts/import_graph.py draws from the source now."""
    page = (ROOT / "docs" / "imports.md").read_text(encoding="utf-8")
    assert page == draw(EDGES), "stale: run python scripts/import_graph.py --write"
    assert "| UP |" not in page


def test_at_most_twelve_modules_at_the_top():
    top = sorted(p.name for p in (ROOT / "invent_core").glob("*.py"))
    assert len(top) <= 12, top


@pytest.mark.parametrize(
    "path",
    [p for p in SOURCES if p.parts[len(ROOT.parts)] in ("invent_core", "invent_ui")],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_no_module_over_600_lines(path):
    n = len(path.read_text(encoding="utf-8").splitlines())
    assert n <= 600, f"{path.relative_to(ROOT)}: {n} lines"


#: ``invent_ui``'s parts, each with the parts it may import (docs/architecture.md): ``render``
#: uses the other four packages; ``session`` only ``jobs``; ``jobs``, ``data`` and ``plots``
#: none of them; ``text.py`` (untrusted text made safe) and ``assets.py`` (where the demo
#: artefacts are) sit at the bottom and import no other part. The face imports none.
UI_ALLOWED: dict[str, frozenset[str]] = {
    "render": frozenset({"data", "jobs", "plots", "session", "text", "assets"}),
    "session": frozenset({"jobs", "text", "assets"}),
    "jobs": frozenset({"text"}),
    "data": frozenset({"text", "assets"}),
    "plots": frozenset({"text"}),
    "text": frozenset(),
    "assets": frozenset(),
    "": frozenset(),  # invent_ui/__init__.py
}


def ui_part(module: str) -> str:
    """``invent_ui.render.views`` → ``render``; ``invent_ui.text`` → ``text``; the face → ``""``."""
    return module.split(".")[1] if module.count(".") else ""


def ui_offences(edges) -> list[str]:
    """Each import between two parts of ``invent_ui`` that ``UI_ALLOWED`` does not list."""
    bad = []
    for source, path, target, line, _ in edges:
        if unit(source) != "invent_ui" or unit(target) != "invent_ui":
            continue
        a, b = ui_part(source), ui_part(target)
        if a != b and b not in UI_ALLOWED.get(a, frozenset()):
            bad.append(f"{path.relative_to(ROOT)}:{line}: {a or 'invent_ui'} -> {b or 'invent_ui'}")
    return bad


def test_every_part_of_invent_ui_has_a_rule():
    parts = {ui_part(module_name(p)) for p in SOURCES if unit(module_name(p)) == "invent_ui"}
    assert parts == set(UI_ALLOWED), sorted(parts ^ set(UI_ALLOWED))


def test_invent_ui_parts_import_only_what_their_rule_allows():
    bad = ui_offences(EDGES)
    assert not bad, "\n".join(bad)


def test_the_invent_ui_rule_sees_a_violation():
    path = ROOT / "invent_ui" / "session" / "x.py"
    edges = [
        ("invent_ui.session.x", path, "invent_ui.render.views", 1, None),  # session -> render
        ("invent_ui.session.x", path, "invent_ui.jobs.background", 2, None),  # allowed
        ("invent_ui.session.x", path, "invent_ui.session.state", 3, None),  # its own part
        ("invent_ui.text", ROOT / "invent_ui" / "text.py", "invent_ui.plots", 4, None),
    ]
    assert ui_offences(edges) == [
        "invent_ui/session/x.py:1: session -> render",
        "invent_ui/text.py:4: text -> plots",
    ]


#: A pointer to a tracker instead of words about the behaviour: "issue 22", "Issue #24 §6",
#: "issue24", a bare "(#14)" or "#12 §4". (A GAAP member is "#3", without brackets or §.)
ISSUE = re.compile(r"\bissues?[\s_-]*#?\d|\(#\d+\)|#\d+\s*§", re.IGNORECASE)
NAMED = ("invent_core", "invent_ui", "pages", "scripts", "benchmarks")
#: Code and tests: every Python file, and the data files the tests and benchmarks read.
CHECKED = (*NAMED, "tests")


def issue_references(path: Path) -> list[str]:
    """Each line of a file that points at an issue instead of saying what it means."""
    text = path.read_text(encoding="utf-8", errors="replace")
    return [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()[:120]}"
        for n, line in enumerate(text.splitlines(), 1)
        if ISSUE.search(line)
    ]


def test_no_issue_numbers_in_file_names_or_code():
    hits = []
    for folder in CHECKED:
        for path in (ROOT / folder).rglob("*"):
            if re.search(r"issue[\s_-]*\d", path.name, re.IGNORECASE):
                hits.append(str(path.relative_to(ROOT)))
    sources = [ROOT / "app.py", *(p for f in CHECKED for p in (ROOT / f).rglob("*.py"))]
    for path in (p for p in sources if p != Path(__file__)):  # not the rule's own examples
        hits += issue_references(path)
    assert not hits, f"{len(hits)}:\n" + "\n".join(hits[:40])


def test_no_issue_numbers_in_the_data_of_tests_and_benchmarks():
    """A labelled row names where it came from in words ("review_pairs"), not "issue24"."""
    data = [p for f in ("tests", "benchmarks") for p in (ROOT / f).rglob("*.json")]
    hits = [hit for path in data for hit in issue_references(path)]
    assert not hits, f"{len(hits)}:\n" + "\n".join(hits[:40])


@pytest.mark.parametrize(
    "line, found",
    [
        ("# issue 22: Cancel waits", True),
        ('"""Issue #24 §6: placed among"""', True),
        ('r["dataset"] == "issue24"', True),
        ("merge warns (#15)", True),
        ("issues #12 §4, #14", True),
        ("crossover of #3 × #7 after word 5", False),
        ("the paper's §3 'Evaluation metrics'", False),
        ("color='#1f77b4'", False),
    ],
)
def test_the_issue_rule_sees_a_reference(line, found):
    assert bool(ISSUE.search(line)) is found


def test_no_two_test_files_share_a_name():
    """pytest imports test files by their base name (no packages): two alike collide."""
    from collections import Counter

    names = Counter(p.name for p in Path(__file__).parent.rglob("test_*.py"))
    assert not [n for n, k in names.items() if k > 1]
