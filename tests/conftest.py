"""Shared fixtures. Loaded models are session-scoped: each loads once per test run."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# test folders mirror the packages; tests import shared helpers from each
# other by bare name (``from test_registry_contract import FakeLLM``), so every folder is on
# the path whatever pytest collected first.
for _folder in sorted(p for p in Path(__file__).resolve().parent.iterdir() if p.is_dir()):
    if _folder.name != "data" and not _folder.name.startswith((".", "_")):
        sys.path.insert(1, str(_folder))

#: The suite's own cache (history, throughput log, LLM cache, assembled model files).
TEST_CACHE = ROOT / ".cache" / "test"

#: Variables through which the user's setup would reach the product: the suite
#: must never read or write the user's cache, data folders or API endpoint.
USER_ENV = (
    "INVENT_DATASETS_DIR",
    "INVENT_REFERENCE_DIR",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_MODEL",
)

# Override, never setdefault: an exported INVENT_CACHE must not receive test
# runs (they would appear in the user's History and skew the throughput log).
os.environ["INVENT_CACHE"] = str(TEST_CACHE)
for _var in USER_ENV:
    os.environ.pop(_var, None)

import invent_core  # noqa: E402,F401  (sets the offline environment first)


def _scan_streamlit_components_once() -> None:
    """One scan of the installed packages for Streamlit components per test process.

    Every new ``AppTest`` reads the metadata of each installed distribution
    (about 750 here, 1.2 s on a quiet machine) looking for v2 components.
    Nothing installs a package during the suite, so the first scan's list
    serves every later AppTest; the dashboard itself (``streamlit run``) is
    untouched: it scans once at start anyway.
    """
    import functools

    try:
        from streamlit.components.v2 import manifest_scanner
    except ImportError:  # a Streamlit without v2 components: nothing to save
        return
    scan = manifest_scanner.scan_component_manifests
    if not hasattr(scan, "cache_info"):
        manifest_scanner.scan_component_manifests = functools.cache(scan)


_scan_streamlit_components_once()


#: The test files that take longest (a minute or more on 2 cores), run first so that
#: neither of the two workers (pyproject's ``-n 2 --dist loadfile``) is left with one
#: of them at the end while the other waits. Measured with ``--durations`` on 2026-11-28.
#: xdist hands each worker two files to start with (worker 1 the 1st and 3rd, worker 2
#: the 2nd and 4th), so the two browser files run one after the other in worker 1:
#: two Chromiums at once, one of them waiting on the LLM, took 205 s and 236 s for the
#: links and Explore tests, against 101 s and 74 s alone.
LONGEST_FIRST = (
    "app/test_browser_links.py",
    "commands/test_bad_inputs.py",
    "app/test_browser.py",
    "app/test_app_pages.py",
    "batch/test_batch_cli.py",
    "llm/test_bench_gpu.py",
    "llm/test_llm_hf.py",
    "experiments/test_experiment.py",
    "commands/test_write_promises.py",
    "batch/test_batch_faults.py",
)


def pytest_collection_modifyitems(session, config, items) -> None:
    """:data:`LONGEST_FIRST` first, in that order; the other files keep pytest's order.

    The sort is stable and by file only, so the tests of a file keep their order.
    """
    rank = {name: k for k, name in enumerate(LONGEST_FIRST)}
    tests = Path(__file__).resolve().parent

    def key(item) -> int:
        try:
            name = Path(str(item.path)).resolve().relative_to(tests).as_posix()
        except ValueError:  # a test outside tests/ (a doctest run by hand)
            return len(rank)
        return rank.get(name, len(rank))

    items.sort(key=key)


@pytest.fixture(scope="session")
def minilm():
    """The real packaged MiniLM embedder, loaded once."""
    from invent_core.embedders import get_embedder

    emb = get_embedder("minilm")
    emb.load()
    return emb


@pytest.fixture(scope="session")
def tiny_nli(tmp_path_factory):
    """A tiny randomly initialised NLI folder (BERT, 3 labels) built here: nothing downloaded;
    the packaged MiniLM's tokenizer files are reused."""
    import shutil

    import torch
    from transformers import BertConfig, BertForSequenceClassification

    from invent_core.embedders.sbert import MINILM, model_folder

    folder = tmp_path_factory.mktemp("tiny-nli")
    src = model_folder(MINILM)
    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        shutil.copy(src / name, folder / name)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=30522,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        num_labels=3,
        id2label={0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"},
        label2id={"CONTRADICTION": 0, "NEUTRAL": 1, "ENTAILMENT": 2},
    )
    BertForSequenceClassification(config).save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def local_llm():
    """The packaged Qwen 0.5B on an embedded llama.cpp server, started once (no cache)."""
    from invent_core.llm import get_llm

    llm = get_llm("local", cache=None)
    llm.complete([{"role": "user", "content": "Hi"}], max_tokens=1)  # start the server now
    yield llm
    llm.close()
