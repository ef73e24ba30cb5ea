"""The placement a run stores is the one every printer shows: made once, read everywhere.

A shipped run placed among a labelled reference of its own settings (no question
embeddings, so no model is loaded); each printer (``run``'s line, the batch
columns, the dashboard's panel) must show what the stored record says without
placing the run again.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from invent_core.engine.artifact import RunArtifact
from invent_core.engine.placement import among, placement
from invent_core.evaluation import reference
from invent_core.evaluation.reference import (
    ReferenceSet,
    columns,
    for_run,
    record_columns,
    record_line,
    record_source,
    record_values,
    reference_line,
    reference_settings,
)
from invent_core.evaluation.reference import shipped as shipped_module

ROOT = Path(__file__).resolve().parents[2]
RUNS = ROOT / "docs" / "results_before_meaning_check" / "evaluate-arithmetic" / "runs"


def _run() -> RunArtifact:
    """A saved run, answered by a model no shipped reference knows (so only ours places it)."""
    art = RunArtifact.load(sorted(RUNS.glob("*.json"))[0])
    return dataclasses.replace(art, identities={**art.identities, "llm": "toy-llm"})


@pytest.fixture
def folder(tmp_path) -> Path:
    art = _run()
    settings = {**reference_settings(art.config, "toy-llm", "inv_entropy"), "dataset": "toy"}
    values = [0.1 * k for k in range(40)]
    ReferenceSet(values, [1] * 20 + [0] * 20, settings).save(tmp_path / "toy.json")
    return tmp_path


def test_the_record_says_where_it_was_placed_and_old_records_read_as_shipped(folder):
    art = _run()
    rec = placement(art, reference_path=folder)
    assert rec["among"] == folder.name == among(folder) and among(None) is None
    assert rec["value"] == pytest.approx(art.score.measures["inv_entropy"])
    assert placement(art) is None  # the shipped references: none made by "toy-llm"
    values, correct = record_values(rec)  # not placed by question: the set's values kept
    assert len(values) == rec["n_reference"] == 40 and correct == [1] * 20 + [0] * 20


def test_every_printer_reads_the_stored_placement(folder, monkeypatch):
    from invent_core.commands.run import reference_lines

    art = _run()
    value = float(art.score.measures["inv_entropy"])
    fresh = for_run(art, directory=folder)  # what a printer placing again would find
    art.reference = placement(art, reference_path=folder)
    want_line = reference_line(value, fresh)
    want_cells = columns(value, fresh)

    def placing_again(*args, **kwargs):
        raise AssertionError("a printer placed the run again")

    monkeypatch.setattr(shipped_module, "for_settings", placing_again)
    monkeypatch.setattr(reference, "for_settings", placing_again)
    assert reference_lines(art) == [want_line] == [record_line(art.reference)]
    assert record_columns(art.reference) == want_cells
    assert record_source(art.reference).startswith("40 reference questions (settings: ")
    assert "; toy)" in record_source(art.reference)


def test_the_dashboard_shows_the_stored_record_when_placed_among_the_references_in_use(
    folder, monkeypatch
):
    import invent_core.engine.placement as placing
    from invent_ui.session import resources

    art = _run()
    art.reference = placement(art, reference_path=folder)
    calls = []
    real = placing.placement
    monkeypatch.setattr(placing, "placement", lambda *a, **k: calls.append(1) or real(*a, **k))
    resources.cached_placement.clear()
    assert (
        resources.shown_placement(art, folder) is art.reference and calls == []
    )  # read, not placed
    # another set chosen since (here the shipped ones): placed once among it, then cached
    assert (
        resources.shown_placement(art, None) is None
        and resources.shown_placement(art, None) is None
    )
    assert calls == [1]
