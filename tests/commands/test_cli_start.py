"""What a command costs before it does anything: a refusal loads no statistics or model library."""

import subprocess
import sys

import pytest

HEAVY = ("scipy.stats", "torch", "transformers", "sentence_transformers", "xllamacpp")

CODE = """
import runpy, sys
sys.argv = ["invent_core", *sys.argv[1:]]
try:
    runpy.run_module("invent_core", run_name="__main__")
except SystemExit:
    pass
print(sorted(m for m in {heavy!r} if m in sys.modules))
"""


def _refused(argv: list[str], heavy: tuple[str, ...]) -> tuple[str, str]:
    """(stderr, the last stdout line: which of ``heavy`` the refused command imported)."""
    out = subprocess.run(
        [sys.executable, "-c", CODE.format(heavy=heavy), *argv],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return out.stderr, out.stdout.strip().splitlines()[-1]


def test_a_refused_command_imports_nothing_heavy(tmp_path):
    """scipy.stats alone took 1.1 s of every start (2.3 s -> 0.8 s once it was loaded lazily)."""
    for argv in (
        ["score", str(tmp_path / "missing.csv")],
        ["batch", str(tmp_path / "x.csv"), "-o", str(tmp_path / "out.csv")],
    ):
        err, loaded = _refused(argv, HEAVY)
        assert "no such file" in err, err
        assert loaded == "[]", (argv, loaded)


@pytest.mark.parametrize("command", ["score", "batch"])
def test_a_wrong_file_name_is_told_before_the_scoring_code_loads(tmp_path, command):
    """The existence check comes first, and matching the refusal against the busy-output
    error loads no batch machinery (0.3 s of methods and scipy.linalg): score 1.0 s -> 0.8 s,
    batch 1.25 s -> 0.71 s (median of 3, load 2.6; its parser still loads the LLM and
    perturber registries)."""
    heavy = (*HEAVY, "scipy", "invent_core.batch", "invent_core.engine.scoring")
    argv = [command, str(tmp_path / "x.json")]
    argv += ["-o", str(tmp_path / "out.csv")] if command == "batch" else []
    err, loaded = _refused(argv, heavy)
    assert "x.json: no such file" in err, err
    assert loaded == "[]", loaded
    assert not (tmp_path / "out.csv").exists()
