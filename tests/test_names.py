"""One meaning per name: a name defined twice must mean the same thing twice.

Scanned from the source (no import): the top-level functions and classes of the
library, the dashboard helpers and the pages; the modules' own names; and every
exception class, which lives in ``invent_core/errors.py`` unless listed below
with the reason it stays beside its code.
"""

from __future__ import annotations

import ast
import builtins
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: What the tree is scanned for: the library, the dashboard helpers, the pages, the scripts.
SCANNED = ("invent_core", "invent_ui", "pages", "scripts", "benchmarks")

#: Names that once had two meanings at once (an index array and a count, a question's
#: verdict and an answer's, a function and the value it returns): each is defined once.
ONCE = (
    "distinct_states",
    "distinct_state_indices",
    "rule_verdict",
    "question_rule_verdict",
    "read_relabels",
    "method_labels",
    "registered_method_labels",
    "llm_identity",
    "identity_from_args",
    "chosen_llm_identity",
    "OutputBusyError",
    "BatchInputError",
    "Sample",  # one question's samples; the seeded draw of a question list is SeededDraw
    "json_ready",  # a config made JSON's; a batch output cell is json_cell
)

#: Public names defined in more than one module, each with why that is one meaning (a
#: protocol every plug-in fills) or what the two are. A new repeat fails the test: give it
#: a name of its own, or add it here with its reason.
REPEATS: dict[str, str] = {
    "compute": "the Method protocol: each baseline's score of a ScoringContext",
    "main": "each command module's entry point (cli.py dispatches to them)",
    "register": "each command adds its parser; methods/registry.py adds a Method",
    "start": "each dashboard job module starts its own background job",
    "leaderboard": "the Evaluation page's leaderboard, drawn by the shared results view",
    "content_words": "a question's content words (perturb/text.py) and an answer's "
    "(responses/equivalence.py); being made one on the text floor",
    "Ticket": "a request admitted to an endpoint (llm/endpoints.py) and a caller's chunk "
    "waiting for the transformers batcher (llm/hf_batcher.py); each private to its module",
    "check_output_file": "the lock's check (output is no input) and the commands' writable "
    "check: the same refusal of an output path, two sets of reasons",
    "input_files": "the files a command reads, of paths (batch) and of an experiment's config",
    "model_spec": "the --llm spec of an identity (recompute) and of a model path (dashboard)",
    "paraphrase_identity": "the rewording model's identity, from a choice or from the options",
    "print_evaluation": "each command's summary of its evaluation (batch/merge, evaluate)",
    "read_evaluation": "an evaluate folder read by the one reader, and the Evaluation "
    "page's payload built from it",
}

#: Exception classes that stay beside their code, with the reason; every other one is in
#: invent_core/errors.py (so an ``except`` or the exit mapping needs no floor above it).
OUTSIDE_ERRORS: dict[str, str] = {
    "invent_core/engine/scoring.py:ResponseShapeError": "structured (kind, index, expected, "
    "got) so that each reader words it in its own terms (batch names the cell)",
    "invent_core/llm/gguf_file.py:GGUFFileError": "read by the GGUF and transformers "
    "backends, which turn it into a --llm refusal",
    "invent_core/llm/replies.py:MalformedReply": "a 2xx reply to retry; the retry loop "
    "raises LLMError when attempts run out",
    "invent_core/questions/schema.py:SchemaError": "a value against the schema; the "
    "readers add the file and row (BatchInputError)",
    "invent_core/batch/rows.py:_Problem": "private to one row's reading",
    "invent_ui/render/downloads.py:ExportUnavailable": "the dashboard's (a PNG without "
    "kaleido); the library never raises it",
    "invent_ui/session/places.py:PlaceError": "the dashboard's: a link the page refuses",
}


def _modules() -> list[Path]:
    return sorted(p for top in SCANNED for p in (ROOT / top).rglob("*.py")) + [ROOT / "app.py"]


def _trees() -> dict[str, ast.Module]:
    return {str(p.relative_to(ROOT)): ast.parse(p.read_text(encoding="utf-8")) for p in _modules()}


TREES = _trees()


def _top_level(tree: ast.Module) -> list[str]:
    """The names a module defines at its top: functions, classes and assigned names."""
    out: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out += [t.id for t in targets if isinstance(t, ast.Name)]
    return out


def _definitions() -> dict[str, list[str]]:
    where: dict[str, list[str]] = defaultdict(list)
    for path, tree in TREES.items():
        for name in _top_level(tree):
            where[name].append(path)
    return where


def test_each_name_that_had_two_meanings_is_defined_once():
    where = _definitions()
    twice = {name: where[name] for name in ONCE if len(where[name]) > 1}
    assert not twice, twice


def test_a_public_function_or_class_defined_twice_is_listed_with_its_reason():
    where: dict[str, list[str]] = defaultdict(list)
    for path, tree in TREES.items():
        if path.startswith(("invent_core/", "invent_ui/", "pages/", "app.py")):
            for node in tree.body:
                if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name[0] != "_":
                    where[node.name].append(path)
    new = {n: paths for n, paths in where.items() if len(paths) > 1 and n not in REPEATS}
    assert not new, f"give each its own name, or list it in REPEATS with the reason: {new}"


def test_engine_and_report_each_name_one_thing():
    """In the package, ``engine`` is the one-question pipeline, ``report`` the HTML page."""
    clash = [
        str(p.relative_to(ROOT))
        for p in _modules()
        if p.stem in ("engine", "report")
        and p.relative_to(ROOT).parts[0] in ("invent_core", "invent_ui", "pages")
        and str(p.relative_to(ROOT)) != "invent_core/commands/report.py"
    ]
    assert not clash, clash
    assert (ROOT / "invent_core" / "engine" / "__init__.py").is_file()
    assert (ROOT / "invent_core" / "report" / "__init__.py").is_file()


def _exception_classes() -> dict[str, str]:
    """``path:Class`` → its first base, for every class that derives from an exception."""
    classes = {
        f"{path}:{node.name}": [ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases]
        for path, tree in TREES.items()
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    }
    builtin = {
        n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)
    }
    found = {key for key, bases in classes.items() if builtin & set(bases)}
    while True:  # a class deriving from one found is one too (by name: project names are unique)
        names = {key.split(":")[1] for key in found}
        more = {key for key, bases in classes.items() if names & set(bases)} - found
        if not more:
            return {key: classes[key][0] for key in found}
        found |= more


def test_exception_classes_live_in_errors_py_unless_listed():
    outside = {
        key
        for key in _exception_classes()
        if not key.startswith(("invent_core/errors.py:", "scripts/", "benchmarks/"))
    }
    assert outside <= set(OUTSIDE_ERRORS), sorted(outside - set(OUTSIDE_ERRORS))
    assert set(OUTSIDE_ERRORS) <= outside, sorted(set(OUTSIDE_ERRORS) - outside)  # none stale


def test_the_errors_the_commands_map_to_exits_are_in_errors_py():
    found = _exception_classes()
    for name in ("BatchInputError", "OutputBusyError", "FolderMismatch", "DifferentQuestions"):
        assert f"invent_core/errors.py:{name}" in found, name
    assert found["invent_core/errors.py:OutputBusyError"] == "BatchInputError"
