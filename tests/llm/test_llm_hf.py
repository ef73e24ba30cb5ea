"""The transformers engine (``--llm hf:PATH``, ``--llm-engine``) on a tiny random-weight Qwen2.

The model is real (a Qwen2 causal LM with the packaged tokenizer, saved to a
folder and loaded through ``from_pretrained``), only small: its texts are
nonsense, which is all these tests need (counts, seeds, stops, shapes, cache).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from invent_core.errors import Cancelled
from invent_core.llm import LLMCache, Request, get_llm, user
from invent_core.llm import inference_engine as engine_mod
from invent_core.llm.hf import HFLLM, HFConfig, check_source
from invent_core.packaged import file_sha256
from invent_core.progress import CancelToken

ROOT = Path(__file__).resolve().parents[2]


def build_tiny_qwen2(dest: Path, tokenizer_folder: Path, *, seed: int = 0) -> Path:
    """Save a 2-layer Qwen2 with random weights and the packaged tokenizer to ``dest``."""
    import torch
    from transformers import AutoTokenizer, Qwen2Config, Qwen2ForCausalLM

    tok = AutoTokenizer.from_pretrained(str(tokenizer_folder))
    cfg = Qwen2Config(
        vocab_size=len(tok),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=1024,
        tie_word_embeddings=True,
    )
    torch.manual_seed(seed)
    Qwen2ForCausalLM(cfg).save_pretrained(str(dest))
    tok.save_pretrained(str(dest))
    return dest


@pytest.fixture(scope="session")
def tiny_folder(tmp_path_factory) -> Path:
    """A tiny random-weight Qwen2 folder (config.json, model.safetensors, tokenizer)."""
    from invent_core.llm.hf import packaged_tokenizer

    return build_tiny_qwen2(tmp_path_factory.mktemp("tiny-qwen2") / "tiny", packaged_tokenizer())


@pytest.fixture
def tiny(tiny_folder) -> HFLLM:
    """The tiny model on the transformers engine (CPU, fp32), no cache."""
    llm = get_llm(f"hf:{tiny_folder}", cache=None)
    assert isinstance(llm, HFLLM)
    return llm


def ask(text: str, k: int = 0, **kw) -> Request:
    return Request(user(text), **{"temperature": 1.0, "seed": 7, "replication": k, **kw})


# -- generation ----------------------------------------------------------------------


def test_replications_of_a_prompt_decode_together_sharing_one_prompt(tiny):
    reqs = [ask("What is 2+2?", k, max_tokens=6) for k in range(5)]
    reqs += [ask("Capital of France?", k, max_tokens=4) for k in range(3)]
    out = tiny.complete_many(reqs)
    assert tiny.batch_sizes == [8]  # one batch, 8 sequences
    prompts = {out[0].usage["prompt_tokens"], out[5].usage["prompt_tokens"]}
    assert tiny.stats.prompt_tokens == sum(prompts)  # each prompt evaluated once
    assert len({c.text for c in out[:5]}) == 5  # five seeds, five samples
    assert [c.usage["completion_tokens"] for c in out] == [6] * 5 + [4] * 3
    assert all(c.finish_reason == "length" for c in out)


def test_seeds_make_a_request_alone_reproducible(tiny):
    one = ask("Name a colour.", 2, max_tokens=8)
    a = tiny.complete_many([one])[0].text
    b = tiny.complete_many([one])[0].text
    other = tiny.complete_many([ask("Name a colour.", 3, max_tokens=8)])[0].text
    assert a == b and a != other
    greedy = Request(user("Name a colour."), temperature=0.0, seed=1, max_tokens=5)
    assert tiny.complete_many([greedy])[0].text == tiny.complete_many([greedy])[0].text


def test_stop_string_cuts_the_text_before_it(tiny):
    free = tiny.complete_many([ask("Say something.", max_tokens=10)])[0]
    tok = tiny.loaded.tokenizer
    ids = tok(free.text, add_special_tokens=False)["input_ids"]
    stop = tok.decode(ids[4:6]).strip() or tok.decode(ids[4:6])
    cut = tiny.complete_many([ask("Say something.", max_tokens=10, stop=(stop,))])[0]
    start = len(free.text) - len(free.text.lstrip())
    assert cut.text == free.text[: free.text.find(stop, start)]
    assert cut.finish_reason == "stop" and stop not in cut.text


def test_stop_at_newline_and_eos():
    """The per-token rule: a newline ends a row once it has text; EOS ends it at once."""
    from transformers import AutoTokenizer

    from invent_core.llm.hf import packaged_tokenizer
    from invent_core.llm.hf_decode import Decoded, Row, record_token

    tok = AutoTokenizer.from_pretrained(str(packaged_tokenizer()))
    nl = tok("\n", add_special_tokens=False)["input_ids"]
    word = tok("Paris", add_special_tokens=False)["input_ids"]
    row = Row(prompt=0, seed=0, temperature=0.0, max_tokens=20, stop=("\n",))
    out = Decoded()
    assert not any(record_token(out, row, t, {999_999}, tok) for t in nl)  # leading newline: go on
    assert not any(record_token(out, row, t, {999_999}, tok) for t in word)
    assert record_token(out, row, nl[0], {999_999}, tok)
    assert out.text == "\nParis" and out.finish_reason == "stop"
    eos = Decoded()
    assert record_token(eos, row, 5, {5}, tok) and eos.finish_reason == "stop" and eos.tokens == []


def test_first_token_logprobs_have_the_asked_shape(tiny):
    req = Request(
        user("Is the sky blue? Answer True or False."),
        temperature=0.0,
        max_tokens=1,
        logprobs=True,
        top_logprobs=5,
    )
    c = tiny.complete_many([req])[0]
    assert len(c.logprobs) == 5
    assert all(isinstance(t, str) and isinstance(lp, float) and lp <= 0 for t, lp in c.logprobs)
    lps = [lp for _, lp in c.logprobs]
    assert lps == sorted(lps, reverse=True)
    assert c.text == c.logprobs[0][0]  # greedy: the first token is the most likely one
    assert 0 < c.first_token_prob(c.logprobs[0][0]) <= 1


def test_cancel_between_batches_keeps_the_finished_ones(tiny_folder, tmp_path):
    cache = LLMCache(tmp_path / "c.sqlite")
    llm = HFLLM(check_source(tiny_folder), config=HFConfig(max_batch=2), cache=cache)
    reqs = [ask(f"Question {i}?", max_tokens=3) for i in range(6)]
    token = CancelToken()

    def progress(done: int, total: int) -> None:
        if done >= 2:
            token.cancel()

    with pytest.raises(Cancelled):
        llm.complete_many(reqs, progress, cancel=token)
    assert llm.batch_sizes == [2] and len(cache) == 2  # the first batch ran and was kept
    out = llm.complete_many(reqs)
    assert [c.cached for c in out] == [True, True, False, False, False, False]
    assert llm.batch_sizes == [2, 2, 2]


def test_a_rerun_is_read_from_the_cache(tiny_folder, tmp_path):
    cache = LLMCache(tmp_path / "c.sqlite")
    llm = get_llm(f"hf:{tiny_folder}", cache=cache)
    reqs = [ask("Pick a number.", k, max_tokens=4) for k in range(3)]
    first = llm.complete_many(reqs)
    again = llm.complete_many(reqs)
    assert [c.text for c in again] == [c.text for c in first]
    assert all(c.cached for c in again) and not any(c.cached for c in first)
    assert llm.batch_sizes == [3]


def test_identity_is_the_weights_digest_engine_and_dtype(tiny_folder, tmp_path):
    llm = get_llm(f"hf:{tiny_folder}", cache=None)
    base, _, model = llm.identity.rpartition("|model=")
    assert base.startswith("transformers:sha256=")
    assert base.endswith(";dtype=fp32;device=cpu;sampling=llamacpp")
    assert model == "Qwen2ForCausalLM"  # read from config.json, not the folder's name
    assert llm.label == "tiny · transformers · cpu · fp32"  # people see the folder's name
    same = shutil.copytree(tiny_folder, tmp_path / "tiny")
    assert get_llm(f"hf:{same}", cache=None).identity == llm.identity  # contents, not place
    renamed = shutil.copytree(tiny_folder, tmp_path / "a copy under another name")
    assert get_llm(f"hf:{renamed}", cache=None).identity == llm.identity
    other = shutil.copytree(tiny_folder, tmp_path / "b" / "tiny")
    weights = other / "model.safetensors"
    data = bytearray(weights.read_bytes())
    data[-1] ^= 1
    weights.write_bytes(bytes(data))
    assert get_llm(f"hf:{other}", cache=None).identity != llm.identity
    assert file_sha256(weights) == file_sha256(weights)  # remembered, same answer


def test_a_gguf_file_is_identified_by_its_sha256():
    from invent_core.llm.local import QWEN_05B
    from invent_core.llm.names import describe_llm, local_model

    llm = get_llm(f"hf:{QWEN_05B.path()}", cache=None)  # not loaded: the identity only
    assert llm.identity.startswith(f"transformers:sha256={QWEN_05B.sha256};dtype=fp32")
    packaged = get_llm("local", engine="transformers", cache=None)
    assert packaged.label == "Qwen2.5-Coder-0.5B · transformers · cpu · fp32"
    assert local_model(packaged.identity) == "qwen0.5b"
    assert describe_llm(packaged.identity).endswith(" · transformers · cpu · fp32")


# -- engine choice ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cuda", "llamacpp_gpu", "engine", "expected"),
    [
        (True, False, "auto", "transformers"),  # a GPU llama.cpp cannot use
        (True, True, "auto", "llamacpp"),  # a llama.cpp build with CUDA
        (False, False, "auto", "llamacpp"),  # a CPU machine: llama.cpp, the faster there
        (False, False, "transformers", "transformers"),
        (True, False, "llamacpp", "llamacpp"),
    ],
)
def test_the_auto_engine_rule(monkeypatch, cuda, llamacpp_gpu, engine, expected):
    monkeypatch.setattr(engine_mod, "cuda_available", lambda: cuda)
    monkeypatch.setattr(engine_mod, "llamacpp_has_gpu", lambda: llamacpp_gpu)
    assert engine_mod.choose_engine(engine) == expected


def test_auto_on_this_cpu_keeps_llama_cpp():
    from invent_core.llm import LocalLLM

    llm = get_llm("local", cache=None)
    assert isinstance(llm, LocalLLM) and llm.label == "Qwen2.5-Coder-0.5B · llama.cpp · cpu"
    with pytest.raises(ValueError, match="--llm-engine"):
        get_llm("local", engine="vllm")


# -- bad input through the CLI ----------------------------------------------------------


def run_cli(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "invent_core", *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**__import__("os").environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )


def test_bad_llm_specs_exit_2_with_one_line_and_write_nothing(tmp_path, tiny_folder):
    no_config = tmp_path / "empty-model"
    no_config.mkdir()
    not_gguf = tmp_path / "weights.gguf"
    not_gguf.write_bytes(b"PK\x03\x04 not a gguf")
    cases = [
        (["--llm", f"hf:{tmp_path / 'missing'}"], f"--llm hf:{tmp_path / 'missing'}"),
        (["--llm", f"hf:{no_config}"], "config.json"),
        (["--llm", f"hf:{not_gguf}"], "not a GGUF"),
        (["--llm-engine", "vllm"], "--llm-engine"),
        (["--llm-engine", "transformers", "--llm-dtype", "bf16"], "--llm-dtype bf16 needs CUDA"),
        (["--llm", f"hf:{tiny_folder}", "--llm-dtype", "fp16"], f"--llm hf:{tiny_folder}"),
    ]
    for extra, named in cases:
        save = tmp_path / "out" / "run.json"
        res = run_cli("run", "What is 2+2?", "--save", str(save), *extra, cwd=tmp_path)
        assert res.returncode == 2, (extra, res.stderr)
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and named in lines[0], (extra, res.stderr)
        assert not (tmp_path / "out").exists()


def test_the_cli_says_what_runs_the_model(tiny, capsys):
    from invent_core.commands.common import print_estimate
    from invent_core.config import RunConfig

    print_estimate(RunConfig(), tiny.identity, llm=tiny)
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "llm: tiny · transformers · cpu · fp32" and err[1].startswith("estimate:")


def test_the_static_kv_cache_draws_the_same_tokens_as_the_dynamic_one(tiny_folder):
    """Mixed rows (prompt lengths, greedy and sampled, stops, lengths, log-probs): same output.

    The static path is the engine's default on CUDA; here both run on the CPU.
    """
    reqs = [ask("What is 2+2?", k, max_tokens=6) for k in range(3)]
    reqs += [
        ask("Name the capital of France, please, in one word.", k, max_tokens=9) for k in (0, 1)
    ]
    reqs += [Request(user("Say a colour."), temperature=0.0, seed=1, max_tokens=5, stop=("e",))]
    reqs += [
        Request(
            user("True or False?"), temperature=0.0, max_tokens=1, logprobs=True, top_logprobs=3
        )
    ]
    runs = {}
    for kv in ("dynamic", "static"):
        llm = get_llm(f"hf:{tiny_folder}", cache=None)
        llm = HFLLM(llm.source, config=HFConfig(kv_cache=kv))
        assert llm.static is (kv == "static")
        runs[kv] = llm.complete_many(reqs)
        assert llm.batch_sizes == [len(reqs)]
    for a, b in zip(runs["dynamic"], runs["static"], strict=True):
        assert (a.text, a.finish_reason, a.usage) == (b.text, b.finish_reason, b.usage)
        assert a.logprobs == b.logprobs or (
            [t for t, _ in a.logprobs] == [t for t, _ in b.logprobs]
            and all(abs(x - y) < 1e-4 for (_, x), (_, y) in zip(a.logprobs, b.logprobs))
        )
    assert len({c.text for c in runs["static"][:3]}) == 3  # seeds still make distinct samples
    assert HFLLM(check_source(tiny_folder), config=HFConfig()).static is False  # CPU: auto


def test_engine_settings_are_checked_before_anything_loads():
    assert HFConfig().resolve() == ("cpu", "fp32")  # this machine: no CUDA
    with pytest.raises(ValueError, match="torch sees no CUDA"):
        HFConfig(device="cuda").resolve()
    with pytest.raises(ValueError, match="--llm-dtype bf16 needs CUDA"):
        HFConfig(dtype="bf16").resolve()
    with pytest.raises(ValueError, match="--llm-dtype must be one of"):
        HFConfig(dtype="fp8")
    with pytest.raises(ValueError, match="kv_cache must be one of auto, static, dynamic"):
        HFConfig(kv_cache="paged")


def test_a_hub_cache_snapshot_is_named_after_its_repository(tiny_folder, tmp_path):
    snap = tmp_path / "models--Org--Some-Model" / "snapshots" / ("ab" * 20)
    shutil.copytree(tiny_folder, snap)
    assert check_source(snap).display == "Org/Some-Model"


def test_requests_from_several_threads_meet_in_one_batch():
    """While a batch decodes, what other threads submit waits and then goes as one batch."""
    import threading

    from invent_core.llm.hf_batcher import Batcher, Ticket

    started, release, batches = threading.Event(), threading.Event(), []

    def run(groups):
        batches.append(sum(len(g) for g in groups))
        if len(batches) == 1:
            started.set()
            release.wait(30)
        return [[f"{len(batches)}:{r}" for r in g] for g in groups]

    batcher = Batcher(run, lambda: 16)
    results: dict[str, list] = {}

    def submit(name: str, groups) -> None:
        results[name] = batcher.submit(Ticket(groups, None))

    first = threading.Thread(target=submit, args=("a", [["a0"]]))
    first.start()
    assert started.wait(30)
    later = [
        threading.Thread(target=submit, args=(n, [[f"{n}{k}" for k in range(5)]])) for n in "bc"
    ]
    for t in later:
        t.start()
    while len(batcher._queue) < 2:  # both are waiting for the engine
        threading.Event().wait(0.01)
    release.set()
    for t in [first, *later]:
        t.join(30)
    assert batches == [1, 10]  # b's and c's five sequences went together
    assert results["b"] == [[f"2:b{k}" for k in range(5)]] and results["a"] == [["1:a0"]]
    cancelled = CancelToken()
    cancelled.cancel()
    with pytest.raises(Cancelled):
        batcher.submit(Ticket([["d0"]], cancelled))
    assert batches == [1, 10]  # a cancelled caller's work is never decoded


def test_batch_and_evaluate_refuse_a_bad_hf_path_before_making_their_outputs(tmp_path):
    missing = f"hf:{tmp_path / 'missing'}"
    rows = tmp_path / "in.csv"
    rows.write_text("question\nWhat is 2+2?\n")
    for argv, output in (
        (["batch", str(rows), "-o", str(tmp_path / "out.csv")], tmp_path / "out.csv"),
        (["evaluate", "--dataset", "arithmetic", "--out", str(tmp_path / "ev")], tmp_path / "ev"),
    ):
        res = run_cli(*argv, "--llm", missing, cwd=tmp_path)
        assert (
            res.returncode == 2
            and res.stderr.strip() == f"error: --llm {missing}: no such file or folder"
        )
        assert not output.exists()


def test_on_cuda_the_dtype_is_bf16_or_fp16_where_bf16_is_missing(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda: True)
    assert HFConfig().resolve() == ("cuda:0", "bf16")
    assert HFConfig(device="cpu").resolve() == ("cpu", "fp32")
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda: False)
    assert HFConfig(device="cuda").resolve() == ("cuda:0", "fp16")
    assert HFConfig(dtype="fp32").resolve() == ("cuda:0", "fp32")


# -- the files change underneath ------------------------------------------------------


def test_a_renamed_copy_reads_every_cached_answer(tiny_folder, tmp_path):
    cache = LLMCache(tmp_path / "c.sqlite")
    reqs = [ask("Name a colour.", k, max_tokens=3) for k in range(2)]
    first = get_llm(f"hf:{tiny_folder}", cache=cache).complete_many(reqs)
    copy = shutil.copytree(tiny_folder, tmp_path / "renamed-model")
    again = get_llm(f"hf:{copy}", cache=cache).complete_many(reqs)
    assert all(c.cached for c in again) and [c.text for c in again] == [c.text for c in first]


@pytest.fixture(scope="session")
def other_weights(tmp_path_factory) -> Path:
    """The tiny model's shape with other random weights (another seed)."""
    from invent_core.llm.hf import packaged_tokenizer

    dest = tmp_path_factory.mktemp("tiny-other") / "other"
    return build_tiny_qwen2(dest, packaged_tokenizer(), seed=1)


def test_weights_overwritten_while_loaded_get_a_new_identity_and_a_reload(
    tiny_folder, other_weights, tmp_path
):
    from invent_core.llm.hf import loaded_digest

    folder = shutil.copytree(tiny_folder, tmp_path / "m")
    cache = LLMCache(tmp_path / "c.sqlite")
    llm = get_llm(f"hf:{folder}", cache=cache)
    reqs = [ask("Name a colour.", max_tokens=4)]
    before = llm.identity
    llm.complete_many(reqs)
    assert loaded_digest(llm.source, "cpu", "fp32") in before
    shutil.copyfile(other_weights / "model.safetensors", folder / "model.safetensors")
    assert llm.identity != before  # the same backend object sees the new files
    assert llm.identity == get_llm(f"hf:{other_weights}", cache=None).identity
    again = llm.complete_many(reqs)
    assert not again[0].cached and loaded_digest(llm.source, "cpu", "fp32") in llm.identity
    alone = get_llm(f"hf:{other_weights}", cache=None).complete_many(reqs)[0]
    assert again[0].text == alone.text  # the new weights answered, not the ones in memory
    fresh = get_llm(f"hf:{folder}", cache=cache).complete_many(reqs)[0]  # the next process
    assert fresh.cached and fresh.text == again[0].text


def test_files_changed_during_a_call_are_never_cached_under_the_old_identity(
    tiny_folder, other_weights, tmp_path
):
    from invent_core.errors import LLMError

    folder = shutil.copytree(tiny_folder, tmp_path / "m")
    cache = LLMCache(tmp_path / "c.sqlite")
    llm = get_llm(f"hf:{folder}", cache=cache)
    llm.complete_many([ask("Warm up.", max_tokens=2)])

    def overwrite(done: int, total: int) -> None:  # after the identity, before any answer
        if done == 0:
            shutil.copyfile(other_weights / "model.safetensors", folder / "model.safetensors")

    with pytest.raises(LLMError, match="changed while this run was answering"):
        llm.complete_many([ask("Name a colour.", max_tokens=3)], overwrite)
    assert len(cache) == 1  # the warm-up only


def test_evaluate_with_a_model_that_cannot_load_fails_once_naming_why(tiny_folder, tmp_path):
    """Weights of another shape than config.json says: the load fails; evaluate stops at once."""
    folder = shutil.copytree(tiny_folder, tmp_path / "mismatched")
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "intermediate_size": 96}))
    out = tmp_path / "ev"
    res = run_cli(
        "evaluate", "--dataset", "arithmetic", "--limit", "3", "--out", str(out),
        "--llm", f"hf:{folder}", "-n", "1", "-r", "1", "--no-cache", "-q", cwd=tmp_path,
    )  # fmt: skip
    assert res.returncode == 2, res.stderr
    assert res.stderr.count("could not load") == 1 and str(folder) in res.stderr
    assert "no questions" not in res.stderr + res.stdout


def test_a_tokenizer_saved_by_another_process_first_is_kept(tmp_path):
    """Two processes on a fresh cache both save the tokenizer; the second's rename met the
    first's folder ("Directory not empty", seen with two test workers) and failed."""
    from invent_core.packaged import publish_folder

    folder = tmp_path / "tokenizer"
    mine = tmp_path / ".tokenizer.1"
    mine.mkdir()
    (mine / "tokenizer_config.json").write_text("{}")
    publish_folder(mine, folder, finished="tokenizer_config.json")  # the first one there: moved
    assert (folder / "tokenizer_config.json").is_file() and not mine.exists()
    late = tmp_path / ".tokenizer.2"
    late.mkdir()
    (late / "tokenizer_config.json").write_text('{"late": true}')
    # another process won: its folder is kept, ours removed
    publish_folder(late, folder, finished="tokenizer_config.json")
    assert (folder / "tokenizer_config.json").read_text() == "{}" and not late.exists()
    broken = tmp_path / "broken"
    (broken / "junk").mkdir(parents=True)  # not a finished tokenizer: still an error
    again = tmp_path / ".tokenizer.3"
    (again / "x").mkdir(parents=True)
    with pytest.raises(OSError):
        publish_folder(again, broken, finished="tokenizer_config.json")
