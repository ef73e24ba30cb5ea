"""A reference set of one's own (``--reference FILE``): read it, and check a run may use it.

A percentile means something only among values on the same scale, so a run is
placed among a file's questions only when the file was made with the run's
settings on :data:`~invent_core.evaluation.reference.MATCH_KEYS`. These two
functions let an entry point refuse a file before any work is done, naming the
file and the first option that differs, instead of silently showing no number.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from .lines import placement_record
from .neighbours import place
from .reference_set import ReferenceSet
from .shipped import LEGACY_SETTINGS, reference_settings

__all__ = [
    "load_own_reference",
    "own_placed",
    "own_placement",
    "settings_mismatch",
]


def load_own_reference(path: str | Path) -> ReferenceSet:
    """The reference set in ``path``; ValueError naming the file when it is none.

    Raises
    ------
    FileNotFoundError
        When ``path`` is not a file.
    ValueError
        When the file is not JSON or not a reference set (``invent.reference/1``).
    """
    path = Path(path)
    if not path.is_file():
        what = "a folder, not a reference file" if path.is_dir() else "no such reference file"
        raise FileNotFoundError(f"{path}: {what}")
    try:
        return ReferenceSet.load(path)
    except (ValueError, TypeError, KeyError) as err:
        raise ValueError(
            f"{path}: not a reference set ({str(err)[:160]}); build one with "
            "`invent reference build DIR -o FILE`"
        ) from err


def settings_mismatch(
    ref: ReferenceSet, config: Any, *, llm_identity: str | None, measure: str = "inv_entropy"
) -> list[str]:
    """Each matched setting on which ``ref`` and the run differ, as ``"option: file X, run Y"``.

    ``llm_identity`` None (responses from an unknown model) leaves the model out
    of the comparison; the caller says so.
    """
    wanted = reference_settings(config, llm_identity, measure)
    if llm_identity is None:
        wanted.pop("llm", None)
    out = []
    for key, value in wanted.items():
        have = ref.settings.get(key, LEGACY_SETTINGS.get(key))
        if have != value:
            out.append(f"{key}: file {have!r}, run {value!r}")
    return out


def own_placed(question: str, embedder: Any, *, task: str | None, path: str | Path) -> ReferenceSet:
    """The questions of the reference file ``path`` like ``question`` (:func:`place`)."""
    path = Path(path)
    ref = load_own_reference(path)
    ref = replace(ref, settings={**ref.settings, "files": [path.name]})
    return place(ref, question, embedder, task=task)


def own_placement(
    value: float | None,
    question: str,
    embedder: Any,
    *,
    task: str | None,
    measure: str,
    path: str | Path,
) -> dict | None:
    """:func:`placement_record` of ``value`` among the questions of ``path`` like ``question``.

    For answers from an unknown model (``score``, a batch file of responses): the
    user chose the file and its other settings were checked
    (:func:`settings_mismatch`), so the model is taken on trust.
    """
    return placement_record(value, own_placed(question, embedder, task=task, path=path), measure)
