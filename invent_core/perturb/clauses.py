"""Two clause rules: a second question put before the question's own, a comparison on one side.

Both read words only (no WordNet): :func:`second_question` finds the
question's wh-phrase kept inside the sentence with another wh-word fronted
("… in which cavity?" → "How do … in which cavity?"); :func:`comparison_changed`
a "than" on one side only.
"""

from __future__ import annotations

from ..text.tokens import words_or_numbers as _words
from .frames import WH_WORDS, final_sentence

__all__ = ["comparison_changed", "second_question"]


def second_question(candidate: str, original: str) -> str | None:
    """The question's wh-phrase kept where it stood, another wh-word put before it: two questions.

    "Collateral ganglia controls organs in which cavity?" → "*How* do
    collateral ganglia control organs in which cavity?"; "… possess what from
    a different species?" → "Do you know *how* often … possess what from …".
    Only for a question whose wh-word stands inside it (not first), and only
    a wh-word the question does not have at all; a "what" put before it is
    read as filler, as the labelled draws read it.
    """
    o, c = _words(final_sentence(original)), _words(final_sentence(candidate))
    if not o or o[0] in WH_WORDS:
        return None
    for i, w in enumerate(o[1:], start=1):
        if w not in ("what", "which", "whom"):
            continue
        nxt = o[i + 1 : i + 2]
        for j, x in enumerate(c):
            if x == w and c[j + 1 : j + 2] == nxt:
                # a "what" after a frame is filler ("Can you tell me what … in which cavity")
                fronted = [v for v in c[:j] if v in WH_WORDS - {"what"} and v not in o]
                if fronted:
                    return f"asks {fronted[0]!r} besides the question's {w!r}: two questions"
    return None


def comparison_changed(candidate: str, original: str) -> str | None:
    """A comparison ("thicker than the muscular layer") on one side only.

    "The muscular layer is much thicker in which ventricle?" compares the
    ventricles; "Which ventricle is thicker than the muscular layer?" compares
    a ventricle with the layer.
    """
    n_o, n_c = _words(original).count("than"), _words(candidate).count("than")
    if (n_o == 0) == (n_c == 0):
        return None
    return "a comparison added ('than')" if n_c else "the comparison dropped ('than')"
