"""The label rule written beside a table names the judge that labelled the answers."""

from __future__ import annotations

import pytest

from invent_core.experiments import ExperimentConfig
from invent_core.experiments.reading import label_rule


@pytest.mark.parametrize(
    ("dataset", "judge", "said", "not_said"),
    [
        ("sciq", "paraphrase", "the paraphrase judge", "LLM"),
        ("sciq", "paraphrase-llm", "undecided band asked of the LLM", "paper's prompt"),
        ("sciq", "match", "contain each other", "paraphrase"),
        ("sciq", "llm", "the LLM judge (the paper's prompt)", "paraphrase"),
        ("mmlu", "paraphrase", "the chosen option is the reference's", "paraphrase"),  # exact rule
        ("arithmetic", "paraphrase", "number equals the reference", "paraphrase"),
    ],
)
def test_the_rule_is_the_judges(dataset, judge, said, not_said):
    rule = label_rule(ExperimentConfig(dataset=dataset, judge=judge))
    assert said in rule and not_said not in rule
