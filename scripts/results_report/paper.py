"""The paper's published numbers, held as data in ``paper_tables.json`` beside this module.

- :data:`PAPER_DATASETS` — the five datasets of Table 1, in its column order;
- :data:`PAPER_TABLE1` — Table 1 (``tab:accuracy_based``): metric → method → dataset →
  (mean, std) over 40 bootstrap resamples, GPT-3.5-Turbo, ChatGPT paraphrasing,
  DeBERTa-v2-xlarge-MNLI;
- :data:`TSU_COLUMNS` / :data:`PAPER_TSU` — the TSU table (``tab:tsu_horizontal``):
  dataset (TriviaQA, MMLU) → method → column → percent.
"""

from __future__ import annotations

import json
from pathlib import Path

_DATA = json.loads((Path(__file__).with_name("paper_tables.json")).read_text(encoding="utf-8"))

PAPER_DATASETS: tuple[str, ...] = tuple(_DATA["datasets"])
PAPER_TABLE1: dict[str, dict[str, dict[str, tuple[float, float]]]] = {
    metric: {
        method: {dataset: (float(mean), float(std)) for dataset, (mean, std) in row.items()}
        for method, row in by_method.items()
    }
    for metric, by_method in _DATA["table1"].items()
}
TSU_COLUMNS: tuple[str, ...] = tuple(_DATA["tsu_columns"])
PAPER_TSU: dict[str, dict[str, dict[str, float]]] = _DATA["tsu"]
