"""HTTP plumbing of the OpenAI-compatible backend: URL credentials, a total deadline, Cancel.

Cancel reaches a request in flight: while a request of a cancellable run
(:func:`invent_core.llm.cancel.sending_for`) waits for its reply, the run's
Cancel shuts the request's socket, so the waiting thread is freed at once
(and a server such as llama.cpp, seeing the connection closed, stops
generating for it).

``openai`` sits on an httpx-style library (``httpx`` for openai 1.x, ``httpx2``
for openai 3.x); the one it uses is found from ``openai.DefaultHttpxClient``,
so nothing here imports a second HTTP stack.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import logging
import re
import socket
import time
import urllib.parse
from typing import Any

from ..errors import SECRET_PARAM, remember_secret, scrub
from .cancel import current_cancel


def split_credentials(url: str) -> tuple[str, tuple[str, str] | None]:
    """Split ``https://user:key@host/v1`` into the URL without them and ``(user, key)``.

    The URL returned is the one to show, save or hash: without ``user:password@``
    and without the query-string parameters that carry a credential
    (:func:`secret_query`: ``?key=``, ``?access_token=`` …). The pair, when there
    is one, is only ever sent (as HTTP basic auth, what the HTTP client did with
    such a URL before); both are remembered as secrets (:func:`~invent_core.errors.scrub`).

    Examples
    --------
    >>> split_credentials("https://me:sk-1@example.org:8443/v1")
    ('https://example.org:8443/v1', ('me', 'sk-1'))
    >>> split_credentials("http://127.0.0.1:8000/v1")
    ('http://127.0.0.1:8000/v1', None)
    >>> split_credentials("https://h/v1?api-version=2024-06&key=abc")
    ('https://h/v1?api-version=2024-06', None)
    """
    parts = urllib.parse.urlsplit(url)
    secrets = secret_query(url)
    for value in secrets.values():
        remember_secret(value)
    if secrets:
        kept = [(k, v) for k, v in _query(parts.query) if k not in secrets]
        parts = parts._replace(query=urllib.parse.urlencode(kept))
    if "@" not in parts.netloc:
        return (urllib.parse.urlunsplit(parts) if secrets else url), None
    userinfo, _, hostport = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    clean = urllib.parse.urlunsplit(parts._replace(netloc=hostport))
    auth = (urllib.parse.unquote(user), urllib.parse.unquote(password))
    remember_secret(auth[1] or auth[0])
    return clean, auth


def secret_query(url: str) -> dict[str, str]:
    """The query-string parameters of ``url`` that carry a credential (sent, never shown).

    >>> secret_query("https://h/v1?api-version=2024-06&key=abc&access_token=t")
    {'key': 'abc', 'access_token': 't'}
    """
    return {k: v for k, v in _query(urllib.parse.urlsplit(url).query) if _SECRET_NAME.fullmatch(k)}


def url_query(url: str) -> dict[str, str]:
    """Every query-string parameter of ``url`` (sent as the client's default query)."""
    return dict(_query(urllib.parse.urlsplit(url).query))


def _query(text: str) -> list[tuple[str, str]]:
    return urllib.parse.parse_qsl(text, keep_blank_values=True)


_SECRET_NAME = re.compile(SECRET_PARAM, re.I)


def redact_url(url: str) -> str:
    """``url`` without ``user:password@`` nor query-string credentials (display, artefacts, cache keys)."""
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
    scrub_library_logs(lib.__name__)
    transport = _deadline_transport_class()(deadline)
    pool = getattr(transport, "_pool", None)
    if pool is not None and hasattr(pool, "_network_backend"):  # else Cancel waits for replies
        pool._network_backend = _CancellableBackend(pool._network_backend)
    return openai.DefaultHttpxClient(
        transport=transport, auth=lib.BasicAuth(*auth) if auth else None
    )


class _ScrubLog(logging.Filter):
    """A log record's text with its credentials replaced (:func:`~invent_core.errors.scrub`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            text = record.getMessage()
        except Exception:  # noqa: BLE001 - a record that cannot be formatted is left as it is
            return True
        clean = scrub(text)
        if clean != text:
            record.msg, record.args = clean, ()
        return True


_SCRUB_LOG = _ScrubLog()


def scrub_library_logs(http: str) -> None:
    """Scrub what the HTTP stack and ``openai`` log: the URL with its ``?key=``, a redirect's Location.

    httpx logs each request's URL (INFO), httpcore the reply's headers (DEBUG): a
    filter on each of their loggers (a logger's filters see only its own records).
    """
    roots = (http, "httpx", "httpcore", http.replace("httpx", "httpcore"), "openai")
    names = set(roots) | {
        n for n in logging.root.manager.loggerDict if n.startswith(tuple(f"{r}." for r in roots))
    }
    for name in names:
        logger = logging.getLogger(name)
        if _SCRUB_LOG not in logger.filters:
            logger.addFilter(_SCRUB_LOG)


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


class _CancellableBackend:
    """A network backend whose connections a run's Cancel can cut while they wait to read."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def connect_tcp(self, *args: Any, **kwargs: Any) -> Any:
        """Connect as the inner backend does; the stream is a :class:`_CancellableStream`."""
        return _CancellableStream(self._inner.connect_tcp(*args, **kwargs))

    def __getattr__(self, name: str) -> Any:
        """Everything else (unix sockets, sleep) is the inner backend's."""
        return getattr(self._inner, name)


class _CancellableStream:
    """A network stream that sends nothing, and whose blocking ``read`` ends, once the thread's run is cancelled."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        """Read as the inner stream does; Cancel shuts the socket, which ends the read."""
        token = current_cancel()
        if token is None:
            return self._inner.read(max_bytes, timeout)
        unregister = token.on_cancel(self._shut)
        try:
            return self._inner.read(max_bytes, timeout)
        finally:
            unregister()

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        """Write as the inner stream does, unless this thread's run was cancelled.

        The run's Cancel is checked before each request is started, but the
        request is written a moment later; a Cancel in between must not let it
        reach the server. Once cancelled, the socket is shut instead, so the
        write fails as a cut read does and the server gets nothing more.
        """
        token = current_cancel()
        if token is not None and token.cancelled:
            self._shut()
        self._inner.write(buffer, timeout)

    def _shut(self) -> None:
        sock = self._inner.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def start_tls(self, *args: Any, **kwargs: Any) -> Any:
        """Start TLS as the inner stream does; the TLS stream can be cut too."""
        return _CancellableStream(self._inner.start_tls(*args, **kwargs))

    def __getattr__(self, name: str) -> Any:
        """close, get_extra_info: the inner stream's."""
        return getattr(self._inner, name)
