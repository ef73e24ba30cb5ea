"""Malformed inputs and parameters through the real CLI: every one is refused cleanly.

Each case runs ``python -m invent_core score|batch|merge|run …`` as a
subprocess in its own folder and asserts: a non-zero exit (the documented
status), a message naming the file / row / column or the option, no
``Traceback``, and every file that was there before — the input and, where
given, an earlier output with its sidecars — byte-identical afterwards (and
no new file at all when the whole command is refused). No LLM is called:
inputs carry pre-generated responses, and ``run`` cases fail on their
options before any request.

The cases run concurrently (a pool of processes) once per session; each
parametrised test checks one result.
"""

from __future__ import annotations

import codecs
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from invent_core.questions import schema as qs

pytestmark = pytest.mark.slow  # ~100 subprocesses (in parallel), one in-process MiniLM run

ROOT = Path(__file__).resolve().parents[2]

PERTS = json.dumps(["Which city is the capital of France?", "France's capital is?"])
REPS = json.dumps([["Paris", "Paris"], ["Paris", "Lyon"], ["Paris", "Paris"]])


def _cell(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


WIDE_HEADER = "id,question,answer,perturbations,responses\n"
WIDE_ROW = f"q1,What is the capital of France?,Paris,{_cell(PERTS)},{_cell(REPS)}\n"
WIDE_CSV = WIDE_HEADER + WIDE_ROW + WIDE_ROW.replace("q1", "q2").replace("France?,", "Peru?,")
SCORE_OK = {
    "questions": ["Capital of France?", "France's capital?"],
    "responses": [["Paris"], ["Paris"]],
}
JSONL_ROW = {
    "id": "q1",
    "question": "What is the capital of France?",
    "perturbations": json.loads(PERTS),
    "responses": json.loads(REPS),
}


def _json(obj) -> bytes:
    return json.dumps(obj).encode()


def _jsonl(*rows) -> bytes:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows).encode()


@dataclass
class Case:
    """One malformed command: files to create, arguments, the expected status and message."""

    args: list[str]
    files: dict[str, bytes | None] = field(default_factory=dict)  # None: a folder
    status: int = 2
    message: str = ""  # regex searched in stderr
    earlier: bool = False  # an earlier, valid output out.csv (+ sidecars) is in the folder
    links: dict[str, str] = field(default_factory=dict)  # name -> "hard:target" / "sym:target"
    meta_edit: dict[str, object] = field(default_factory=dict)  # file -> edit of earlier meta
    not_said: str = ""  # regex that must not be in stderr (an estimate before a refusal)
    copies: dict[str, Path] = field(default_factory=dict)  # folder name -> a folder copied there


def _score(name: str, data: bytes | None, message: str, *extra: str) -> Case:
    files = {name: data} if data is not None or name.startswith("dir") else {}
    return Case(["score", name, *extra], files, 2, message)


def _batch(name: str, data: bytes | None, message: str, *extra: str, status: int = 2) -> Case:
    files = {name: data} if data is not None or name.startswith("dir") else {}
    return Case(["batch", name, "-o", "out.csv", "-q", *extra], files, status, message)


def _option(message: str, *extra: str, status: int = 2) -> Case:
    """A bad option against a valid input and an earlier output, with --no-resume."""
    return Case(
        ["batch", "in.csv", "-o", "out.csv", "-q", "--no-resume", *extra],
        {"in.csv": WIDE_CSV.encode()},
        status,
        message,
        earlier=True,
    )


#: Two small evaluate folders and a run artefact shipped with the repository.
SHIPPED = ROOT / "docs" / "results"
SMALL_EVALUATION = ROOT / "docs" / "references" / "before_2026-11-27" / "evaluate-sciq"
DEMO_RUN = (ROOT / "assets" / "demo_run.json").read_bytes()


def _damaged_evaluation(command: list[str], name: str, data: bytes, message: str) -> Case:
    """``command`` on a copy of a small evaluate folder ``ev`` whose file ``name`` is ``data``."""
    return Case(command, {f"ev/{name}": data}, 2, message, copies={"ev": SMALL_EVALUATION})


def _compare(message: str, *extra: str) -> Case:
    folders = [
        str(SHIPPED / "evaluate-arithmetic-100"),
        str(SHIPPED / "evaluate-arithmetic-100-gaap"),
    ]
    return Case(["compare", *folders, "--metrics", "auroc", *extra], {}, 2, message)


CASES: dict[str, Case] = {
    # -- the probe of 2026-11-28: reports, compare and help
    "report run JSON an array": Case(
        ["report", "r.json", "-o", "r.html"],
        {"r.json": b"[1, 2]"},
        2,
        r"r\.json: not a run artefact \(expected a JSON object, got list\)",
    ),
    "report config.json not an object": _damaged_evaluation(
        ["report", "ev", "-o", "r.html"],
        "config.json",
        b"[]",
        r"ev/config\.json: expected a JSON object, got list",
    ),
    "reference build config.json not an object": _damaged_evaluation(
        ["reference", "build", "ev", "-o", "ref.json"],
        "config.json",
        b"[]",
        r"ev/config\.json: expected a JSON object, got list",
    ),
    "report results.json not JSON": _damaged_evaluation(
        ["report", "ev", "-o", "r.html"],
        "results.json",
        b"{trunc",
        r"ev/results\.json: not valid JSON \(Expecting property name",
    ),
    "compare --n-bootstrap-metrics 1e8": _compare(
        r"--n-bootstrap-metrics must be from 1 to 10,000, got 100,000,000",
        "--n-bootstrap-metrics",
        "100000000",
    ),
    "compare --seed -1": _compare(r"--seed must be at least 0, got -1", "--seed", "-1"),
    "export-samples truncated run": Case(
        ["export-samples", "run.json", "-o", "s.jsonl"],
        {"run.json": DEMO_RUN[:4000]},
        2,
        r"run\.json: not valid JSON \(.*\); is the run artefact cut short\?",
    ),
    "export-samples run of the wrong format": Case(
        ["export-samples", "run.json", "-o", "s.jsonl"],
        {"run.json": DEMO_RUN.replace(b'"format": "invent.run/', b'"format": "other/')},
        2,
        r"run\.json: not a run artefact \(unsupported run format 'other/",
    ),
    "report -o its own input": Case(
        ["report", "run.html", "-o", "run.html"],
        {"run.html": DEMO_RUN},
        2,
        r"run\.html: the output would overwrite the input \(the same file",
    ),
    # -- score: the JSON file ------------------------------------------------------------
    "score missing file": _score("nope.json", None, r"nope\.json: no such file"),
    "score folder": _score("dir.json", None, r"dir\.json: not a file"),
    "score empty file": _score("e.json", b"", r"e\.json: not valid JSON"),
    "score invalid JSON": _score("bad.json", b'{"questions": [', r"bad\.json: not valid JSON"),
    "score top-level array": _score("a.json", b"[1, 2]", r"a\.json: expected a JSON object"),
    "score the question alone": _score(
        "q.json",
        _json({"questions": ["Q?"], "responses": [["a", "b"]]}),
        r"q\.json: questions holds the question alone \(n = 0\)",
    ),
    "score no questions key": _score(
        "q.json", _json({"responses": [["a"]]}), r"q\.json: missing key 'questions'"
    ),
    "score no responses key": _score(
        "r.json", _json({"questions": ["a"]}), r"r\.json: missing key 'responses'"
    ),
    "score responses null": _score(
        "n.json", _json({"questions": ["a"], "responses": None}), r"n\.json: responses is NoneType"
    ),
    "score questions null": _score(
        "qn.json",
        _json({"questions": None, "responses": [["a"]]}),
        r"qn\.json: questions must be a list",
    ),
    "score questions a string": _score(
        "qs.json",
        _json({"questions": "a", "responses": [["a"]]}),
        r"qs\.json: questions must be a list",
    ),
    "score questions empty": _score(
        "qe.json", _json({"questions": [], "responses": []}), r"qe\.json: questions is empty"
    ),
    "score ragged responses": _score(
        "rg.json",
        _json({"questions": ["a", "b"], "responses": [["x", "y"], ["z"]]}),
        r"rg\.json: ragged responses: question 0 has 2 replications but question 1 has 1",
    ),
    "score count mismatch": _score(
        "cm.json",
        _json({"questions": ["a", "b"], "responses": [["x"]]}),
        r"cm\.json: got 2 questions but responses for 1",
    ),
    "score number as response": _score(
        "num.json",
        _json({"questions": ["a"], "responses": [[3]]}),
        r"num\.json: responses\[0\]\[0\] is int",
    ),
    "score number as question": _score(
        "qnum.json",
        _json({"questions": ["a", 7], "responses": [["x"], ["y"]]}),
        r"qnum\.json: questions\[1\] is int",
    ),
    "score empty replications": _score(
        "er.json",
        _json({"questions": ["a"], "responses": [[]]}),
        r"er\.json: responses\[0\] is empty",
    ),
    "score deeply nested": _score(
        "deep.json",
        b'{"questions": ["a"], "responses": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
        r"deep\.json: not valid JSON: .*nested too deeply",
    ),
    "score Latin-1 bytes": _score(
        "l1.json",
        '{"questions": ["Où?"], "responses": [["là"]]}'.encode("latin-1"),
        r"l1\.json: not UTF-8 text",
    ),
    "score UTF-16 without BOM": _score(
        "u16.json", json.dumps(SCORE_OK).encode("utf-16-le"), r"u16\.json: not valid JSON"
    ),
    "score PNG": _score("img.json", b"\x89PNG\r\n\x1a\n" + bytes(64), r"img\.json: not UTF-8 text"),
    "score -B 0": _score("ok.json", _json(SCORE_OK), r"n.bootstrap must be at least 1", "-B", "0"),
    "score -B abc": _score(
        "ok.json", _json(SCORE_OK), r"-B/--n-bootstrap: invalid int value", "-B", "abc"
    ),
    "score --affinity bogus": _score(
        "ok.json", _json(SCORE_OK), r"--affinity: invalid choice: 'bogus'", "--affinity", "bogus"
    ),
    # -- batch: whole-file problems ----------------------------------------------------------
    "batch missing file": _batch("nope.csv", None, r"nope\.csv: no such file"),
    "batch folder": _batch("dir.csv", None, r"dir\.csv: not a regular file"),
    "batch empty file": _batch("e.csv", b"", r"e\.csv: the file is empty"),
    "batch blank lines only": _batch("b.csv", b"  \n\n", r"b\.csv: the file is empty"),
    "batch BOM only": _batch("bom.csv", codecs.BOM_UTF8, r"bom\.csv: the file is empty"),
    "batch PNG": _batch(
        "img.csv", b"\x89PNG\r\n\x1a\n" + bytes(64), r"img\.csv: this is a PNG image"
    ),
    "batch PDF": _batch("doc.csv", b"%PDF-1.7\n" + bytes(32), r"doc\.csv: this is a PDF document"),
    "batch xlsx": _batch(
        "book.csv", b"PK\x03\x04" + bytes(32), r"book\.csv: this is a ZIP archive"
    ),
    "batch gzip": _batch("z.csv", b"\x1f\x8b\x08" + bytes(32), r"z\.csv: this is a gzip archive"),
    "batch binary NUL": _batch(
        "nul.csv", b"question\nab\x00\x01\x02", r"nul\.csv, byte \d+: looks like a binary file"
    ),
    "batch UTF-16 without BOM": _batch(
        "u16.csv",
        "id,question\n1,Where?\n".encode("utf-16-le"),
        r"u16\.csv, byte 1: looks like UTF-16 text",
    ),
    "batch Latin-1": _batch(
        "l1.csv",
        "id,question\n1,Où est Zürich?\n".encode("latin-1"),
        r"l1\.csv, row 1 \(line 2\), byte \d+, column 'question': not valid UTF-8",
    ),
    "batch unknown --encoding": _batch(
        "in.csv",
        WIDE_CSV.encode(),
        r"in\.csv: unknown text encoding 'klingon'",
        "--encoding",
        "klingon",
    ),
    "batch JSON array": _batch(
        "a.json", b'[{"question": "x"}]', r"a\.json: a JSON array cannot be streamed"
    ),
    "batch no question column": _batch(
        "nq.csv",
        b"text,answer\nhi,there\n",
        r"nq\.csv, line 1: no question column; found 'text', 'answer'",
    ),
    "batch semicolons": _batch(
        "semi.csv",
        b"question;answer\nhi;there\n",
        r"semi\.csv, line 1: .*semicolon-separated\? use commas",
    ),
    "batch header only": _batch(
        "h.csv", b"id,question\n", r"h\.csv: no data rows after the header"
    ),
    "batch unclosed quote": _batch(
        "uq.csv",
        b'question,answer\n"Unbalanced quote starts here,Paris\nWhat is 2+2?,4\n'
        b"Capital of Italy?,Rome\nLargest ocean?,Pacific\n",
        r"uq\.csv, line 2: a quoted cell opened on this line runs on to line 5",
    ),
    "batch unclosed quote, one column": _batch(
        "uq1.csv",
        b'question\nOne?\n"Two\nThree?\n',
        r"uq1\.csv, line 3: .*never closed before the end",
    ),
    "batch unclosed quote in responses": _batch(
        "uqr.csv",
        (WIDE_HEADER + WIDE_ROW[:-2] + "\n" + WIDE_ROW.replace("q1", "q2")).encode(),
        r"uqr\.csv, line 2: a quoted cell opened on this line",
    ),
    "batch responses without perturbations": _batch(
        "rp.csv",
        b'question,responses\nQ?,"[[""a""]]"\n',
        r"rp\.csv, column 'perturbations': a 'responses' column needs",
    ),
    "batch long layout missing columns": _batch(
        "long.csv",
        b"id,question,perturbation_index,response\nq,Q?,0,a\n",
        r"long\.csv, column 'replication_index': long layout of pre-generated responses is missing",
    ),
    "batch JSONL invalid first line": _batch(
        "j.jsonl", b'{"question": \n', r"j\.jsonl, row 1 \(line 1\): not JSON Lines: invalid JSON"
    ),
    "batch JSONL first line a list": _batch(
        "jl.jsonl",
        b'["question"]\n',
        r"jl\.jsonl, row 1 \(line 1\): expected a JSON object per line",
    ),
    "batch JSONL deeply nested": _batch(
        "jd.jsonl",
        b"[" * 50_000 + b"\n",
        r"jd\.jsonl, row 1 \(line 1\): not JSON Lines: .*nested too deeply",
    ),
    # -- batch: every row refused (exit 1); the others would be scored --------------------------
    "batch blank question": _batch(
        "bq.csv",
        f"id,question,perturbations,responses\nq1, ,{_cell(PERTS)},{_cell(REPS)}\n".encode(),
        r"bq\.csv, row 1 \(line 2\), column 'question': blank question",
        status=1,
    ),
    "batch JSONL question is a number": _batch(
        "jn.jsonl",
        _jsonl(dict(JSONL_ROW, question=42)),
        r"jn\.jsonl, row 1 \(line 1\), column 'question': 'question' must be text, got a number",
        status=1,
    ),
    "batch JSONL id is a list": _batch(
        "ji.jsonl",
        _jsonl(dict(JSONL_ROW, id=["a"])),
        r"ji\.jsonl, row 1 \(line 1\), column 'id': 'id' must be text, got a list",
        status=1,
    ),
    "batch JSONL answer is an object": _batch(
        "ja.jsonl",
        _jsonl(dict(JSONL_ROW, answer={"text": "Paris"})),
        r"ja\.jsonl, row 1 \(line 1\), column 'answer': 'answer' must be text, got a JSON object",
        status=1,
    ),
    "batch JSONL key missing from the first line": _batch(
        "jk.jsonl",
        _jsonl(dict(JSONL_ROW, question=" "), dict(JSONL_ROW, id="q2", answer="Paris")),
        r"jk\.jsonl, row 2 \(line 2\), column 'answer': column 'answer' is not in the first line",
        status=1,
    ),
    "batch responses not JSON": _batch(
        "rj.csv",
        f"id,question,perturbations,responses\nq1,Q?,{_cell(PERTS)},[[x\n".encode(),
        r"rj\.csv, row 1 \(line 2\), column 'responses': responses is not valid JSON",
        status=1,
    ),
    "batch ragged replications": _batch(
        "rr.csv",
        f'id,question,perturbations,responses\nq1,Q?,{_cell(PERTS)},"[[""a"",""b""],[""c""],[""d"",""e""]]"\n'.encode(),
        r"rr\.csv, row 1 \(line 2\), column 'responses': ragged replications",
        status=1,
    ),
    "batch responses count": _batch(
        "rc.csv",
        f'id,question,perturbations,responses\nq1,Q?,{_cell(PERTS)},"[[""a""]]"\n'.encode(),
        r"rc\.csv, row 1 \(line 2\), column 'responses': 1 lists for 2 perturbations; expected 3",
        status=1,
    ),
    "batch unknown task": _batch(
        "t.csv",
        f"id,question,task,perturbations,responses\nq1,Q?,essay,{_cell(PERTS)},{_cell(REPS)}\n".encode(),
        r"t\.csv, row 1 \(line 2\), column 'task': task 'essay' in column 'task' is not one of",
        status=1,
    ),
    "batch mmlu without choices": _batch(
        "m.csv",
        f"id,question,task,perturbations,responses\nq1,Q?,mmlu,{_cell(PERTS)},{_cell(REPS)}\n".encode(),
        r"m\.csv, row 1 \(line 2\), column 'choices': task 'mmlu' needs a choices column",
        status=1,
    ),
    "batch question over the limit": _batch(
        "ql.csv",
        f"id,question,perturbations,responses\nq1,{'x' * 20_001},{_cell(PERTS)},{_cell(REPS)}\n".encode(),
        r"ql\.csv, row 1 \(line 2\), column 'question': question is 20,001 characters; the limit is 20,000",
        status=1,
    ),
    "batch extra cells": _batch(
        "xc.csv",
        b"id,question\nq1,What is 3,4?,extra\n",
        r"xc\.csv, row 1 \(line 2\): the row has 4 cells but the header has 2",
        status=1,
    ),
    "batch long layout bad index": _batch(
        "li.csv",
        b"id,question,perturbation_index,replication_index,perturbation,response\nq,Q?,zero,0,,a\n",
        r"li\.csv, row 1 \(line 2\), column 'perturbation_index': perturbation_index is not an integer",
        status=1,
    ),
    # -- batch: options, each checked before the earlier output is touched (--no-resume) -------
    "batch -r 0": _option(r"n.replications must be at least 1, got 0", "-r", "0"),
    "batch -n 0": _option(r"n.perturbations must be at least 1, got 0", "-n", "0"),
    "batch -n -3": _option(r"n.perturbations must be at least 1, got -3", "-n", "-3"),
    "batch -t -1": _option(r"temperature must be in \[0, 2\], got -1", "-t", "-1"),
    "batch -t 1e9": _option(r"temperature must be in \[0, 2\], got 1e\+09", "-t", "1e9"),
    "batch -t nan": _option(r"temperature must be a finite number, got nan", "-t", "nan"),
    "batch -t abc": _option(r"-t/--temperature: invalid float value: 'abc'", "-t", "abc"),
    "batch -B 0": _option(r"n.bootstrap must be at least 1, got 0", "-B", "0"),
    "batch --seed -1": _option(r"seed must be at least 0, got -1", "--seed", "-1"),
    "batch --dataset bogus": _option(
        r"dataset 'bogus' is not a correctness rule", "--dataset", "bogus"
    ),
    "batch --concurrency 0": _option(
        r"--concurrency: must be in 1 … 256, got 0", "--concurrency", "0"
    ),
    "batch --shard 0/2": _option(r"shard 0/2: need 1 <= i <= N", "--shard", "0/2"),
    "batch --shard 3/2": _option(r"shard 3/2: need 1 <= i <= N", "--shard", "3/2"),
    "batch --shard x": _option(r"shard must look like 'i/N'", "--shard", "x"),
    "batch --methods bogus": _option(r"--methods: unknown method 'bogus'", "--methods", "bogus"),
    "batch --affinity bogus": _option(
        r"--affinity: invalid choice: 'bogus'", "--affinity", "bogus"
    ),
    "batch --perturber bogus": _option(
        r"--perturber: invalid choice: 'bogus'", "--perturber", "bogus"
    ),
    "batch --gaap-delta 2": _option(r"delta must be in \[0, 1\], got 2", "--gaap-delta", "2"),
    "batch --paraphrase-style bogus": _option(
        r"--paraphrase-style: invalid choice: 'bogus'", "--paraphrase-style", "bogus"
    ),
    "batch --answer-max-tokens 0": _option(
        r"answer.max.tokens must be at least 1, got 0", "--answer-max-tokens", "0"
    ),
    "batch different configuration": Case(
        ["batch", "in.csv", "-o", "out.csv", "-q", "-B", "6"],
        {"in.csv": WIDE_CSV.encode()},
        2,
        r"out\.csv: the output was made with a different configuration \(--n-bootstrap: 5 → 6\)",
        earlier=True,
    ),
    "batch sidecar missing": Case(
        ["batch", "in.csv", "-o", "out.csv", "-q", "-B", "5"],
        {"in.csv": WIDE_CSV.encode()},
        2,
        r"out\.csv: out\.csv already holds rows but its sidecar out\.csv\.meta\.json is missing",
        earlier=True,
        meta_edit={"out.csv.meta.json": None},
    ),
    "batch sidecar corrupt": Case(
        ["batch", "in.csv", "-o", "out.csv", "-q", "-B", "5"],
        {"in.csv": WIDE_CSV.encode()},
        2,
        r"out\.csv\.meta\.json: the sidecar is not valid JSON",
        earlier=True,
        meta_edit={"out.csv.meta.json": "{not json"},
    ),
    # -- batch: output paths -----------------------------------------------------------------
    "batch output .xlsx": Case(
        ["batch", "in.csv", "-o", "out.xlsx", "-q"],
        {"in.csv": WIDE_CSV.encode()},
        2,
        r"out\.xlsx: unsupported output extension '\.xlsx'",
    ),
    "batch output is a folder": Case(
        ["batch", "in.csv", "-o", "dir.csv", "-q"],
        {"in.csv": WIDE_CSV.encode(), "dir.csv": None},
        2,
        r"dir\.csv: the output path is a folder",
    ),
    "batch output folder missing": Case(
        ["batch", "in.csv", "-o", "nope/out.csv", "-q"],
        {"in.csv": WIDE_CSV.encode()},
        2,
        r"nope/out\.csv: cannot write the output: folder nope does not exist",
    ),
    "batch output is the input": Case(
        ["batch", "in.csv", "-o", "in.csv", "-q", "--no-resume"],
        {"in.csv": WIDE_CSV.encode()},
        2,
        r"in\.csv: the output would overwrite the input \(the same file",
    ),
    "batch output hard link to the input": Case(
        ["batch", "in.csv", "-o", "link.csv", "-q", "--no-resume"],
        {"in.csv": WIDE_CSV.encode()},
        2,
        r"link\.csv: the output would overwrite the input \(a hard link to it: in\.csv\)",
        links={"link.csv": "hard:in.csv"},
    ),
    "batch output symlink to the input": Case(
        ["batch", "in.csv", "-o", "sym.csv", "-q"],
        {"in.csv": WIDE_CSV.encode()},
        2,
        r"sym\.csv: the output would overwrite the input \(a symbolic link to it",
        links={"sym.csv": "sym:in.csv"},
    ),
    # -- merge -------------------------------------------------------------------------------
    "merge missing part": Case(
        ["merge", "nope.csv", "-o", "m.csv"], {}, 2, r"nope\.csv: no such file"
    ),
    "merge part without sidecar": Case(
        ["merge", "p.csv", "-o", "m.csv"],
        {"p.csv": b"id,row\nq,1\n"},
        2,
        r"p\.csv: its sidecar p\.csv\.meta\.json is missing; is this a batch output\?",
    ),
    "merge part with a corrupt sidecar": Case(
        ["merge", "out.csv", "-o", "m.csv"],
        {},
        2,
        r"out\.csv\.meta\.json: the sidecar is not valid JSON",
        earlier=True,
        meta_edit={"out.csv.meta.json": "[1,"},
    ),
    "merge different configurations": Case(
        ["merge", "out.csv", "other.csv", "-o", "m.csv"],
        {},
        2,
        r"other\.csv: configuration differs from out\.csv: --n-bootstrap: 5 → 7",
        earlier=True,
        meta_edit={"other.csv": "n_bootstrap=7"},
    ),
    "merge missing shard": Case(
        ["merge", "out.csv", "-o", "m.csv"],
        {},
        2,
        r"out\.csv: shard\(s\) 2/2 missing",
        earlier=True,
        meta_edit={"out.csv.meta.json": "shard=1/2"},
    ),
    "merge different splits": Case(
        ["merge", "out.csv", "other.csv", "-o", "m.csv"],
        {},
        2,
        r"out\.csv: parts come from different splits",
        earlier=True,
        meta_edit={"out.csv.meta.json": "shard=1/2", "other.csv": "shard=2/3"},
    ),
    "merge output is a part": Case(
        ["merge", "out.csv", "-o", "out.csv"],
        {},
        2,
        r"out\.csv: the output would overwrite the input",
        earlier=True,
    ),
    "merge output hard link to a part": Case(
        ["merge", "out.csv", "-o", "m.csv"],
        {},
        2,
        r"m\.csv: the output would overwrite the input \(a hard link",
        earlier=True,
        links={"m.csv": "hard:out.csv"},
    ),
    "merge output .xlsx": Case(
        ["merge", "out.csv", "-o", "m.xlsx"],
        {},
        2,
        r"m\.xlsx: unsupported output extension",
        earlier=True,
    ),
    # -- run: options refused before any LLM request ---------------------------------------------
    "run -r 0": Case(
        ["run", "What is the capital of France?", "-r", "0"],
        {},
        2,
        r"n.replications must be (at least|>=) 1",
    ),
    "run -n 0": Case(
        ["run", "What is the capital of France?", "-n", "0"],
        {},
        2,
        r"n.perturbations must be (at least|>=) 1",
    ),
    "run -B 0": Case(
        ["run", "What is the capital of France?", "-B", "0"],
        {},
        2,
        r"n.bootstrap must be (at least|>=) 1",
    ),
    "run --perturber bogus": Case(
        ["run", "Q?", "--perturber", "bogus"], {}, 2, r"--perturber: invalid choice: 'bogus'"
    ),
    "run --task bogus": Case(
        ["run", "Q?", "--task", "bogus"], {}, 2, r"--task: invalid choice: 'bogus'"
    ),
    "run --base-url without --llm openai": Case(
        ["run", "Q?", "--base-url", "http://127.0.0.1:9/v1"],
        {},
        2,
        r"--base-url and --model go with --llm openai",
    ),
    "run --llm openai --llm-engine transformers": Case(
        [
            "run",
            "Q?",
            "--llm",
            "openai",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--llm-engine",
            "transformers",
        ],
        {},
        2,
        r"--llm openai is run by its server",
    ),  # fmt: skip
    "run -t abc": Case(
        ["run", "Q?", "-t", "abc"], {}, 2, r"-t/--temperature: invalid float value: 'abc'"
    ),
    "run --llm openai without a key or a server": Case(
        ["run", "Q?", "--llm", "openai", "--api-key-env", "INVENT_TEST_NO_SUCH_KEY"],
        {},
        2,
        r"--llm openai with no --base-url asks api\.openai\.com, which needs a key: "
        r"\$INVENT_TEST_NO_SUCH_KEY is not set",
    ),
    "run empty question": Case(
        ["run", "   ", "--save", "r.json"], {}, 2, r"question is empty", not_said="estimate"
    ),
    "run question over batch's limit": Case(
        ["run", "x" * 20_001, "--save", "r.json"],
        {},
        2,
        r"question is 20,001 characters; the limit is 20,000",
        not_said="estimate",
    ),
    "run --base-url not a URL": Case(
        [
            "run",
            "Q?",
            "--llm",
            "openai",
            "--model",
            "m",
            "--base-url",
            "not a url",
            "--save",
            "r.json",
        ],
        {},
        2,
        r"--base-url 'not a url': not an http\(s\) URL \(no scheme\)",
        not_said="estimate",
    ),
    "batch --base-url of another scheme": Case(
        [
            "batch",
            "in.csv",
            "-o",
            "out.csv",
            "-q",
            "--llm",
            "openai",
            "--model",
            "m",
            "--base-url",
            "http://127.0.0.1:9/v1,ftp://127.0.0.1/v1",
        ],
        {"in.csv": b"id,question\nq1,What is 1 plus 2?\n"},
        2,
        r"--base-url 'ftp://127\.0\.0\.1/v1': not an http\(s\) URL \(scheme 'ftp'\)",
    ),  # fmt: skip
    "run --paraphrase-base-url without a host": Case(
        [
            "run",
            "Q?",
            "--paraphrase-llm",
            "openai",
            "--paraphrase-model",
            "m",
            "--paraphrase-base-url",
            "http:///v1",
        ],
        {},
        2,
        r"--paraphrase-base-url 'http:///v1': not an http\(s\) URL \(no host\)",
    ),  # fmt: skip
    "score blank perturbation": _score(
        "blank.json",
        _json({"questions": ["Q?", "  "], "responses": [["a"], ["b"]]}),
        r"blank\.json: questions\[1\] is blank",
    ),
    "batch --methods empty": _option(r"--methods: no method named", "--methods", ""),
    "evaluate --methods of commas": Case(
        ["evaluate", "--dataset", "arithmetic", "--methods", ",", "-o", "ev"],
        {},
        2,
        r"--methods: no method named",
    ),
    "run --choice without --task mmlu": Case(
        ["run", "Q?", "--choice", "A", "--save", "r.json"],
        {},
        2,
        r"--choice goes with --task mmlu",
        not_said="estimate",
    ),
    "run --task mmlu with one --choice": Case(
        ["run", "Q?", "--task", "mmlu", "--choice", "A", "--save", "r.json"],
        {},
        2,
        r"--task mmlu needs at least two --choice options, got 1",
        not_said="estimate",
    ),
    "score --answer-judge without the judge": _score(
        "s.json",
        _json(SCORE_OK),
        r"--answer-judge goes with --answer-similarity judge",
        "--answer-judge",
        "qwen1.5b",
    ),
    "score --reference of another JSON shape": Case(
        ["score", "s.json", "--reference", "r.json"],
        {"s.json": _json(SCORE_OK), "r.json": b"[]"},
        2,
        r"--reference r\.json: not a reference set \(a JSON list, not an object\)",
    ),
    # -- tsu: the temperatures are checked before the folder is made or an estimate printed -----
    "tsu temperature out of range": Case(
        ["tsu", "--dataset", "arithmetic", "--temperatures", "-1", "0.5"],
        {},
        2,
        r"temperatures must lie in \[0, 2\], got -1",
        not_said="estimate",
    ),
    "tsu --methods bogus": Case(
        ["tsu", "--dataset", "arithmetic", "--methods", "inv,bogus"],
        {},
        2,
        r"--methods: unknown method 'bogus'",
        not_said="estimate",
    ),
    "evaluate --methods bogus": Case(
        ["evaluate", "--dataset", "arithmetic", "--methods", "bogus", "-o", "ev"],
        {},
        2,
        r"--methods: unknown method 'bogus'",
        not_said="estimate",
    ),
    # -- report and reference build: an output they cannot write, told in words ----------------
    "report -o r.pdf": Case(
        ["report", str(ROOT / "docs" / "results" / "evaluate-arithmetic-100"), "-o", "r.pdf"],
        {},
        2,
        r"-o r\.pdf: the report is one HTML file; name it \*\.html",
    ),
    "reference build -o under a file": Case(
        ["reference", "build", str(ROOT / "docs" / "results" / "evaluate-arithmetic-100")]
        + ["-o", "f.txt/ref.json"],
        {"f.txt": b"x"},
        2,
        r"f\.txt/ref\.json: cannot create its folder",
    ),
    "tsu one temperature": Case(
        ["tsu", "--dataset", "arithmetic", "--temperatures", "0.7", "-o", "sweep"],
        {},
        2,
        r"at least two strictly increasing values",
        not_said="estimate",
    ),
    # -- the probe of 2026-11-28: batch and files
    "batch resume, a sidecar whose config is a number": Case(
        ["batch", "in.csv", "-o", "out.csv", "-q", "-B", "5"],
        {"in.csv": WIDE_CSV.encode()},
        2,
        r"out\.csv\.meta\.json: the sidecar's config is not a JSON object \(got int\)",
        earlier=True,
        meta_edit={"out.csv.meta.json": '{"config": 5}'},
    ),
    "batch oversized cell after good rows": _batch(
        "big.csv",
        (
            WIDE_CSV + f"q3,What?,{'x' * (qs.FIELD_SIZE_LIMIT + 1)},{_cell(PERTS)},{_cell(REPS)}\n"
        ).encode(),
        r"big\.csv, row 3 \(line 4\): a cell is larger than 16,777,216 characters",
    ),
    "batch resume, the input's question changed": Case(
        ["batch", "in.csv", "-o", "out.csv", "-q", "-B", "5"],
        {"in.csv": WIDE_CSV.replace("capital of France", "capital of Spain").encode()},
        2,
        r"in\.csv, row 1 \(line 2\), column 'question': the output already holds id 'q1' "
        r"with a different question",
        earlier=True,
    ),
    "batch --dataset mmlu without a choices column": _batch(
        "in.csv",
        WIDE_CSV.encode(),
        r"in\.csv, column 'choices': --dataset mmlu needs a choices column",
        "--dataset",
        "mmlu",
    ),
    "batch a column named twice": _batch(
        "dup.csv",
        f"id,id,question,perturbations,responses\nq1,q2,What?,{_cell(PERTS)},{_cell(REPS)}\n".encode(),
        r"dup\.csv, line 1: column 'id' appears twice \(columns 1 and 2\)",
    ),
    "batch --encoding utf-16 without a BOM": _batch(
        "in.csv",
        WIDE_CSV.encode(),
        r"in\.csv: cannot be read as UTF-16 \(.*\); check the --encoding",
        "--encoding",
        "utf-16",
    ),
}


# --------------------------------------------------------------------------
# Running the cases
# --------------------------------------------------------------------------


def _edit_meta(folder: Path, name: str, edit: object) -> None:
    """Apply one ``meta_edit``: delete or replace a sidecar, or make a part with other settings."""
    if edit is None:
        (folder / name).unlink()
        return
    if isinstance(edit, str) and "=" not in edit:
        (folder / name).write_text(edit)
        return
    key, value = str(edit).split("=")
    if name.endswith(".meta.json"):
        part, meta_path = folder / name.removesuffix(".meta.json"), folder / name
    else:  # a second part, copied from the earlier output
        part, meta_path = folder / name, folder / f"{name}.meta.json"
        shutil.copy(folder / "out.csv", part)
        shutil.copy(folder / "out.csv.meta.json", meta_path)
    meta = json.loads(meta_path.read_text())
    if key == "shard":
        meta["config"]["shard"] = value
    else:
        meta["config"]["run"]["score"][key] = int(value)
    meta_path.write_text(json.dumps(meta))
    assert part.exists()


def _prepare(case: Case, folder: Path, earlier: Path) -> None:
    folder.mkdir()
    if case.earlier:
        for p in earlier.iterdir():
            shutil.copy(p, folder / p.name)
    for name, source in case.copies.items():
        shutil.copytree(source, folder / name)
    for name, data in case.files.items():
        if data is None:
            (folder / name).mkdir()
        else:
            (folder / name).write_bytes(data)
    for name, spec in case.links.items():
        kind, target = spec.split(":")
        if kind == "hard":
            os.link(folder / target, folder / name)
        else:
            (folder / name).symlink_to(target)
    for name, edit in case.meta_edit.items():
        _edit_meta(folder, name, edit)


def _snapshot(folder: Path) -> dict[str, bytes | None]:
    return {
        str(p.relative_to(folder)): (None if p.is_dir() else p.read_bytes())
        for p in sorted(folder.rglob("*"))
    }


def _run(case: Case, folder: Path) -> tuple[subprocess.CompletedProcess, dict, dict]:
    before = _snapshot(folder)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    res = subprocess.run(
        [sys.executable, "-m", "invent_core", *case.args],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
        cwd=folder,
    )
    return res, before, _snapshot(folder)


@pytest.fixture(scope="module")
def earlier_output(tmp_path_factory, minilm) -> Path:
    """A valid output of the wide file (B = 5) with its sidecars, made once in-process."""
    from invent_core.batch import batch_score
    from invent_core.config import RunConfig

    folder = tmp_path_factory.mktemp("earlier")
    inp = folder / "in.csv"
    inp.write_text(WIDE_CSV)
    out_dir = tmp_path_factory.mktemp("earlier_out")
    s = batch_score(inp, out_dir / "out.csv", RunConfig().replace(n_bootstrap=5), embedder=minilm)
    assert s.ok and s.n_scored == 2
    return out_dir


@pytest.fixture(scope="module")
def results(tmp_path_factory, earlier_output):
    """Every case, run once, four at a time."""
    root = tmp_path_factory.mktemp("cases")
    folders = {}
    for i, (name, case) in enumerate(CASES.items()):
        folders[name] = root / f"case{i:03d}"
        _prepare(case, folders[name], earlier_output)
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        futures = {name: pool.submit(_run, CASES[name], folders[name]) for name in CASES}
        return {name: f.result() for name, f in futures.items()}


def test_there_are_enough_cases():
    assert len(CASES) >= 60


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_is_refused_cleanly(results, name):
    case = CASES[name]
    res, before, after = results[name]
    out = res.stdout + res.stderr
    assert res.returncode == case.status, f"{name}: exit {res.returncode}\n{out}"
    assert re.search(case.message, res.stderr), f"{name}: message not found in\n{res.stderr}"
    assert "Traceback" not in out, out
    assert not case.not_said or not re.search(case.not_said, res.stderr), res.stderr
    for path, data in before.items():  # the input and any earlier output, byte for byte
        assert after.get(path) == data, f"{name}: {path} changed"
    if case.status != 1:  # refused as a whole: nothing written at all (not even a lock file)
        assert set(after) == set(before), f"{name}: new files {set(after) - set(before)}"
