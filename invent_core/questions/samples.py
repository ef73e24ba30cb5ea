"""Shared samples: one JSON Lines schema for the answers invent, UQLM and others scored.

A samples file (``invent export-samples``) holds one JSON object per line, one
line per question. A fair comparison between tools needs identical samples,
so every field that decides a score travels with the answers.

Fields (``invent.samples/1``)
-----------------------------
``schema``         ``"invent.samples/1"`` on every line; another version is refused.
``id``             text: names the question (unique within a file).
``question``       text: the original question.
``perturbations``  list of the n rewordings (n ≥ 0; Inv-Entropy needs n ≥ 1).
``responses``      n + 1 lists of r answers, the original question's first:
                   what is embedded, scored and judged.
``raw_responses``  optional, the same shape: the replies as the LLM returned them.
``answers``        list of reference answers (``[]`` when none).
``task``           ``qa``, ``mmlu`` or ``gsm8k``; ``choices`` a list or null.
``correct``        1 / 0 where the first answer was judged, else null;
                   ``judge_reason`` why (text or null).
``model``          ``{"llm", "paraphrase_llm", "embedder"}``: model identities (null when unknown).
``settings``       the run's configuration (``RunConfig.to_dict()``; ``{}`` when unknown).
``source``         ``{"kind": "run" | "batch" | "evaluation" | "uqlm", "path": …}``.

The question fields follow :mod:`invent_core.questions.schema`, and the
columns ``question``, ``perturbations``, ``responses``, ``answers``, ``id``,
``task`` and ``choices`` are the wide layout of a batch input, so ``batch``
reads a samples file as it is.

UQLM's result frame (``UQResult.to_df()``: ``prompts``, ``responses``,
``sampled_responses`` and scorer columns) has no rewordings: a row becomes the
original question alone (n = 0) whose r answers are UQLM's response first
(the one invent judges) and then its sampled responses.
"""

from __future__ import annotations

import ast
import itertools
import json
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from . import schema as qs
from .files import BatchInputError, read_bounded_line

__all__ = [
    "SCHEMA",
    "UQLM_COLUMNS",
    "Sample",
    "is_samples_file",
    "is_uqlm_frame",
    "read_samples",
    "read_uqlm",
    "uqlm_answers",
]

#: The version written on every line; a reader refuses any other.
SCHEMA = "invent.samples/1"
#: The columns of UQLM's ``UQResult.to_df()`` that hold the samples (scorer columns are ignored).
UQLM_COLUMNS: tuple[str, ...] = ("prompts", "responses", "sampled_responses")
#: Formats a UQLM frame may be saved in (pandas ``to_csv`` / ``to_json`` / ``to_parquet``).
UQLM_SUFFIXES = (".csv", ".json", ".jsonl", ".parquet")


@dataclass(frozen=True)
class Sample:
    """One question's samples: one line of a samples file (see the module docstring)."""

    id: str
    question: str
    perturbations: list[str]
    responses: list[list[str]]
    answers: list[str] = field(default_factory=list)
    task: str = "qa"
    choices: list[str] | None = None
    correct: int | None = None
    judge_reason: str | None = None
    model: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    source: dict[str, Any] = field(default_factory=dict)
    raw_responses: list[list[str]] | None = None

    @property
    def questions(self) -> list[str]:
        """The original question, then its rewordings (m = n + 1)."""
        return [self.question, *self.perturbations]

    def to_line(self) -> str:
        """The JSON line, ``schema`` first; ``raw_responses`` only where known."""
        d = {"schema": SCHEMA, **asdict(self)}
        if d["raw_responses"] is None:
            del d["raw_responses"]
        return json.dumps(d, ensure_ascii=False)


# -- reading a samples file ------------------------------------------------------------------


def _texts(value: Any, name: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise qs.SchemaError("expected a list of strings", column=name)
    return value


def _answer_grid(value: Any, name: str, m: int) -> list[list[str]]:
    """N + 1 lists of r strings (the checks the scorer repeats; here worded for a line)."""
    if not isinstance(value, list):
        raise qs.SchemaError(f"expected a list of {m} lists of strings", column=name)
    if len(value) != m:
        raise qs.SchemaError(
            f"{len(value)} lists for {m - 1} perturbations; expected {m} "
            "(the original question's answers first)",
            column=name,
        )
    grid = [_texts(reps, f"{name}[{i}]") for i, reps in enumerate(value)]
    for i, reps in enumerate(grid):
        if not reps or len(reps) != len(grid[0]):
            raise qs.SchemaError(
                f"list {i} has {len(reps)} answers but list 0 has {len(grid[0])}; "
                "every question needs the same number r ≥ 1",
                column=name,
            )
    return grid


def _optional(obj: dict[str, Any], name: str, kind: type, default: Any) -> Any:
    value = obj.get(name, default)
    if value is not None and not isinstance(value, kind):
        raise qs.SchemaError(f"expected {kind.__name__} or null", column=name)
    return default if value is None else value


def _sample(obj: Any, index: int) -> Sample:
    """One line's object → :class:`Sample` (raises ``SchemaError`` naming the field)."""
    if not isinstance(obj, dict):
        raise qs.SchemaError(f"expected a JSON object, got {type(obj).__name__}")
    if obj.get("schema") != SCHEMA:
        raise qs.SchemaError(
            f"{obj.get('schema')!r} is not a samples schema this version reads ({SCHEMA!r})",
            column="schema",
        )
    fields = qs.read_question_fields(obj, qs.resolve_columns(obj))
    if not fields.question:
        raise qs.SchemaError("blank question", column="question")
    perturbations = _texts(obj.get("perturbations", []), "perturbations")
    m = len(perturbations) + 1
    raw = obj.get("raw_responses")
    correct = obj.get("correct")
    if correct not in (None, 0, 1) or isinstance(correct, bool):
        raise qs.SchemaError("expected 1, 0 or null", column="correct")
    return Sample(
        id=fields.id or str(index),
        question=fields.question,
        perturbations=perturbations,
        responses=_answer_grid(obj.get("responses"), "responses", m),
        answers=list(fields.answers),
        task=fields.task,
        choices=list(fields.choices) if fields.choices else None,
        correct=correct,
        judge_reason=_optional(obj, "judge_reason", str, None),
        model=_optional(obj, "model", dict, {}),
        settings=_optional(obj, "settings", dict, {}),
        source=_optional(obj, "source", dict, {}),
        raw_responses=None if raw is None else _answer_grid(raw, "raw_responses", m),
    )


def read_samples(path: str | os.PathLike) -> Iterator[Sample]:
    """The samples of a file, line by line; a bad line raises naming the file, line and field.

    Raises
    ------
    BatchInputError
        No such file, invalid JSON, an unknown ``schema``, a field of the wrong
        type or shape (``responses`` ragged or not n + 1 lists).
    """
    path = Path(path)
    if not path.is_file():
        raise BatchInputError("no such file" if not path.exists() else "not a file", file=path)
    index = 0
    with open(path, encoding="utf-8-sig", newline="") as f:
        for line in itertools.count(1):
            text = read_bounded_line(f, path, line)
            if not text:
                break
            if not text.strip():
                continue
            index += 1
            try:
                yield _sample(qs.parse_json(text), index)
            except (qs.SchemaError, ValueError) as err:
                column = getattr(err, "column", None)
                raise BatchInputError(str(err), file=path, line=line, column=column) from None
    if index == 0:
        raise BatchInputError("the file holds no samples", file=path)


def is_samples_file(path: str | os.PathLike) -> bool:
    """Whether the first non-blank line of a file is an ``invent.samples`` object."""
    try:
        with open(path, encoding="utf-8-sig") as f:
            for text in f:
                if text.strip():
                    return text.lstrip().startswith("{") and '"invent.samples/' in text
    except (OSError, UnicodeDecodeError):
        return False
    return False


# -- UQLM's result frame ---------------------------------------------------------------------


def is_uqlm_frame(columns: Any) -> bool:
    """Whether a table's columns are UQLM's ``UQResult.to_df()`` (prompts, responses, sampled_responses)."""
    names = {str(c).strip().lower() for c in columns}
    return all(c in names for c in UQLM_COLUMNS)


def _text_list(value: Any) -> list[str] | None:
    """A list as a frame holds it: a real list (JSON, Parquet) or its text in a CSV cell."""
    if hasattr(value, "tolist"):  # a numpy array from Parquet
        value = value.tolist()
    if isinstance(value, str):
        text = value.strip()
        try:  # pandas' to_csv writes a list as Python's repr: ['a', "b's"]
            value = json.loads(text) if text.startswith('["') else ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
    if isinstance(value, list | tuple) and all(isinstance(t, str) for t in value):
        return list(value)
    return None


def uqlm_answers(response: Any, sampled: Any) -> list[str]:
    """The r answers of one UQLM row: its response first (the one judged), then the samples.

    Raises
    ------
    SchemaError
        Naming ``responses`` or ``sampled_responses``.
    """
    if not isinstance(response, str):
        raise qs.SchemaError("expected the response as text", column="responses")
    samples = _text_list(sampled)
    if samples is None:
        raise qs.SchemaError(
            "expected a list of strings (as UQLM's to_df() writes it)", column="sampled_responses"
        )
    return [response, *samples]


def _frame(path: Path) -> Any:
    import pandas as pd  # heavy; only a UQLM frame needs it

    suffix = path.suffix.lower()
    if suffix == ".parquet":
        return pd.read_parquet(path)
    if suffix in (".json", ".jsonl"):
        with open(path, encoding="utf-8-sig") as f:
            lines = f.read(1).strip() == "{"
        return pd.read_json(path, orient="records", lines=lines, dtype=False)
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def read_uqlm(path: str | os.PathLike) -> list[Sample]:
    """UQLM's result frame (CSV, JSON, JSON Lines or Parquet) as samples with n = 0.

    Raises
    ------
    BatchInputError
        An unreadable file, missing columns, or a row whose cells are not a
        response and a list of sampled responses (naming the row and column).
    """
    path = Path(path)
    if path.suffix.lower() not in UQLM_SUFFIXES:
        raise BatchInputError(f"a UQLM frame is read from {', '.join(UQLM_SUFFIXES)}", file=path)
    try:
        frame = _frame(path)
    except (OSError, ValueError, ImportError) as err:
        raise BatchInputError(f"not a readable UQLM result frame ({err})", file=path) from None
    if not is_uqlm_frame(frame.columns):
        found = ", ".join(repr(str(c)) for c in frame.columns[:20])
        raise BatchInputError(
            f"not UQLM's result frame: expected columns {', '.join(UQLM_COLUMNS)}; found {found}",
            file=path,
        )
    col = {str(c).strip().lower(): c for c in frame.columns}
    out = []
    for row, rec in enumerate(frame.to_dict("records"), start=1):
        try:
            question = rec[col["prompts"]]
            if not isinstance(question, str) or not question.strip():
                raise qs.SchemaError("expected the prompt as text", column="prompts")
            answers = uqlm_answers(rec[col["responses"]], rec[col["sampled_responses"]])
        except qs.SchemaError as err:
            raise BatchInputError(err.reason, file=path, row=row, column=err.column) from None
        source = {"kind": "uqlm", "path": str(path), "row": row}
        out.append(Sample(str(row), question, [], [answers], source=source))
    return out
