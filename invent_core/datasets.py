"""Benchmark questions and user question files, as one :class:`Example` type.

The five benchmark samples (300 questions each, paper §3 "Models and tasks") ship in
``assets/datasets/`` with their provenance and licences (``MANIFEST.json``,
``LICENSES.md``). NQ here is NQ-open (short answers); the paper's long-answer NQ subset
is not available offline.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from invent_core.errors import InventError
from invent_core.question_schema import (
    ANSWER_COLUMNS,
    QUESTION_COLUMNS,
    SchemaError,
    parse_json,
    read_question_fields,
    resolve_columns,
)

__all__ = [
    "DATASETS",
    "QUESTION_COLUMNS",
    "ANSWER_COLUMNS",
    "DatasetFileError",
    "Example",
    "datasets_dir",
    "available_datasets",
    "load_dataset",
    "load_examples_file",
]

#: dataset name -> (file in assets/datasets, task); task picks the answer prompt.
DATASETS: dict[str, tuple[str, str]] = {
    "triviaqa": ("triviaqa_sample300.jsonl", "qa"),
    "sciq": ("sciq_sample300.jsonl", "qa"),
    "nq_open": ("nq_open_sample300.jsonl", "qa"),
    "mmlu": ("mmlu_sample300.jsonl", "mmlu"),
    "gsm8k": ("gsm8k_sample300.jsonl", "gsm8k"),
}
_ALIASES = {"nq": "nq_open", "trivia_qa": "triviaqa"}

# Accepted column names in user files: QUESTION_COLUMNS and ANSWER_COLUMNS of
# invent_core.question_schema (re-exported here), shared with the batch reader.


class DatasetFileError(InventError, ValueError):
    """A dataset or question file cannot be read; the message names file, line and column."""


@dataclass(frozen=True)
class Example:
    """One question with its reference answers.

    Attributes
    ----------
    id : stable identifier ("gsm8k_test:0", "<file stem>:<line>").
    question : the question text (for MMLU without the options).
    answers : reference answer and its aliases, canonical first. MMLU: ``(letter,
        option text)``; GSM8K: the final number. Empty when a user file has no answers.
    task : "qa", "mmlu" or "gsm8k" — picks the answer prompt
        (:func:`invent_core.prompts.answer_prompt`) and is a valid ``dataset`` argument
        of :func:`invent_core.evaluation.correctness.judge_correct`.
    choices : MMLU options in letter order, else None.
    dataset : "triviaqa", "sciq", "nq_open", "mmlu", "gsm8k" or "custom".
    extra : anything else the source row had (GSM8K solution, MMLU subject, SciQ support).
    """

    id: str
    question: str
    answers: tuple[str, ...]
    task: str
    choices: tuple[str, ...] | None = None
    dataset: str = "custom"
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def answer(self) -> str | None:
        """The canonical reference answer (first alias), or None."""
        return self.answers[0] if self.answers else None

    @property
    def judge_dataset(self) -> str:
        """The ``dataset`` key for ``judge_correct`` (matching rule for this example)."""
        return self.dataset if self.dataset != "custom" else self.task


def datasets_dir() -> Path:
    """Folder of the shipped samples: ``$INVENT_DATASETS_DIR`` or ``<repo>/assets/datasets``."""
    env = os.environ.get("INVENT_DATASETS_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[1] / "assets" / "datasets"


def available_datasets() -> list[str]:
    """Names accepted by :func:`load_dataset`."""
    return list(DATASETS)


def _select(examples: list[Example], limit: int | None, seed: int | None) -> list[Example]:
    if limit is not None and (not isinstance(limit, int | np.integer) or limit < 1):
        raise ValueError(f"limit must be a positive integer or None; got {limit!r}")
    if seed is not None:
        order = np.random.default_rng(seed).permutation(len(examples))
        examples = [examples[i] for i in order]
    return examples if limit is None else examples[:limit]


def _unquote_csv_artifact(text: str) -> str:
    """Undo CSV quoting left in a question: ``'"A ""b"" c?"'`` -> ``'A "b" c?'``.

    26 of the 300 shipped TriviaQA questions carry it (llm-foundry's source file).
    """
    if len(text) > 1 and text[0] == text[-1] == '"':
        return text[1:-1].replace('""', '"')
    return text


def load_dataset(name: str, *, limit: int | None = None, seed: int | None = None) -> list[Example]:
    """Load a shipped 300-question benchmark sample.

    Parameters
    ----------
    name : "triviaqa", "sciq", "nq_open" (or "nq"), "mmlu", "gsm8k".
    limit : keep the first ``limit`` questions (after shuffling when ``seed`` is given).
    seed : None keeps the file order; an int shuffles reproducibly first.

    Returns
    -------
    list of :class:`Example`. Questions wrapped in CSV quotes in the source (26
    TriviaQA rows) are unquoted; nothing else is changed.
    """
    key = _ALIASES.get(name.lower(), name.lower())
    if key not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; available: {', '.join(DATASETS)}")
    filename, task = DATASETS[key]
    path = datasets_dir() / filename
    if not path.is_file():
        raise DatasetFileError(
            f"dataset file {path} is missing; the benchmark samples ship in assets/datasets/ "
            "of the repository (or set INVENT_DATASETS_DIR)"
        )
    examples = []
    for _lineno, row in _read_jsonl(path):
        answers = tuple(str(a) for a in (row.get("answers") or [row["answer"]]))
        choices = row.get("choices")
        examples.append(
            Example(
                id=str(row["id"]),
                question=_unquote_csv_artifact(str(row["question"])),
                answers=answers,
                task=task,
                choices=tuple(str(c) for c in choices) if choices else None,
                dataset=key,
                extra=dict(row.get("extra") or {}),
            )
        )
    return _select(examples, limit, seed)


# --- user files -----------------------------------------------------------------


def _read_text(path: Path) -> str:
    if not path.is_file():
        raise DatasetFileError(f"{path}: no such file")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as err:
        raise DatasetFileError(
            f"{path}: not UTF-8 text (bad byte at offset {err.start}); save it as UTF-8"
        ) from None
    if not text.strip():
        raise DatasetFileError(f"{path}: the file is empty")
    return text


def _read_jsonl(path: Path) -> Iterable[tuple[int, dict[str, Any]]]:
    for lineno, line in enumerate(_read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = parse_json(line)
        except ValueError as err:
            raise DatasetFileError(f"{path} line {lineno}: {err}") from None
        if not isinstance(row, dict):
            raise DatasetFileError(
                f"{path} line {lineno}: expected a JSON object, got {type(row).__name__}"
            )
        yield lineno, row


def _read_rows(path: Path) -> Iterable[tuple[int, dict[str, Any]]]:
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        yield from _read_jsonl(path)
    elif suffix == ".json":
        text = _read_text(path)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise DatasetFileError(f"{path} line {err.lineno}: invalid JSON ({err.msg})") from None
        except RecursionError:
            raise DatasetFileError(f"{path}: invalid JSON (nested too deeply to read)") from None
        if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
            raise DatasetFileError(f"{path}: expected a JSON list of objects")
        yield from enumerate(data, start=1)
    elif suffix in (".csv", ".tsv"):
        text = _read_text(path)
        reader = csv.DictReader(
            io.StringIO(text, newline=""), delimiter="\t" if suffix == ".tsv" else ","
        )
        if not reader.fieldnames or not any(f and f.strip() for f in reader.fieldnames):
            raise DatasetFileError(f"{path}: no header row")
        for row in reader:
            yield reader.line_num, row
    else:
        raise DatasetFileError(
            f"{path}: unsupported file type {suffix!r}; use .csv, .tsv, .jsonl or .json"
        )


def load_examples_file(
    path: str | os.PathLike[str], *, require_answers: bool = False
) -> list[Example]:
    """Read user questions from a CSV/TSV, JSONL or JSON file.

    Columns (case-insensitive; first match wins):

    - question: one of :data:`QUESTION_COLUMNS` — required, non-empty in every row.
    - answer: any of :data:`ANSWER_COLUMNS` ("value" as in the paper's released tool) —
      a plain string, a JSON list (``["Paris", "City of Paris"]``) or "a|b" aliases.
      With both ``answer`` and ``answers`` (TriviaQA) the aliases of both are kept,
      the canonical answer first. Optional unless ``require_answers``.
    - choices (optional): options as a JSON list or "a|b"; makes the task "mmlu".
    - task (optional): "qa", "mmlu" or "gsm8k"; default "mmlu" with choices, else "qa".
    - id (optional): default ``"<file stem>:<line>"``.

    Returns
    -------
    list of :class:`Example` with ``dataset="custom"``.

    Raises
    ------
    DatasetFileError
        Naming the file, line and column: missing/empty file, not UTF-8, no question
        column, an empty question, a missing answer with ``require_answers``, bad task.
    """
    p = Path(path)
    examples: list[Example] = []
    for lineno, row in _read_rows(p):
        # per row: JSON rows need not share their keys (a CSV header gives every row the same)
        where = f"{p}" if not examples else f"{p} line {lineno}"
        cols = resolve_columns(row.keys())
        if cols.question is None:
            found = ", ".join(repr(k) for k in row.keys() if k is not None) or "none"
            raise DatasetFileError(
                f"{where}: no question column (found {found}; expected one of "
                f"{', '.join(QUESTION_COLUMNS)})"
            )
        if not cols.answers and require_answers:
            raise DatasetFileError(
                f"{where}: no answer column (expected one of {', '.join(ANSWER_COLUMNS)})"
            )
        try:
            fields = read_question_fields(row, cols)
        except SchemaError as err:
            raise DatasetFileError(f"{p} line {lineno}: {err.reason}") from None
        if not fields.question:
            raise DatasetFileError(f"{p} line {lineno}: empty {cols.question!r}")
        if require_answers and not fields.answers:
            raise DatasetFileError(f"{p} line {lineno}: empty {cols.answers[0]!r}")
        examples.append(
            Example(
                id=fields.id or f"{p.stem}:{lineno}",
                question=fields.question,
                answers=fields.answers,
                task=fields.task,
                choices=fields.choices,
                dataset="custom",
            )
        )
    if not examples:
        raise DatasetFileError(f"{p}: no rows after the header")
    return examples
