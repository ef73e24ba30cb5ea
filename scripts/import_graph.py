"""The in-project imports of invent, read from the source, and a drawing of them by floor.

``python scripts/import_graph.py`` prints the folder-to-folder imports as a
Markdown page (a text diagram of the floors and a table of every arrow, with
how many imports each carries); ``--write`` saves it as ``docs/imports.md``,
which ``tests/test_layout.py`` keeps current. The same functions give the test
its edges, so the drawing and the rule cannot disagree.

An edge is ``(source module, path, target module, line, enclosing function or
None)``; ``from pkg import sub`` counts as an import of the submodule when
``pkg/sub`` is a module.
"""

from __future__ import annotations

import argparse
import ast
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Bottom to top. Folders on one line share a floor (the circle test keeps them apart).
#: A floor sits one above the highest floor its folders need (``tests/test_layout.py``
#: checks that each floor imports the one beneath it); docs/architecture.md says, per
#: folder, what it needs from there.
LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "invent_core",  # the package face: __version__ and the lazy public names
        "invent_core.env",
        "invent_core.errors",
        "invent_core.progress",
        "invent_core.csv_safe",
        "invent_core.serialize",
        "invent_core.provenance",
        "invent_core.packaged",
        "invent_core.config",
        "invent_core.prompts",
    ),
    ("invent_core.paper", "invent_core.text"),  # arrays and words: the foundation only
    ("invent_core.embedders", "invent_core.llm"),  # embedders read paper's kernel
    ("invent_core.responses", "invent_core.questions", "invent_core.workbench"),  # need llm
    ("invent_core.perturb", "invent_core.evaluation"),  # questions; responses
    ("invent_core.engine",),  # perturb and evaluation
    ("invent_core.methods",),  # the engine's runs
    ("invent_core.batch",),  # the methods
    ("invent_core.experiments",),  # batch
    ("invent_core.samples", "invent_core.report"),  # experiments' folders
    ("invent_core.commands", "invent_core.cli", "invent_core.__main__"),  # samples and report
    ("invent_ui",),  # report
    ("pages", "app"),  # invent_ui
)
RANK = {unit: i for i, floor in enumerate(LAYERS) for unit in floor}


def sources(root: Path = ROOT) -> list[Path]:
    """Every module of the library, the dashboard helpers, the pages and app.py."""
    files = [*(root / "invent_core").rglob("*.py"), *(root / "invent_ui").rglob("*.py")]
    return sorted([*files, *(root / "pages").glob("*.py"), root / "app.py"])


def module_name(path: Path, root: Path = ROOT) -> str:
    """``invent_core/engine/pipeline.py`` → ``invent_core.engine.pipeline`` (a package: its folder)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def unit(module: str) -> str:
    """The floor entry a module belongs to: its folder, or itself for a top-level module."""
    parts = module.split(".")
    if parts[0] in ("pages", "app", "invent_ui"):
        return parts[0]
    return ".".join(parts[:2]) if len(parts) > 1 else parts[0]


def _is_module(name: str, root: Path) -> bool:
    path = root.joinpath(*name.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _target(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _enclosing_function(node: ast.AST, parents: dict) -> str | None:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return node.name
    return None


def imports(path: Path, root: Path = ROOT) -> Iterator[tuple[str, int, str | None]]:
    """(target module, line, enclosing function or None) of each in-project import of a file."""
    module = module_name(path, root)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = {c: n for n in ast.walk(tree) for c in ast.iter_child_nodes(n)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = _target(node, module, path.name == "__init__.py")
            targets = [
                f"{base}.{a.name}" if _is_module(f"{base}.{a.name}", root) else base
                for a in node.names
            ]
        elif isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            continue
        function = _enclosing_function(node, parents)
        for target in dict.fromkeys(targets):
            if target.split(".")[0] in ("invent_core", "invent_ui"):
                yield target, node.lineno, function


def edges(root: Path = ROOT) -> list[tuple[str, Path, str, int, str | None]]:
    """Every in-project import: (source module, path, target module, line, function or None)."""
    return [
        (module_name(p, root), p, t, line, fn)
        for p in sources(root)
        for t, line, fn in imports(p, root)
    ]


def floor_arrows(all_edges) -> Counter:
    """Imports per (source floor entry, target floor entry), different entries only."""
    return Counter((unit(s), unit(t)) for s, _, t, _, _ in all_edges if unit(s) != unit(t))


def _short(entry: str) -> str:
    return entry.removeprefix("invent_core.") if entry != "invent_core" else "invent_core (face)"


def draw(all_edges) -> str:
    """The Markdown page: the floors top down, then each arrow with its count and direction."""
    arrows = floor_arrows(all_edges)
    lines = [
        "# The imports, floor by floor",
        "",
        "Made by `python scripts/import_graph.py --write` from the source; "
        "`tests/test_layout.py` fails when it is stale. A floor imports only its own "
        "folder and the floors below it.",
        "",
        "```text",
    ]
    for i, floor in reversed(list(enumerate(LAYERS))):
        names = "  ".join(_short(u) for u in floor)
        below = sorted({_short(t) for (s, t) in arrows if s in floor and RANK[t] < i})
        lines.append(f"{i:>2}  {names}")
        if below:
            lines.append(f"      └─ imports: {', '.join(below)}")
    lines += ["```", "", "| from | to | imports | direction |", "|---|---|---:|---|"]
    for (s, t), n in sorted(arrows.items(), key=lambda kv: (-RANK[kv[0][0]], RANK[kv[0][1]])):
        way = "down" if RANK[t] < RANK[s] else ("across" if RANK[t] == RANK[s] else "UP")
        lines.append(f"| {_short(s)} | {_short(t)} | {n} | {way} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    """Print the drawing, or write it to docs/imports.md."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="write docs/imports.md")
    args = ap.parse_args(argv)
    page = draw(edges())
    if args.write:
        (ROOT / "docs" / "imports.md").write_text(page, encoding="utf-8")
    else:
        print(page, end="")


if __name__ == "__main__":
    main()
