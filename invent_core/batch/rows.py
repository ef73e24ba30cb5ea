"""Streaming the rows of an inspected batch input, each checked before it is scored.

The question fields go through :func:`invent_core.questions.schema.read_question_fields`
(the rules ``--data`` files follow too) and pre-generated responses through
:func:`invent_core.engine.scoring.validate_responses` (the checks ``score`` and every
method apply), so a row is refused here for the same reasons everywhere,
worded with its file, row, line and column.

A per-row problem becomes :attr:`InputRow.error` (the run records it and goes
on); a problem that stops the file from being read further (an oversized
cell or line) raises :class:`~invent_core.questions.files.BatchInputError`.
"""

from __future__ import annotations

import csv
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..engine.scoring import ResponseShapeError, validate_responses
from ..questions import schema as qs
from ..questions.files import BatchInputError, oversized_cell, read_bounded_line
from ..questions.samples import SCHEMA, uqlm_answers
from .input import InputInfo, role_columns

__all__ = ["InputRow", "RowReader"]


@dataclass
class InputRow:
    """One question of the input, parsed and checked (or why it cannot be scored).

    ``index`` is the 1-based data row (for the long layout: the question's
    ordinal), ``line`` the physical line where it starts.
    """

    index: int
    line: int
    id: str
    question: str = ""
    answers: tuple[str, ...] = ()
    task: str = "qa"
    choices: tuple[str, ...] | None = None
    perturbations: list[str] | None = None
    responses: list[list[str]] | None = None
    error: BatchInputError | None = None


class _Problem(Exception):
    """Why one row cannot be scored: the reason, the column's role or name, the line."""

    def __init__(self, reason: str, column: str | None, line: int | None = None) -> None:
        super().__init__(reason)
        self.reason, self.column, self.line = reason, column, line


def _json_list(value: Any, role: str) -> Any:
    """A list given as a real list (JSON Lines) or as a JSON string (CSV)."""
    if isinstance(value, list):
        return value
    s = "" if value is None else str(value).strip()
    if not s:
        raise _Problem(f"{role} is empty", role)
    try:
        return qs.parse_json(s)
    except ValueError as err:
        raise _Problem(
            f"{role} is not valid JSON ({str(err).removeprefix('invalid JSON (')}", role
        ) from None


def _wide_responses(
    question: str, perturbations: Any, responses: Any
) -> tuple[list[str], list[list[str]]]:
    """Shape-check the wide layout with the library's own check, worded for a file's cells."""
    if not isinstance(perturbations, list) or not all(isinstance(p, str) for p in perturbations):
        raise _Problem(
            "expected a JSON list of strings (the n perturbed questions)", "perturbations"
        )
    if not isinstance(responses, list):
        raise _Problem("expected a JSON list of n + 1 lists of r strings", "responses")
    try:
        _, reps = validate_responses([question, *perturbations], responses)
    except ResponseShapeError as err:
        raise _Problem(_wide_reason(err, len(perturbations)), "responses") from None
    return list(perturbations), reps


def _given_perturbations(perturbations: Any) -> list[str]:
    """The perturbed questions of a row the LLM is to answer, stripped; a blank one is refused."""
    if not isinstance(perturbations, list) or not all(isinstance(p, str) for p in perturbations):
        raise _Problem(
            "expected a JSON list of strings (the n perturbed questions)", "perturbations"
        )
    blank = next((k for k, p in enumerate(perturbations, start=1) if not p.strip()), None)
    if blank is not None:
        raise _Problem(f"perturbation {blank} is blank", "perturbations")
    return [p.strip() for p in perturbations]


def _wide_reason(err: Any, n: int) -> str:
    if err.kind == "count":
        return (
            f"{err.got} lists for {n} perturbations; expected {err.expected} "
            "(the original question's responses first, then one list per perturbation)"
        )
    if err.kind == "ragged":
        return (
            f"ragged replications: list 0 has {err.expected} responses but list {err.index} "
            f"has {err.got}; every question needs the same number r"
        )
    if err.kind == "empty":
        return f"list {err.index} is empty"
    return f"item {err.index} is not a list of strings"


@dataclass
class _LongCell:
    line: int
    p: int  # perturbation index
    k: int  # replication index
    text: str  # the perturbed question ("" when not given on this line)
    response: str


class RowReader:
    """Iterates the :class:`InputRow` s of a file inspected by :func:`~invent_core.batch.inspect_input`.

    Holds at most one row (one question's group in the long layout) in
    memory. A per-row problem sets ``InputRow.error``; a problem that stops
    the file from being read further raises :class:`BatchInputError`.
    """

    def __init__(self, info: InputInfo, *, max_question_chars: int = qs.MAX_QUESTION_CHARS) -> None:
        self.info = info
        self.max_question_chars = int(max_question_chars)
        self.lines_read = 0  # physical lines consumed so far (progress for the long layout)

    def name(self, role: str) -> str:
        """The column's name as written in the file."""
        return self.info.col.get(role, role)

    def _error(self, index: int, line: int, id_: str, problem: _Problem) -> InputRow:
        column = self.info.col.get(problem.column, problem.column) if problem.column else None
        err = BatchInputError(
            problem.reason, file=self.info.path, row=index, line=problem.line or line, column=column
        )
        return InputRow(index=index, line=line, id=id_, error=err)

    # -- raw records: (line, {column as written: value}) or (line, _Problem) ----------------

    def _records(self) -> Iterator[tuple[int, dict[str, Any] | _Problem]]:
        if self.info.format == "jsonl":
            yield from self._jsonl_records()
        else:
            yield from self._csv_records()

    def _jsonl_records(self) -> Iterator[tuple[int, dict[str, Any] | _Problem]]:
        info = self.info
        with open(info.path, encoding=info.encoding, newline="") as f:
            for i in itertools.count(1):
                text = read_bounded_line(f, info.path, i)
                if not text:
                    return
                self.lines_read = i
                if not text.strip():
                    continue
                try:
                    obj = qs.parse_json(text)
                except ValueError as err:
                    yield i, _Problem(str(err), None)
                    continue
                if not isinstance(obj, dict):
                    yield i, _Problem(f"expected a JSON object, got {type(obj).__name__}", None)
                    continue
                yield i, self._same_columns({str(k).strip(): v for k, v in obj.items()})

    def _same_columns(self, rec: dict[str, Any]) -> dict[str, Any] | _Problem:
        """A JSON object whose known keys are the first line's (they decide the output's columns)."""
        schema, roles = role_columns(list(rec))
        known = set(self.info.col.values()) | set(self.info.schema.answers)
        for name in (*roles.values(), *schema.answers):
            if name not in known and rec.get(name) not in (None, ""):
                return _Problem(
                    f"column {name!r} is not in the first line, whose keys decide the columns of "
                    "the whole file; add it to the first line (it may be empty there)",
                    name,
                )
        return rec

    def _csv_records(self) -> Iterator[tuple[int, dict[str, Any] | _Problem]]:
        info = self.info
        csv.field_size_limit(qs.FIELD_SIZE_LIMIT)
        with open(info.path, encoding=info.encoding, newline="") as f:
            reader = csv.reader(f, delimiter=info.delimiter)
            header: list[str] | None = None
            prev = n_rows = 0
            while True:
                try:
                    fields = next(reader)
                except StopIteration:
                    return
                except csv.Error as err:
                    raise _csv_error(err, info, n_rows + 1, prev + 1) from None
                start, prev = prev + 1, reader.line_num
                self.lines_read = prev
                if not fields or not any(x.strip() for x in fields):
                    continue  # blank line
                if header is None:
                    header = [x.strip() for x in fields]
                    continue
                n_rows += 1
                if len(fields) > len(header):
                    reason = (
                        f"the row has {len(fields)} cells but the header has {len(header)} "
                        "columns (an unquoted comma?)"
                    )
                    yield start, _Problem(reason, None)
                    continue
                yield start, dict(zip(header, fields, strict=False))

    # -- rows ------------------------------------------------------------------------------

    def _base(self, index: int, line: int, rec: dict[str, Any]) -> InputRow:
        """id, question, answers, task, choices of one record (raises _Problem)."""
        try:
            f = qs.read_question_fields(
                rec, self.info.schema, max_question_chars=self.max_question_chars
            )
        except qs.SchemaError as err:
            raise _Problem(err.reason, err.column) from None
        row = InputRow(
            index=index,
            line=line,
            id=f.id or str(index),
            question=f.question,
            answers=f.answers,
            task=f.task,
            choices=f.choices,
        )
        if not f.question:
            raise _Problem("blank question (row skipped)", "question")
        return row

    def _row(self, index: int, line: int, rec: dict[str, Any]) -> InputRow:
        row = self._base(index, line, rec)
        if self.info.layout == "wide":
            if rec.get("schema", SCHEMA) != SCHEMA:  # a samples file of another version
                raise _Problem(f"{rec.get('schema')!r} is not {SCHEMA!r}", "schema")
            perts = _json_list(rec.get(self.name("perturbations")), "perturbations")
            reps = _json_list(rec.get(self.name("responses")), "responses")
            row.perturbations, row.responses = _wide_responses(row.question, perts, reps)
            _need_perturbations(row, "perturbations", line)
        elif self.info.layout == "reworded":  # the file's rewordings; the LLM answers them
            perts = _json_list(rec.get(self.name("perturbations")), "perturbations")
            row.perturbations = _given_perturbations(perts)
            _need_perturbations(row, "perturbations", line)
        elif self.info.layout == "uqlm":  # no rewordings: the prompt's answers alone
            try:
                answers = uqlm_answers(
                    rec.get(self.name("responses")), rec.get(self.name("sampled_responses"))
                )
            except qs.SchemaError as err:
                raise _Problem(err.reason, err.column) from None
            row.perturbations, row.responses = [], [answers]
        return row

    def __iter__(self) -> Iterator[InputRow]:
        """Every row of the file, in order; long-layout groups as one row each."""
        if self.info.layout == "long":
            yield from self._iter_long()
            return
        for index, (line, rec) in enumerate(self._records(), start=1):
            yield self._checked(index, line, rec, self._row)

    def _checked(self, index: int, line: int, rec: Any, build) -> InputRow:
        """``build(index, line, rec)``, or the row with its error."""
        first = rec[0][1] if isinstance(rec, list) else rec  # a long-layout group: its first line
        fallback = str(index)
        if isinstance(first, dict):  # the id, when it can be read, names a failed row too
            fallback = _raw_id(first, self.info.col) or fallback
        try:
            if isinstance(rec, _Problem):
                raise rec
            return build(index, line, rec)
        except _Problem as problem:
            return self._error(index, line, fallback, problem)

    # -- the long layout: one row per response, grouped by id (or question) -----------------

    def _iter_long(self) -> Iterator[InputRow]:
        key_col = self.info.col.get("id", self.info.col["question"])
        group: list[tuple[int, dict[str, Any]]] = []
        key: str | None = None
        index = 0
        for line, rec in self._records():
            k = None if isinstance(rec, _Problem) else str(rec.get(key_col) or "").strip()
            if group and (k is None or (k and k != key)):
                index += 1
                yield self._checked(index, group[0][0], group, self._long_row)
                group, key = [], None
            if k is None:
                index += 1
                yield self._checked(index, line, rec, self._long_row)
                continue
            if not group:
                key = k
            group.append((line, rec))
        if group:
            index += 1
            yield self._checked(index, group[0][0], group, self._long_row)

    def _long_row(
        self, index: int, line0: int, group: list[tuple[int, dict[str, Any]]]
    ) -> InputRow:
        merged = dict(group[0][1])  # question/answer/id may be given on the group's first line only
        for _, rec in group[1:]:
            for k, v in rec.items():
                if merged.get(k) in (None, "") and v not in (None, ""):
                    merged[k] = v
        row = self._base(index, line0, merged)
        cells = [self._long_cell(line, rec) for line, rec in group]
        row.perturbations, responses = _long_responses(cells, line0)
        try:
            _, row.responses = validate_responses([row.question, *row.perturbations], responses)
        except ResponseShapeError as err:
            raise _Problem(str(err), "response", line0) from None
        _need_perturbations(row, "perturbation_index", line0)
        return row

    def _long_cell(self, line: int, rec: dict[str, Any]) -> _LongCell:
        idx = {}
        for role in ("perturbation_index", "replication_index"):
            try:
                idx[role] = int(str(rec.get(self.name(role))).strip())
            except ValueError:
                raise _Problem(f"{role} is not an integer", role, line) from None
        if min(idx.values()) < 0:
            raise _Problem("indices must be >= 0", "perturbation_index", line)
        text = rec.get(self.name("perturbation"))
        resp = rec.get(self.name("response"))
        return _LongCell(
            line=line,
            p=idx["perturbation_index"],
            k=idx["replication_index"],
            text="" if text is None else str(text).strip(),
            response="" if resp is None else str(resp),
        )


def _need_perturbations(row: InputRow, column: str, line: int) -> None:
    """Refuse a row with no perturbed question: with n = 0 Inv-Entropy would say 0.0 (certain)."""
    if not row.perturbations:
        raise _Problem(
            "no perturbed questions (n = 0); give at least one perturbation and its responses",
            column,
            line,
        )


def _raw_id(rec: dict[str, Any], col: dict[str, str]) -> str | None:
    """The row's id as written, when it is text or an integer (names a failed row)."""
    value = rec.get(col["id"]) if "id" in col else None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return (value.strip() or None) if isinstance(value, str) else None


def _long_responses(cells: list[_LongCell], line0: int) -> tuple[list[str], list[list[str]]]:
    """Perturbation texts and the (n + 1) × r responses of one long-layout group."""
    texts: dict[int, str] = {}
    grid: dict[int, dict[int, str]] = {}
    for c in cells:
        if c.text and c.p not in texts:
            texts[c.p] = c.text
        if c.k in grid.setdefault(c.p, {}):
            raise _Problem(
                f"perturbation {c.p}, replication {c.k} is given twice", "replication_index", c.line
            )
        grid[c.p][c.k] = c.response
    n = max(grid)
    if n + 1 != len(grid):  # a gap lies within the first len(grid) + 1 indices (never 0 … n)
        missing = [p for p in range(len(grid) + 1) if p not in grid][:5]
        raise _Problem(
            f"perturbation index(es) {missing} missing (expected 0 … {n})",
            "perturbation_index",
            line0,
        )
    r0 = len(grid[0])
    for p in range(n + 1):
        ks = sorted(grid[p])
        if ks != list(range(len(ks))) or len(ks) != r0:
            raise _Problem(
                f"ragged responses: perturbation 0 has {r0} replications but perturbation {p} has "
                f"replication indices {ks}; every perturbation needs 0 … r-1",
                "replication_index",
                line0,
            )
    absent = [p for p in range(1, n + 1) if p not in texts]
    if absent:
        raise _Problem(f"perturbation {absent[0]} has no text", "perturbation", line0)
    return [texts[p] for p in range(1, n + 1)], [
        [grid[p][k] for k in range(r0)] for p in range(n + 1)
    ]


def _csv_error(err: csv.Error, info: InputInfo, row: int, line: int) -> BatchInputError:
    # the pre-scan (check_quotes) refuses an oversized cell first; this is the file changing since
    if "field larger than field limit" in str(err):
        return oversized_cell(info.path, row, line)
    return BatchInputError(str(err), file=info.path, row=row, line=line)
