"""The batch input: a question file, perhaps with pre-generated perturbations and responses.

The file itself is read by :mod:`invent_core.questions.files` (formats,
encodings, quotes, limits, and the question columns of
:mod:`invent_core.questions.schema`), as ``--data`` files are. Without an
``id`` column a row's id is its 1-based data-row number, so the file must not
be reordered between runs.

Pre-generated perturbations and responses (no LLM call at all), two layouts:

Wide (one row per question)
    ``perturbations``: JSON list of the n perturbed questions;
    ``responses``: JSON list of m = n + 1 lists of r responses, the answers
    to the original question first. In JSON Lines the values may be real
    lists instead of JSON strings.
Long (one row per response)
    Columns ``id`` and/or ``question``, ``perturbation_index`` (0 = the
    original question, 1 … n the perturbations), ``replication_index``
    (0 … r-1), ``perturbation`` (the perturbed question; may be blank for
    index 0) and ``response``. The rows of one question must be contiguous;
    they are grouped by ``id`` (or by the question text without an id column).
Rewordings only (``perturbations``, no ``responses``)
    The file's n perturbed questions (a JSON list, as in the wide layout) are
    kept as they are and only answered: the LLM is asked r times for each
    state, never to reword (layout ``"reworded"``).
UQLM's result frame (``prompts``, ``responses``, ``sampled_responses``)
    The prompt alone (n = 0), its answers UQLM's response then the sampled
    ones (:mod:`invent_core.questions.samples`): only the methods that need
    no rewordings score it.

:func:`inspect_input` adds the layout to what the reader learned
(:class:`InputInfo`); a file with neither layout's columns is ``"questions"``
(the LLM rewords and answers).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..questions import schema as qs
from ..questions.files import (
    LONG_COLUMNS,
    PREGENERATED_COLUMNS,
    BatchInputError,
    QuestionFile,
    check_rows,
    inspect_file,
)
from ..questions.samples import is_uqlm_frame

__all__ = [
    "LONG_COLUMNS",
    "PREGENERATED_COLUMNS",
    "LLM_LAYOUTS",
    "InputInfo",
    "Layout",
    "inspect_input",
    "role_columns",
]

Layout = Literal["questions", "reworded", "wide", "long", "uqlm"]

#: The layouts whose answers the LLM generates (rewording them too for ``"questions"``).
LLM_LAYOUTS: tuple[Layout, ...] = ("questions", "reworded")


@dataclass(frozen=True, kw_only=True)
class InputInfo(QuestionFile):
    """What :func:`inspect_input` learned: the file (:class:`QuestionFile`) and its layout."""

    layout: Layout
    col: dict[str, str] = field(default_factory=dict)  # role -> column name as written


def role_columns(columns: list[str]) -> tuple[qs.ColumnMap, dict[str, str]]:
    """The question schema's columns and the pre-generated ones: role → name as written."""
    schema = qs.resolve_columns(columns)
    col = schema.roles()
    by_lower = {c.strip().lower(): c for c in reversed(columns)}
    col.update({role: by_lower[role] for role in PREGENERATED_COLUMNS if role in by_lower})
    return schema, col


def _layout(path: Path, columns: list[str], col: dict[str, str]) -> Layout:
    if is_uqlm_frame(columns):
        return "uqlm"
    if "responses" in col:
        if "perturbations" not in col:
            raise BatchInputError(
                "a 'responses' column needs a 'perturbations' column (JSON list of the n perturbed "
                "questions; responses holds n + 1 lists, the original question's first)",
                file=path,
                column="perturbations",
            )
        return "wide"
    if any(c in col for c in LONG_COLUMNS):
        missing = [c for c in (*LONG_COLUMNS, "perturbation") if c not in col]
        if missing:
            raise BatchInputError(
                f"long layout of pre-generated responses is missing column(s) {', '.join(missing)}; "
                f"found {', '.join(repr(c) for c in columns)}",
                file=path,
                column=missing[0],
            )
        return "long"
    if "perturbations" in col:  # the file's rewordings: the LLM answers them, never rewords
        return "reworded"
    return "questions"


def inspect_input(path: str | os.PathLike, *, encoding: str | None = None) -> InputInfo:
    """Check an input file before any work: type, encoding, header, quotes, layout, line count.

    Raises
    ------
    BatchInputError
        Missing or empty file, binary file, undecodable bytes (with offset,
        line, row and column), JSON array instead of JSON Lines, no header,
        no question column (listing the columns found), a partial
        pre-generated layout, an unclosed quote (with the line where it opens).
    """
    file = inspect_file(path, encoding=encoding)
    schema, col = role_columns(list(file.columns))
    layout = _layout(file.path, list(file.columns), col)
    check_rows(file)
    return InputInfo(**{**file.fields(), "schema": schema}, layout=layout, col=col)
