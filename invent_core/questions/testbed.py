"""A controlled offline testbed: generated questions of graded difficulty with exact labels.

On knowledge benchmarks the packaged Qwen2.5-0.5B is right about as often as
chance allows, so no uncertainty method can predict its correctness there
(the judgeability study in docs/RESULTS.md). Here the difficulty is under our control: the model multiplies
single digits reliably and two-digit numbers almost never, so a mix of
arithmetic, digit counting, unit conversions and lookups from a fixed table
gives a dataset where accuracy is mixed and falls with a known
``difficulty`` (1 easy … 5 hard).

Every row has the schema of the shipped samples (``assets/datasets/*.jsonl``):
``id, dataset, question, answer, answers, choices, extra``; ``extra`` holds
``difficulty``, ``family`` and the operands. One key more: ``task``, per row —
``"gsm8k"`` (the paper's "return only the result itself" prompt, canonical
answer = the final number) for computed answers, ``"qa"`` for table lookups.
Answers are in the form the correctness judge compares exactly
(:func:`invent_core.evaluation.correctness.number_match`): plain integers
("56") or a name with its aliases ("Brasília", "Brasilia").

Calibration (packaged Qwen2.5-0.5B, greedy, 10 tokens, one question per
(family, difficulty) cell as first drawn, 22 questions, 76 s): right on
1×1-, 2×1-digit products, one- to four-digit sums (not the three-digit one),
one- and two-digit differences, capitals of the UK, Egypt, China, the symbols
of silver and helium; wrong on 2×2- and 3×2-digit products, every digit count
(it says "4" for 96671) and every unit conversion (it repeats the amount), the
capital of New Zealand and the symbols of oxygen and mercury (it names the
element). Per difficulty as then drawn: 4/5, 4/6, 1/5, 0/4, 1/2; overall
10/22. The mix below moves the failures up. With the QA prompt instead, the
same model answers "What is 2 plus 6?" with "Addition" (6/20 right).

Seeded: ``generate_testbed(300, seed=0)`` always returns the same rows; the
shipped ``assets/datasets/arithmetic_sample300.jsonl`` is exactly that
(``scripts/make_arithmetic_sample.py`` rewrites it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["CELLS", "DATASET", "Cell", "generate_testbed"]

DATASET = "arithmetic"

#: Fixed lookup tables: (item, answer, aliases…), grouped by difficulty (ours; the
#: famous capitals and symbols a 0.5B model knows at 1, the ones it confuses at 3).
CAPITALS: dict[int, tuple[tuple[str, ...], ...]] = {
    1: (
        ("France", "Paris"),
        ("Japan", "Tokyo"),
        ("Italy", "Rome"),
        ("Germany", "Berlin"),
        ("the United Kingdom", "London"),
    ),
    2: (
        ("Spain", "Madrid"),
        ("Egypt", "Cairo"),
        ("Russia", "Moscow"),
        ("China", "Beijing", "Peking"),
        ("Greece", "Athens"),
        ("Portugal", "Lisbon"),
    ),
    3: (
        ("Canada", "Ottawa"),
        ("Australia", "Canberra"),
        ("Brazil", "Brasília", "Brasilia"),
        ("Turkey", "Ankara"),
        ("Switzerland", "Bern", "Berne"),
        ("New Zealand", "Wellington"),
        ("Nigeria", "Abuja"),
    ),
}
SYMBOLS: dict[int, tuple[tuple[str, ...], ...]] = {
    1: (("oxygen", "O"), ("hydrogen", "H"), ("carbon", "C"), ("nitrogen", "N"), ("sulfur", "S")),
    2: (("gold", "Au"), ("iron", "Fe"), ("sodium", "Na"), ("silver", "Ag"), ("helium", "He")),
    3: (("potassium", "K"), ("lead", "Pb"), ("tin", "Sn"), ("mercury", "Hg"), ("tungsten", "W")),
}
#: (from unit, to unit, factor) per difficulty: metric ×100/×1000 are easier than ×60/×3600.
CONVERSIONS: dict[int, tuple[tuple[str, str, int], ...]] = {
    2: (
        ("metres", "centimetres", 100),
        ("kilograms", "grams", 1000),
        ("kilometres", "metres", 1000),
    ),
    3: (("hours", "minutes", 60), ("minutes", "seconds", 60), ("days", "hours", 24)),
    4: (("hours", "seconds", 3600), ("weeks", "hours", 168)),
}

Row = tuple[str, tuple[str, ...], dict[str, Any]]  # question, answers, extra


def _digits(rng: np.random.Generator, n: int) -> int:
    """Draw an integer with exactly ``n`` digits (no leading zero)."""
    return int(rng.integers(10 ** (n - 1), 10**n))


def _product(rng: np.random.Generator, da: int, db: int) -> Row:
    a, b = (
        (int(rng.integers(2, 10)), int(rng.integers(2, 10)))
        if da == 1
        else (
            _digits(rng, da),
            _digits(rng, db),
        )
    )
    return f"What is {a} times {b}?", (str(a * b),), {"a": a, "b": b}


def _sum(rng: np.random.Generator, n: int) -> Row:
    a, b = _digits(rng, n), _digits(rng, n)
    return f"What is {a} plus {b}?", (str(a + b),), {"a": a, "b": b}


def _difference(rng: np.random.Generator, n: int) -> Row:
    a, b = sorted((_digits(rng, n), _digits(rng, n)), reverse=True)
    return f"What is {a} minus {b}?", (str(a - b),), {"a": a, "b": b}


def _digit_count(rng: np.random.Generator, low: int, high: int) -> Row:
    k = int(rng.integers(low, high + 1))
    number = _digits(rng, k)
    return f"How many digits does the number {number} have?", (str(k),), {"number": number}


def _conversion(rng: np.random.Generator, difficulty: int) -> Row:
    src, dst, factor = CONVERSIONS[difficulty][int(rng.integers(len(CONVERSIONS[difficulty])))]
    amount = int(rng.integers(2, 10))
    question = f"How many {dst} are in {amount} {src}?"
    return question, (str(amount * factor),), {"amount": amount, "from": src, "to": dst}


def _lookup(rng: np.random.Generator, table: str, difficulty: int) -> Row:
    rows = (CAPITALS if table == "capital" else SYMBOLS)[difficulty]
    item, *answers = rows[int(rng.integers(len(rows)))]
    question = (
        f"What is the capital of {item}?"
        if table == "capital"
        else f"What is the chemical symbol for {item}?"
    )
    return question, tuple(answers), {"item": item}


@dataclass(frozen=True)
class Cell:
    """One (family, difficulty) of the mix and how many of every 60 rows it gets."""

    family: str
    difficulty: int
    weight: int
    make: Callable[[np.random.Generator], Row]


#: The mix: 60 rows of each difficulty per 300 (weights per difficulty sum to 12).
#: Difficulty follows what Qwen2.5-0.5B got right (greedy, one probe question per
#: cell, this module's docstring): 1×1-digit products, one-digit sums and famous
#: capitals (1) > two-digit sums (2) > 2×1-digit products (3) > three-digit
#: sums, unit conversions, digit counts and rare symbols (4) > 2×2- and 3×2-digit
#: products (5). A lookup cell gets weight 1 (5 rows per 300), within its table.
CELLS: tuple[Cell, ...] = (
    Cell("product", 1, 4, lambda g: _product(g, 1, 1)),
    Cell("addition", 1, 4, lambda g: _sum(g, 1)),
    Cell("subtraction", 1, 3, lambda g: _difference(g, 1)),
    Cell("capital", 1, 1, lambda g: _lookup(g, "capital", 1)),
    Cell("addition", 2, 5, lambda g: _sum(g, 2)),
    Cell("subtraction", 2, 5, lambda g: _difference(g, 2)),
    Cell("capital", 2, 1, lambda g: _lookup(g, "capital", 2)),
    Cell("symbol", 2, 1, lambda g: _lookup(g, "symbol", 2)),
    Cell("product", 3, 7, lambda g: _product(g, 2, 1)),
    Cell("symbol", 3, 1, lambda g: _lookup(g, "symbol", 1)),  # answers "Oxygen" for O
    Cell("conversion", 3, 2, lambda g: _conversion(g, 2)),
    Cell("digit_count", 3, 2, lambda g: _digit_count(g, 2, 4)),
    Cell("addition", 4, 3, lambda g: _sum(g, 3)),
    Cell("subtraction", 4, 3, lambda g: _difference(g, 3)),
    Cell("addition", 4, 1, lambda g: _sum(g, 4)),
    Cell("conversion", 4, 2, lambda g: _conversion(g, 3)),
    Cell("digit_count", 4, 1, lambda g: _digit_count(g, 5, 7)),
    Cell("capital", 4, 1, lambda g: _lookup(g, "capital", 3)),
    Cell("symbol", 4, 1, lambda g: _lookup(g, "symbol", 3)),
    Cell("product", 5, 6, lambda g: _product(g, 2, 2)),
    Cell("product", 5, 3, lambda g: _product(g, 3, 2)),
    Cell("conversion", 5, 2, lambda g: _conversion(g, 4)),
    Cell("digit_count", 5, 1, lambda g: _digit_count(g, 8, 12)),
)

#: Families answered by name (the paper's QA prompt, "return only the name"); the
#: others by number (its GSM8K prompt, "return only the result itself"): asked
#: "What is 2 plus 6? Answer concisely and return only the name.", the 0.5B model
#: answers "Addition".
LOOKUP_FAMILIES: frozenset[str] = frozenset({"capital", "symbol"})


def generate_testbed(n: int = 300, *, seed: int = 0) -> list[dict[str, Any]]:
    """Generate ``n`` testbed rows in the shipped-sample schema.

    Parameters
    ----------
    n : number of rows.
    seed : seeds the one ``np.random.Generator``; same (n, seed), same rows.

    Returns
    -------
    list of dicts ``{"id", "dataset", "question", "answer", "answers", "choices",
    "task", "extra"}``; ``extra = {"difficulty": 1..5, "family": …, operands…}``. Cells are
    drawn in proportion to their weights, rows shuffled. A question repeats only
    when its cell has no new one left (a lookup table smaller than its share of n).
    """
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    rng = np.random.default_rng(seed)
    weights = np.array([c.weight for c in CELLS], dtype=np.float64)
    counts = np.floor(n * weights / weights.sum()).astype(int)
    for i in np.argsort(-(n * weights / weights.sum() - counts), kind="stable")[: n - counts.sum()]:
        counts[i] += 1  # largest remainders: the counts sum to n
    cells = np.repeat(np.arange(len(CELLS)), counts)
    rng.shuffle(cells)
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    for i, c in enumerate(cells):
        cell = CELLS[int(c)]
        for _ in range(100):  # small tables repeat; draw until new (bounded)
            question, answers, extra = cell.make(rng)
            if question not in seen:
                break
        seen.add(question)
        rows.append(
            {
                "id": f"{DATASET}:{i}",
                "dataset": DATASET,
                "question": question,
                "answer": answers[0],
                "answers": list(answers),
                "choices": None,
                "task": "qa" if cell.family in LOOKUP_FAMILIES else "gsm8k",
                "extra": {"difficulty": cell.difficulty, "family": cell.family, **extra},
            }
        )
    return rows
