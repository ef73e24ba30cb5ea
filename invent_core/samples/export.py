"""The samples of a run, a batch output, an evaluation folder or a UQLM frame, as one schema.

Each reader turns what invent (or UQLM) saved into
:class:`~invent_core.questions.samples.Sample` s, and :func:`write_samples`
writes them as a samples file (:mod:`invent_core.questions.samples` holds the
schema). The answers exported are the ones that were scored (the run's
canonical ``responses``), with the settings that scored them, so scoring the
file again gives the run's own numbers.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

from ..batch.output.files import iter_records
from ..batch.output.lock import check_output_file, output_file
from ..batch.output.paths import read_meta, sidecar_config, sidecar_paths
from ..engine.artifact import RunArtifact
from ..experiments.folder import read_evaluation
from ..experiments.runs import run_path
from ..questions import schema as qs
from ..questions.files import BatchInputError
from ..questions.samples import Sample, is_samples_file, read_uqlm

__all__ = ["SourceKind", "check_output", "read_source", "source_kind", "write_samples"]

SourceKind = Literal["run", "batch", "evaluation", "uqlm"]

#: What ``export-samples`` reads, for the message that refuses anything else.
ACCEPTED = (
    "a run artefact (run --save), a batch output with its .meta.json sidecar, an evaluate "
    "folder (config.json, scores.csv, runs/) or UQLM's result frame (CSV, JSON, Parquet)"
)


def _is_run(path: Path) -> bool:
    """A JSON object whose ``format`` is a run artefact's (``invent.run/N``)."""
    if path.suffix.lower() != ".json" or path.stat().st_size > qs.FIELD_SIZE_LIMIT:
        return False
    try:
        data = qs.parse_json(path.read_text(encoding="utf-8-sig"))
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(data, dict) and str(data.get("format", "")).startswith("invent.run/")


#: How a run artefact starts (``to_json`` writes the question first), or its format
#: tag: a ``.json`` that reads so but does not load is a run cut short or edited,
#: and is refused as one, not as a UQLM frame.
_RUN_START = re.compile(r'\A\ufeff?\s*\{\s*"question"\s*:')


def _run_problem(path: Path) -> str | None:
    """Why a ``.json`` that starts like a run artefact is none (cut short, wrong shape), else None."""
    if path.suffix.lower() != ".json":
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        head = f.read(4096)
    if not (_RUN_START.match(head) or '"invent.run/' in head):
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except UnicodeDecodeError:
        return "not UTF-8 text"
    except json.JSONDecodeError as err:
        where = f"line {err.lineno}, column {err.colno}"
        return f"not valid JSON ({err.msg}: {where}); is the run artefact cut short?"
    try:
        RunArtifact.from_dict(data)
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        return f"not a run artefact ({str(err)[:160]})"
    return None


def source_kind(path: str | os.PathLike) -> SourceKind:
    """Which kind of source ``path`` is; a refusal names what is accepted."""
    path = Path(path)
    if not path.exists():
        raise BatchInputError("no such file or folder", file=path)
    if path.is_dir():
        missing = [n for n in ("config.json", "scores.csv", "runs") if not (path / n).exists()]
        if missing:
            raise BatchInputError(
                f"not an evaluate folder (no {', '.join(missing)}); expected {ACCEPTED}", file=path
            )
        return "evaluation"
    if is_samples_file(path):
        raise BatchInputError("already a samples file: score or batch read it as it is", file=path)
    if _is_run(path):
        return "run"
    problem = _run_problem(path)
    if problem is not None:
        raise BatchInputError(problem, file=path)
    if sidecar_paths(path)["meta"].exists():
        return "batch"
    if path.suffix.lower() in (".csv", ".json", ".jsonl", ".parquet"):
        return "uqlm"
    raise BatchInputError(f"cannot tell what this is; expected {ACCEPTED}", file=path)


def _from_run(
    run: RunArtifact, *, id_: str, source: dict[str, Any], label: dict[str, Any] | None = None
) -> Sample:
    label = label or {}
    return Sample(
        id=id_,
        question=run.question,
        perturbations=list(run.questions[1:]),
        responses=[list(reps) for reps in run.responses],
        answers=list(label.get("answers", [])),
        task=run.task,
        choices=list(run.choices) if run.choices else None,
        correct=label.get("correct"),
        judge_reason=label.get("judge_reason"),
        model={
            "llm": run.identities.get("llm"),
            "paraphrase_llm": run.paraphrase_identity,
            "embedder": run.identities.get("embedder"),
        },
        settings=run.config.to_dict(),
        source=source,
        raw_responses=[list(reps) for reps in run.raw_responses] or None,
    )


def _label(value: Any) -> int | None:
    text = "" if value is None else str(value).strip()
    return int(float(text)) if text in ("0", "1", "0.0", "1.0") else None


def _evaluation(folder: Path) -> Iterator[Sample]:
    """Every scored question of an evaluate folder, with its label as the reviewer left it."""
    ev = read_evaluation(folder)  # the one reader: BOM, escapes, shape, relabels
    try:
        temperature = float(ev.config["run"]["temperature"])
    except (ValueError, KeyError, TypeError) as err:
        raise BatchInputError(
            f"not an evaluate config (no run temperature: {err})", file=folder / "config.json"
        ) from None
    for row, rec in enumerate(ev.rows, start=1):
        if (rec.get("error") or "").strip():
            continue  # the question failed: there are no answers to share
        path = run_path(folder / "runs", rec["id"], temperature)
        if not path.is_file():
            raise BatchInputError(
                f"no run artefact {path.name} for id {rec['id']!r}",
                file=folder / "scores.csv",
                row=row,
                column="id",
            )
        reference = (rec.get("reference") or "").strip()
        label = {
            "answers": list(qs.parse_list(reference, "reference")) if reference else [],
            "correct": rec.get("correct"),
            "judge_reason": rec.get("judge_reason") or None,
        }
        source = {"kind": "evaluation", "path": str(folder), "run": path.name}
        yield _from_run(RunArtifact.load(path), id_=rec["id"], source=source, label=label)


def _json_cell(rec: dict[str, Any], column: str, path: Path, row: int) -> Any:
    value = rec.get(column)
    try:
        return value if isinstance(value, list) else qs.parse_json(str(value))
    except ValueError as err:
        raise BatchInputError(str(err), file=path, row=row, column=column) from None


def _batch(path: Path) -> Iterator[Sample]:
    """The generated rows of a batch output (its sidecar gives the model and settings)."""
    meta_path = sidecar_paths(path)["meta"]
    meta = read_meta(meta_path) or {}
    config = sidecar_config(meta, meta_path) if meta else {}
    if "responses" not in config.get("columns", ()):
        raise BatchInputError(
            "this batch output holds no responses (its input held them: that input is "
            "already in the batch wide layout, or export its source instead)",
            file=path,
        )
    models = meta.get("models") or {}
    model = {k: models.get(k) for k in ("llm", "paraphrase_llm", "embedder")}
    for row, rec in enumerate(iter_records(path), start=1):
        if rec.get("responses") in (None, ""):
            continue  # a failed row: nothing was answered
        answer = rec.get("answer")
        yield Sample(
            id=str(rec["id"]),
            question=str(rec["question"]),
            perturbations=_json_cell(rec, "perturbations", path, row),
            responses=_json_cell(rec, "responses", path, row),
            answers=list(qs.parse_list(answer, "answer")) if answer not in (None, "") else [],
            correct=_label(rec.get("correct")),
            judge_reason=rec.get("judge_reason") or None,
            model=model,
            settings=config.get("run") or {},
            source={"kind": "batch", "path": str(path), "row": rec.get("row")},
        )


def read_source(path: str | os.PathLike) -> list[Sample]:
    """Every sample of a source (see :func:`source_kind`), read whole before anything is written."""
    path = Path(path)
    kind = source_kind(path)
    if kind == "run":
        run = RunArtifact.load(path)
        return [_from_run(run, id_=path.stem, source={"kind": "run", "path": str(path)})]
    if kind == "evaluation":
        return list(_evaluation(path))
    if kind == "batch":
        return list(_batch(path))
    try:
        return read_uqlm(path)
    except BatchInputError as err:
        if path.suffix.lower() != ".json" or err.row is not None:
            raise
        # a .json is as likely a run as a UQLM frame: say it is neither
        reason = f"not a run artefact (run --save), nor {err.reason.removeprefix('not ')}"
        raise BatchInputError(reason, file=path) from None


def check_output(out: str | os.PathLike, source: str | os.PathLike) -> Path:
    """Refuse an output that is not ``.jsonl``, sits in no folder, or is the source itself."""
    out = Path(out)
    if out.suffix.lower() != ".jsonl":
        raise ValueError(f"-o {out}: a samples file is JSON Lines; name it *.jsonl")
    if not out.parent.is_dir():
        raise ValueError(f"-o {out}: no folder {out.parent}")
    if out.is_dir():
        raise ValueError(f"-o {out}: is a folder")
    check_output_file(out, source_files(source))  # a file read: the source, its sidecars
    return out


def source_files(source: str | os.PathLike) -> list[Path]:
    """What exporting ``source`` reads: the file (and a batch output's sidecars) or the folder."""
    source = Path(source)
    if source.is_file() and source.suffix.lower() in (".csv", ".jsonl", ".json", ".parquet"):
        sidecars = [p for p in sidecar_paths(source).values() if p.exists() and p != source]
        return [source, *sidecars]
    return [source]


def write_samples(
    samples: Iterable[Sample], out: str | os.PathLike, source: str | os.PathLike | None = None
) -> int:
    """Write a samples file atomically, locked, never over a file of ``source``; the line count."""
    n = 0
    with output_file(out, source_files(source) if source is not None else ()) as f:
        for sample in samples:
            f.write(sample.to_line() + "\n")
            n += 1
    return n
