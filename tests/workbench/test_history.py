"""The on-disk run history: add/list/load/rename/delete/clear/export, bounds, safety, processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from invent_core.errors import InventError
from invent_core.workbench.history import (
    KINDS,
    HistoryEntry,
    HistoryStore,
    UnknownEntry,
    atomic_write,
    summarize_settings,
)

ROOT = Path(__file__).resolve().parents[2]
DEMO_RUN = json.loads((ROOT / "assets" / "demo_run.json").read_text())


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_add_list_load_roundtrip(tmp_path):
    store = HistoryStore(tmp_path)
    assert store.list() == [] and store.latest() is None
    eid = store.add("run", DEMO_RUN, title=DEMO_RUN["question"])
    (entry,) = store.list()
    assert isinstance(entry, HistoryEntry) and entry.id == eid and entry.kind == "run"
    assert entry.title == DEMO_RUN["question"]
    assert entry.size == len(json.dumps(DEMO_RUN, ensure_ascii=False).encode())
    assert entry.created.endswith("+00:00")
    assert store.load(eid) == DEMO_RUN
    assert store.get(eid) == entry == store.latest("run")
    assert store.latest("gaap") is None


def test_list_is_newest_first_and_filters_by_kind(tmp_path):
    store = HistoryStore(tmp_path)
    ids = [store.add(kind, {"k": i}, title=f"t{i}") for i, kind in enumerate(KINDS)]
    assert [e.id for e in store.list()] == ids[::-1]
    assert [e.id for e in store.list("gaap")] == [ids[1]]
    with pytest.raises(ValueError, match="unknown history kind 'runs'"):
        store.list("runs")


def test_settings_summary_of_the_shipped_artefacts():
    assert summarize_settings(DEMO_RUN) == (
        "gaap · n=9 · r=5 · T=0.7 · minilm · seed=0 · Qwen2.5-Coder-0.5B-Instruct"
    )
    tsu = json.loads((ROOT / "assets" / "demo_tsu.json").read_text())
    assert summarize_settings(tsu).startswith("arithmetic · limit=20 · paraphrase · n=9 · r=5 · T=")
    nested = {"config": {"perturber": "paraphrase", "n_perturbations": 3, "score": {"seed": 2}}}
    assert summarize_settings(nested) == "paraphrase · n=3 · seed=2"
    assert summarize_settings({"trace": []}) == ""


def test_an_evaluation_or_tsu_entry_names_both_models():
    """The Evaluation and TSU pages record the rewording model beside the answering one."""
    from types import SimpleNamespace

    from invent_core.experiments import ExperimentConfig
    from invent_ui.data.experiments import eval_payload, tsu_payload

    cfg = ExperimentConfig(dataset="arithmetic", limit=3)
    result = SimpleNamespace(methods=[], rows=[], evaluation=None, tsu={})
    a, b = "local:sha256=aa|model=qwen0.5b", "local:sha256=bb|model=qwen1.5b"
    for payload in (
        eval_payload(result, cfg, llm=a, paraphrase_llm=b),
        tsu_payload(result, [0.7], cfg, llm=a, paraphrase_llm=b),
    ):
        line = summarize_settings(payload)
        assert line.endswith("· qwen0.5b (GGUF aa) · paraphrases: qwen1.5b (GGUF bb)"), line
    same = eval_payload(result, cfg, llm=a, paraphrase_llm=a)
    assert "paraphrase_llm" not in same and "paraphrases:" not in summarize_settings(same)


def test_rename_delete_clear_export(tmp_path):
    store = HistoryStore(tmp_path)
    a = store.add("run", {"x": 1, "text": "é"}, title="first")
    b = store.add("gaap", {"y": [1, 2]}, title="second")
    renamed = store.rename(a, "  my\nfavourite   run ")
    assert renamed.title == "my favourite run" and store.get(a).title == "my favourite run"
    assert json.loads(store.export(a).decode()) == {"x": 1, "text": "é"}
    assert b"\n" in store.export(a)  # indented for people
    store.delete(b)
    assert [e.id for e in store.list()] == [a]
    with pytest.raises(UnknownEntry, match=f"no history entry {b}"):
        store.load(b)
    with pytest.raises(UnknownEntry):
        store.delete(b)
    with pytest.raises(UnknownEntry):
        store.rename(b, "x")
    (tmp_path / "notes.txt").write_text("not ours")
    store.clear()
    assert store.list() == []
    assert (tmp_path / "notes.txt").read_text() == "not ours"  # clear removes only entries


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"kind": "movie", "payload": {}, "title": "t"}, "unknown history kind 'movie'"),
        ({"kind": "run", "payload": {}, "title": "  \n "}, "non-empty title"),
        ({"kind": "run", "payload": [1], "title": "t"}, "payload must be a dict"),
        ({"kind": "run", "payload": {"a": {1, 2}}, "title": "t"}, "not JSON-serialisable"),
    ],
)
def test_add_validates_and_leaves_nothing_behind(tmp_path, kwargs, match):
    store = HistoryStore(tmp_path)
    with pytest.raises(ValueError, match=match):
        store.add(**kwargs)
    assert [p for p in _files(tmp_path) if p not in ("index.json", ".lock")] == []


def test_long_titles_are_cut(tmp_path):
    store = HistoryStore(tmp_path)
    eid = store.add("run", {}, title="q" * 500)
    title = store.get(eid).title
    assert len(title) == 200 and title.endswith("…")


@pytest.mark.parametrize(
    "bad_id",
    ["../etc", "../../x", "/etc/passwd", "20250101T000000-run-0000000g", "", "a/b", None, 3],
)
def test_ids_that_could_escape_the_folder_are_refused(tmp_path, bad_id):
    store = HistoryStore(tmp_path / "h")
    for call in (store.load, store.delete, store.export, store.get):
        with pytest.raises(ValueError, match="not a history entry id"):
            call(bad_id)
    with pytest.raises(ValueError, match="not a history entry id"):
        store.rename(bad_id, "x")


def test_eviction_by_count_keeps_the_newest(tmp_path):
    store = HistoryStore(tmp_path, max_entries=3)
    ids = [store.add("run", {"i": i}, title=str(i)) for i in range(5)]
    assert [e.id for e in store.list()] == ids[:1:-1]
    assert not (tmp_path / ids[0]).exists() and not (tmp_path / ids[1]).exists()
    with pytest.raises(UnknownEntry):
        store.load(ids[0])


def test_eviction_by_bytes_and_an_oversized_newest_is_kept(tmp_path):
    store = HistoryStore(tmp_path, max_bytes=1000)
    small = [store.add("run", {"t": "x" * 300}, title=f"s{i}") for i in range(3)]
    assert len(store.list()) == 3  # 3 × ~310 bytes fit
    store.add("run", {"t": "x" * 300}, title="s3")
    assert small[0] not in {e.id for e in store.list()}
    assert sum(e.size for e in store.list()) <= 1000
    big = store.add("tsu", {"t": "x" * 5000}, title="big")
    assert [e.id for e in store.list()] == [big]


@pytest.mark.parametrize(
    "damage",
    [
        lambda root: (root / "index.json").write_text("{not json"),
        lambda root: (root / "index.json").write_text('{"entries": [{"id": "../x"}]}'),
        lambda root: (root / "index.json").unlink(),
        lambda root: (root / "index.json").write_text('{"version": 1, "entries": []}'),
    ],
    ids=["corrupt", "malformed", "missing", "stale"],
)
def test_a_damaged_index_is_rebuilt_from_the_entries(tmp_path, damage):
    store = HistoryStore(tmp_path)
    a = store.add("run", {"a": 1}, title="a")
    b = store.add("evaluation", {"b": 2}, title="b")
    store.rename(a, "renamed")
    damage(tmp_path)
    fresh = HistoryStore(tmp_path)
    assert [(e.id, e.title) for e in fresh.list()] == [(b, "b"), (a, "renamed")]
    data = json.loads((tmp_path / "index.json").read_text())
    assert {e["id"] for e in data["entries"]} == {a, b}  # rewritten


def test_leftovers_of_an_interrupted_write_are_cleaned(tmp_path):
    store = HistoryStore(tmp_path)
    keep = store.add("run", {"a": 1}, title="a")
    half = tmp_path / "20240101T000000-run-deadbeef"  # payload written, metadata never
    half.mkdir()
    (half / "payload.json").write_text("{}")
    (tmp_path / ".index.json.abc.tmp").write_text("partial")
    (tmp_path / keep / ".meta.json.x.tmp").write_text("partial")
    (tmp_path / "index.json").unlink()  # force a rebuild
    assert [e.id for e in store.list()] == [keep]
    assert not half.exists()
    assert not [p for p in _files(tmp_path) if p.endswith(".tmp")]


def test_a_failed_write_leaves_no_tmp_file(tmp_path, monkeypatch):
    target = tmp_path / "f.json"
    target.write_bytes(b"old")

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        atomic_write(target, b"new")
    assert target.read_bytes() == b"old"
    assert _files(tmp_path) == ["f.json"]


def test_a_failed_add_leaves_no_entry_and_no_tmp(tmp_path, monkeypatch):
    store = HistoryStore(tmp_path)
    keep = store.add("run", {"a": 1}, title="a")
    real_replace = os.replace
    calls = {"n": 0}

    def fail_on_meta(src, dst):
        calls["n"] += 1
        if str(dst).endswith("meta.json"):
            raise OSError("disk full")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", fail_on_meta)
    with pytest.raises(OSError, match="disk full"):
        store.add("run", {"b": 2}, title="b")
    monkeypatch.undo()
    assert calls["n"] >= 2  # the payload went in, then the metadata failed
    assert [e.id for e in store.list()] == [keep]
    assert [p for p in _files(tmp_path) if p.endswith(".tmp")] == []
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == [keep]


def test_a_damaged_payload_is_a_readable_error(tmp_path):
    store = HistoryStore(tmp_path)
    eid = store.add("run", {"a": 1}, title="a")
    (tmp_path / eid / "payload.json").write_text("{trunc")
    with pytest.raises(InventError, match=f"history entry {eid} is damaged"):
        store.load(eid)


def test_bounds_are_validated(tmp_path):
    with pytest.raises(ValueError, match="max_entries must be a positive integer"):
        HistoryStore(tmp_path, max_entries=0)
    with pytest.raises(ValueError, match="max_bytes must be a positive integer"):
        HistoryStore(tmp_path, max_bytes=-5)


def test_default_root_is_under_the_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("INVENT_CACHE", str(tmp_path))
    store = HistoryStore()
    assert store.root == tmp_path / "history"


def _python(code: str, cache: Path) -> str:
    env = {**os.environ, "INVENT_CACHE": str(cache), "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return out.stdout.strip()


def test_history_survives_a_new_process(tmp_path):
    # one process writes through the default location, another reads it back
    eid = _python(
        """
        import json
        from invent_core.workbench.history import HistoryStore
        run = json.load(open("assets/demo_run.json"))
        store = HistoryStore()
        eid = store.add("run", run, title="from process one")
        store.add("gaap", {"trace": [1, 2, 3]}, title="a trace")
        print(eid)
        """,
        tmp_path,
    )
    out = _python(
        f"""
        import json
        from invent_core.workbench.history import HistoryStore
        store = HistoryStore()
        entries = store.list()
        run = store.load({eid!r})
        print(json.dumps([[e.kind, e.title] for e in entries]))
        print(run["question"])
        """,
        tmp_path,
    )
    listing, question = out.splitlines()
    assert json.loads(listing) == [["gaap", "a trace"], ["run", "from process one"]]
    assert question == DEMO_RUN["question"]


def test_two_processes_adding_at_once_lose_nothing(tmp_path):
    code = """
        import sys
        from invent_core.workbench.history import HistoryStore
        store = HistoryStore()
        for i in range(15):
            store.add("run", {"who": sys.argv[1], "i": i}, title=f"{sys.argv[1]}-{i}")
    """
    env = {**os.environ, "INVENT_CACHE": str(tmp_path), "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), who], env=env, cwd=ROOT)
        for who in ("a", "b")
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    titles = {e.title for e in HistoryStore(tmp_path / "history").list()}
    assert titles == {f"{w}-{i}" for w in "ab" for i in range(15)}
    index = json.loads((tmp_path / "history" / "index.json").read_text())
    assert len(index["entries"]) == 30
