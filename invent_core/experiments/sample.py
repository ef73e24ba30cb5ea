"""Which questions an experiment runs: loaded, kept by difficulty, drawn; and a line saying how.

:func:`draw_examples` loads the shipped sample or the user file a config
names and :func:`select_examples` draws from loaded examples (the Evaluation
page loads once and draws here too), returning ``(examples, description)``
such as ``"15 of 300 questions, drawn with seed 0"``.
"""

from __future__ import annotations

from ..errors import InventError
from ..evaluation.sample_size import draw_sample
from ..questions.datasets import load_dataset, load_examples_file
from .config import ExperimentConfig

__all__ = ["difficulty_levels", "draw_examples", "keep_difficulty", "select_examples"]


def draw_examples(cfg: ExperimentConfig, *, require_answers: bool = True) -> tuple[list, str]:
    """Return the config's examples and a line saying how they were drawn.

    Loads the shipped sample or the user file the config names, then
    :func:`select_examples`.

    Returns
    -------
    (examples, description): ``"15 of 300 questions, drawn with seed 0"``,
    ``"the first 15 of 300 questions (file order)"`` or ``"all 300 questions"``.
    """
    if cfg.dataset:
        examples = load_dataset(cfg.dataset)
    else:
        examples = load_examples_file(cfg.data, require_answers=require_answers)
    return select_examples(examples, cfg)


def select_examples(examples: list, cfg: ExperimentConfig) -> tuple[list, str]:
    """Draw the config's sample from loaded examples; the line says how (see :func:`draw_examples`).

    With ``cfg.difficulty`` only the rows of those levels are kept first (the
    draw is then over them), and the line ends with ``" (difficulty 4, 5)"``.
    With ``cfg.limit``, ``cfg.sample_seed`` (default 0) draws a shuffled
    sample (:func:`invent_core.evaluation.sample_size.draw_sample`, the same
    questions ``load_dataset(limit=, seed=)`` gives); ``sample_seed=None``
    takes the first ``limit`` in file order. Without a limit every question is
    taken, in file order.
    """
    if not examples:
        raise InventError("no examples to evaluate")
    levels = ""
    if cfg.difficulty is not None:
        examples = keep_difficulty(examples, cfg.difficulty, source=cfg.dataset or cfg.data)
        levels = f" (difficulty {', '.join(map(str, cfg.difficulty))})"
    total = len(examples)
    if cfg.limit is None or cfg.limit >= total:
        return examples, f"all {total} questions{levels}"
    if cfg.sample_seed is None:
        first = f"the first {cfg.limit} of {total} questions{levels} (file order)"
        return examples[: cfg.limit], first
    sample = draw_sample(examples, cfg.limit, cfg.sample_seed)
    return sample.items, sample.describe() + levels


def difficulty_levels(examples: list) -> list[int]:
    """The difficulty levels the examples carry (``extra["difficulty"]``), sorted; [] for none."""
    return sorted({ex.extra["difficulty"] for ex in examples if "difficulty" in ex.extra})


def keep_difficulty(examples: list, levels: tuple[int, ...], *, source: str) -> list:
    """The examples whose ``extra["difficulty"]`` is one of ``levels``, in file order.

    Only the arithmetic testbed's rows carry a difficulty; naming levels for a
    source without one, or levels no row has, is refused (naming --difficulty).
    """
    have = difficulty_levels(examples)
    if not have:
        raise InventError(f"--difficulty: the questions of {source} carry no difficulty level")
    kept = [ex for ex in examples if ex.extra.get("difficulty") in levels]
    if not kept:
        known, asked = (", ".join(map(str, x)) for x in (have, levels))
        raise InventError(
            f"--difficulty: no question of {source} has level {asked}; levels: {known}"
        )
    return kept
