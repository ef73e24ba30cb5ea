"""A ``_private`` name stays in its module; a ``_private`` module stays in its package.

A name that starts with one underscore (``_cell``, ``_RATE``) is the business of the
module that defines it: no other module imports it (``from .x import _cell``) or reaches
for it (``x._cell``). A name another module needs is public — no underscore, listed in
``__all__`` when the module has one. A module whose file name starts with one underscore
(``commands/_common.py``, ``llm/_http.py``) is private to its package: the modules of that
package (and of its sub-packages) import it and its names freely; any other package does
not import it at all.

The rule covers every module we write: ``invent_core``, ``invent_ui``, ``app.py``,
``pages/``, ``scripts/``, ``benchmarks/`` and ``tests/`` too: a test checks what a module
offers, so it goes through the same public names as every other caller. Tests and
scripts import one another by bare name (``from import_graph import edges``,
``from test_registry_contract import FakeLLM``), so those names are resolved as well.
Dunder names (``__version__``, ``__all__``) are not private.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Folders whose files are imported by dotted name from the repository root.
DOTTED = ("invent_core", "invent_ui", "pages")
#: Folders whose files are imported by bare name (each is put on ``sys.path``).
BARE = ("scripts", "benchmarks", "tests")


def is_private(name: str) -> bool:
    """One leading underscore, not a dunder."""
    return name.startswith("_") and not name.startswith("__")


def project_modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module we write, by the name it is imported under."""
    found: dict[str, Path] = {"app": root / "app.py"}
    for folder in DOTTED:
        for path in (root / folder).rglob("*.py"):
            found[_dotted(path, root)] = path
    for folder in BARE:
        for path in (root / folder).rglob("*.py"):
            found[_dotted(path, root)] = path  # ``from benchmarks import bench_obvious``
            rel = path.relative_to(root / folder)
            if folder == "scripts" and rel.parts[0] == "results_report":  # a package in scripts/
                found[_dotted(path, root / folder)] = path
            else:
                found[path.stem] = path
    return found


def _dotted(path: Path, base: Path) -> str:
    parts = list(path.relative_to(base).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _name_of(path: Path, modules: dict[str, Path]) -> str:
    """The dotted name of a file (``tests.llm.test_choice``), which its relative imports use."""
    return max((name for name, p in modules.items() if p == path), key=len)


def _resolve(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _private_package(module: str) -> str | None:
    """The package a module is private to (``a.b._c.d`` → ``a.b``), or None."""
    parts = module.split(".")
    for i, part in enumerate(parts):
        if is_private(part):
            return ".".join(parts[:i])
    return None


def _may_use_module(importer: str, target: str) -> bool:
    owner = _private_package(target)
    return owner is None or importer == owner or importer.startswith(owner + ".")


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name


def _attribute_chain(node: ast.Attribute) -> list[str] | None:
    names = [node.attr]
    value = node.value
    while isinstance(value, ast.Attribute):
        names.append(value.attr)
        value = value.value
    if not isinstance(value, ast.Name):
        return None
    return [value.id, *reversed(names)]


def offences(path: Path, modules: dict[str, Path]) -> list[str]:
    """Each import or use of another module's private name (or private module) in one file."""
    me = _name_of(path, modules)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bound: dict[str, str] = {}  # local name -> project module it is bound to
    bad: list[str] = []

    def note(line: int, what: str) -> None:
        bad.append(f"{_shown(path)}:{line}: {what}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules and not _may_use_module(me, alias.name):
                    note(node.lineno, f"import {alias.name} (private to another package)")
                if alias.asname and alias.name in modules:
                    bound[alias.asname] = alias.name
                elif alias.name.split(".")[0] in modules:
                    top = alias.name.split(".")[0]
                    bound[top] = top
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(node, me, path.name == "__init__.py")
            if base not in modules:
                continue
            if not _may_use_module(me, base):
                note(node.lineno, f"from {base} import … (private to another package)")
                continue
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in modules:
                    if not _may_use_module(me, full):
                        note(node.lineno, f"{full} (private to another package)")
                    bound[alias.asname or alias.name] = full
                elif is_private(alias.name) and base != me:
                    note(node.lineno, f"from {base} import {alias.name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and is_private(node.attr):
            chain = _attribute_chain(node)
            if not chain or chain[0] not in bound:
                continue
            owner = ".".join([bound[chain[0]], *chain[1:-1]])
            if owner in modules and owner != me:
                note(node.lineno, f"{'.'.join(chain)} (private name of {owner})")
    return bad


MODULES = project_modules()


@pytest.mark.parametrize(
    "path", sorted(set(MODULES.values())), ids=lambda p: str(p.relative_to(ROOT))
)
def test_no_private_name_crosses_a_module(path):
    bad = offences(path, MODULES)
    assert not bad, "\n".join(bad)


def test_the_rule_sees_each_kind_of_offence(tmp_path):
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "other").mkdir()
    files = {
        "pkg/__init__.py": "",
        "pkg/_shared.py": "def helper(): ...\n",
        "pkg/a.py": "def _hidden(): ...\ndef shown(): ...\n_hidden()\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/fine.py": "from .. import _shared\nfrom ..a import shown\n_shared.helper()\n",
        "pkg/b.py": "from .a import _hidden, shown\n",
        "pkg/c.py": "from . import a\na._hidden()\n",
        "other/__init__.py": "",
        "other/d.py": "from pkg._shared import helper\n",
        "other/e.py": "import pkg.a\npkg.a._hidden()\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    modules = {_dotted(tmp_path / n, tmp_path): tmp_path / n for n in files}
    found = {n: offences(tmp_path / n, modules) for n in files}
    clean = {n for n, bad in found.items() if not bad}
    assert clean == {"pkg/__init__.py", "pkg/_shared.py", "pkg/a.py", "pkg/sub/__init__.py",
                     "pkg/sub/fine.py", "other/__init__.py"}  # fmt: skip
    assert "_hidden" in found["pkg/b.py"][0]
    assert "private name of pkg.a" in found["pkg/c.py"][0]
    assert "private to another package" in found["other/d.py"][0]
    assert "private name of pkg.a" in found["other/e.py"][0]
