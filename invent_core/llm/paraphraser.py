"""A separate paraphrasing model (``--paraphrase-llm``): the paper rewords with ChatGPT.

The paper's two answering models (GPT-3.5, LLaMA-3.1-8B) both get their
rewordings from ChatGPT. :class:`WithParaphraser` carries that pair through
code that knows one LLM (the experiment loop, the batch scorer, the
dashboard's cached resources): it *is* the answering model — identity,
requests, capabilities, P(True) all go to it — and
:func:`~invent_core.engine.pipeline.run_question` sends the perturber's requests
(the rewordings and the gate's extra rounds) to ``paraphraser`` instead.
The two identities enter their own cache keys, so their answers never mix.
"""

from __future__ import annotations

from typing import Any

from .specs import get_llm

__all__ = ["WithParaphraser", "split_llm"]


class WithParaphraser:
    """The answering LLM, with another model for the rewordings.

    Parameters
    ----------
    answerer : the LLM that answers (every attribute is its own).
    paraphraser : the LLM that rewords the question.
    """

    def __init__(self, answerer: Any, paraphraser: Any) -> None:
        self.answerer = answerer
        self.paraphraser = paraphraser

    def __getattr__(self, name: str) -> Any:
        """Everything else is the answering model's."""
        if name in ("answerer", "paraphraser"):  # not set yet (copy, unpickling)
            raise AttributeError(name)
        return getattr(self.answerer, name)

    def __repr__(self) -> str:
        """Both models."""
        return f"WithParaphraser(answerer={self.answerer!r}, paraphraser={self.paraphraser!r})"

    def close(self) -> None:
        """Close both (a local one stops its embedded server)."""
        self.answerer.close()
        self.paraphraser.close()


def split_llm(llm: Any, paraphrase_llm: Any = None) -> tuple[Any, Any]:
    """Return (answering model, paraphrasing model or ``None`` when it is the same).

    ``paraphrase_llm`` (a spec or an LLM) wins over the one ``llm`` carries
    (:class:`WithParaphraser`, possibly behind a :class:`~invent_core.llm.LazyLLM`
    or the dashboard's cancellable wrapper). ``llm`` itself stays the answering
    model, wrappers and all: a :class:`WithParaphraser` answers as its answerer.
    """
    if paraphrase_llm is not None:
        para = get_llm(paraphrase_llm)
    else:
        para = getattr(llm, "paraphraser", None)
    return llm, (None if para is None or para is llm else para)
