"""Two processes assembling the packaged MPNet on a fresh cache at once both get the model.

Found by the suite in a fresh clone: two pytest-xdist workers wrote and deleted the same
``bundle.zip`` ("No such file or directory: 'bundle.zip'"). Real processes, the real
parts, an empty cache folder each time.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from invent_core.embedders import EMBEDDERS
from invent_core.packaged import parts_installed

SCRIPT = (
    "from invent_core.embedders import EMBEDDERS\n"
    "from invent_core.embedders.sbert import model_folder\n"
    "print(model_folder(EMBEDDERS['mpnet']))\n"
)


@pytest.mark.slow
def test_two_processes_assemble_one_folder_on_a_fresh_cache(tmp_path):
    if not parts_installed(EMBEDDERS["mpnet"].parts):
        pytest.skip("the MPNet parts are not installed")
    env = {**os.environ, "INVENT_CACHE": str(tmp_path)}
    procs = [
        subprocess.Popen([sys.executable, "-c", SCRIPT], env=env, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(2)
    ]  # fmt: skip
    outs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err[-800:] for _, err in outs]
    folders = {out.strip() for out, _ in outs}
    assert len(folders) == 1
    root = tmp_path / "models" / "mpnet"
    assert not list(root.glob("bundle*.zip")) and not list(root.glob(".extract*"))
