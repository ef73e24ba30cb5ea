"""Multiple-choice questions as MMLU writes them: the stem, its options, its "Scenario k |" parts.

A perturber rewords only the stem and puts the options back unchanged; the
rewording checks keep every scenario of a moral-scenarios stem.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..prompts import format_choices

_SCENARIO = re.compile(r"Scenario\s*(\d+)\s*\|\s*(.*?)(?=\s*Scenario\s*\d+\s*\||$)", re.S)


def scenarios(text: str) -> list[tuple[str, str]]:
    """Return the "Scenario k | …" parts of an MMLU moral-scenarios stem: [(k, text), …]."""
    return [(k, body.strip()) for k, body in _SCENARIO.findall(text)]


# --- multiple choice ---------------------------------------------------------------------

_OPTION_LINE = re.compile(r"^\s*\(?([A-J])[.)]\s+(.+?)\s*$")
_INLINE_OPTION = re.compile(r"(?:^|\s)\(?([A-J])[.)]\s+")


def split_mmlu_stem(question_with_options: str) -> tuple[str, list[str]]:
    """Split a multiple-choice question into its stem and its options.

    Options are lines ``A. …`` / ``(B) …`` / ``C) …`` in letter order from A
    (what :func:`invent_core.prompts.format_choices` writes), or the same
    markers inline after the stem ("… ? A. x B. y C. z"). Text after the last
    option line (the answer prompt's suffix) is dropped. The stem keeps any
    embedded "Scenario 1 | … Scenario 2 | …" parts.

    Returns
    -------
    (stem, choices); ``choices`` is empty when no options were found.
    """
    lines = question_with_options.strip().splitlines()
    for start, line in enumerate(lines):
        m = _OPTION_LINE.match(line)
        if m and m.group(1) == "A":
            choices = []
            for follow in lines[start:]:
                mm = _OPTION_LINE.match(follow)
                if not mm or mm.group(1) != chr(ord("A") + len(choices)):
                    break
                choices.append(mm.group(2))
            if len(choices) >= 2:
                return "\n".join(lines[:start]).strip(), choices
    return _split_inline(question_with_options.strip())


def _split_inline(text: str) -> tuple[str, list[str]]:
    marks = list(_INLINE_OPTION.finditer(text))
    letters = [m.group(1) for m in marks]
    for i in range(len(marks)):
        run = letters[i:]
        n = 0
        while n < len(run) and run[n] == chr(ord("A") + n):
            n += 1
        if letters[i] == "A" and n >= 2:
            cut = marks[i : i + n]
            ends = [m.start() for m in cut[1:]] + [len(text)]
            choices = [text[m.end() : e].strip() for m, e in zip(cut, ends)]
            return text[: cut[0].start()].strip(), choices
    return text, []


def attach_choices(stem: str, choices: Sequence[str]) -> str:
    r"""Put the options back under a (perturbed) stem, unchanged: ``stem\\nA. …\\nB. …``."""
    return f"{stem.strip()}\n{format_choices(choices)}" if choices else stem.strip()
