"""What a file of questions may hold: column names, value types, answer lists, limits.

One schema for every reader of user question files:
:func:`invent_core.questions.datasets.load_examples_file` (whole files, ``--data``) and
the streaming rows of :mod:`invent_core.batch`. Each reader words its own
location (file, line, row); the rules and the reasons live here.

Columns (names matched case-insensitively, first candidate found wins)
-----------------------------------------------------------------------
``question``  (:data:`QUESTION_COLUMNS`) the original question, text.
``answers``   (:data:`ANSWER_COLUMNS`) reference answer and aliases: a
    string, a JSON list (``["Paris", "City of Paris"]``) or ``"a|b"``. When a
    row has several answer columns (TriviaQA has ``answer`` *and* ``answers``)
    all are read, the canonical ``answer`` first and duplicates dropped, so
    no alias is lost.
``choices``   (:data:`CHOICE_COLUMNS`) MMLU options, a list like answers.
``task``      ``qa``, ``mmlu`` or ``gsm8k``; default ``mmlu`` with choices, else ``qa``.
``id``        identifies the row.

Types (JSON files): a question must be text; an id text or an integer; an
answer text, a number or a list of those; anything else (an object, a
boolean, a nested list) is refused with the column, never stringified.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..prompts import TASKS

__all__ = [
    "ANSWER_COLUMNS",
    "CHOICE_COLUMNS",
    "FIELD_SIZE_LIMIT",
    "ID_COLUMNS",
    "MAX_COLUMNS",
    "MAX_QUESTION_CHARS",
    "QUESTION_COLUMNS",
    "TASK_COLUMNS",
    "ColumnMap",
    "QuestionFields",
    "SchemaError",
    "parse_json",
    "parse_list",
    "read_question_fields",
    "resolve_columns",
]

#: Accepted names of the question column ("prompts": UQLM's result frame).
QUESTION_COLUMNS: tuple[str, ...] = ("question", "questions", "query", "prompt", "prompts")
#: Answer columns, in the order their values are merged (canonical answer first).
#: "value": the paper's released tool reads ``question,value`` CSVs.
ANSWER_COLUMNS: tuple[str, ...] = ("answer", "answers", "value", "reference", "references")
CHOICE_COLUMNS: tuple[str, ...] = ("choices", "options")
TASK_COLUMNS: tuple[str, ...] = ("task",)
ID_COLUMNS: tuple[str, ...] = ("id",)

#: Longest question accepted, in characters. The paper's questions are a few
#: hundred characters; a GSM8K problem ~1,000.
MAX_QUESTION_CHARS = 20_000
#: Most columns a question file may have: the schema reads at most a handful;
#: a 10 MB header of a million columns took 64 s and 2 GB before it was refused.
MAX_COLUMNS = 1_000
#: Largest cell of a CSV file, line of a JSON Lines file, or whole JSON file of
#: ``score``, in characters (bytes for whole files): a wide-layout ``responses``
#: cell with n = 9, r = 5 long answers is ~100 kB.
FIELD_SIZE_LIMIT = 16 * 1024 * 1024


class SchemaError(ValueError):
    """A value breaks the schema; ``column`` is its name as written in the file."""

    def __init__(self, reason: str, *, column: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.column = column


@dataclass(frozen=True)
class ColumnMap:
    """Which column plays which role, by its name as written in the file (None: absent)."""

    question: str | None = None
    answers: tuple[str, ...] = ()  # every answer column present, in ANSWER_COLUMNS order
    choices: str | None = None
    task: str | None = None
    id: str | None = None

    def roles(self) -> dict[str, str]:
        """Role → column for the roles present (``answer`` is the first answer column)."""
        out = {"question": self.question, "choices": self.choices, "task": self.task}
        out["id"] = self.id
        if self.answers:
            out["answer"] = self.answers[0]
        return {k: v for k, v in out.items() if v is not None}


def resolve_columns(names: Iterable[Any]) -> ColumnMap:
    """The :class:`ColumnMap` of a header or of one JSON object's keys (case-insensitive)."""
    by_lower: dict[str, str] = {}
    for name in names:
        if name is not None:
            by_lower.setdefault(str(name).strip().lower(), str(name))

    def first(candidates: tuple[str, ...]) -> str | None:
        return next((by_lower[c] for c in candidates if c in by_lower), None)

    return ColumnMap(
        question=first(QUESTION_COLUMNS),
        answers=tuple(by_lower[c] for c in ANSWER_COLUMNS if c in by_lower),
        choices=first(CHOICE_COLUMNS),
        task=first(TASK_COLUMNS),
        id=first(ID_COLUMNS),
    )


def parse_json(text: str) -> Any:
    """``json.loads`` whose every failure is a ``ValueError`` with a short reason.

    Deeply nested input (``[[[[…``) raises ``RecursionError`` inside the
    decoder; it becomes a ``ValueError`` like any other invalid JSON.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        where = (
            f"line {err.lineno}, column {err.colno}" if err.lineno > 1 else f"character {err.colno}"
        )
        at = "" if err.msg.endswith(" at") else " at"  # "Unterminated string starting at"
        raise ValueError(f"invalid JSON ({err.msg}{at} {where})") from None
    except RecursionError:
        raise ValueError("invalid JSON (nested too deeply to read)") from None


def _scalar_text(value: Any, column: str, *, numbers: bool) -> str:
    if isinstance(value, str):
        return value
    if numbers and isinstance(value, int | float) and not isinstance(value, bool):
        return json.dumps(value)
    kind = "a list" if isinstance(value, list) else f"a {_json_type(value)}"
    raise SchemaError(f"{column!r} must be text, got {kind}", column=column)


def _json_type(value: Any) -> str:
    return {bool: "boolean", int: "number", float: "number", dict: "JSON object"}.get(
        type(value), type(value).__name__
    )


def parse_list(value: Any, column: str = "answers") -> tuple[str, ...]:
    """A tuple of strings from a list, a JSON list string or an ``"a|b"`` string.

    Numbers (in a list or alone) are kept as their JSON text (``4`` → ``"4"``);
    an object, a boolean or a nested list raises :class:`SchemaError`.
    """
    if value is None:
        return ()
    if isinstance(value, list | tuple):
        items = list(value)
    else:
        s = _scalar_text(value, column, numbers=True).strip()
        items = s.split("|")
        if s.startswith("["):  # a JSON list, or a plain answer that starts with "["
            try:
                parsed = parse_json(s)
            except ValueError:
                parsed = None
            items = parsed if isinstance(parsed, list) else [s]
    texts = (_scalar_text(x, column, numbers=True).strip() for x in items if x is not None)
    return tuple(t for t in texts if t)


@dataclass(frozen=True)
class QuestionFields:
    """The schema's fields of one row; ``question`` may be blank (each reader decides)."""

    question: str
    answers: tuple[str, ...]
    task: str
    choices: tuple[str, ...] | None
    id: str  # "" when the row has none


def _id_text(value: Any, column: str) -> str:
    if value is None:
        return ""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return _scalar_text(value, column, numbers=False).strip()


def read_question_fields(
    record: Mapping[str, Any],
    columns: ColumnMap,
    *,
    max_question_chars: int | None = None,
) -> QuestionFields:
    """Check and read the schema's fields of one row.

    Parameters
    ----------
    record : column name (as in ``columns``) → value; CSV values are strings,
        JSON values any JSON type.
    columns : the row's :class:`ColumnMap`.
    max_question_chars : longer questions raise (default: no limit).

    Raises
    ------
    SchemaError
        Naming the column: a value of the wrong type, a question over the
        limit, an unknown task, an MMLU row without choices.
    """
    q_col = columns.question
    raw_q = record.get(q_col) if q_col else None
    question = "" if raw_q is None else _scalar_text(raw_q, q_col or "question", numbers=False)
    question = question.strip()
    if max_question_chars is not None and len(question) > max_question_chars:
        raise SchemaError(
            f"question is {len(question):,} characters; the limit is {max_question_chars:,}",
            column=q_col,
        )
    answers: dict[str, None] = {}  # ordered set: canonical first, aliases after
    for col in columns.answers:
        answers.update(dict.fromkeys(parse_list(record.get(col), col)))
    c_col = columns.choices
    choices = parse_list(record.get(c_col), c_col) if c_col else ()
    t_col = columns.task
    raw_task = record.get(t_col) if t_col else None
    task = "" if raw_task is None else _scalar_text(raw_task, t_col or "task", numbers=False)
    task = task.strip().lower() or ("mmlu" if choices else "qa")
    if task not in TASKS:
        raise SchemaError(
            f"task {task!r} in column {t_col!r} is not one of {', '.join(TASKS)}", column=t_col
        )
    if task == "mmlu" and not choices:
        raise SchemaError("task 'mmlu' needs a choices column", column=c_col or "choices")
    id_col = columns.id
    row_id = _id_text(record.get(id_col), id_col) if id_col else ""
    return QuestionFields(
        question=question,
        answers=tuple(answers),
        task=task,
        choices=choices or None,
        id=row_id,
    )
