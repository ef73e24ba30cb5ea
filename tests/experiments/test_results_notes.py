"""No number in RESULTS.md is written by hand: the notes are templates filled from data.

The reasoning in ``docs/results/*.md`` (and the reading in
``scripts/judge_agreement.py``) is written by a person; every figure in it is a
placeholder — a value the saved runs give (``{{sciq-140-1.5b.right}}``), a field
of a study's JSON file (``{{json:FILE#field|.3f}}``) or a figure read out of a
printout (``{{txt:FILE#regex}}``). A digit left in the prose fails here, unless
it is one of the few kinds listed in :data:`ALLOWED` (dates, model names, the
paper's parameters and formulas, conventions). ``test_results_report.py``
checks that RESULTS.md is what the templates give.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTES = ROOT / "docs" / "results"
#: The note written by scripts/judge_agreement.py (its tables are generated; its reading is
#: the script's READING template, scanned below).
GENERATED = {"judge_agreement.md"}

#: Digits a note may keep, each with why. Keep it tight: a measured number is never one.
ALLOWED = (
    r"\b20\d\d-\d\d-\d\d\b",  # the date a change was made
    r"\b[01]\.5B\b|GPT-3\.5|GSM8K|\bAVX2\b",  # names: the models, a dataset, an instruction set
    r"\b[nrmT] = \d+(?:\.\d+)?\b",  # the paper's n, r, m, T as settings (n = 9, T = 0.7)
    r"[τδ] = \d+(?:\.\d+)?",  # a kernel's or the gate's parameter, named with it
    r"\(1 \+ cos\)/2|\(r/\(r−1\)\)|log\([mn] \+ 1\)|\b1/e\b",  # formulas
    r"\bFig\. \d+\b|\bTable \d+\b",  # the paper's figures and tables
    r"\b95 % interval|\b80 % power\b",  # conventions of the intervals and of a power analysis
    r"\blevels \d–\d\b",  # the testbed's difficulty levels (a sample's definition)
    r"\b2 shared CPU cores\b",  # the machine the benchmarks ran on
)
_PLACEHOLDER = re.compile(r"\{\{[^{}]+\}\}")


def hand_numbers(text: str) -> list[str]:
    """The numbers ``text`` writes by hand: digits outside placeholders, code, quoted
    examples, link targets and :data:`ALLOWED`."""
    text = _PLACEHOLDER.sub(" ", text)
    text = re.sub(r"`[^`]*`", " ", text)  # code, paths, options
    text = re.sub(r'"[^"\n]*"', " ", text)  # a quoted example of the data ("in 5 cadences")
    text = re.sub(r"\]\([^)]*\)", "]", text)  # a link's target
    for allowed in ALLOWED:
        text = re.sub(allowed, " ", text)
    return re.findall(r"\d[\d.,]*", text)


def note_templates() -> dict[str, str]:
    """Every note the report reads (``docs/results/*.md``) and the judge reading's template."""
    out = {
        p.name: p.read_text(encoding="utf-8")
        for p in sorted(NOTES.glob("*.md"))
        if p.name not in GENERATED
    }
    out["scripts/judge_agreement.py READING"] = _judge_agreement().READING
    return out


def _judge_agreement():
    sys.path.insert(0, str(ROOT / "scripts"))
    return importlib.import_module("judge_agreement")


def test_the_scan_sees_every_note():
    names = set(note_templates())
    assert {"breakdown.md", "coincide.md", "kernel_choice.md", "other_measurements.md",
            "testbed_reading.md", "answer_similarity_reading.md"} <= names  # fmt: skip
    assert len(names) >= 10


@pytest.mark.parametrize("name", sorted(note_templates()))
def test_no_note_writes_a_number_by_hand(name):
    found = hand_numbers(note_templates()[name])
    assert not found, f"{name}: numbers written by hand (make them placeholders): {found}"


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("AUROC 0.812 against 0.817", ["0.812", "0.817"]),
        ("on 62 of the 100 questions", ["62", "100"]),
        ("{{arithmetic-100.auroc.inv_entropy}} (n = 9, T = 0.7, the 1.5B)", []),
        ('`docs/bench_llm_2026-11-23.txt` and "What is 2 asset six?"', []),
        ("τ = 0.25 with 7 of them", ["7"]),
    ],
)
def test_the_scan_finds_what_a_person_typed(text, found):
    assert hand_numbers(text) == found


def test_every_note_placeholder_is_filled_from_its_source():
    """Each ``{{json:…}}`` / ``{{txt:…}}`` in the notes resolves against the shipped files."""
    text = _text()
    for name, body in note_templates().items():
        for ref in re.findall(r"\{\{\s*((?:json|txt):[^{}]+?)\s*\}\}", body):
            filled = text.fill_note("{{" + ref + "}}", {}, name, NOTES)
            assert re.search(r"\d", filled), (name, ref, filled)


def _text():
    sys.path.insert(0, str(ROOT / "scripts"))
    return importlib.import_module("results_report.text")


def test_a_file_field_that_moves_moves_the_note(tmp_path):
    text = _text()
    (tmp_path / "study.json").write_text(json.dumps({"rows": [{"auroc": 0.8123}], "n": 40}))
    note = "AUROC {{json:study.json#rows.0.auroc|.3f}} over {{json:study.json#n}} resamples"
    assert text.fill_note(note, {}, "x.md", tmp_path) == "AUROC 0.812 over 40 resamples"
    (tmp_path / "study.json").write_text(json.dumps({"rows": [{"auroc": 0.7}], "n": 40}))
    assert text.fill_note(note, {}, "x.md", tmp_path) == "AUROC 0.700 over 40 resamples"
    (tmp_path / "study.json").write_text(json.dumps({"rows": [], "n": 40}))
    with pytest.raises(KeyError, match=r"x\.md: \{\{json:study\.json#rows\.0\.auroc"):
        text.fill_note(note, {}, "x.md", tmp_path)
    (tmp_path / "run.txt").write_text("mean  14.56 s\n")
    assert (
        text.fill_note("{{txt:run.txt#mean\\s+([\\d.]+) s}} s", {}, "y.md", tmp_path) == "14.56 s"
    )
    with pytest.raises(KeyError, match=r"y\.md: .* not in its printout"):
        text.fill_note("{{txt:run.txt#median\\s+([\\d.]+)}}", {}, "y.md", tmp_path)


def test_the_judge_note_is_its_json_written_out():
    """judge_agreement.md is exactly what the script makes of judge_agreement.json."""
    ja = _judge_agreement()
    result = json.loads((NOTES / "judge_agreement.json").read_text(encoding="utf-8"))
    assert (NOTES / "judge_agreement.md").read_text(encoding="utf-8") == ja.markdown(result)
