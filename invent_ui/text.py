"""Text that did not come from this program, made safe for Streamlit's Markdown. Pure: no Streamlit.

Questions, rewordings, the LLM's answers, relabel reasons, history titles, file
cells and server messages are shown on pages whose text Streamlit renders as
Markdown: bodies (``st.markdown``, captions, alerts) and labels (buttons,
expanders, metrics, tabs, radio options, tooltips). There a question carrying
``![x](http://host/p.png)`` would make the browser fetch the picture, ``[a](…)``
would be a link, ``:skull:`` an emoji, ``$x$`` LaTeX. :func:`untrusted` is the one
door such text goes through: it comes out showing literally, on one line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["untrusted"]

#: CommonMark lets a backslash escape any ASCII punctuation character, and the
#: escape shows the character itself. These start a Markdown construct wherever
#: they stand: emphasis, code, links and images (``[``), raw HTML and autolinks
#: (``<``), tables, strikethrough, entities and maths (``$``). An underscore
#: between two letters or digits (``demo_tsu``) can neither open nor close
#: emphasis, so only the others are escaped.
_SPECIAL = re.compile(r"[\\`*\[\]<>|~$&]|(?<![^\W_])_|_(?![^\W_])")
#: These start a block (heading, list, rule, quote) only at the start of a line; a
#: piece of untrusted text may be the start of a line, so there they are escaped.
_AT_START = re.compile(r"^(\s*)([#+=-]|\d{1,9}(?=[.)](?:\s|$)))")
#: GFM links ``www.host``, ``http://host`` and ``name@host.org`` by themselves, and
#: Streamlit recognises ``:smile:``, ``:red[…]`` and ``:material/icon:``. Both
#: are found in the text *after* escapes are resolved, so an escape would not stop
#: them: a zero-width space (invisible on the page) breaks each, placed after
#: ``www`` and ``@``, and after a colon that a letter, ``_``, ``+``, ``-`` or
#: ``//`` follows (where a shortcode, a directive or a URL would start). Other
#: colons ("Answer: 4", "127.0.0.1:9", "12:30") are left as they are.
_BREAK_AFTER = re.compile(r"(?i)(?<=www)(?=\.)|(?<=@)|:(?=//|[a-z_+-])")

_ZERO_WIDTH_SPACE = "\u200b"

#: A label is one line, and in a body a line break would let the next line start
#: a block of its own.
_LINE_BREAKS = re.compile(r"[\r\n\u2028\u2029\x0b\x0c]+")


def untrusted(text: object) -> str:
    r"""``text`` (any object; ``None`` → ``""``) as Markdown that shows it literally, on one line.

    Safe in every place Streamlit renders Markdown — a body or a label — but
    not inside a backtick code span (there escapes show as backslashes): put it
    where plain or bold text goes.

    >>> print(untrusted("![x](p.png) <b>hi</b>"))
    !\[x\](p.png) \<b\>hi\</b\>
    >>> untrusted(None)
    ''
    """
    if text is None:
        return ""
    flat = _LINE_BREAKS.sub(" ", str(text))
    escaped = _SPECIAL.sub(lambda m: "\\" + m.group(0), flat)
    escaped = _AT_START.sub(_escape_start, escaped, count=1)
    return _BREAK_AFTER.sub(lambda m: m.group(0) + _ZERO_WIDTH_SPACE, escaped)


def _escape_start(match: re.Match) -> str:
    r"""``# h`` → ``\# h``; ``1. x`` → ``1\. x`` (the mark after the digits is escaped)."""
    lead, mark = match.group(1), match.group(2)
    if mark.isdigit():
        return lead + mark + "\\"  # the "." or ")" that follows stays, escaped
    return lead + "\\" + mark


def made_with_line(words: Mapping[str, object]) -> str:
    """``"gate δ 0.845, …; ψ_y rules; padding distinct"``: each setting's name and value escaped.

    For :func:`invent_core.experiments.made_with.made_with`'s words, which a shared link or
    an uploaded payload may carry: nothing of them is read as Markdown.
    """
    return "; ".join(f"{untrusted(k)} {untrusted(v)}" for k, v in words.items())
