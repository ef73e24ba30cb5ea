"""Exceptions with messages meant for a person, raised across invent_core."""

from __future__ import annotations

import os
import re
import threading
import urllib.parse
from typing import Any


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


# -- the errors of files, folders, the history and endpoints -----------------------------------
# Every class a command maps to an exit code or the dashboard shows as a message lives in this
# module, so that ``except`` clauses and the exit mapping name it without importing the floor
# that raises it; tests/test_names.py refuses an exception class defined anywhere else unless
# it is listed there with its reason.


class BatchInputError(InventError, ValueError):
    """An input (question) file, or a batch output file, cannot be used; the message names where.

    Attributes
    ----------
    file, row, column, line, byte : where the problem is (``None`` when not
        known). ``row`` is the 1-based data row (the header is not a row),
        ``line`` the 1-based physical line, ``byte`` a 0-based byte offset.
    reason : the message without the location.
    """

    def __init__(
        self,
        reason: str,
        *,
        file: str | os.PathLike | None = None,
        row: int | None = None,
        column: str | None = None,
        line: int | None = None,
        byte: int | None = None,
    ) -> None:
        self.reason = reason
        self.file = str(file) if file is not None else None
        self.row, self.column, self.line, self.byte = row, column, line, byte
        super().__init__(f"{self.where}: {reason}" if self.where else reason)

    @property
    def where(self) -> str:
        """``file, row R (line L), byte B, column 'c'`` with the parts that are known."""
        parts = [self.file] if self.file else []
        if self.row is not None:
            parts.append(
                f"row {self.row}" + (f" (line {self.line})" if self.line is not None else "")
            )
        elif self.line is not None:
            parts.append(f"line {self.line}")
        if self.byte is not None:
            parts.append(f"byte {self.byte}")
        if self.column is not None:
            parts.append(f"column {self.column!r}")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """The location and the reason, as one line of the errors sidecar."""
        return {
            "file": self.file,
            "row": self.row,
            "line": self.line,
            "column": self.column,
            "byte": self.byte,
            "error": self.reason,
            "message": str(self),
        }


class OutputBusyError(BatchInputError):
    """Another run holds the output's lock (:mod:`invent_core.batch.output.lock`).

    Defined here rather than with the lock, so that the commands' exit mapping
    can name it without importing the batch package (0.3 s of the methods and
    scipy.linalg that a refused command must not pay).
    """


class FolderMismatch(BatchInputError):
    """An experiment folder made with another LLM than the one asked for (exit 2)."""


class DifferentQuestions(BatchInputError):
    """Two evaluations that are not over the same questions (exit 2; ``--intersection`` pairs the shared)."""


class DatasetFileError(InventError, ValueError):
    """A dataset or question file cannot be read; the message names file, line and column."""


class UnknownEntry(InventError, KeyError):
    """No history entry has this id (deleted, evicted, or never made)."""

    def __str__(self) -> str:
        """Show the message itself (KeyError would show its repr)."""
        return str(self.args[0]) if self.args else "unknown history entry"


class EndpointRetired(LLMError):
    """An endpoint came back serving another model: the request goes elsewhere."""


# -- secrets kept out of every message ---------------------------------------------------------
# A server may echo the request back in its error (the Authorization header, the URL with
# its ?key=); an exception's text then carries the key to stderr, scores.csv and the logs.
# ``scrub`` is applied where a server's failure becomes an invent error (the OpenAI-protocol
# backend) and again where errors are written (the CLI's error line, the error columns and
# sidecars): the second is a net under the first.

#: Query-string (and ``name=value``) parameter names whose value is a credential.
SECRET_PARAM = (
    r"(?:[\w.-]*(?:api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|id[_-]?token|"
    r"auth[_-]?token|client[_-]?secret|password|passwd|credential|signature)[\w.-]*"
    r"|key|token|sig|secret|auth|pwd|code|x-amz-security-token)"
)
_SECRET_VALUES: set[str] = set()
_SECRET_LOCK = threading.Lock()
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # an Authorization header's value, wherever it is quoted: "Bearer sk-…", "Basic dXNl…"
    (re.compile(r"\b(Bearer)(\s+|%20|\+)[^\s\"',;&}\]]+", re.I), r"\1\2***"),
    # the other schemes are also English words ("no token for 1 s", "basic settings"): their
    # value must look like a credential (6+ characters with a digit, base64's = + /, or an
    # upper-case letter after a lower-case one)
    (
        re.compile(
            r"\b(Basic|Token|Digest)(\s+|%20|\+)(?=[^\s\"',;&}\]]*(?:[\d=+/]|(?-i:[a-z][^\s\"',;&}\]]*[A-Z])))[^\s\"',;&}\]]{6,}",
            re.I,
        ),
        r"\1\2***",
    ),
    # header-like or JSON-like pairs: authorization: …, "api_key": "…", x-api-key=…
    (
        re.compile(
            r"(\b(?:authorization|proxy-authorization|x-api-key|api[_-]?key|apikey|"
            r"access[_-]?token|client[_-]?secret|password)[\"']?\s*[:=]\s*[\"']?)"
            r"(?!\*\*\*)[^\s\"',;&}\]]+",
            re.I,
        ),
        r"\1***",
    ),
    # a URL's user:password@ (also a user alone, which may be a token)
    (re.compile(r"(\b[a-z][a-z0-9+.-]*://)[^/\s@?#\"']+@", re.I), r"\1***@"),
    # query-string tokens: ?key=…, &access_token=…, ;sig=…
    (re.compile(rf"([?&;]{SECRET_PARAM}=)[^&#\s\"',;]+", re.I), r"\1***"),
    # key-shaped words, named or not: OpenAI's sk-…, Anthropic's sk-ant-…, GitHub's, Hugging Face's
    (re.compile(r"\b(sk|pk|rk|hf|ghp|gho|ghs|xox[abp])([-_])[A-Za-z0-9_-]{12,}"), r"\1\2***"),
)


def remember_secret(value: str | None) -> None:
    """Keep ``value`` (an API key, a URL's password) out of every text :func:`scrub` sees.

    Values under 4 characters are not remembered: replacing them would garble words.
    """
    if value and len(value.strip()) >= 4:
        with _SECRET_LOCK:
            _SECRET_VALUES.add(value.strip())


def scrub(text: object) -> str:
    """``text`` with every credential replaced by ``***``.

    The values :func:`remember_secret` was given (as they are, and URL-quoted), an
    Authorization header's value, ``user:password@`` in a URL, query-string tokens
    (``?key=``, ``api_key=``, ``token=``, ``access_token=``, ``sig=`` …) and key-shaped
    words (``sk-…``).

    Examples
    --------
    >>> scrub("HTTP 500: {'auth': 'Bearer sk-abcdefghijklmnop1234'} at http://u:p@h/v1?key=k1")
    "HTTP 500: {'auth': 'Bearer ***'} at http://***@h/v1?key=***"
    """
    out = str(text)
    with _SECRET_LOCK:
        values = sorted(_SECRET_VALUES, key=len, reverse=True)
    for value in values:
        for form in {value, urllib.parse.quote(value, safe=""), urllib.parse.quote_plus(value)}:
            out = out.replace(form, "***")
    for pattern, replacement in _PATTERNS:
        out = pattern.sub(replacement, out)
    return out


def scrubbed(err: BaseException) -> BaseException:
    """``err`` made safe to show: its message scrubbed and its chain (the server's reply) cut.

    An :class:`InventError` keeps its class when its message needs no change;
    otherwise an :class:`LLMError` (same class where it can be rebuilt) carries
    the scrubbed ``Class: message``.
    """
    text = str(err)
    clean = scrub(text)
    if isinstance(err, InventError) and clean == text:
        fresh: BaseException = err
    else:
        try:
            fresh = type(err)(clean) if isinstance(err, InventError) else None  # type: ignore[assignment]
        except Exception:  # noqa: BLE001 - a class that cannot be rebuilt from a message
            fresh = None  # type: ignore[assignment]
        if fresh is None:
            fresh = LLMError(f"{type(err).__name__}: {scrub(text)}")
    # the chain goes, but not what it says about the server: a refused or reset connection
    # (read by the retry rules to tell a dead server from a slow one) stays, scrubbed
    fresh.__cause__ = _connection_cause(err)
    fresh.__context__ = None
    fresh.__suppress_context__ = True
    return fresh


def _connection_cause(err: BaseException | None) -> BaseException | None:
    """A scrubbed copy of the first :class:`ConnectionError` in ``err``'s chain, or None."""
    for _ in range(10):
        if err is None:
            return None
        if isinstance(err, ConnectionError):
            return type(err)(scrub(str(err)))
        err = err.__cause__ or err.__context__
    return None
