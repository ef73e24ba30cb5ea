"""Untrusted text reaches Streamlit's Markdown only through ``invent_ui.text.untrusted``.

Three layers: the helper on hostile strings, read back by a real CommonMark
parser (markdown-it-py) the way Streamlit's renderer reads them; the builders
of Markdown lines that take data (run captions, history labels); and a source
guard over every Streamlit call that renders Markdown in the dashboard.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from markdown_it import MarkdownIt

sys.path.insert(0, str(Path(__file__).parent))
from markdown_sites import ROOT, SOURCES, markdown_sites  # noqa: E402

from invent_ui.text import made_with_line, untrusted  # noqa: E402

#: One host for every hostile link: a leak is any rendered link or picture naming it.
HOST = "attacker.invalid"

HOSTILE = [
    f"![x](http://{HOST}/p.png)",
    f'What is 2+2? ![pixel](https://{HOST}/t.gif?q=1 "t")',
    f"[click](http://{HOST}/)",
    f"<http://{HOST}/auto>",
    f"<img src=http://{HOST}/i.png onerror=alert(1)>",
    f"<a href='http://{HOST}'>x</a>",
    f"<script>fetch('http://{HOST}')</script>",
    f"[a][1]\n\n[1]: http://{HOST}/ref",
    f"![a][img]\n[img]: http://{HOST}/ref.png",
    f"www.{HOST}/bare",
    f"http://{HOST}/bare-url",
    f"mail me: someone@{HOST}",
    ":skull_and_crossbones: :red[alarm] :material/warning: :+1:",
    "$\\frac{1}{0}$ and $$x$$",
    "# Heading\n## second",
    "- item\n* item\n1. first",
    "| a | b |\n|---|---|\n| 1 | 2 |",
    "**bold** _it_ ~~gone~~ `code`",
    "> quoted\n\n```\nfence\n```",
    "&lt;img src=x&gt; <b>bold</b>",
    "line one\n# line two\r\n- line three",
    "=== \n---",
    "\\![x](http://attacker.invalid/escaped-bang.png)",
]

PARSER = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def token_stream(tokens):
    for tok in tokens:
        yield tok
        yield from token_stream(tok.children or [])


def leaks(markdown: str) -> list[str]:
    """What in ``markdown`` a Markdown renderer would turn into more than literal text.

    Links, images, autolinks and raw HTML (CommonMark, as parsed by markdown-it);
    GFM's bare ``www.`` and ``http://`` links, e-mail links, Streamlit's
    ``:shortcode:`` / ``:directive[`` / ``:material/…:`` and ``$`` maths, which
    markdown-it does not know, are looked for in the text the parser leaves.
    """
    found = []
    for tok in token_stream(PARSER.parse(markdown)):
        if tok.type in ("link_open", "image", "html_inline", "html_block"):
            found.append(f"{tok.type}: {tok.attrs or tok.content}")
        if tok.type in ("heading_open", "bullet_list_open", "ordered_list_open", "table_open",
                        "blockquote_open", "fence", "code_block", "hr", "em_open",
                        "strong_open", "s_open", "code_inline"):  # fmt: skip
            found.append(tok.type)
        if tok.type == "text":
            text = tok.content
            if re.search(r"(?i)\bwww\.\w|\bhttps?://|\w@\w+\.\w", text):
                found.append(f"autolink: {text}")
            if re.search(r":[\w+-]+:|:\w+(-\w+)?\[|:material/", text):
                found.append(f"directive: {text}")
    # remark-math reads ``$`` while tokenising, where ``\$`` is an escape: look at the source
    if re.search(r"(?<!\\)\$", markdown):
        found.append("maths")
    return found


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_text_renders_as_literal_text(hostile):
    assert leaks(hostile), f"the checker misses the hostile string {hostile!r}"
    safe = untrusted(hostile)
    assert not leaks(safe), (hostile, safe)
    assert "\n" not in safe and "\r" not in safe  # a label is one line


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_text_stays_literal_inside_bold_and_after_other_text(hostile):
    for line in (f"**{untrusted(hostile)}**", f"Question: {untrusted(hostile)} · n = 3"):
        found = [f for f in leaks(line) if f != "strong_open"]
        assert not found, (line, found)


@pytest.mark.parametrize("hostile", HOSTILE)
def test_what_shows_is_the_text_itself(hostile):
    """Rendered back to plain text, the escaped string reads as the original (line breaks flat)."""
    shown = "".join(
        t.content for t in token_stream(PARSER.parse(untrusted(hostile))) if t.type == "text"
    ).replace("\u200b", "")
    flat = re.sub(r"[\r\n]+", " ", hostile)
    # CommonMark drops a backslash before punctuation that was already escaped in the input
    assert shown.replace("\\", "") == flat.replace("\\", "")


def test_ordinary_text_is_left_alone():
    for text in ("What is the capital of France?", "GPT-4 (ours), 3.5 and 4.", "demo_tsu.json"):
        assert untrusted(text) == text
    assert untrusted(None) == ""
    assert untrusted(42) == "42"
    assert untrusted(0.25) == "0.25"


def test_a_run_caption_shows_settings_from_the_file_literally():
    """A run file's settings (perturber, embedder, model) are data too."""
    from invent_core.engine.artifact import RunArtifact
    from invent_ui import assets
    from invent_ui.render.views import run_caption

    data = json.loads(assets.DEMO_RUN.read_text(encoding="utf-8"))
    hostile = f"![x](http://{HOST}/p.png) :skull:"
    data["config"]["perturber"] = data["config"]["score"]["embedder"] = hostile
    data["identities"]["llm"] = hostile
    caption = run_caption(RunArtifact.from_dict(data))
    assert caption.count(HOST) == 3
    assert not [f for f in leaks(caption) if f != "strong_open"], caption


def test_a_history_label_shows_its_title_literally():
    from invent_ui.session.history_view import entry_label

    entry = SimpleNamespace(title=f"![x](http://{HOST}/p.png) :skull:", kind="run")
    label = entry_label(entry, width=200)
    assert not leaks(label), label
    assert label.startswith("run · ")


# --- the source guard ------------------------------------------------------------------------

#: Pieces that may reach Markdown unwrapped, each with why it only carries the program's words.
#: A new entry needs the same: a reason that holds for every value it can take.
TRUSTED: dict[str, str] = {
    "page.path": "navigation.PAGES: the page list, constants",
    "page.label": "navigation.PAGES: the page list, constants",
    "page.text": "navigation.PAGES: the page list, constants",
    "mark": "one of two literal colour directives (app.py)",
    "cancelling": "a literal sentence or empty (feedback)",
    "kept_in": "a literal sentence or empty (feedback)",
    "cancelled_text(job, kept, names)": "escapes the job's label and error itself (tested)",
    "views.run_caption(run)": "escapes every setting it shows (tested above)",
    "views.run_caption(runs[0])": "escapes every setting it shows (tested above)",
    "entry_label(entry)": "escapes the title (tested above)",
    "entry_label(e, 90)": "escapes the title (tested above)",
    "n_judged": "int(...) of a count",
    "hand": "untrusted(...) of the relabel reason, or empty",
    "EXPLORE": "a page path constant",
    "label": "a format's label (downloads.FORMATS), an option's name (config), a page name",
    "tip": "built from untrusted(name) and constants (downloads)",
    "PNG_MISSING": "a constant sentence",
    "JUDGE_NOTES.get(cfg.judge, '')": "a constant per judge; unknown judges give ''",
    "boot": "a sentence of constants and formatted numbers (evaluation_view)",
    "views.SIGN_NOTES": "a constant paragraph",
    "views.registered_method_labels().get(n, n)": "the names of registered methods with needs_llm",
    "what": "a word the calling code passes (run, evaluation, TSU sweep, embedder …)",
    "hint": "a sentence the calling page passes",
    "help_text": "formatted numbers (views.measure_metrics)",
    "groups": "joined from untrusted(...) labels",
    "opt.label": "an option's widget label (config field metadata: LLMChoice's, constants)",
    "_OWN_HELP": "a constant sentence (the sidebar's 'your model')",
    "path": "a page path constant (quiet_page_link)",
    "p.name": "a profile's name (config.PROFILES)",
    "p.help": "a profile's help (config.PROFILES)",
    "made_with_line(made)": "escapes every name and value (text.made_with_line, tested)",
    "made_with_line(made[0])": "escapes every name and value (text.made_with_line, tested)",
    "made_with_line(made[1])": "escapes every name and value (text.made_with_line, tested)",
    'helps["embedder"]': "an option's help (config)",
    'helps["temperature"]': "an option's help (config)",
    "opt.help": "an option's help (config)",
    "_SECTIONS.get(owner, owner)": "a config section name",
    "source": "one of two literal phrases (Compare embedders)",
    "paper": "the paper's temperatures, formatted numbers",
    "shares": "a constant sentence (TSU)",
    "layout_text": "one of four constant sentences (Batch)",
    "CAPTION": "a constant paragraph (Evaluation)",
    "MIN_QUESTIONS": "an int constant",
    "MIN_PER_CLASS": "an int constant",
    "MAX_ENTRIES": "an int constant",
    "MAX_BYTES // 2**20": "an int constant",
    "side.title()": "'Left' or 'Right'",
    "judged.reason": "sample_size.judgeable's sentence: counts and constants only",
    "map(untrusted, choices)": "each one wrapped",
    "map(untrusted, info.columns)": "each one wrapped",
    "gaap_flag_text(len(flagged), len(run.perturbations))": "two counts and a constant",
    "views.gaap_flag_text(n_flagged, len(per_rows))": "two counts and a constant",
}


def _unguarded() -> list[str]:
    return [
        f"{path.relative_to(ROOT)}:{line}: {piece}"
        for path in SOURCES
        for line, piece in markdown_sites(path)
        if piece not in TRUSTED
    ]


def test_every_piece_of_markdown_is_literal_wrapped_or_trusted_with_a_reason():
    bad = _unguarded()
    assert not bad, (
        "text reaches Streamlit's Markdown unescaped; wrap it in invent_ui.text.untrusted(...) "
        "or, if it can only hold the program's own words, add it to TRUSTED with why:\n"
        + "\n".join(bad)
    )


def test_the_guard_sees_an_unwrapped_question(tmp_path):
    page = tmp_path / "page.py"
    page.write_text(
        "import streamlit as st\n"
        "st.subheader(run.question)\n"
        "st.caption(f'Q: {run.question}')\n"
        "col.markdown('**' + row['answer'] + '**')\n"
        "st.button(label=title)\n"
        "st.expander(f'{d.gap:.2f} · {d.question}')\n"
        "st.metric('x', value, delta)\n"
        "st.tabs([name, 'b'])\n"
        "st.caption(f'ok {untrusted(run.question)} {n:.3f} {len(rows)}')\n"
        "f.write(data)\n"
    )
    pieces = [piece for _, piece in markdown_sites(page)]
    assert pieces == [
        "run.question", "run.question", "row['answer']", "title", "d.question", "value",
        "delta", "name",
    ]  # fmt: skip


def test_made_with_line_escapes_every_name_and_value():
    words = {"ψ_y": "**rules**", "gate": "[off](http://example.com)", "padding": "distinct"}
    line = made_with_line(words)
    assert line == "; ".join(f"{untrusted(k)} {untrusted(v)}" for k, v in words.items())
    assert "**rules**" not in line and "[off](" not in line
    assert line.endswith("padding distinct")
