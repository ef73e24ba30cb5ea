"""One raw LLM reply to the forms every later step reads: the parsed answer, the cleaned response, the canonical form."""

from __future__ import annotations

from .same import same_answer

__all__ = ["same_answer"]
