"""The premises of a word problem: the sentences before the question that is asked.

:func:`split_premises` cuts a multi-sentence question into ``(premises, ask)``
so the single-style paraphraser rewords only the last sentence and keeps the
data before it word for word; :func:`join_premises` puts them back together.
"""

from __future__ import annotations

import re

#: A sentence end: . ! or ? (a closing quote or bracket may follow), blanks, then a
#: capital, digit or opening quote. Decimals ("3.5") have no blank after the point.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+(?=[\"'“‘(]?[A-Z0-9])")
#: A point that ends an abbreviation, not a sentence ("U.S.", "Mr.", "etc." before a capital).
_ABBREVIATION = re.compile(
    r"(?:\b(?:[A-Za-z]\.){1,4}|\b(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|vs|No|Mt|Ft|Gen|Col|Lt|Sgt|Capt|"
    r"Prof|Inc|Ltd|Co|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.)$"
)


def split_premises(question: str) -> tuple[str, str]:
    """``(premises, ask)``: the sentences before the last one, and the last one.

    Ours, for the single style (small models). The paper rewords the whole
    question with GPT-3.5; asked to, the 0.5B returns the last sentence alone
    and drops the data before it (125 of 152 GSM8K candidates lost a number;
    ``scripts/measure_rewordings.py``). So the sentences before the last one (a
    word problem's data, a trivia question's setting) are kept word for word in
    every perturbation and only the last one is reworded and gated.

    Only a question whose last sentence ends with "?" and has at least three
    words is split; otherwise ``("", question)``. ``premises + " " + ask`` is
    the question with its blanks normalised at the one boundary.

    >>> split_premises("Amber ran 8 miles. Micah ran 3.5 times that. How far did Micah run?")
    ('Amber ran 8 miles. Micah ran 3.5 times that.', 'How far did Micah run?')
    >>> split_premises("Who was the U.S. President in 1901?")
    ('', 'Who was the U.S. President in 1901?')
    """
    text = question.strip()
    if not text.endswith("?"):
        return "", question
    cuts = [m for m in _SENTENCE_END.finditer(text) if not _ABBREVIATION.search(text[: m.start()])]
    if not cuts:
        return "", question
    premises, ask = text[: cuts[-1].start()].rstrip(), text[cuts[-1].end() :].strip()
    premises += text[cuts[-1].start() : cuts[-1].end()].strip()  # a closing quote or bracket
    if len(ask.split()) < 3 or not premises:
        return "", question
    return premises, ask


def join_premises(premises: str, text: str) -> str:
    """The whole question again: ``premises`` (when any) and the reworded ``text``."""
    return f"{premises} {text}" if premises else text
