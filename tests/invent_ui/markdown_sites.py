"""Where the dashboard's source hands text to a Streamlit call that renders Markdown.

Shared by the source guard (``test_text.py``). A *site* is one argument of such a
call that Streamlit renders as Markdown: a body, a label, a tooltip, a metric's
value or delta, a tab name. A site is *safe* when every piece of it that is not
literal text is either wrapped in :func:`invent_ui.text.untrusted`, a number
(a format spec such as ``:.3f``, ``len(...)``), or named in ``TRUSTED`` with the
reason it can only carry the program's own words.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted(
    [*(ROOT / "invent_ui").rglob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "app.py"]
)

#: Calls whose first positional argument is rendered as Markdown (a body or a label).
FIRST_IS_MARKDOWN = frozenset(
    {
        "markdown", "caption", "subheader", "header", "title", "info", "warning", "error",
        "success", "toast", "metric", "button", "expander", "popover",
        "download_button", "checkbox", "toggle", "radio", "selectbox", "multiselect",
        "text_input", "text_area", "number_input", "slider", "select_slider", "file_uploader",
        "form_submit_button", "link_button", "page_link", "status", "segmented_control", "pills",
    }
)  # fmt: skip
#: Keywords rendered as Markdown wherever they appear on those calls (and ``value`` and
#: ``delta`` on a metric).
MARKDOWN_KEYWORDS = frozenset({"body", "label", "help"})
METRIC_KEYWORDS = frozenset({"value", "delta"})
#: ``metric(label, value, delta)``: all three positional arguments are Markdown.
METRIC_POSITIONS = 3
#: Numeric conversions: what they return cannot carry Markdown.
NUMERIC_CALLS = frozenset({"len", "int", "float", "round", "sum", "min", "max", "abs"})
#: The wrapper that makes text safe.
WRAPPERS = frozenset({"untrusted"})


def _called_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        f = node.func
        return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
    return None


def _pieces(node: ast.AST) -> Iterator[ast.AST]:
    """The parts of a string expression that are not literal text."""
    if isinstance(node, ast.Constant):
        return
    if isinstance(node, ast.JoinedStr):
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                if value.format_spec is None or value.conversion != -1:
                    yield from _pieces(value.value)
        return
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mod):
        yield from _pieces(node.left)
        yield from _pieces(node.right)
        return
    if isinstance(node, ast.BoolOp):  # a or b: either may be shown
        for value in node.values:
            yield from _pieces(value)
        return
    if isinstance(node, ast.IfExp):
        yield from _pieces(node.body)
        yield from _pieces(node.orelse)
        return
    if isinstance(node, ast.List | ast.Tuple):
        for elt in node.elts:
            yield from _pieces(elt)
        return
    name = _called_name(node)
    if name in WRAPPERS or name in NUMERIC_CALLS:
        return
    if name == "join" and isinstance(node.func, ast.Attribute):  # " · ".join(parts)
        yield from _pieces(node.func.value)
        for arg in node.args:
            yield from _joined(arg)
        return
    yield node


def _joined(node: ast.AST) -> Iterator[ast.AST]:
    """What ``sep.join(node)`` puts in: a comprehension's element, or the iterable itself."""
    if isinstance(node, ast.GeneratorExp | ast.ListComp):
        yield from _pieces(node.elt)
    else:
        yield from _pieces(node)


def _markdown_args(call: ast.Call) -> Iterator[ast.AST]:
    if not isinstance(call.func, ast.Attribute):  # st.title(...), col.caption(...): a method
        return
    name = _called_name(call)
    if name == "write" and isinstance(call.func, ast.Attribute):  # st.write, not a file's
        name = "markdown" if getattr(call.func.value, "id", None) == "st" else None
    if name not in FIRST_IS_MARKDOWN and name != "tabs":
        return
    n_positional = METRIC_POSITIONS if name == "metric" else 1
    yield from call.args[:n_positional]
    for kw in call.keywords:
        if kw.arg in MARKDOWN_KEYWORDS or (name == "metric" and kw.arg in METRIC_KEYWORDS):
            yield kw.value


def markdown_sites(path: Path) -> Iterator[tuple[int, str]]:
    """``(line, source of the piece)`` for every non-literal piece at a Markdown site in ``path``."""
    source = path.read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            for arg in _markdown_args(node):
                for piece in _pieces(arg):
                    yield piece.lineno, ast.get_source_segment(source, piece) or "?"
