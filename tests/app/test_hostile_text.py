"""Every page, with hostile text in every field, renders none of it as a link, picture or HTML.

A question, its rewordings, the LLM's answers, a relabel reason, a history
title, an uploaded file's name and cells, an evaluation folder's questions: each
carries Markdown and HTML that would make the browser fetch from another host
(``![x](http://attacker.invalid/p.png)``), a link, an emoji shortcode and LaTeX.
Each page is opened under AppTest on real artefacts (the shipped demos and
saved evaluation, rewritten) and every string Streamlit would render as
Markdown — bodies, labels, tooltips, metric values, tab and expander names,
radio options — is read back with a CommonMark parser.
"""

from __future__ import annotations

import csv
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from test_app_pages import ROOT, TIMEOUT, own_history  # noqa: F401 - the fixture

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

sys.path.insert(0, str(ROOT / "tests" / "invent_ui"))
from test_text import PARSER, token_stream  # noqa: E402

from invent_core.engine.artifact import RunArtifact  # noqa: E402
from invent_core.experiments.relabel import Relabel, append_relabel  # noqa: E402
from invent_core.perturb.gaap import GaapResult  # noqa: E402
from invent_ui import assets  # noqa: E402
from invent_ui.session import archive, places, resources, state  # noqa: E402

pytestmark = pytest.mark.slow  # the pages load the packaged embedder to place a run

HOST = "attacker.invalid"
EVIL = (
    f"![x](http://{HOST}/p.png) <img src=http://{HOST}/i.png> [l](http://{HOST}/l) "
    f"<http://{HOST}/a> www.{HOST} :skull: $EVILMATH$"
)
#: Keys whose strings are text from a question, an answer, a file or a person.
TEXT_KEYS = frozenset(
    {"question", "questions", "prompts", "perturbations", "raw_responses", "responses",
     "cleaned_responses", "response", "canonical", "reference", "answers", "judge_reason",
     "reason", "text", "relabel_reason", "title"}
)  # fmt: skip
#: Elements whose text Streamlit shows literally (or as data), not as Markdown.
LITERAL_ELEMENTS = frozenset(
    {"Code", "Text", "Json", "Html", "PlotlyChart", "ArrowNamedDataFrame", "Arrow", "DataFrame",
     "ArrowTable", "Exception", "TextInput", "TextArea", "Selectbox", "MultiSelect",
     "DownloadButton", "FileUploader", "NumberInput", "Slider", "ArrowVegaLiteChart", "Progress"}
)  # fmt: skip
NOT_TEXT = frozenset({"id", "form_id", "type", "icon", "key", "url", "page", "spec", "theme"})


def hostile(value: Any, key: str | None = None) -> Any:
    """``value`` with ``EVIL`` appended to every string under a text key."""
    if isinstance(value, dict):
        return {k: hostile(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [hostile(v, key) for v in value]
    if isinstance(value, str) and key in TEXT_KEYS:
        return f"{value} {EVIL}"
    return value


def _strings(message: Any, where: str) -> list[tuple[str, str]]:
    out = []
    for field, value in message.ListFields():
        if field.name in NOT_TEXT:
            continue
        path = f"{where}.{field.name}"
        if isinstance(value, str):
            out.append((path, value))
        elif hasattr(value, "ListFields"):
            out.extend(_strings(value, path))
        elif hasattr(value, "__iter__") and not isinstance(value, bytes):
            out.extend((path, v) for v in value if isinstance(v, str))
    return out


def rendered_markdown(at: AppTest) -> list[tuple[str, str]]:
    """(where, text) of every string on the page that Streamlit renders as Markdown."""
    found = []

    def walk(node: Any) -> None:
        name = type(node).__name__
        proto = getattr(node, "proto", None)
        if proto is not None and name not in LITERAL_ELEMENTS:
            found.extend(_strings(proto, name))
            options = getattr(node, "options", None) if name == "Radio" else None
            found.extend((f"{name}.options", o) for o in options or [])
        children = getattr(node, "children", None)
        for child in (children.values() if isinstance(children, dict) else children) or []:
            walk(child)

    walk(at._tree)
    return found


def hostile_leaks(text: str) -> list[str]:
    """What of ``EVIL`` in ``text`` a Markdown renderer would not show literally."""
    found = []
    for tok in token_stream(PARSER.parse(text)):
        if tok.type in ("link_open", "image") and HOST in json.dumps(tok.attrs):
            found.append(f"{tok.type} {tok.attrs}")
        if tok.type in ("html_inline", "html_block") and HOST in tok.content:
            found.append(f"html {tok.content}")
        if tok.type == "text" and (f"www.{HOST}" in tok.content or f"http://{HOST}" in tok.content):
            found.append(f"bare link in {tok.content!r}")
        if tok.type == "text" and ":skull:" in tok.content:
            found.append("emoji shortcode")
    if "$EVILMATH$" in text.replace("\\$", ""):
        found.append("LaTeX")
    return found


def assert_literal(at: AppTest) -> int:
    """No Markdown string on the page renders EVIL as more than text; the count seen."""
    assert not at.exception, [e.value for e in at.exception]
    seen = rendered_markdown(at)
    bad = [(where, text, got) for where, text in seen if (got := hostile_leaks(text))]
    assert not bad, "\n".join(f"{w}: {got}\n    {t[:300]!r}" for w, t, got in bad)
    return sum(HOST in t for _, t in seen)


# --- the hostile world --------------------------------------------------------------------------


@pytest.fixture
def world(monkeypatch, tmp_path, own_history):  # noqa: F811 - the fixture, used by name
    """The dashboard's folders in tmp_path; a hostile run, trace, evaluation and sweep kept."""
    dashboard = tmp_path / "dashboard"
    real = places.roots()
    monkeypatch.setattr(places, "roots", lambda: {**real, "dashboard": dashboard})

    def work_dir(*parts: str) -> Path:
        path = dashboard.joinpath(*parts)
        path.mkdir(parents=True, exist_ok=True)
        return path

    monkeypatch.setattr(resources, "work_dir", work_dir)
    run_data = hostile(json.loads(assets.DEMO_RUN.read_text(encoding="utf-8")))
    run_data["identities"]["llm"] = EVIL  # a server's model name is text from outside too
    run = RunArtifact.from_dict(run_data)
    store = archive.store()
    run_id = archive.keep_run(store, run)
    store.rename(run_id, EVIL)
    evaluation = hostile(resources.demo_json(assets.DEMO_EVAL))
    sweep = hostile(resources.demo_json(assets.DEMO_TSU))
    store.rename(archive.keep_payload(store, "evaluation", evaluation, EVIL), EVIL)
    store.rename(archive.keep_payload(store, "tsu", sweep, EVIL), EVIL)
    pair = hostile(json.loads(assets.DEMO_PAIR.read_text(encoding="utf-8")))
    monkeypatch.setattr(
        resources,
        "demo_pair",
        lambda: [
            {**item, "run": RunArtifact.from_dict(item["run"]), "rule": EVIL, "source": EVIL}
            for item in pair["pair"]
        ],
    )
    return {
        "dashboard": dashboard,
        "run": run,
        "run_data": run_data,
        "gaap": GaapResult.from_dict(hostile(resources.demo_json(assets.DEMO_GAAP))),
        "evaluation": evaluation,
        "sweep": sweep,
    }


def _open(page: str, **session: Any) -> AppTest:
    path = ROOT / ("app.py" if page == "app.py" else f"pages/{page}")
    at = AppTest.from_file(str(path), default_timeout=TIMEOUT)
    for k, v in session.items():
        at.session_state[k] = v
    return at.run()


def _hostile_evaluation_folder(dashboard: Path, name: str) -> Path:
    """A copy of a saved evaluation whose questions, answers, rewordings and reasons are EVIL."""
    src = ROOT / "docs" / "results" / "evaluate-arithmetic-100-gaap"
    dst = dashboard / "eval" / name
    shutil.copytree(src, dst)
    with (src / "scores.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    with (dst / "scores.csv").open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(
            {k: f"{v} {EVIL}" if k in TEXT_KEYS and v else v for k, v in row.items()}
            for row in rows
        )
    for run_file in (dst / "runs").glob("*.json"):
        data = json.loads(run_file.read_text(encoding="utf-8"))
        run_file.write_text(json.dumps(hostile(data)), encoding="utf-8")
    append_relabel(dst, Relabel.now(rows[0]["id"], False, answer=EVIL, reason=EVIL, who=EVIL))
    return dst


# --- the pages ----------------------------------------------------------------------------------


def test_home_and_explore_show_a_hostile_run_literally(world):
    assert assert_literal(_open("app.py")) > 0
    at = _open("1_Explore_a_question.py", **{state.EXPLORE_RUN: world["run"]})
    assert assert_literal(at) >= 3  # the heading, x0, the caption's model, the sidebar's Recent
    assert any(HOST in s.value for s in at.subheader)  # shown, not dropped


def test_compare_embedders_and_side_by_side(world):
    assert_literal(_open("2_Compare_embedders.py", **{state.EXPLORE_RUN: world["run"]}))
    pair = {"left": world["run_data"], "right": world["run_data"]}
    assert assert_literal(_open("8_Side_by_side.py", **{state.SIDE_BY_SIDE: pair})) >= 2


def test_gaap_evaluation_and_tsu_pages(world):
    assert_literal(_open("3_GAAP_evolution.py", **{state.GAAP_RESULT: world["gaap"]}))
    payload = world["evaluation"]
    at = _open("6_Evaluation.py", **{state.EVAL_PAYLOAD: payload})
    assert_literal(at)
    # the reviewer's reason: kept for this evaluation, shown in the relabel form and note
    from invent_ui.render.relabel_view import layer_folder

    row = payload["rows"][0]
    append_relabel(
        layer_folder(payload),
        Relabel.now(row["id"], not int(row["correct"]), answer=EVIL, reason=EVIL, who=EVIL),
    )
    assert_literal(_open("6_Evaluation.py", **{state.EVAL_PAYLOAD: payload}))
    assert_literal(_open("4_TSU.py", **{state.TSU_PAYLOAD: world["sweep"]}))


def test_history_page_lists_hostile_titles_literally(world):
    at = _open("7_History.py")
    assert assert_literal(at) >= 4  # the entries' titles and the sidebar's Recent list


def test_batch_page_shows_a_hostile_upload_literally(world):
    from invent_ui.data.uploads import store_upload

    rows = [{"question": f"What is 2+2? {EVIL}", "answer": f"4 {EVIL}"}] * 3
    text = "question,answer\n" + "".join(f'"{r["question"]}","{r["answer"]}"\n' for r in rows)
    store_upload(world["dashboard"] / "batch", f"{EVIL}.csv", text.encode())
    at = _open("5_Batch_scoring.py")
    at.selectbox(key="batch_reopen").select_index(1).run()
    assert assert_literal(at) >= 1  # the file's name


def test_compare_evaluations_with_hostile_folders(world):
    _hostile_evaluation_folder(world["dashboard"], "a")
    _hostile_evaluation_folder(world["dashboard"], "b")
    at = _open("9_Compare_evaluations.py", cmp_a="made here/a", cmp_b="made here/b")
    assert assert_literal(at) >= 1  # the questions where A and B disagree most
