"""Reference files as found on disk: a truncated one is named, a copy counts once.

Real shipped files (``assets/reference``) copied into a folder, then cut short
or duplicated as a user's file manager would.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from invent_core.config import RunConfig
from invent_core.errors import InventWarning
from invent_core.evaluation.reference import for_settings

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "assets" / "reference"
ARITH = "arithmetic-100__inv_entropy__400165bf.json"
TRIVIA = "triviaqa__inv_entropy__400165bf.json"


@pytest.fixture
def folder(tmp_path):
    for name in (ARITH, TRIVIA):
        shutil.copy(SHIPPED / name, tmp_path / name)
    return tmp_path


def test_a_truncated_reference_file_is_left_out_with_a_warning_naming_it(folder):
    whole = for_settings(RunConfig(), directory=folder)
    data = (folder / ARITH).read_bytes()
    (folder / ARITH).write_bytes(data[: len(data) // 2])
    with pytest.warns(InventWarning, match=rf"reference file {folder / ARITH} is damaged"):
        cut = for_settings(RunConfig(), directory=folder)
    assert cut.settings["files"] == [TRIVIA] and cut.size < whole.size
    assert "arithmetic" not in cut.settings["datasets"]


def test_a_copy_of_a_reference_file_counts_its_questions_once(folder):
    whole = for_settings(RunConfig(), directory=folder)
    shutil.copy(folder / TRIVIA, folder / "triviaqa (copy).json")
    again = for_settings(RunConfig(), directory=folder)
    assert again.size == whole.size
    assert sorted(again.questions) == sorted(whole.questions)
    assert len(again.settings["files"]) == 2
