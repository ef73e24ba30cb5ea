"""HTTP plumbing of the OpenAI-compatible backend: URL credentials and a total deadline.

``openai`` sits on an httpx-style library (``httpx`` for openai 1.x, ``httpx2``
for openai 3.x); the one it uses is found from ``openai.DefaultHttpxClient``,
so nothing here imports a second HTTP stack.
"""

from __future__ import annotations

import functools
import importlib
import time
import urllib.parse
from typing import Any


def split_credentials(url: str) -> tuple[str, tuple[str, str] | None]:
    """Split ``https://user:key@host/v1`` into the URL without them and ``(user, key)``.

    The URL returned is the one to show, save or hash; the pair, when there is
    one, is only ever sent (as HTTP basic auth, what the HTTP client did with
    such a URL before).

    Examples
    --------
    >>> split_credentials("https://me:sk-1@example.org:8443/v1")
    ('https://example.org:8443/v1', ('me', 'sk-1'))
    >>> split_credentials("http://127.0.0.1:8000/v1")
    ('http://127.0.0.1:8000/v1', None)
    """
    parts = urllib.parse.urlsplit(url)
    if "@" not in parts.netloc:
        return url, None
    userinfo, _, hostport = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    clean = urllib.parse.urlunsplit(parts._replace(netloc=hostport))
    return clean, (urllib.parse.unquote(user), urllib.parse.unquote(password))


def redact_url(url: str) -> str:
    """``url`` without any ``user:password@`` part (for display, artefacts and cache keys)."""
    return split_credentials(url)[0]


def http_client(deadline: float, auth: tuple[str, str] | None = None) -> Any:
    """Make an HTTP client for ``openai.OpenAI`` whose every request has a total deadline.

    Parameters
    ----------
    deadline
        Seconds from sending a request to the last byte of its reply. The
        client's own timeouts bound each read, so a server that trickles one
        byte at a time would otherwise hold a request open for ever; here the
        reply is cut (``ReadTimeout``) once the deadline has passed, checked as
        bytes arrive. A server silent for longer is cut by the read timeout.
    auth
        ``(user, password)`` sent as HTTP basic auth, or None.
    """
    import openai

    lib = http_library()
    transport = _deadline_transport_class()(deadline)
    return openai.DefaultHttpxClient(
        transport=transport, auth=lib.BasicAuth(*auth) if auth else None
    )


def http_library() -> Any:
    """Find the httpx-style module the installed ``openai`` is built on."""
    import openai

    base = next(c for c in openai.DefaultHttpxClient.__mro__ if c.__name__ == "Client")
    return importlib.import_module(base.__module__.split(".")[0])


@functools.lru_cache(maxsize=1)
def _deadline_transport_class() -> type:
    lib = http_library()

    class DeadlineStream(lib.SyncByteStream):  # type: ignore[name-defined,misc]
        """A reply body that raises ``ReadTimeout`` once the request's deadline has passed."""

        def __init__(self, inner: Any, deadline: float, total: float) -> None:
            self._inner, self._deadline, self._total = inner, deadline, total

        def __iter__(self) -> Any:
            for chunk in self._inner:
                if time.monotonic() > self._deadline:
                    raise lib.ReadTimeout(f"no complete reply within {self._total:g} s")
                yield chunk

        def close(self) -> None:
            self._inner.close()

    class DeadlineTransport(lib.HTTPTransport):  # type: ignore[name-defined,misc]
        """The default transport, with a total deadline per request."""

        def __init__(self, total: float, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.total = float(total)

        def handle_request(self, request: Any) -> Any:
            deadline = time.monotonic() + self.total
            response = super().handle_request(request)
            response.stream = DeadlineStream(response.stream, deadline, self.total)
            return response

    return DeadlineTransport
