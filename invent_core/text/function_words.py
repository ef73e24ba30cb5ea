"""Function words: the lists of words that say nothing about what is asked or answered.

Each list is named for its use, because each was measured with its rule and the
rules differ in what they may drop:

- :data:`ENGLISH_FUNCTION_WORDS`: the commonest English function words; a language
  vote counts them (:func:`invent_core.perturb.text.is_english`);
- :data:`QUESTION_STOP_WORDS`: those and the personal pronouns, what
  :func:`content_words` drops from a question or a rewording;
- :data:`ECHO_FUNCTION_WORDS`: what the echo check drops before it asks whether a
  reply only repeats its question (:func:`invent_core.responses.cleaning.non_answer`);
- :data:`JUDGE_STOP_WORDS`: what the paraphrase judge drops from a reference and an
  answer before matching their words (:mod:`invent_core.evaluation.paraphrase_judge`);
  it starts with :data:`ARTICLES`, the only words the judge drops from every token list.

(KeyBERT's own list, scikit-learn's, is read where KeyBERT runs:
:func:`invent_core.perturb.keywords.stop_words`.)
"""

from __future__ import annotations

from .stems import inflection_stem
from .tokens import LETTER_WORD

__all__ = [
    "ARTICLES",
    "ECHO_FUNCTION_WORDS",
    "ENGLISH_FUNCTION_WORDS",
    "JUDGE_STOP_WORDS",
    "QUESTION_STOP_WORDS",
    "content_words",
]

ARTICLES = frozenset({"a", "an", "the"})

ENGLISH_FUNCTION_WORDS = frozenset(
    "the is are was were of what which who whom whose where when why how in on at to for "
    "from by with and or did does do has have had be been this that it its an many much "
    "name".split()
)

QUESTION_STOP_WORDS = ENGLISH_FUNCTION_WORDS | frozenset(
    "me my her his him she he they them their i you your".split()
)

ECHO_FUNCTION_WORDS = frozenset(
    "the a an of in on at to for from by with and or is are was were be been it its this that "
    "which what who whom whose where when why how do does did has have had can could will "
    "would there their they he she his her i you we our".split()
)

JUDGE_STOP_WORDS = ARTICLES | frozenset(
    "of in on at to for by with from as into onto about and or nor but is are was were be "
    "been being it its this that these those which what who whom whose where when how why "
    "there their they them he she his her we our you your i my me do does did has have had "
    "can could will would shall should may might must than then so such not no very only "
    "also called known named".split()
)


def content_words(text: str) -> set[str]:
    """The stemmed words of more than two letters that are not :data:`QUESTION_STOP_WORDS`.

    What a question or a rewording asks about, in :func:`~invent_core.text.stems.inflection_stem`
    form ("Who discovered penicillin?" → {"discover", "penicillin"}).

    >>> sorted(content_words("Who discovered penicillin?"))
    ['discover', 'penicillin']
    """
    return {
        inflection_stem(w)
        for w in LETTER_WORD.findall(text.lower())
        if len(w) > 2 and w not in QUESTION_STOP_WORDS
    }
