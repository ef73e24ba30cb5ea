"""invent installs like a library and runs from any folder.

A wheel is built offline from a copy of the sources (``pip wheel --no-deps
--no-build-isolation --no-index``: nothing is fetched, the repository gets no
``build/``), installed into a temporary folder, and used from another folder
with only that folder on ``PYTHONPATH``: the console script ``invent``,
``python -m invent_core``, and a command that reads the shipped data (the
reference runs under ``assets/``, installed as ``invent_core/assets``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "setup.py", "README.md", "requirements.txt", "requirements-strong.txt")
PACKAGES = ("invent_core", "invent_ui", "assets")


def _pip(*args: str, cwd: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pip", *args, "-q", "--no-index", "--disable-pip-version-check"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A wheel of the sources, installed (no dependencies: they are installed already)."""
    tmp = tmp_path_factory.mktemp("install")
    src = tmp / "src"
    src.mkdir()
    for name in SOURCES:
        shutil.copy2(ROOT / name, src / name)
    for name in PACKAGES:
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    _pip("wheel", "--no-deps", "--no-build-isolation", "-w", str(tmp / "dist"), ".", cwd=src)
    (wheel,) = (tmp / "dist").glob("invent-*.whl")
    _pip("install", "--no-deps", "--target", str(tmp / "site"), str(wheel), cwd=tmp)
    shutil.rmtree(src)  # the installed copy must not lean on the sources
    return tmp / "site"


def _run(site: Path, cwd: Path, *argv: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(site)
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def test_console_script_runs_from_another_folder(installed, tmp_path):
    script = installed / "bin" / "invent"
    assert script.exists(), sorted(p.name for p in installed.iterdir())
    res = _run(installed, tmp_path, str(script), "--help")
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("usage: invent ") and "evaluate" in res.stdout
    res = _run(installed, tmp_path, sys.executable, "-m", "invent_core", "run", "--help")
    assert res.returncode == 0 and res.stdout.startswith("usage: python -m invent_core run")


def test_installed_package_finds_its_shipped_data(installed, tmp_path):
    code = (
        "import invent_core, invent_ui.assets as a\n"
        "from invent_core.questions.datasets import datasets_dir, load_dataset\n"
        "from invent_core.evaluation.reference import reference_dir\n"
        "print(invent_core.__file__)\n"
        "print(len(load_dataset('arithmetic', limit=3)), a.DEMO_RUN.is_file(),"
        " len(list(reference_dir().glob('*.json'))) > 0)\n"
    )
    res = _run(installed, tmp_path, sys.executable, "-c", code)
    assert res.returncode == 0, res.stderr
    where, found = res.stdout.splitlines()
    assert Path(where).is_relative_to(installed)
    assert found == "3 True True"


@pytest.mark.slow  # loads the real MiniLM
def test_installed_score_uses_the_shipped_reference(installed, tmp_path):
    """n = 9, r = 5 from the packaged model: the shipped reference (in the wheel) applies."""
    questions = ["What is 36 minus 31?"] + [f"Variant {k}: what is 36 minus 31?" for k in range(9)]
    responses = [["5", "5", "5", "6", "5"] for _ in questions]
    (tmp_path / "ex.json").write_text(json.dumps({"questions": questions, "responses": responses}))
    script = str(installed / "bin" / "invent")
    res = _run(installed, tmp_path, script, "score", "ex.json", "--made-by", "qwen0.5b")
    assert res.returncode == 0, res.stderr
    assert "percentile" in res.stdout and "arithmetic-like reference questions" in res.stdout
