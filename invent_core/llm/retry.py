"""When a failed OpenAI-protocol request is tried again, and how long to wait first.

:class:`RetryPolicy` is the back-off (exponential, full jitter) and the loop
that applies it (:meth:`RetryPolicy.run`); :func:`retry_wait` sorts a failure
into "try again (after the server's ``Retry-After``, if it sent one)" and
"give up now" (an ``LLMError`` that says what to fix). Cancel is checked
before every attempt and during every back-off (:mod:`.cancel`), so a
cancelled run neither retries nor waits.
"""

from __future__ import annotations

import email.utils
import json
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from ..errors import LLMError, scrub
from .cancel import current_cancel, raise_if_cancelled
from .endpoints import DOWN, FAILED, OK, OTHER, OVERLOAD, THROTTLED
from .http_transport import http_library
from .replies import MalformedReply

__all__ = [
    "RetryPolicy",
    "brief",
    "is_timeout",
    "outcome",
    "refused",
    "retry_after",
    "retry_wait",
]

log = logging.getLogger(__name__)

_T = TypeVar("_T")


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with full jitter.

    Defaults: 5 attempts, 0.5 s base doubling to at most 20 s (common practice
    for rate-limited APIs); ``Retry-After`` is honoured up to
    ``max_retry_after`` seconds. Retried: 408, 409, 429, 5xx, timeouts,
    dropped connections, malformed or empty replies. Never retried: other 4xx
    (401/403 bad key, 404 unknown model, 400 bad request).
    """

    max_attempts: int = 5
    base_delay: float = 0.5
    max_delay: float = 20.0
    max_retry_after: float = 60.0
    jitter: float = 1.0  # fraction of the delay that is random (1.0 = full jitter)

    def backoff(self, attempt: int, rng: random.Random) -> float:
        """Delay before attempt ``attempt + 1`` (attempt counts from 1)."""
        delay = min(self.max_delay, self.base_delay * (2 ** (attempt - 1)))
        return delay * (1.0 - self.jitter) + delay * self.jitter * rng.random()

    def run(
        self,
        attempt: Callable[[], _T],
        rng: random.Random,
        *,
        classify: Callable[[Exception], float | None],
        give_up: Callable[[Exception | None, int], Exception],
        retry_timeouts: bool = True,
    ) -> _T:
        """``attempt()``, tried again after each retryable failure until it succeeds.

        ``classify(err)`` returns the server's ``Retry-After`` seconds (or
        None) for a retryable failure and raises for any other;
        ``give_up(last, attempts)`` builds the error raised when no attempt
        is left. A timed-out attempt ends the loop unless ``retry_timeouts``.
        """
        last: Exception | None = None
        n = 0
        token = current_cancel()
        while n < self.max_attempts:
            n += 1
            raise_if_cancelled()
            try:
                return attempt()
            except Exception as err:  # noqa: BLE001 - sorted by classify, unknown re-raised
                raise_if_cancelled()  # Cancel cut the connection: not a failure to retry
                wait_s = classify(err)
                last = err
            if n == self.max_attempts or (is_timeout(last) and not retry_timeouts):
                break
            backoff = self.backoff(n, rng)
            delay = backoff if wait_s is None else min(self.max_retry_after, max(wait_s, 0.0))
            log.info("LLM request failed (%s); retry %d in %.2fs", brief(last), n, delay)
            if token is None:
                time.sleep(delay)
            elif token.wait(delay):  # Cancel during the back-off: no retry
                break
        raise_if_cancelled()
        raise give_up(last, n) from last


def retry_after(err: Exception) -> float | None:
    """Seconds from a ``Retry-After`` (or ``retry-after-ms``) header, if any."""
    response = getattr(err, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, when.timestamp() - time.time())


def retry_wait(err: Exception, base_url: str, model: str | None) -> float | None:
    """For a retryable ``err``: the server's Retry-After (or None); else raise.

    Raises ``LLMError`` for failures retrying cannot fix (401, 403, 404,
    other 4xx), naming ``base_url`` and ``model``, and re-raises anything that
    is not an HTTP or reply failure.
    """
    import openai

    if isinstance(err, openai.AuthenticationError):
        raise LLMError(
            f"{base_url}: authentication failed (HTTP 401): check the API key "
            "(OPENAI_API_KEY or --api-key-env)"
        ) from err
    if isinstance(err, openai.PermissionDeniedError):
        raise LLMError(
            f"{base_url}: permission denied (HTTP 403) for model {model!r}: "
            "the key may not have access to it"
        ) from err
    if isinstance(err, openai.NotFoundError):
        raise LLMError(
            f"{base_url}: not found (HTTP 404): unknown model {model!r} or wrong "
            f"base URL (it usually ends in /v1): {brief(err)}"
        ) from err
    if isinstance(err, openai.APIStatusError):
        if err.status_code not in (408, 409, 429) and err.status_code < 500:
            raise LLMError(f"{base_url}: HTTP {err.status_code}: {brief(err)}") from err
        return retry_after(err)
    # connection errors and timeouts (APITimeoutError is an APIConnectionError), a
    # reply that is not JSON or not a completion, an error event inside a stream,
    # and transport errors raised while a stream is read
    transport = http_library().TransportError  # raised as-is while a stream is read
    if isinstance(err, openai.APIError | json.JSONDecodeError | MalformedReply | transport):
        return None
    raise err


def brief(err: BaseException | None) -> str:
    """The server's own error message when it sent one, else the exception's (300 chars).

    Scrubbed (:func:`~invent_core.errors.scrub`): it goes into messages and the log.
    """
    if err is None:
        return ""
    body = getattr(err, "body", None)
    if isinstance(body, dict):
        inner = body.get("error")
        msg = body.get("message") or (inner.get("message") if isinstance(inner, dict) else None)
        if msg:
            return scrub(str(msg))[:300]
    return scrub(str(err))[:300]


def is_timeout(err: BaseException | None) -> bool:
    """Whether ``err`` is a timeout (the client's, or the deadline's inside a stream)."""
    import openai

    return isinstance(err, openai.APITimeoutError | http_library().TimeoutException)


def refused(err: BaseException | None) -> bool:
    """Whether ``err`` is (or was caused by) a refused connection: nothing listens on the port."""
    seen = 0
    while err is not None and seen < 10:
        if isinstance(err, ConnectionRefusedError) or "connection refused" in str(err).lower():
            return True
        err, seen = err.__cause__ or err.__context__, seen + 1
    return False


def outcome(err: BaseException | None) -> str:
    """What a request's end says about its server (:meth:`~invent_core.llm.endpoints.Router.release`).

    ``OK``; ``THROTTLED`` (429: slow down); ``OVERLOAD`` (503 or a timeout:
    slow down, and the server may be failing); ``FAILED`` (another 5xx);
    ``DOWN`` (no connection, or one dropped); ``OTHER`` (a 4xx or a malformed
    reply: the request's fault, not the server's health).
    """
    import openai

    if err is None:
        return OK
    if is_timeout(err):
        return OVERLOAD
    if isinstance(err, openai.APIStatusError):
        if err.status_code == 429:
            return THROTTLED
        if err.status_code == 503:
            return OVERLOAD
        return FAILED if err.status_code >= 500 else OTHER
    if isinstance(err, openai.APIConnectionError | http_library().TransportError):
        return DOWN
    return OTHER
