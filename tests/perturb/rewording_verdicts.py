"""What the rule-round tests assert about one rewording, with no model asked.

Shared by ``test_fifth_round.py`` and ``test_sixth_round.py`` (imported by name: the test
folder is on ``sys.path`` as pytest's rootdir-relative import puts it).
"""

from invent_core.perturb.asks_same import QuestionVerdict, same_question


def verdict(question: str, rewording: str) -> QuestionVerdict:
    """The default verdict without a model: what the gate keeps when no model is asked."""
    return same_question(question, rewording, llm=None)


def rejected(question: str, rewording: str, because: str) -> None:
    """The rewording is rejected, and the verdict's reason names ``because``."""
    v = verdict(question, rewording)
    assert not v and because in v.detail, v


def kept(question: str, rewording: str) -> None:
    """The rewording is kept."""
    v = verdict(question, rewording)
    assert v, v
