"""An LLM built on first use, for runs that may need none."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class LazyLLM:
    """Builds the backend on first attribute access, so a run that needs no LLM starts none.

    Every attribute (``complete``, ``identity``, declared capabilities such as
    ``prefers_single_paraphrase``) is the built backend's.
    """

    def __init__(self, factory: Callable[[], Any]) -> None:
        self._factory = factory
        self._llm = None

    @property
    def started(self) -> bool:
        """Whether the backend has been built."""
        return self._llm is not None

    def get(self) -> Any:
        """The backend, built now if it was not yet."""
        if self._llm is None:
            self._llm = self._factory()
        return self._llm

    def __getattr__(self, name: str) -> Any:
        """Forward to the backend (building it)."""
        return getattr(self.get(), name)
