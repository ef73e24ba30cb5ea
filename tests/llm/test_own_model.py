"""Your own model: ``--llm gguf:FILE`` and its refusals.

The header reader and the digest run on real files (the packaged GGUF, a
truncated copy of its head, a text file); every bad spec goes through the
real CLI in a subprocess and must exit 2 with one line naming the option and
the path, before any file is written. The end-to-end run on the packaged
GGUF's own path starts llama.cpp once (n = 1, r = 1, one short question).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from invent_core.llm import get_llm, spec_problem
from invent_core.llm.gguf_file import GGUFFileError, gguf_spec, read_gguf_header
from invent_core.llm.local import QWEN_05B
from invent_core.llm.names import describe_llm, local_model
from invent_core.packaged import file_sha256, sha256_file

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def packaged_gguf() -> Path:
    """The packaged Qwen 0.5B GGUF, assembled in the test cache (once)."""
    return QWEN_05B.path()


def _head(src: Path, dest: Path, n: int) -> Path:
    with open(src, "rb") as fh:
        dest.write_bytes(fh.read(n))
    return dest


def test_the_header_names_the_model_and_its_chat_template(packaged_gguf):
    info = read_gguf_header(packaged_gguf)
    assert info.version == 3 and info.architecture == "qwen2"
    assert info.name and "0.5B" in info.name
    assert info.chat_template  # llama.cpp applies the file's own template
    spec = gguf_spec(packaged_gguf)
    assert spec.file == packaged_gguf.resolve() and "its own chat template" in spec.description


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda tmp, g: tmp / "missing.gguf", "no such file"),
        (lambda tmp, g: tmp, "is a folder"),
        (lambda tmp, g: _write(tmp / "notes.txt", b"hello, not a model"), "not a GGUF file"),
        (lambda tmp, g: _head(g, tmp / "cut.gguf", 4096), "header ends early"),
        (lambda tmp, g: _write(tmp / "empty.gguf", b""), "not a GGUF file"),
    ],
)
def test_unusable_files_are_refused_naming_the_path(tmp_path, packaged_gguf, make, reason):
    path = make(tmp_path, packaged_gguf)
    with pytest.raises(GGUFFileError, match=reason) as err:
        read_gguf_header(path)
    assert str(path) in str(err.value)
    assert spec_problem(f"gguf:{path}").startswith(f"gguf:{path}: ")
    with pytest.raises(ValueError, match=reason):
        get_llm(f"gguf:{path}", cache=None)


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_the_digest_is_hashed_once_and_again_when_the_file_changes(tmp_path, monkeypatch):
    import invent_core.packaged as packaged

    f = _write(tmp_path / "m.gguf", b"GGUF" + b"\0" * 1000)
    calls = []
    real = packaged.sha256_file
    monkeypatch.setattr(packaged, "sha256_file", lambda p: calls.append(p) or real(p))
    first = file_sha256(f)
    assert first == sha256_file(f) and file_sha256(f) == first and len(calls) == 1
    f.write_bytes(b"GGUF" + b"\1" * 1000)  # same size, new bytes, new mtime
    os.utime(f, ns=(1, 1))
    assert file_sha256(f) == sha256_file(f) != first and len(calls) == 2


def test_the_packaged_file_by_its_path_is_the_packaged_model(packaged_gguf):
    llm = get_llm(f"gguf:{packaged_gguf}", cache=None)
    assert llm.identity == f"local:sha256={QWEN_05B.sha256}|model=qwen0.5b"
    assert local_model(llm.identity) == "qwen0.5b"
    assert llm.max_choices == get_llm("local", cache=None).max_choices  # the same slots


def test_another_gguf_is_named_by_its_digest_and_header():
    name = describe_llm("local:sha256=" + "ab" * 32 + "|model=Llama 3.1 8B Instruct")
    assert name == "Llama 3.1 8B Instruct (GGUF abababababab)"


# -- the CLI: every bad spec, exit 2, one line, nothing written -----------------


def _cli(args: list[str], cwd: Path, *, own_cache: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if own_cache:
        env["INVENT_CACHE"] = str(cwd / "cache")
    return subprocess.run(
        [sys.executable, "-m", "invent_core", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


COMMANDS = {
    "run": ["run", "What is 2 + 2?", "--save", "out/run.json"],
    "batch": ["batch", "in.csv", "-o", "out/scores.csv"],
    "evaluate": ["evaluate", "--dataset", "triviaqa", "--limit", "1", "-o", "out/ev"],
    "tsu": ["tsu", "--dataset", "triviaqa", "--limit", "1", "-o", "out/tsu"],
}

BAD = {
    "missing": (["--llm", "gguf:{tmp}/nope.gguf"], r"--llm gguf:\S*/nope\.gguf: no such file"),
    "not_gguf": (["--llm", "gguf:{tmp}/in.csv"], r"--llm gguf:\S*/in\.csv: not a GGUF file"),
    "folder": (["--llm", "gguf:{tmp}"], r"--llm gguf:\S+: is a folder"),
    "truncated": (["--llm", "gguf:{tmp}/cut.gguf"], r"--llm gguf:\S*/cut\.gguf: the GGUF header"),
    "empty_path": (["--llm", "gguf:"], r"--llm gguf: needs a file"),
    "unknown": (["--llm", "llama9"], r"--llm 'llama9' is unknown"),
    "para_missing": (
        ["--paraphrase-llm", "gguf:{tmp}/nope.gguf"],
        r"--paraphrase-llm gguf:\S*/nope\.gguf: no such file",
    ),
    "para_unknown": (["--paraphrase-llm", "gpt9"], r"--paraphrase-llm 'gpt9' is unknown"),
    "para_url_alone": (
        ["--paraphrase-base-url", "http://127.0.0.1:9/v1"],
        r"--paraphrase-base-url and --paraphrase-model go with --paraphrase-llm openai",
    ),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_specs_exit_2_naming_the_option_before_anything_is_written(
    tmp_path, packaged_gguf, command, case
):
    (tmp_path / "in.csv").write_text("question,answer\nWhat is 2 + 2?,4\n")
    _head(packaged_gguf, tmp_path / "cut.gguf", 4096)
    before = sorted(p.name for p in tmp_path.iterdir())
    extra, pattern = BAD[case]
    args = COMMANDS[command] + [a.replace("{tmp}", str(tmp_path)) for a in extra]
    done = _cli(args, tmp_path)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    import re

    assert re.search(pattern, lines[0]), lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no out/, no cache/


# -- end to end on the packaged GGUF's own path ---------------------------------


@pytest.mark.slow  # starts llama.cpp: about 20 s quiet, 70 s at load 12
def test_gguf_file_runs_end_to_end_and_records_its_sha256(tmp_path, packaged_gguf):
    """One question, n = 1, r = 1, through the CLI: the run records the file's digest."""
    out = tmp_path / "run.json"
    args = ["run", "What is 2 + 2?", "-n", "1", "-r", "1", "-B", "5", "--no-cache"]
    args += ["--perturber", "gaap", "--llm", f"gguf:{packaged_gguf}", "--save", str(out)]
    done = _cli(args, tmp_path, own_cache=False)  # the test cache: its embedder is there
    assert done.returncode == 0, done.stderr[-2000:]
    art = json.loads(out.read_text())
    assert art["identities"]["llm"] == f"local:sha256={QWEN_05B.sha256}|model=qwen0.5b"
    assert len(art["raw_responses"]) == 2 and all(len(r) == 1 for r in art["raw_responses"])
    assert "llm: local:sha256=" + QWEN_05B.sha256 in done.stdout


def _tiny_gguf(path: Path, name: str = "Tiny Test Model") -> Path:
    """A GGUF header with no tensors: a string, an array of strings and a u32 before the name."""
    import struct

    def s(text: str) -> bytes:
        data = text.encode()
        return struct.pack("<Q", len(data)) + data

    kv = [
        s("general.architecture") + struct.pack("<I", 8) + s("llama"),
        s("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 2) + s("a") + s("b"),
        s("llama.block_count") + struct.pack("<II", 4, 2),
        s("general.name") + struct.pack("<I", 8) + s(name),
    ]
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, len(kv)) + b"".join(kv))
    return path


def test_a_file_of_your_own_is_named_by_its_header_and_digest(tmp_path):
    from invent_core.errors import LLMError

    f = _tiny_gguf(tmp_path / "tiny.gguf")
    info = read_gguf_header(f)
    assert (info.name, info.architecture, info.chat_template) == ("Tiny Test Model", "llama", False)
    llm = get_llm(f"gguf:{f}", cache=None)
    first = llm.identity
    assert first == f"local:sha256={sha256_file(f)}|model=Tiny Test Model"
    assert "no chat template" in llm.spec.description
    moved = f.rename(tmp_path / "renamed.gguf")  # the same bytes elsewhere: the same identity
    assert get_llm(f"gguf:{moved}", cache=None).identity == first
    spec = gguf_spec(_tiny_gguf(tmp_path / "again.gguf"))
    (tmp_path / "again.gguf").write_bytes(b"not a model any more")  # replaced since named
    with pytest.raises(LLMError, match="no longer a GGUF file"):
        spec.path()


def test_the_packaged_file_as_paraphraser_is_the_same_backend_and_server(packaged_gguf):
    """--paraphrase-llm gguf:<the packaged file> reuses --llm local: one server for one set of weights."""
    from invent_core.cli import build_parser
    from invent_core.commands.common import llm_from_args
    from invent_core.llm.local import local_server

    args = build_parser().parse_args(
        ["run", "Q?", "--paraphrase-llm", f"gguf:{packaged_gguf}", "--no-cache"]
    )
    llm = llm_from_args(args)
    assert not hasattr(llm, "paraphraser")  # the answering model itself, no second backend
    by_path = get_llm(f"gguf:{packaged_gguf}", cache=None)
    assert by_path.server is get_llm("local", cache=None).server  # not started: one server object
    assert local_server(QWEN_05B) is by_path.server


def test_a_renamed_gguf_keeps_its_identity(tmp_path):
    from test_model_files import write_gguf

    first = write_gguf(tmp_path / "model.gguf")
    copy = tmp_path / "elsewhere" / "renamed.gguf"
    copy.parent.mkdir()
    copy.write_bytes(first.read_bytes())
    identity = get_llm(f"gguf:{first}", cache=None).identity
    assert identity == get_llm(f"gguf:{copy}", cache=None).identity
    assert identity.endswith("|model=tiny qwen2")  # the header's name, not the file's


def test_a_gguf_replaced_under_its_backend_gets_a_new_identity_and_server(tmp_path):
    from test_model_files import write_gguf

    path = write_gguf(tmp_path / "model.gguf")
    llm = get_llm(f"gguf:{path}", cache=None)
    before, server = llm.identity, llm.server
    write_gguf(tmp_path / "model.gguf", n_floats=8192)  # other weights under the same name
    assert llm.identity != before and llm.server is not server
    assert llm.server.digest in llm.identity


def test_threads_reach_the_server_config_and_not_the_cache_identity(packaged_gguf):
    from invent_core.cli import build_parser
    from invent_core.commands.common import check_llm_args, llm_from_args

    parse = build_parser().parse_args
    llm = llm_from_args(parse(["run", "Q?", "--threads", "1", "--no-cache"]))
    assert llm.server_config.n_threads == 1
    assert llm.identity == get_llm("local", cache=None).identity
    assert llm.server is not get_llm("local", cache=None).server  # its own settings
    gguf = llm_from_args(parse(["run", "Q?", "--llm", f"gguf:{packaged_gguf}", "--threads", "2"]))
    assert gguf.server_config.n_threads == 2
    with pytest.raises(ValueError, match="--threads sets the embedded llama.cpp"):
        check_llm_args(parse(["run", "Q?", "--llm", "openai", "--threads", "2"]))


@pytest.mark.parametrize("value", ["0", "-1", "99999", "two"])
def test_threads_out_of_bounds_exit_2_naming_the_option(tmp_path, value):
    res = subprocess.run(
        [sys.executable, "-m", "invent_core", "run", "Q?", "--threads", value],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert res.returncode == 2 and "--threads" in res.stderr and "Traceback" not in res.stderr
