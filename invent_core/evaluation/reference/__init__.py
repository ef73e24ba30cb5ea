"""Uncertainty against a reference set: a bare 2.3101 becomes "82nd percentile, P(correct) 0.31".

Inv-Entropy is unnormalised and its scale depends on n, the kernel and the
embedder, so one question's value means little on its own.
A :class:`ReferenceSet` holds the same measure for many questions scored with
the *same settings* (``settings`` records which) and, where they were judged,
whether each answer was correct. It answers two questions about a new value:

- :meth:`ReferenceSet.percentile` — the share of the reference at or below it
  (0–100; higher = more uncertain than most);
- :meth:`ReferenceSet.p_correct` — the isotonic-calibrated probability that
  the answer is right (Zadrozny & Elkan 2002, the paper's Brier-score mapping,
  §3 "Evaluation metrics"), non-increasing in the uncertainty.

Both are monotone in the measure. Pure numpy plus scikit-learn's isotonic
regression; JSON in and out.

Shipped references live in ``assets/reference/*.json`` (a caller may name another
folder, or one file of its own: ``directory``, ``path``), built by ``scripts/make_reference.py`` from ``evaluate`` runs, with
each reference question's text and its embedding by the run's embedder.
:func:`for_settings` pools every shipped reference whose settings match a
run's (:data:`MATCH_KEYS`: what changes the measure's scale), across datasets,
and with a question :func:`place` narrows the pool to the reference questions
like it: of its :data:`K_NEAREST` = 30 nearest by question-text
similarity (same answer format), those with similarity ≥ :data:`SIMILARITY_FLOOR`
= 0.10 and ≥ :data:`LOCAL_RATIO` = 0.7 × their own similarity to their 10th
nearest reference question; fewer than :data:`MIN_LIKE` = 10 gives no number.
Chosen on ``scripts/reference_placement_study.py`` (docs/reference_placement.md):
with 100 reference questions per shipped sample, 98 % of arithmetic and GSM8K,
94 % of TriviaQA, 95 % of SciQ, 86 % of NQ-open and 90 % of MMLU questions are
placed, their neighbours 88 %, 97 %, 55 %, 80 %, 55 % and 100 % from their own
dataset; 4 of 10 prompts unlike any benchmark question still get a number (10
of 10 with the floor alone); against the shipped 0.5B references (arithmetic,
MMLU), 0 of 300 GSM8K and almost no TriviaQA, SciQ or NQ-open questions do.
:func:`placement_record` is what a run artefact keeps of its placement, and every
printer reads that record: :func:`record_line` (the CLI), :func:`record_columns`
(the batch output), :func:`record_source` (the dashboard); :func:`reference_line`
and :func:`columns` are the same for a set placed on the spot (``score``).

Modules, bottom to top
----------------------
- :mod:`.calibration` — P(correct) from bagged isotonic fits, with its interval.
- :mod:`.placement` — :class:`Placement` and the numbers that decide it.
- :mod:`.reference_set` — :class:`ReferenceSet`: values, labels, JSON.
- :mod:`.neighbours` — :func:`place`: a question among the reference questions like it.
- :mod:`.shipped` — :func:`for_settings` / :func:`for_run`: the shipped files, matched.
- :mod:`.own` — :func:`load_own_reference`, :func:`settings_mismatch`: ``--reference FILE``.
- :mod:`.lines` — :func:`placement_record` and what is shown of it.
"""

from __future__ import annotations

from .calibration import MIN_NEAR, P_CORRECT_CLIP
from .lines import (
    calibration_note,
    columns,
    placed_among,
    placement_record,
    record_columns,
    record_line,
    record_source,
    record_values,
    reference_line,
)
from .neighbours import answer_format, local_radii, place, question_task
from .own import (
    load_own_reference,
    own_placed,
    own_placement,
    settings_mismatch,
)
from .placement import K_NEAREST, LOCAL_RATIO, MIN_LIKE, SIMILARITY_FLOOR, Placement
from .reference_set import ReferenceSet
from .shipped import MATCH_KEYS, for_run, for_settings, reference_dir, reference_settings

__all__ = [
    "P_CORRECT_CLIP",
    "MIN_NEAR",
    "MATCH_KEYS",
    "ReferenceSet",
    "reference_dir",
    "reference_settings",
    "for_settings",
    "for_run",
    "place",
    "Placement",
    "K_NEAREST",
    "SIMILARITY_FLOOR",
    "MIN_LIKE",
    "LOCAL_RATIO",
    "local_radii",
    "placement_record",
    "record_columns",
    "placed_among",
    "answer_format",
    "question_task",
    "reference_line",
    "record_line",
    "record_source",
    "record_values",
    "calibration_note",
    "columns",
    "load_own_reference",
    "settings_mismatch",
    "own_placed",
    "own_placement",
]
