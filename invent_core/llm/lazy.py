"""An LLM built on first use, for runs that may need none."""

from __future__ import annotations

from typing import Any


class LazyLLM:
    """Builds the backend on first attribute access, so a run that needs no LLM starts none."""

    def __init__(self, factory) -> None:
        self._factory = factory
        self._llm = None

    @property
    def started(self) -> bool:
        return self._llm is not None

    def get(self) -> Any:
        if self._llm is None:
            self._llm = self._factory()
        return self._llm

    def __getattr__(self, name: str) -> Any:
        return getattr(self.get(), name)
