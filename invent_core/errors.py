"""Exceptions with messages meant for a person, raised across invent_core."""

from __future__ import annotations


class InventError(Exception):
    """Base class: the CLI and the dashboard print ``str(err)`` without a traceback."""


class ModelFileError(InventError):
    """A packaged model file is missing, truncated or does not match its sha256."""


class MethodUnavailable(InventError):
    """A method cannot run on this run (e.g. it needs an LLM or logprobs it was not given)."""


class LLMError(InventError):
    """An LLM request failed for good: a bad key, an unknown model, or retries used up."""


class ModelLoadError(LLMError):
    """The model's files cannot be loaded or served: every request would fail the same way.

    Commands stop at the first one (exit 2, the reason named) instead of
    failing question after question, each retrying the load.
    """


class LLMTimeout(LLMError):
    """An LLM request gave no complete reply within its deadline (every attempt)."""


class InventWarning(UserWarning):
    """Something went wrong that the run works around (shown once, naming the file)."""


class CacheWarning(InventWarning):
    """The LLM cache file is corrupt, read-only or unusable: the run goes on without it."""


class Cancelled(InventError):
    """The user pressed Cancel: no new requests were sent after it.

    Raised by :meth:`invent_core.progress.CancelToken.raise_if_cancelled`.
    Work finished before it is kept (LLM answers are in the cache), so callers
    catch it, keep what they have and say so; the next identical run re-uses it.
    """
