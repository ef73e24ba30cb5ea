"""One up-front check of a model folder or file, by content, on tiny folders and files built here.

A Hugging Face folder (config.json, a safetensors file, tokenizer.json) and
GGUF files (written by the ``gguf`` package llama.cpp's converters use) are
built small, then damaged the ways a download or an editor damages them. Each
must be refused by ``spec_problem`` and by the real CLI (exit 2, one line
naming the path, no output folder), before any model library loads a byte.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from test_llm_hf import run_cli

from invent_core.llm import spec_problem
from invent_core.llm.gguf_file import gguf_problem
from invent_core.llm.model_files import content_name, folder_problem


def write_safetensors(path: Path, n_floats: int = 4) -> Path:
    """A real safetensors file: one F32 tensor of ``n_floats`` values."""
    header = {"w": {"dtype": "F32", "shape": [n_floats], "data_offsets": [0, 4 * n_floats]}}
    blob = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(blob)) + blob + b"\0" * (4 * n_floats))
    return path


def hf_folder(dest: Path) -> Path:
    """A folder the check passes: a qwen2 config, whole weights, a tokenizer with a vocabulary."""
    dest.mkdir(parents=True)
    config = {"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"]}
    (dest / "config.json").write_text(json.dumps(config))
    write_safetensors(dest / "model.safetensors")
    tokenizer = {"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": []}}
    (dest / "tokenizer.json").write_text(json.dumps(tokenizer))
    return dest


def write_gguf(path: Path, arch: str = "qwen2", n_floats: int = 4096) -> Path:
    """A real GGUF file of architecture ``arch`` with one tensor (the gguf package's writer)."""
    import gguf
    import numpy as np

    w = gguf.GGUFWriter(str(path), arch)
    w.add_name(f"tiny {arch}")
    w.add_tensor("token_embd.weight", np.zeros(n_floats, np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def _cut(path: Path, keep: int) -> Path:
    data = path.read_bytes()
    path.write_bytes(data[:keep])
    return path


def _damage_weights(folder: Path) -> None:
    _cut(folder / "model.safetensors", (folder / "model.safetensors").stat().st_size - 3)


def _no_tokenizer(folder: Path) -> None:
    (folder / "tokenizer.json").unlink()


def _garbage_config(folder: Path) -> None:
    (folder / "config.json").write_bytes(b"\x00\xffnot json at all{")


def _config_of_nothing(folder: Path) -> None:
    (folder / "config.json").write_text("{}")


def _header_length_lies(folder: Path) -> None:
    f = folder / "model.safetensors"
    f.write_bytes(struct.pack("<Q", 1 << 40) + f.read_bytes()[8:])


FOLDER_CASES = [
    (_damage_weights, "damaged safetensors"),
    (_header_length_lies, "damaged safetensors"),
    (_no_tokenizer, "no tokenizer"),
    (_garbage_config, "config.json is not"),
    (_config_of_nothing, "config.json names no model_type"),
]


def test_a_whole_folder_passes_and_is_named_by_its_config(tmp_path):
    folder = hf_folder(tmp_path / "some-name")
    assert folder_problem(folder) is None and spec_problem(f"hf:{folder}") is None
    assert content_name(folder) == "Qwen2ForCausalLM"  # never the folder's name
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "_name_or_path": "Org/Model"}))
    assert content_name(folder) == "Org/Model"


@pytest.mark.parametrize(("damage", "reason"), FOLDER_CASES)
def test_a_damaged_folder_is_refused_naming_the_path(tmp_path, damage, reason):
    folder = hf_folder(tmp_path / "m")
    damage(folder)
    problem = spec_problem(f"hf:{folder}")
    assert problem is not None and problem.startswith(f"hf:{folder}: ") and reason in problem


def test_a_shard_the_index_names_must_exist(tmp_path):
    folder = hf_folder(tmp_path / "m")
    index = {"weight_map": {"w": "model-00001-of-00002.safetensors"}}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))
    assert "model-00001-of-00002.safetensors" in folder_problem(folder)


def test_a_whole_gguf_passes_and_damaged_or_foreign_ones_are_refused(tmp_path):
    good = write_gguf(tmp_path / "good.gguf")
    assert gguf_problem(good).architecture == "qwen2" and spec_problem(f"gguf:{good}") is None
    cut = _cut(write_gguf(tmp_path / "cut.gguf"), good.stat().st_size - 5000)
    assert "truncated download" in spec_problem(f"gguf:{cut}")
    clip = write_gguf(tmp_path / "mmproj.gguf", "clip")
    assert "'clip' is not a chat model llama.cpp can run" in spec_problem(f"gguf:{clip}")
    odd = write_gguf(tmp_path / "odd.gguf", "no-such-arch")
    assert "'no-such-arch'" in spec_problem(f"gguf:{odd}")
    assert "transformers" in spec_problem(f"hf:{clip}")  # the other engine names itself


def test_a_name_over_the_system_limit_is_a_problem_not_a_traceback(tmp_path):
    long = tmp_path / ("m" * 300)
    for spec in (f"gguf:{long}", f"hf:{long}"):
        assert "File name too long" in spec_problem(spec)


def test_the_cli_refuses_each_before_making_its_output(tmp_path):
    """One real CLI per class: exit 2, one line naming the path, no output folder."""
    damaged = hf_folder(tmp_path / "damaged")
    _damage_weights(damaged)
    untokenized = hf_folder(tmp_path / "untokenized")
    _no_tokenizer(untokenized)
    garbage = hf_folder(tmp_path / "garbage")
    _garbage_config(garbage)
    cut = _cut(write_gguf(tmp_path / "cut.gguf"), 4000)
    foreign = write_gguf(tmp_path / "mmproj.gguf", "clip")
    long = tmp_path / ("m" * 300)
    specs = [f"hf:{damaged}", f"hf:{untokenized}", f"hf:{garbage}", f"gguf:{cut}"]
    specs += [f"gguf:{foreign}", f"gguf:{long}"]
    for spec in specs:
        out = tmp_path / "out"
        res = run_cli(
            "evaluate", "--dataset", "arithmetic", "--out", str(out), "--llm", spec, cwd=tmp_path
        )
        lines = res.stderr.strip().splitlines()
        assert res.returncode == 2 and len(lines) == 1, (spec, res.stderr)
        assert lines[0].startswith(f"error: --llm {spec}: "), (spec, res.stderr)
        assert not out.exists()
