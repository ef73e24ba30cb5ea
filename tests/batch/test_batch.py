"""Batch scoring engine: layouts, bad input, resume, shards, exports, formula injection.

Pre-generated responses only (no LLM); the real MiniLM embeds them.
"""

from __future__ import annotations

import csv
import http.server
import json
import threading
from pathlib import Path

import numpy as np
import pytest

from invent_core.batch import (
    BatchInputError,
    batch_score,
    iter_records,
    merge_outputs,
    parse_shard,
    shard_of,
    sidecar_paths,
)
from invent_core.config import RunConfig
from invent_core.csv_safe import neutralize_cell, restore_cell

pytestmark = pytest.mark.slow  # every test here embeds with the real MiniLM

ANSWERS = ["Paris", "London", "Berlin", "Rome", "Madrid", "Vienna", "Lisbon"]
INV = ["inv_entropy", "ni_entropy", "nr_inv_entropy", "wd_px_py", "max_py_x"]
B = 8


def cfg(n_bootstrap: int = B, **changes) -> RunConfig:
    """The run configuration of these tests: the paper's, with a small B."""
    return RunConfig().replace(n_bootstrap=n_bootstrap, **changes)


def make_rows(n_rows: int, *, n: int = 2, r: int = 2, seed: int = 0) -> list[dict]:
    """Rows of the wide layout: question, id, answer, perturbations (n) and responses (n+1 × r)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_rows):
        perts = [f"Variant {k} of question {i}: which city is meant?" for k in range(1, n + 1)]
        reps = [[str(rng.choice(ANSWERS)) for _ in range(r)] for _ in range(n + 1)]
        rows.append(
            {
                "id": f"q{i}",
                "question": f"What is the capital of country number {i}?",
                "answer": reps[0][0] if i % 2 else "Tokyo",
                "perturbations": perts,
                "responses": reps,
            }
        )
    return rows


def write_csv(path: Path, rows: list[dict], *, encoding: str = "utf-8") -> Path:
    cols = list(rows[0])
    with open(path, "w", newline="", encoding=encoding) as f:
        w = csv.writer(f)
        w.writerow(cols)
        for row in rows:
            w.writerow([json.dumps(row[c]) if isinstance(row[c], list) else row[c] for c in cols])
    return path


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    return path


def write_long(path: Path, rows: list[dict]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(
            [
                "id",
                "question",
                "answer",
                "perturbation_index",
                "replication_index",
                "perturbation",
                "response",
            ]
        )
        for row in rows:
            texts = [row["question"], *row["perturbations"]]
            for p, reps in enumerate(row["responses"]):
                for k, resp in enumerate(reps):
                    w.writerow(
                        [
                            row["id"],
                            row["question"],
                            row["answer"],
                            p,
                            k,
                            texts[p] if p else "",
                            resp,
                        ]
                    )
    return path


def records(path) -> list[dict]:
    return list(iter_records(path))


def errors_of(output) -> list[dict]:
    p = sidecar_paths(output)["errors"]
    return [json.loads(line) for line in p.read_text().splitlines() if line.strip()]


def assert_same_scores(a: list[dict], b: list[dict]) -> None:
    assert [r["id"] for r in a] == [r["id"] for r in b]
    assert [r["row"] for r in a] == [r["row"] for r in b]
    for name in INV:
        np.testing.assert_allclose([r[name] for r in a], [r[name] for r in b], rtol=0, atol=1e-6)


class FailingLLM:
    """An LLM that fails the test if anything calls it."""

    identity = "failing-llm"

    def __getattr__(self, name):
        raise AssertionError(f"the LLM was used ({name}) although responses were given")


@pytest.fixture
def wide_csv(tmp_path):
    return write_csv(tmp_path / "wide.csv", make_rows(10))


# --------------------------------------------------------------------------
# Scoring pre-generated responses
# --------------------------------------------------------------------------


def test_wide_csv_matches_score_responses(minilm, wide_csv, tmp_path):
    from invent_core.config import ScoreConfig
    from invent_core.engine.scoring import score_responses

    out = tmp_path / "out.csv"
    s = batch_score(wide_csv, out, config=cfg(B), llm=FailingLLM())
    assert s.ok and s.n_scored == 10 and s.n_failed == 0
    recs = records(out)
    assert [r["id"] for r in recs] == [f"q{i}" for i in range(10)]
    rows = make_rows(10)
    for rec, row in zip(recs, rows, strict=True):
        ref = score_responses(
            [row["question"], *row["perturbations"]], row["responses"], ScoreConfig(n_bootstrap=B)
        )
        for name in INV:
            assert rec[name] == pytest.approx(ref.measures[name], abs=1e-6)
        assert rec["response"] == row["responses"][0][0]
        assert rec["correct"] == int(row["answer"] == row["responses"][0][0])
        assert (rec["n_perturbations"], rec["n_replications"]) == (2, 2)
    # correctness given → AUROC/PRR for every method
    assert set(s.evaluation) == set(INV) and s.n_judged == 10
    meta = json.loads(Path(s.meta_path).read_text())
    assert meta["config"]["llm"] is None and meta["status"] == "finished"
    assert meta["models"]["embedder_sha256"].startswith("53aa5117")
    assert meta["versions"]["numpy"] == np.__version__
    from invent_core.provenance import provenance

    assert meta["provenance"] == provenance() and "commit" in meta["provenance"]


def test_zero_llm_requests_with_a_real_server(minilm, wide_csv, tmp_path):
    """Baselines that need an LLM get no value; the server on 127.0.0.1 sees no request."""
    from invent_core.llm import get_llm

    hits = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            hits.append(self.path)
            self.send_response(500)
            self.end_headers()

        do_POST = do_GET

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        llm = get_llm(
            "openai", base_url=f"http://127.0.0.1:{server.server_port}/v1", model="m", cache=None
        )
        out = tmp_path / "all.jsonl"
        s = batch_score(wide_csv, out, methods="all", config=cfg(B), llm=llm)
    finally:
        server.shutdown()
    assert hits == []
    assert s.ok
    rec = records(out)[0]
    assert rec["p_true"] is None and "needs an LLM" in json.loads(rec["method_errors"])["p_true"]
    assert rec["semantic_entropy"] is not None


def test_long_layout_and_jsonl_equal_wide(minilm, tmp_path):
    rows = make_rows(6, n=3, r=2)
    a = batch_score(write_csv(tmp_path / "w.csv", rows), tmp_path / "a.csv", config=cfg(B))
    b = batch_score(write_long(tmp_path / "l.csv", rows), tmp_path / "b.csv", config=cfg(B))
    c = batch_score(write_jsonl(tmp_path / "j.jsonl", rows), tmp_path / "c.jsonl", config=cfg(B))
    assert a.ok and b.ok and c.ok
    assert_same_scores(records(tmp_path / "a.csv"), records(tmp_path / "b.csv"))
    assert_same_scores(records(tmp_path / "a.csv"), records(tmp_path / "c.jsonl"))
    assert records(tmp_path / "b.csv")[0]["n_perturbations"] == 3


def test_value_column_and_no_id(minilm, tmp_path):
    """The paper's tool reads question,value CSVs; without ids rows are numbered 1, 2, …"""
    rows = [{k: v for k, v in row.items() if k != "id"} for row in make_rows(3)]
    for row in rows:
        row["value"] = row.pop("answer")
    s = batch_score(write_csv(tmp_path / "v.csv", rows), tmp_path / "o.csv", config=cfg(B))
    recs = records(tmp_path / "o.csv")
    assert [r["id"] for r in recs] == ["1", "2", "3"]
    assert s.n_judged == 3 and recs[0]["answer"] == "Tokyo"


def test_small_embedding_cache_gives_the_same_scores(minilm, tmp_path, monkeypatch):
    """The batch bounds the embedder's cache; evictions in mid-run must not change a score."""
    import invent_core.batch.session as engine

    rows = make_rows(10)
    batch_score(write_csv(tmp_path / "a_in.csv", rows), tmp_path / "a.csv", config=cfg(B))
    # a window mixing texts already cached (rows) with new ones, over the limit
    new = [
        dict(r, id=f"n{i}", question=f"Another question {i}?")
        for i, r in enumerate(make_rows(10, seed=7))
    ]
    monkeypatch.setattr(engine, "EMBED_CACHE_LIMIT", 12)
    before = minilm.max_cache
    s = batch_score(write_csv(tmp_path / "b_in.csv", rows + new), tmp_path / "b.csv", config=cfg(B))
    assert s.ok and minilm.max_cache == before  # restored
    assert_same_scores(records(tmp_path / "a.csv"), records(tmp_path / "b.csv")[:10])


def test_progress_reports_done_total_eta(minilm, wide_csv, tmp_path):
    calls = []
    batch_score(
        wide_csv,
        tmp_path / "o.csv",
        config=cfg(B),
        progress=lambda ev: calls.append((ev.done, ev.total, ev.eta_seconds, ev.stage)),
    )
    # 0/10 at once (no counter until the first row finished), then each row
    assert [c[0] for c in calls] == list(range(0, 11)) and calls[0][2] is None
    assert all(t == 10 for _, t, _, _ in calls)
    assert all(stage == "rows" for *_, stage in calls)  # the shape run and evaluate report
    assert calls[-1][2] == pytest.approx(0.0)
    assert all(e is not None and e >= 0 for _, _, e, _ in calls[1:])


def test_run_config_reaches_scoring_and_the_sidecar(minilm, wide_csv, tmp_path):
    """Every RunConfig field reaches batch (affinity included); resuming compares configs."""
    from invent_core.engine.scoring import score_responses

    out = tmp_path / "abs.csv"
    config = cfg(affinity="abs_cosine")
    batch_score(wide_csv, out, config)
    meta = json.loads(sidecar_paths(out)["meta"].read_text())
    assert meta["config"]["run"] == config.to_dict()
    row = make_rows(1)[0]
    ref = score_responses(
        [row["question"], *row["perturbations"]],
        row["responses"],
        config.score,
    )
    assert records(out)[0]["inv_entropy"] == pytest.approx(ref.measures["inv_entropy"], abs=1e-6)
    with pytest.raises(BatchInputError, match=r"affinity: 'abs_cosine' → 'shifted_cosine'"):
        batch_score(wide_csv, out, cfg(affinity="shifted_cosine"))
    # generation settings do not matter for pre-generated responses
    again = batch_score(
        wide_csv, out, cfg(affinity="abs_cosine", n_perturbations=3, temperature=1.0)
    )
    assert again.n_resumed == 10 and again.n_scored == 0


# --------------------------------------------------------------------------
# Bad input: whole-file problems
# --------------------------------------------------------------------------


def test_missing_question_column_lists_columns(tmp_path):
    p = tmp_path / "q.csv"
    p.write_text("prompt_text,answer\nhello,world\n")
    with pytest.raises(
        BatchInputError, match=r"q\.csv, line 1: no question column; found 'prompt_text', 'answer'"
    ):
        batch_score(p, tmp_path / "o.csv")


@pytest.mark.parametrize("content", [b"", b"   \n\n", b"\xef\xbb\xbf"])
def test_empty_file(tmp_path, content):
    p = tmp_path / "e.csv"
    p.write_bytes(content)
    with pytest.raises(BatchInputError, match=r"e\.csv: the file is empty"):
        batch_score(p, tmp_path / "o.csv")


def test_header_only(minilm, tmp_path):
    p = tmp_path / "h.csv"
    p.write_text("id,question\n")
    with pytest.raises(BatchInputError, match=r"h\.csv: no data rows after the header"):
        batch_score(p, tmp_path / "o.csv")


def test_png_is_refused(tmp_path):
    p = tmp_path / "picture.csv"
    p.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    with pytest.raises(BatchInputError, match=r"picture\.csv: this is a PNG image, not a CSV"):
        batch_score(p, tmp_path / "o.csv")


def test_binary_with_nul(tmp_path):
    p = tmp_path / "blob.jsonl"
    p.write_bytes(b"question\n\x00\x01\x02\x03garbage")
    with pytest.raises(BatchInputError, match=r"blob\.jsonl, byte 9: looks like a binary file"):
        batch_score(p, tmp_path / "o.csv")


def test_latin1_names_byte_row_and_column(tmp_path):
    p = tmp_path / "latin.csv"
    p.write_bytes(
        "id,question,answer\na,What is 1+1?,two\nb,Who wrote Faust?,Goethe\nc,Où est Zürich?,Suisse\n".encode(
            "latin-1"
        )
    )
    bad = p.read_bytes().index(b"\xf9")
    with pytest.raises(
        BatchInputError,
        match=rf"latin\.csv, row 3 \(line 4\), byte {bad}, column 'question': not valid UTF-8 text \(bytes f9.*latin-1",
    ) as info:
        batch_score(p, tmp_path / "o.csv")
    assert (info.value.row, info.value.line, info.value.byte, info.value.column) == (
        3,
        4,
        bad,
        "question",
    )
    assert not (tmp_path / "o.csv").exists()  # refused before any work


def test_latin1_with_encoding_option(minilm, tmp_path):
    rows = make_rows(2)
    rows[1]["question"] = "Où est Zürich, the capital?"
    p = write_csv(tmp_path / "l1.csv", rows, encoding="latin-1")
    s = batch_score(p, tmp_path / "o.csv", config=cfg(B), encoding="latin-1")
    assert s.ok and records(tmp_path / "o.csv")[1]["question"] == "Où est Zürich, the capital?"


def test_utf16_with_bom_is_read_without_bom_refused(minilm, tmp_path):
    rows = make_rows(2)
    p = write_csv(tmp_path / "u16.csv", rows, encoding="utf-16")  # writes a BOM
    s = batch_score(p, tmp_path / "o.csv", config=cfg(B))
    assert s.ok and s.n_scored == 2
    q = tmp_path / "u16le.csv"
    q.write_bytes(p.read_bytes()[2:])  # drop the BOM
    with pytest.raises(
        BatchInputError,
        match=r"u16le\.csv, byte 1: looks like UTF-16 text without a byte-order mark",
    ):
        batch_score(q, tmp_path / "o2.csv")


def test_json_array_is_refused(tmp_path):
    p = tmp_path / "a.json"
    p.write_text('[{"question": "x"}]')
    with pytest.raises(BatchInputError, match=r"a\.json: a JSON array cannot be streamed"):
        batch_score(p, tmp_path / "o.csv")


def test_gigantic_cell_is_refused_with_its_row_before_any_row_is_scored(
    minilm, tmp_path, monkeypatch
):
    import invent_core.questions.schema as qs

    monkeypatch.setattr(qs, "FIELD_SIZE_LIMIT", 4000)
    rows = make_rows(40)
    rows[35]["question"] = "x" * 5000
    p = write_csv(tmp_path / "big.csv", rows)
    out = tmp_path / "o.csv"
    with pytest.raises(
        BatchInputError,
        match=r"big\.csv, row 36 \(line 37\): a cell is larger than 4,000 characters",
    ):
        batch_score(p, out, config=cfg(B))
    assert list(tmp_path.iterdir()) == [p]  # found by the pre-scan: no output, no sidecar


@pytest.mark.parametrize(
    "kind", ["folder", "under_a_file", "no_parent", "same_as_input", "bad_extension"]
)
def test_unwritable_output(wide_csv, tmp_path, kind):
    out = {
        "folder": tmp_path / "dir.csv",
        "under_a_file": wide_csv / "o.csv",
        "no_parent": tmp_path / "nope" / "o.csv",
        "same_as_input": wide_csv,
        "bad_extension": tmp_path / "o.xlsx",
    }[kind]
    msg = {
        "folder": "the output path is a folder",
        "under_a_file": "is not a folder",
        "no_parent": "folder .* does not exist",
        "same_as_input": "would overwrite the input",
        "bad_extension": "unsupported output extension '.xlsx'",
    }[kind]
    if kind == "folder":
        out.mkdir()
    with pytest.raises(BatchInputError, match=msg) as info:
        batch_score(wide_csv, out, config=cfg(B))
    assert info.value.file is not None


# --------------------------------------------------------------------------
# Bad input: per-row problems are recorded and the run goes on
# --------------------------------------------------------------------------


def test_per_row_problems_are_recorded(minilm, tmp_path):
    rows = make_rows(8)
    rows[1]["question"] = "   "  # blank
    rows[2]["id"] = "q0"  # duplicate id
    rows[3]["question"] = rows[4]["question"]  # same text, other id: allowed
    rows[5]["responses"] = rows[5]["responses"][:2]  # n+1 lists expected
    rows[6]["responses"][1] = rows[6]["responses"][1][:1]  # ragged replications
    rows[7]["question"] = "y" * 300
    p = write_csv(tmp_path / "rows.csv", rows)
    out = tmp_path / "o.csv"
    s = batch_score(p, out, config=cfg(B), max_question_chars=200)
    assert not s.ok and s.n_failed == 5 and s.n_scored == 3
    assert [r["id"] for r in records(out)] == ["q0", "q3", "q4"]
    errs = {e["row"]: e for e in errors_of(out)}
    assert set(errs) == {2, 3, 6, 7, 8}
    assert errs[2]["column"] == "question" and "blank question" in errs[2]["error"]
    assert errs[3]["column"] == "id" and "duplicate id 'q0' (first at row 1)" in errs[3]["error"]
    assert (
        errs[6]["column"] == "responses"
        and "2 lists for 2 perturbations; expected 3" in errs[6]["error"]
    )
    assert errs[7]["column"] == "responses" and "ragged replications" in errs[7]["error"]
    assert (
        errs[8]["column"] == "question" and "300 characters; the limit is 200" in errs[8]["error"]
    )
    assert all(e["file"].endswith("rows.csv") and e["line"] == e["row"] + 1 for e in errs.values())
    assert errs[2]["message"].startswith(f"{p}, row 2 (line 3), column 'question'")


def test_ragged_long_layout(minilm, tmp_path):
    rows = make_rows(3)
    p = write_long(tmp_path / "long.csv", rows)
    lines = p.read_text().splitlines()
    del lines[8]  # q1: perturbation 0, replication 1 → ragged
    p.write_text("\n".join(lines) + "\n")
    s = batch_score(p, tmp_path / "o.csv", config=cfg(B))
    assert (s.n_scored, s.n_failed) == (2, 1)
    (err,) = errors_of(tmp_path / "o.csv")
    assert err["id"] == "q1" and err["row"] == 2 and err["column"] == "replication_index"
    assert "ragged responses" in err["error"]


def test_bad_json_line_and_extra_cells(minilm, tmp_path):
    rows = make_rows(3)
    p = write_jsonl(tmp_path / "j.jsonl", rows)
    text = p.read_text().splitlines()
    text.insert(1, '{"id": "broken", "question": ')
    p.write_text("\n".join(text) + "\n")
    s = batch_score(p, tmp_path / "o.jsonl", config=cfg(B))
    assert (s.n_scored, s.n_failed) == (3, 1)
    (err,) = errors_of(tmp_path / "o.jsonl")
    assert err["line"] == 2 and "invalid JSON" in err["error"]

    # a row with more cells than the header (read without scoring: no responses, so no LLM here)
    from invent_core.batch import RowReader, inspect_input

    q = tmp_path / "x.csv"
    q.write_text('id,question\na,"What is 2+2?"\nb,What is 3,4?,extra\n')
    (bad,) = [r for r in RowReader(inspect_input(q)) if r.error]
    assert bad.index == 2 and "has 4 cells but the header has 2 columns" in str(bad.error)


def test_bad_responses_json(minilm, tmp_path):
    p = tmp_path / "b.csv"
    p.write_text(
        'id,question,perturbations,responses\na,Q?,"[""P?""]","[[""x""],[""y""]]"\nb,Q2?,"[""P?""]","[[x"\n'
    )
    s = batch_score(p, tmp_path / "o.csv", config=cfg(B))
    (err,) = errors_of(tmp_path / "o.csv")
    assert s.n_scored == 1 and err["column"] == "responses" and "not valid JSON" in err["error"]


# --------------------------------------------------------------------------
# Resume
# --------------------------------------------------------------------------


def test_resume_skips_done_rows_and_truncates_a_torn_row(minilm, tmp_path):
    rows = make_rows(12)
    full = tmp_path / "full.csv"
    batch_score(write_csv(tmp_path / "in.csv", rows), full, config=cfg(B))
    # a crashed run: the first 5 rows, then half of the 6th
    part = tmp_path / "part.csv"
    lines = full.read_text().splitlines(keepends=True)
    part.write_text("".join(lines[:6]) + lines[6][:25])
    sidecar_paths(part)["meta"].write_text(sidecar_paths(full)["meta"].read_text())
    s = batch_score(tmp_path / "in.csv", part, config=cfg(B))
    assert (s.n_resumed, s.n_scored) == (5, 7) and s.truncated_bytes == 25
    assert_same_scores(records(part), records(full))


def test_resume_torn_jsonl_inside_a_multiline_cell(minilm, tmp_path):
    rows = make_rows(4)
    rows[2]["responses"][0][0] = "line one\nline two"
    inp = write_csv(tmp_path / "in.csv", rows)
    full = tmp_path / "full.csv"
    batch_score(inp, full, config=cfg(B))
    data = full.read_bytes()
    cut = data.index(b"line one\n") + len(
        b"line one\n"
    )  # torn right after a newline inside a quoted cell
    part = tmp_path / "part.csv"
    part.write_bytes(data[:cut])
    sidecar_paths(part)["meta"].write_text(sidecar_paths(full)["meta"].read_text())
    s = batch_score(inp, part, config=cfg(B))
    assert (s.n_resumed, s.n_scored) == (2, 2)
    assert_same_scores(records(part), records(full))
    assert records(part)[2]["response"] == "line one\nline two"


def test_resume_refuses_another_configuration(minilm, wide_csv, tmp_path):
    out = tmp_path / "o.csv"
    batch_score(wide_csv, out, config=cfg(B))
    with pytest.raises(
        BatchInputError,
        match=r"o\.csv: the output was made with a different configuration \(--n-bootstrap: 8 → 9\)",
    ):
        batch_score(wide_csv, out, config=cfg(B + 1))
    s = batch_score(wide_csv, out, config=cfg(B + 1), resume=False)  # start over
    assert s.n_scored == 10 and len(records(out)) == 10
    sidecar_paths(out)["meta"].unlink()
    with pytest.raises(BatchInputError, match=r"sidecar o\.csv\.meta\.json is missing"):
        batch_score(wide_csv, out, config=cfg(B + 1))


def test_resume_refuses_another_input(minilm, tmp_path):
    out = tmp_path / "o.csv"
    rows = make_rows(3)
    batch_score(write_csv(tmp_path / "a.csv", rows), out, config=cfg(B))
    rows[1]["question"] = "Something else entirely?"
    with pytest.raises(
        BatchInputError,
        match=r"b\.csv, row 2 \(line 3\), column 'question': the output already holds id 'q1'",
    ):
        batch_score(write_csv(tmp_path / "b.csv", rows), out, config=cfg(B))


# --------------------------------------------------------------------------
# Shards, merge, exports
# --------------------------------------------------------------------------


def test_shards_merge_to_one_run(minilm, tmp_path):
    inp = write_csv(tmp_path / "in.csv", make_rows(20))
    one = tmp_path / "one.csv"
    batch_score(inp, one, config=cfg(B))
    parts = []
    for i in (1, 2, 3):
        part = tmp_path / f"part{i}.jsonl"
        s = batch_score(inp, part, config=cfg(B), shard=f"{i}/3")
        assert s.n_rows + s.n_other_shards == 20
        assert all(shard_of(r["id"], 3) == i for r in records(part))
        parts.append(part)
    assert sum(len(records(p)) for p in parts) == 20
    merged = tmp_path / "merged.csv"
    m = merge_outputs(
        [parts[2], parts[0], parts[1], parts[0]], merged
    )  # order and a repeated part do not matter
    assert m.n_rows == 20 and m.n_duplicates == len(records(parts[0]))
    assert_same_scores(records(merged), records(one))
    assert m.evaluation["n_judged"] == 20
    from invent_core.provenance import provenance

    sidecar = merged.with_name(merged.name + ".meta.json")
    assert json.loads(sidecar.read_text())["provenance"] == provenance()
    with pytest.raises(BatchInputError, match=r"shard\(s\) 2/3 missing"):
        merge_outputs([parts[0], parts[2]], tmp_path / "m2.csv")
    assert merge_outputs([parts[0], parts[2]], tmp_path / "m2.csv", allow_partial=True).n_rows < 20


def test_merge_refuses_different_configurations(minilm, wide_csv, tmp_path):
    batch_score(wide_csv, tmp_path / "a.csv", config=cfg(B), shard="1/2")
    batch_score(wide_csv, tmp_path / "b.csv", config=cfg(B + 1), shard="2/2")
    with pytest.raises(
        BatchInputError, match=r"b\.csv: configuration differs from a\.csv: --n-bootstrap: 8 → 9"
    ):
        merge_outputs([tmp_path / "a.csv", tmp_path / "b.csv"], tmp_path / "m.csv")


@pytest.mark.parametrize("ext", ["json", "parquet"])
def test_json_and_parquet_outputs(minilm, wide_csv, tmp_path, ext):
    ref = tmp_path / "ref.csv"
    batch_score(wide_csv, ref, config=cfg(B))
    out = tmp_path / f"o.{ext}"
    s = batch_score(wide_csv, out, config=cfg(B))
    assert s.ok and Path(s.checkpoint).name == f"o.{ext}.checkpoint.jsonl"
    got = records(out)
    assert_same_scores(got, records(ref))
    assert got[0]["correct"] in (0, 1) and isinstance(got[0]["inv_entropy"], float)
    if ext == "parquet":
        import pyarrow.parquet as pq

        assert pq.read_table(out).num_rows == 10


def test_parse_shard():
    assert parse_shard("2/4") == (2, 4) and parse_shard(None) is None
    for bad, msg in [
        ("0/4", "need 1 <= i <= N"),
        ("5/4", "need 1 <= i <= N"),
        ("a/b", "look like 'i/N'"),
        ("3", "look like"),
    ]:
        with pytest.raises(ValueError, match=msg):
            parse_shard(bad)


# --------------------------------------------------------------------------
# Formula injection
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ("=1+1", "'=1+1"),
        ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1:A2)", "'@SUM(A1:A2)"),
        ("\t=x", "'\t=x"),
        ("\r=x", "'\r=x"),
        ("'quoted", "''quoted"),
        ("-0.5", "-0.5"),
        ("+3", "+3"),
        ("-1e-9", "-1e-9"),
        ("-inf", "'-inf"),
        ("Paris", "Paris"),
        (-0.5, "-0.5"),
        (float("nan"), ""),
        (None, ""),
    ],
)
def test_neutralize_cell(value, cell):
    assert neutralize_cell(value) == cell
    if isinstance(value, str):
        assert restore_cell(cell) == value


def test_formula_cells_in_output(minilm, tmp_path):
    rows = make_rows(3)
    rows[0]["question"] = '=HYPERLINK("http://x","click")'
    rows[0]["responses"][0][0] = "@SUM(1,2)"
    rows[1]["responses"][0][0] = "-0.5"
    rows[2]["id"] = "+id"
    inp = write_csv(tmp_path / "in.csv", rows)
    out = tmp_path / "o.csv"
    batch_score(inp, out, config=cfg(B))
    raw = list(csv.reader(out.open(newline="")))
    head = raw[0]
    cells = [dict(zip(head, r, strict=True)) for r in raw[1:]]
    assert cells[0]["question"] == '\'=HYPERLINK("http://x","click")'
    assert cells[0]["response"] == "'@SUM(1,2)"
    assert cells[1]["response"] == "-0.5"  # a whole number stays numeric
    assert cells[2]["id"] == "'+id"
    assert not any(c[:1] in ("=", "+", "@", "\t", "\r") for r in raw for c in r)
    recs = records(out)  # reading back restores the text
    assert recs[0]["question"] == rows[0]["question"] and recs[0]["response"] == "@SUM(1,2)"
    assert recs[2]["id"] == "+id"
    # resuming reads the escaped ids back correctly
    s = batch_score(inp, out, config=cfg(B))
    assert (s.n_resumed, s.n_scored) == (3, 0)
    jl = tmp_path / "o.jsonl"  # JSON Lines keeps the text as it is
    batch_score(inp, jl, config=cfg(B))
    assert records(jl)[0]["question"] == rows[0]["question"]


@pytest.mark.slow
def test_generation_mode_with_the_real_local_llm(tmp_path, local_llm, minilm):
    """Rows without responses are generated by the packaged model, then scored and judged."""
    import csv as _csv

    from invent_core.batch import batch_score

    src = tmp_path / "qs.csv"
    src.write_text(
        "id,question,answer\na,What is the capital of France?,Paris\nb,What is the capital of Japan?,Tokyo\n"
    )
    out = tmp_path / "out.csv"
    summary = batch_score(
        src,
        out,
        llm=local_llm,
        config=RunConfig(n_perturbations=2, n_replications=2).replace(n_bootstrap=5),
        embedder=minilm,
        methods=["lexsim"],
    )
    assert summary.n_scored == 2 and summary.n_failed == 0
    rows = list(_csv.DictReader(open(out, newline="")))
    assert [r["id"] for r in rows] == ["a", "b"]
    for r in rows:
        assert float(r["inv_entropy"]) > 0 and r["lexsim"] != ""
        assert r["correct"] in ("0", "1", "True", "False")
    assert any(r["correct"] in ("1", "True") for r in rows)  # the packaged model knows Paris
    # the same command again resumes: nothing left to score, no LLM call needed
    again = batch_score(
        src,
        out,
        llm=local_llm,
        config=RunConfig(n_perturbations=2, n_replications=2).replace(n_bootstrap=5),
        embedder=minilm,
        methods=["lexsim"],
    )
    assert again.n_scored == 0 and again.n_resumed == 2


def test_read_errors_gives_the_last_word_per_row(tmp_path):
    """The core's reader of the errors sidecar (the Batch page's Failed rows read it)."""
    import json

    from invent_core.batch import read_errors, sidecar_paths

    out = tmp_path / "scores.csv"
    assert read_errors(out) == []
    lines = [
        json.dumps({"id": "7", "row": 7, "kind": "scoring", "message": "first"}),
        json.dumps({"id": "7", "row": 7, "kind": "scoring", "message": "again"}),
        json.dumps({"id": None, "row": 9, "kind": "input", "message": "bad row"}),
        '{"id": "8", "cut',
    ]
    sidecar_paths(out)["errors"].write_text("\n".join(lines), encoding="utf-8")
    assert [(e["row"], e["message"]) for e in read_errors(out)] == [(7, "again"), (9, "bad row")]


def test_each_judged_row_says_why_and_the_judge_is_checked_first(minilm, wide_csv, tmp_path):
    out = tmp_path / "out.csv"
    with pytest.raises(ValueError, match="judge must be one of paraphrase, match, got 'llm'"):
        batch_score(wide_csv, out, config=cfg(B), llm=FailingLLM(), judge="llm")
    assert not out.exists()  # refused before any file is touched
    s = batch_score(wide_csv, out, config=cfg(B), llm=FailingLLM(), judge="match")
    assert s.ok and s.config["judge"] == "match"
    for rec in records(out):
        assert rec["judge_reason"].startswith("matches the reference" if rec["correct"] else "no ")
