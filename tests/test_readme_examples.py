"""The README's command examples run as written, so they cannot drift (issue 22).

Every ``python -m invent_core …`` / ``invent …`` line of a fenced ``bash`` block is
checked by the real parser and the command's own option checks (``--shard``,
the config options), the checks that run before any file is touched. A block
written as a transcript (``$ command`` lines followed by what it prints) is
run for real in a temporary folder and its output compared line by line
(``...`` stands for any lines).

Not run for real, and why (``NOT_RUN``): the commands that need the packaged
LLM (15-25 s per question on the shared CPU, minutes per example), an
OpenAI-compatible server, or files the reader brings (``questions.csv``,
``part*.csv``). Their options are still checked.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

#: command → why its README examples are parsed and option-checked but not run
NOT_RUN = {
    "run": "asks the packaged LLM: 15-25 s per generation on the shared CPU, n × r of them",
    "batch": "asks the LLM (or a vLLM server) for every row of the reader's questions.csv",
    "merge": "merges the reader's part*.csv files from earlier batch runs",
    "evaluate": "generates runs for 30 questions with the packaged LLM (minutes)",
    "tsu": "generates runs at four temperatures with the packaged LLM (minutes)",
    "score": "examples.json is the reader's file; the ex.json transcript runs score for real",
}


def bash_blocks(text: str) -> list[str]:
    """The bodies of the README's fenced ``bash`` blocks."""
    return re.findall(r"^```bash\n(.*?)^```", text, flags=re.S | re.M)


def _complete(cmd: str) -> bool:
    try:
        shlex.split(cmd, comments=True)
    except ValueError:  # an open quote: the command goes on on the next line
        return False
    return True


def logical_lines(block: str) -> list[str]:
    """Lines of a block, with a quoted string or a ``\\`` continuation joined to its command."""
    out: list[str] = []
    pending = ""
    for line in block.splitlines():
        pending = f"{pending}\n{line}" if pending else line
        if pending.endswith("\\"):  # a shell line continuation
            pending = pending[:-1].rstrip() + " "
            continue
        if _complete(pending):
            out.append(pending)
            pending = ""
    assert not pending, f"unclosed quote in README block: {pending!r}"
    return out


def cli_argv(cmd: str) -> list[str] | None:
    """``python -m invent_core ARGS`` or ``invent ARGS`` → ARGS; other commands → None."""
    tokens = shlex.split(cmd.removeprefix("$ "), comments=True)
    if tokens[:3] == ["python", "-m", "invent_core"]:
        return tokens[3:]
    if tokens[:1] == ["invent"]:
        return tokens[1:]
    return None


def transcripts(text: str) -> list[list[tuple[str, list[str]]]]:
    """Blocks written as ``$ command`` + output: a list of (command, output lines) each."""
    found = []
    for block in bash_blocks(text):
        if not block.startswith("$ "):
            continue
        steps: list[tuple[str, list[str]]] = []
        for line in logical_lines(block):
            if line.startswith("$ "):
                steps.append((line[2:], []))
            else:
                steps[-1][1].append(line.rstrip())
        found.append(steps)
    return found


def readme_commands() -> list[list[str]]:
    """Every CLI example of the README as an argv."""
    text = README.read_text(encoding="utf-8")
    cmds = []
    for block in bash_blocks(text):
        lines = logical_lines(block)
        if block.startswith("$ "):
            lines = [ln for ln in lines if ln.startswith("$ ")]
        cmds += [argv for ln in lines if ln.strip() and (argv := cli_argv(ln)) is not None]
    return cmds


def check_options(argv: list[str]) -> None:
    """The real parser, then the option checks each command makes before touching a file."""
    from invent_core.batch.shards import parse_shard
    from invent_core.cli import build_parser
    from invent_core.commands._common import config_from_args

    args = build_parser().parse_args(argv)
    if getattr(args, "shard", None) is not None:
        parse_shard(args.shard)
    if args.command in ("run", "batch", "evaluate", "tsu"):
        config_from_args(args)


def matches(expected: list[str], got: list[str]) -> bool:
    """``got`` holds the ``expected`` lines in order; a ``...`` line stands for any lines."""
    pattern = "\n".join(
        ".*?" if ln.strip() == "..." else re.escape(ln) for ln in expected if ln.strip()
    )
    pattern = pattern.replace("\n.*?\n", "\n(?:.*\n)*?")
    return re.fullmatch(pattern, "\n".join(ln for ln in got if ln.strip()), flags=re.S) is not None


def test_readme_has_examples_of_every_command():
    used = {argv[0] for argv in readme_commands()}
    assert used >= {"run", "score", "batch", "merge", "evaluate", "tsu"}
    assert used <= set(NOT_RUN), f"say in NOT_RUN whether/why these run: {used - set(NOT_RUN)}"


@pytest.mark.parametrize("argv", readme_commands(), ids=lambda a: " ".join(a)[:60])
def test_readme_command_options_are_valid(argv, capsys):
    try:
        check_options(argv)
    except SystemExit:  # argparse: an unknown option or a bad value
        pytest.fail(f"README: `{shlex.join(argv)}` is refused: {capsys.readouterr().err}")


@pytest.mark.slow  # loads the real MiniLM in a subprocess (about 10 s)
def test_readme_transcripts_print_what_the_readme_shows(tmp_path):
    found = transcripts(README.read_text(encoding="utf-8"))
    assert found, "the README shows no transcript"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(ROOT),
    }
    for steps in found:
        for cmd, shown in steps:
            proc = subprocess.run(
                ["bash", "-c", cmd],
                cwd=tmp_path,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert proc.returncode == 0, f"README: `{cmd}` failed:\n{proc.stderr[-2000:]}"
            got = proc.stdout.splitlines()
            assert matches(shown, got), (
                f"README shows for `{cmd}`:\n"
                + "\n".join(shown)
                + "\nbut it prints:\n"
                + proc.stdout
            )


@pytest.mark.parametrize("command", ["evaluate", "tsu"])
def test_help_lists_every_shipped_dataset(command, capsys):
    from invent_core.cli import build_parser
    from invent_core.questions.datasets import available_datasets

    with pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    listed = re.findall(r"--dataset DATASET (.*?) --data", shown)[-1]  # the option, not usage
    for name in available_datasets():
        assert name in listed, f"{command} --help does not list {name}: {listed}"
