"""Exceptions with messages meant for a person, raised across invent_core."""

from __future__ import annotations


class InventError(Exception):
    """Base class: the CLI and the dashboard print ``str(err)`` without a traceback."""


class ModelFileError(InventError):
    """A packaged model file is missing, truncated or does not match its sha256."""


class MethodUnavailable(InventError):
    """A method cannot run on this run (e.g. it needs an LLM or logprobs it was not given)."""


class LLMError(InventError):
    """An LLM backend failed in a way retrying cannot fix (bad key, unknown model, …)."""
