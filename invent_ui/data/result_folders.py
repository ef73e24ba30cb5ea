"""A saved run, evaluation or TSU sweep read from where it lies, as its page shows it.

What a link (``?run=``, ``?evaluation=``, ``?tsu=``) names: a run file
(``run --save``, an evaluation's ``runs/*.json``), an ``evaluate`` or ``tsu``
folder, or a dashboard payload file (the shipped ``demo_eval.json``,
``demo_tsu.json``). Each reader only reads, and raises a ValueError that says
what the file or folder lacks, so a damaged link gets a message, not a blank page.

Pure: no Streamlit.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from invent_core.csv_safe import read_csv
from invent_core.engine.artifact import RunArtifact
from invent_core.experiments import ExperimentConfig
from invent_core.experiments.folder import read_evaluation as read_evaluation_folder
from invent_core.methods.registry import list_methods

from .experiments import EVAL_FORMAT, TSU_FORMAT, folder_payload, tsu_payload

__all__ = ["read_run", "read_evaluation", "read_tsu"]

#: What ``uq.csv`` of a sweep holds besides one column per method.
_TSU_COLUMNS = ("id", "question", "temperature")


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as err:
        raise ValueError(f"{path.name} is not UTF-8 text") from err
    except json.JSONDecodeError as err:
        raise ValueError(f"{path.name} is not valid JSON ({err.msg}, line {err.lineno})") from err


def read_run(path: Path) -> RunArtifact:
    """The run saved in ``path``; ValueError naming the file when it is none."""
    if not path.is_file():
        raise ValueError(f"{path.name} is a folder, not a run file")
    data = _json(path)
    try:
        return RunArtifact.from_dict(data)
    except KeyError as err:
        raise ValueError(f"{path.name} is not a saved run (no {err})") from err
    except (ValueError, TypeError, IndexError, AttributeError) as err:
        raise ValueError(f"{path.name} is not a saved run ({err})") from err


def _payload_file(path: Path, expected: str, what: str) -> dict[str, Any]:
    payload = _json(path)
    if not isinstance(payload, dict) or payload.get("format") != expected:
        raise ValueError(f"{path.name} is not a dashboard {what} file (format {expected!r})")
    return payload


def _folder_config(folder: Path, needs: tuple[str, ...], what: str) -> tuple[dict, Any]:
    """(config.json, its ExperimentConfig); ValueError naming the first file missing."""
    for name in ("config.json", *needs):
        if not (folder / name).is_file():
            raise ValueError(f"{folder.name} has no {name}: not {what} folder")
    meta = _json(folder / "config.json")
    try:
        return meta, ExperimentConfig.from_dict(meta["config"])
    except (KeyError, TypeError, ValueError) as err:
        raise ValueError(f"{folder.name}/config.json holds no experiment config ({err})") from err


def read_evaluation(path: Path) -> dict[str, Any]:
    """The Evaluation page's payload of an ``evaluate`` folder (or of a payload file).

    The rows and their answers come from ``scores.csv`` and ``runs/``; the
    metrics from ``results.json`` as ``evaluate`` wrote them (none: the page says
    why there is no summary). The folder's relabels are applied by the page.
    """
    if path.is_file():
        return _payload_file(path, EVAL_FORMAT, "evaluation")
    _, cfg = _folder_config(path, ("scores.csv",), "an evaluate")
    # the core's one reader of an evaluation folder: a malformed scores.csv or results.json
    # is refused naming the file, row and column (the page applies the relabels itself)
    folder = read_evaluation_folder(path, relabels=False)
    payload = folder_payload(path, cfg, reason="results.json is missing: run evaluate again")
    if payload is None:
        raise ValueError(f"{path.name}/scores.csv holds no judged question")
    if folder.results:
        payload["evaluation"] = folder.results
        payload.pop("reason")
    return payload


def read_tsu(path: Path) -> dict[str, Any]:
    """The TSU page's payload of a ``tsu`` folder (``uq.csv``, ``tsu.json``) or payload file."""
    if path.is_file():
        return _payload_file(path, TSU_FORMAT, "TSU")
    _, cfg = _folder_config(path, ("uq.csv", "tsu.json"), "a tsu")
    table = _json(path / "tsu.json")
    rows = list(read_csv(path / "uq.csv"))
    if not rows or "temperatures" not in table or "tsu" not in table:
        raise ValueError(f"{path.name}: uq.csv or tsu.json is empty or cut short")
    known = {m.name for m in list_methods()}  # not "degenerate" nor any later bookkeeping column
    methods = [c for c in rows[0] if c not in _TSU_COLUMNS and c in known]
    result = SimpleNamespace(methods=methods, rows=rows, tsu=table["tsu"])
    return tsu_payload(result, table["temperatures"], cfg)
