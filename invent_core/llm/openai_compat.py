"""OpenAI-compatible chat backend: OpenAI, vLLM, llama.cpp servers, the embedded model.

One code path for every backend: the official ``openai`` client (its own
retries disabled, ``max_retries=0``) plus our retry policy, a bounded thread
pool for concurrency and the persistent cache. The API key lives only inside
the client object: it is never logged, stored, cached nor part of ``repr``;
credentials written into the base URL (``https://user:key@host/v1``) are taken
out of it at once and only ever sent.

Only a usable completion is returned or cached. A 2xx reply that is not one —
not JSON, an HTML page, no ``choices``, ``content: null``, an empty text, a
stream that ends without any text — is a failed request, retried like a 5xx
and, when every attempt fails, an ``LLMError``. That includes a model that
really generated nothing: an empty answer cannot be scored, and the caller
reports the question as failed instead of scoring "" as an answer.
"""

from __future__ import annotations

import email.utils
import json
import logging
import random
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..errors import Cancelled, LLMError, LLMTimeout
from ._http import current_cancel, http_client, http_library, sending_for, split_credentials
from .base import Completion, Message, ProgressFn, Request
from .cache import LLMCache

if TYPE_CHECKING:
    from ..progress import CancelToken

log = logging.getLogger(__name__)


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


def _retry_after(err: Exception) -> float | None:
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


class _Malformed(Exception):
    """A 2xx reply that is not a usable chat completion."""


def _usage(obj: Any) -> dict[str, int]:
    usage = getattr(obj, "usage", None)
    return {
        "prompt_tokens": int(getattr(usage, "prompt_tokens", 0) or 0),
        "completion_tokens": int(getattr(usage, "completion_tokens", 0) or 0),
    }


def _first_token_logprobs(choice: Any) -> list[list[Any]]:
    """``[[token, logprob], …]`` of the first generated token, best first."""
    content = getattr(getattr(choice, "logprobs", None), "content", None)
    if not content:
        return []
    first = content[0]
    alts = getattr(first, "top_logprobs", None) or [first]
    return sorted(([a.token, float(a.logprob)] for a in alts), key=lambda t: -t[1])


def _check_usable(completion: Completion, request: Request) -> Completion:
    """``completion``, or ``_Malformed`` when it carries nothing to use.

    Usable: some text, or — for a logprobs request (the P(True) judge reads
    the first token's alternatives, not the text) — first-token logprobs.
    """
    if completion.text or (request.logprobs and completion.logprobs):
        return completion
    raise _Malformed(
        f"the reply has no text (finish_reason={completion.finish_reason!r}): "
        "content null, empty, or a stream that ended without any"
    )


def _read_stream(stream: Any, stop_when: Callable[[str], bool]) -> Completion:
    """Collect a streamed reply's text until it ends or ``stop_when`` says enough."""
    parts: list[str] = []
    finish: str | None = None
    usage_d = {"prompt_tokens": 0, "completion_tokens": 0}
    for chunk in stream:
        if getattr(chunk, "usage", None) is not None:
            usage_d = _usage(chunk)
        if not getattr(chunk, "choices", None):
            continue
        choice = chunk.choices[0]
        delta = getattr(getattr(choice, "delta", None), "content", None)
        if choice.finish_reason:
            finish = choice.finish_reason
        if delta:
            parts.append(delta)
            if "\n" in delta and stop_when("".join(parts)):
                finish = "early_stop"
                break
    if finish == "early_stop" and not usage_d["completion_tokens"]:
        usage_d["completion_tokens"] = len(parts)  # llama.cpp streams one token per chunk
    return Completion(text="".join(parts), usage=usage_d, finish_reason=finish)


def _stream_choices(
    client: Any, kwargs: dict[str, Any], n: int, on_choice: Callable[[], None]
) -> list[Completion]:
    """One streamed request for ``n`` choices; ``on_choice()`` as each one finishes.

    The choices decode side by side and end at different times (a short
    answer before a long one), so a run's counter moves with each. The usage
    (llama.cpp: the first choice's) goes on choice 0, as for the plain request.
    """
    kwargs = {k: v for k, v in kwargs.items() if k not in ("logprobs", "top_logprobs")}
    t0 = time.perf_counter()
    texts: list[list[str]] = [[] for _ in range(n)]
    finish: list[str | None] = [None] * n
    usage_d: dict[str, int] = {}
    stream = client.chat.completions.create(
        **kwargs, n=n, stream=True, stream_options={"include_usage": True}
    )
    try:
        for chunk in stream:
            if getattr(chunk, "usage", None) is not None:
                usage_d = _usage(chunk)
            for c in getattr(chunk, "choices", None) or []:
                k = int(getattr(c, "index", 0) or 0)
                if not 0 <= k < n:
                    raise _Malformed(f"asked for {n} choices, got choice index {k}")
                delta = getattr(getattr(c, "delta", None), "content", None)
                if delta:
                    texts[k].append(delta)
                if c.finish_reason and finish[k] is None:
                    finish[k] = c.finish_reason
                    on_choice()
    finally:
        stream.close()
    if any(f is None for f in finish):
        raise _Malformed(f"the stream ended with {finish.count(None)} of {n} choices unfinished")
    latency = time.perf_counter() - t0
    return [
        Completion(
            text="".join(texts[k]),
            usage=usage_d if k == 0 else {},
            latency=latency,
            finish_reason=finish[k],
        )
        for k in range(n)
    ]


class OpenAICompatLLM:
    """Chat completions over the OpenAI protocol, with retries, concurrency and a cache.

    Parameters
    ----------
    base_url
        e.g. ``https://api.openai.com/v1``, ``http://127.0.0.1:8000/v1`` (vLLM).
        Credentials in it (``https://user:key@host/v1``) are sent as HTTP basic
        auth and removed from the URL kept, shown, saved and hashed.
    model
        Model name the server serves. ``None``: asked from ``/v1/models`` on
        first use (works when the server serves exactly one).
    api_key
        Secret; when ``None`` the client reads ``OPENAI_API_KEY``; servers
        without auth get a placeholder. Never stored outside the client.
    cache
        An ``LLMCache`` or None (no persistent cache).
    concurrency
        Requests in flight at once in ``complete_many`` (default 4).
    timeout
        Total deadline of one attempt, in seconds (default 60): connecting,
        waiting and reading the whole reply. A server that trickles bytes is
        cut off at the deadline; the attempt then counts as a timeout.
    retry
        The retry policy (the client's own retries are off).
    """

    #: Whether a timed-out attempt is tried again (a remote server may be busy
    #: for a moment; see ``LocalLLM`` for the packaged model).
    retry_timeouts = True
    #: Most choices one request may ask for (OpenAI ``n``). Above 1,
    #: ``complete_many`` sends requests that differ only in ``replication`` as
    #: one request with ``n`` choices: the prompt is evaluated once and the
    #: replications decode side by side (``LocalLLM``: the server's slots).
    #: 1 for other servers: each replication keeps its own request and seed.
    max_choices: int = 1
    #: Whether a request for several choices is streamed, so that each choice is
    #: counted when it finishes rather than all at the end (the packaged llama.cpp
    #: server does this; other servers get the plain request).
    streams_choices: bool = False

    def __init__(
        self,
        *,
        base_url: str,
        model: str | None = None,
        api_key: str | None = None,
        cache: LLMCache | None = None,
        concurrency: int = 4,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        name: str = "openai",
    ) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be >= 1, got {concurrency}")
        if not timeout > 0:
            raise ValueError(f"timeout must be > 0 seconds, got {timeout}")
        self.name = name
        url, self._url_auth = split_credentials(base_url.rstrip("/"))
        self.base_url = url  # never holds credentials: it is shown and part of the identity
        self._model = model
        self._api_key = api_key
        self.cache = cache
        self.concurrency = int(concurrency)
        # One budget for the whole backend: pipelined batch rows, a page and its
        # baselines all share it, so ``concurrency`` is the requests in flight, full stop.
        self._in_flight = threading.BoundedSemaphore(self.concurrency)
        self.timeout = float(timeout)
        self.retry = retry or RetryPolicy()
        self._client: Any = None
        self._client_lock = threading.Lock()
        self._rng = random.Random()
        self._stats_lock = threading.Lock()
        self.requests_sent = 0  # HTTP attempts, including retries
        self.completions_made = 0

    def __repr__(self) -> str:
        """Show the URL and model, never a key."""
        return f"{type(self).__name__}(base_url={self.base_url!r}, model={self._model!r})"

    # -- identity -------------------------------------------------------------
    def _identity_base(self) -> str:
        return self.base_url

    @property
    def model(self) -> str:
        """The model name sent with each request (asked from the server when not given)."""
        if self._model is None:
            self._model = self._discover_model()
        return self._model

    @property
    def identity(self) -> str:
        """Cache-key identity: the base URL without credentials, plus the model."""
        return f"{self._identity_base()}|model={self.model}"

    # -- client -----------------------------------------------------------------
    def _base_url_for_client(self) -> str:
        return self.base_url

    def _get_client(self) -> Any:
        with self._client_lock:
            if self._client is None:
                import os

                import openai

                key = self._api_key or os.environ.get("OPENAI_API_KEY") or "no-key"
                self._client = openai.OpenAI(
                    base_url=self._base_url_for_client(),
                    api_key=key,
                    max_retries=0,
                    timeout=self.timeout,
                    http_client=http_client(self.timeout, self._url_auth),
                )
            return self._client

    def _discover_model(self) -> str:
        try:
            models = [m.id for m in self._call_with_retry(lambda c: c.models.list().data)]
        except LLMError as err:
            raise LLMError(
                f"{self.base_url}: no model given and listing models failed: {err}"
            ) from err
        if len(models) != 1:
            raise LLMError(
                f"{self.base_url} serves {len(models)} models ({', '.join(models[:10])}); "
                "pass model=… (CLI: --model)"
            )
        return models[0]

    # -- retry --------------------------------------------------------------------
    def _call_with_retry(self, fn: Any) -> Any:
        policy = self.retry
        last: Exception | None = None
        attempt = 0
        token = current_cancel()
        while attempt < policy.max_attempts:
            attempt += 1
            _stop_if_cancelled(token)
            client = self._get_client()
            with self._stats_lock:
                self.requests_sent += 1
            try:
                with self._in_flight:
                    return fn(client)
            except Exception as err:  # noqa: BLE001 - sorted by _retry_wait, unknown re-raised
                _stop_if_cancelled(token)  # Cancel cut the connection: not a failure to retry
                wait_s = self._retry_wait(err)
                last = err
            if attempt == policy.max_attempts or (_is_timeout(last) and not self.retry_timeouts):
                break
            backoff = policy.backoff(attempt, self._rng)
            delay = backoff if wait_s is None else min(policy.max_retry_after, max(wait_s, 0.0))
            log.info("LLM request failed (%s); retry %d in %.2fs", _brief(last), attempt, delay)
            if token is None:
                time.sleep(delay)
            elif token.wait(delay):  # Cancel during the back-off: no retry
                break
        _stop_if_cancelled(token)
        raise self._give_up(last, attempt) from last

    def _retry_wait(self, err: Exception) -> float | None:
        """For a retryable ``err``: the server's Retry-After (or None); else raise.

        Raises ``LLMError`` for failures retrying cannot fix (401, 403, 404,
        other 4xx) and re-raises anything that is not an HTTP or reply failure.
        """
        import openai

        if isinstance(err, openai.AuthenticationError):
            raise LLMError(
                f"{self.base_url}: authentication failed (HTTP 401): check the API key "
                "(OPENAI_API_KEY or --api-key-env)"
            ) from err
        if isinstance(err, openai.PermissionDeniedError):
            raise LLMError(
                f"{self.base_url}: permission denied (HTTP 403) for model {self._model!r}: "
                "the key may not have access to it"
            ) from err
        if isinstance(err, openai.NotFoundError):
            raise LLMError(
                f"{self.base_url}: not found (HTTP 404): unknown model {self._model!r} or wrong "
                f"base URL (it usually ends in /v1): {_brief(err)}"
            ) from err
        if isinstance(err, openai.APIStatusError):
            if err.status_code not in (408, 409, 429) and err.status_code < 500:
                raise LLMError(f"{self.base_url}: HTTP {err.status_code}: {_brief(err)}") from err
            return _retry_after(err)
        # connection errors and timeouts (APITimeoutError is an APIConnectionError), a
        # reply that is not JSON or not a completion, an error event inside a stream,
        # and transport errors raised while a stream is read
        transport = http_library().TransportError  # raised as-is while a stream is read
        if isinstance(err, openai.APIError | json.JSONDecodeError | _Malformed | transport):
            return None
        raise err

    def _give_up(self, last: Exception | None, attempts: int) -> LLMError:
        """Build the error that ends a request: ``LLMTimeout`` when the last attempt timed out."""
        if _is_timeout(last):
            return LLMTimeout(
                f"{self.base_url}: no complete reply within the {self.timeout:g} s deadline "
                f"({attempts} attempt(s)); the server is overloaded or trickling its reply "
                "(a longer deadline: timeout=…)"
            )
        return LLMError(
            f"{self.base_url}: gave up after {attempts} attempts: "
            f"{type(last).__name__}: {_brief(last)}"
        )

    # -- requests -----------------------------------------------------------------
    def _kwargs(self, request: Request) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": request.message_list,
            "temperature": float(request.temperature),
            "seed": int(request.effective_seed),
            "max_tokens": int(request.max_tokens),
        }
        if request.frequency_penalty:
            kwargs["frequency_penalty"] = float(request.frequency_penalty)
        if request.stop:
            kwargs["stop"] = list(request.stop)
        if request.logprobs:
            kwargs["logprobs"] = True
            if request.top_logprobs:
                kwargs["top_logprobs"] = int(request.top_logprobs)
        return kwargs

    def _send(self, request: Request) -> Completion:
        kwargs = self._kwargs(request)

        def call(client: Any) -> Completion:
            t0 = time.perf_counter()
            resp = client.chat.completions.create(**kwargs)
            if request.stop and _empty_before_stop(resp):
                # the reply began with a stop string ("\n" before the answer): ask
                # once more without it; the caller keeps the first non-empty line
                resp = client.chat.completions.create(
                    **{k: v for k, v in kwargs.items() if k != "stop"}
                )
            latency = time.perf_counter() - t0
            choices = getattr(resp, "choices", None)
            if not choices or getattr(choices[0], "message", None) is None:
                raise _Malformed(f"reply without choices: {str(resp)[:200]}")
            choice = choices[0]
            completion = Completion(
                text=choice.message.content or "",
                usage=_usage(resp),
                latency=latency,
                logprobs=_first_token_logprobs(choice) if request.logprobs else None,
                finish_reason=getattr(choice, "finish_reason", None),
            )
            return _check_usable(completion, request)

        completion = self._call_with_retry(call)
        with self._stats_lock:
            self.completions_made += 1
        return completion

    def _send_choices(
        self, request: Request, n: int, on_choice: Callable[[], None] | None = None
    ) -> list[Completion]:
        """One request for ``n`` choices (the replications of ``request``'s prompt).

        llama.cpp reports the usage of the first choice only, so the others
        carry none; a choice with no text is returned as it is (the caller
        asks it again on its own).
        """
        if on_choice is not None and self.streams_choices:
            completions = self._call_with_retry(
                lambda client: _stream_choices(client, self._kwargs(request), n, on_choice)
            )
            with self._stats_lock:
                self.completions_made += n
            return completions
        kwargs = {**self._kwargs(request), "n": n}

        def call(client: Any) -> list[Completion]:
            t0 = time.perf_counter()
            resp = client.chat.completions.create(**kwargs)
            latency = time.perf_counter() - t0
            choices = sorted(getattr(resp, "choices", None) or [], key=lambda c: c.index)
            if len(choices) != n or any(getattr(c, "message", None) is None for c in choices):
                raise _Malformed(f"asked for {n} choices, got {len(choices)}: {str(resp)[:200]}")
            return [
                Completion(
                    text=c.message.content or "",
                    usage=_usage(resp) if k == 0 else {},
                    latency=latency,
                    finish_reason=getattr(c, "finish_reason", None),
                )
                for k, c in enumerate(choices)
            ]

        completions = self._call_with_retry(call)
        with self._stats_lock:
            self.completions_made += n
        return completions

    def _send_streaming(self, request: Request, stop_when: Callable[[str], bool]) -> Completion:
        kwargs = self._kwargs(request)
        kwargs.pop("logprobs", None)
        kwargs.pop("top_logprobs", None)

        def call(client: Any) -> Completion:
            t0 = time.perf_counter()
            stream = client.chat.completions.create(
                **kwargs, stream=True, stream_options={"include_usage": True}
            )
            try:
                completion = _read_stream(stream, stop_when)
            finally:
                stream.close()
            completion.latency = time.perf_counter() - t0
            return _check_usable(completion, request)

        completion = self._call_with_retry(call)
        with self._stats_lock:
            self.completions_made += 1
        return completion

    def complete_until(
        self, request: Request, stop_when: Callable[[str], bool], *, tag: str
    ) -> Completion:
        """Stream one completion and stop as soon as ``stop_when(text_so_far)`` is true.

        ``stop_when`` is checked after each chunk holding a newline (e.g. "n
        distinct paraphrases parsed" or "the model started repeating itself"),
        which saves the rest of ``max_tokens``. ``tag`` names the stop rule and
        is part of the cache key, so a cached text is one cut by the same rule.
        Logprobs are not available here.
        """
        keyed = replace(request, tag=f"{request.tag}|until:{tag}")
        identity = self.identity if self.cache is not None else None
        if identity is not None:
            hit = self.cache.get(identity, keyed)
            if hit is not None:
                return hit
        completion = self._send_streaming(request, stop_when)
        if identity is not None:
            self.cache.put(identity, keyed, completion)
        return completion

    def _one(self, request: Request, identity: str | None) -> Completion:
        if self.cache is not None and identity is not None:
            hit = self.cache.get(identity, request)
            if hit is not None:
                return hit
        completion = self._send(request)
        if self.cache is not None and identity is not None:
            self.cache.put(identity, request, completion)
        return completion

    def complete(
        self,
        messages: Sequence[Message],
        *,
        temperature: float = 0.0,
        seed: int = 0,
        max_tokens: int = 32,
        logprobs: bool = False,
        top_logprobs: int = 0,
        replication: int = 0,
    ) -> Completion:
        """One completion (read from the cache when present).

        Parameters
        ----------
        messages
            Chat messages, e.g. ``invent_core.llm.user("…")``.
        temperature, seed, max_tokens
            Sampling settings, sent as they are.
        logprobs, top_logprobs
            When ``logprobs``: ``Completion.logprobs`` holds the top
            ``top_logprobs`` alternatives of the first token.
        """
        request = Request(
            messages=messages,
            temperature=temperature,
            seed=seed,
            max_tokens=max_tokens,
            logprobs=logprobs,
            top_logprobs=top_logprobs,
            replication=replication,
        )
        return self._one(request, self.identity if self.cache is not None else None)

    def complete_many(
        self,
        requests: Sequence[Request],
        progress: ProgressFn | None = None,
        *,
        concurrency: int | None = None,
        cancel: CancelToken | None = None,
    ) -> list[Completion]:
        """All ``requests``, in order; cache hits first, the rest ``concurrency`` at a time.

        Parameters
        ----------
        requests
            The requests; independent ones are all kept in flight,
            ``concurrency`` (default: this backend's, the server's slots for
            the packaged model) at a time. With :attr:`max_choices` > 1, the
            replications of one prompt go as one request with ``n`` choices
            (seeded with the first one's seed; the server derives the others),
            each cached under its own key.
        progress
            ``progress(done, total)`` after the cache look-up and after each request.
        concurrency
            Requests in flight at once for this call.
        cancel
            Checked before each request is sent: once cancelled, no further
            request goes out, the ones in flight finish (and are cached) and
            :class:`~invent_core.errors.Cancelled` is raised.

        Raises
        ------
        LLMError
            The first request that failed for good (the others are cancelled).
        Cancelled
            When ``cancel`` was cancelled before every request was sent.
        """
        requests = list(requests)
        total = len(requests)
        out: list[Completion | None] = [None] * total
        identity = self.identity if self.cache is not None else None
        jobs = self._jobs(requests, self._cache_hits(requests, identity, out))
        count = _Count(total - sum(len(job) for job in jobs), total, progress)
        count.add(0)

        def run(job: list[int]) -> list[Completion]:
            if cancel is not None:
                cancel.raise_if_cancelled(count.done, total)
            ticked = [0]

            def one() -> None:  # a choice finished before its request did (streamed)
                if ticked[0] < len(job):  # a retried request counts its choices once
                    ticked[0] += 1
                    count.add(1)

            with sending_for(cancel):  # Cancel cuts this job's request in flight
                result = self._run_job(requests, job, identity, one)
            if len(job) > ticked[0]:
                count.add(len(job) - ticked[0])
            return result

        slots = concurrency or self.concurrency
        workers = max(1, min(len(jobs), slots // max((len(j) for j in jobs), default=1)))
        try:
            for job, result in _each_job(run, jobs, workers):
                for i, completion in zip(job, result, strict=True):
                    out[i] = completion
        except Cancelled as err:  # a request in flight was cut: say how far it got
            if cancel is not None:
                cancel.raise_if_cancelled(count.done, total)
            raise err
        return [c for c in out if c is not None]

    def _jobs(self, requests: list[Request], todo: list[int]) -> list[list[int]]:
        """Split the indices to ask into jobs: one request each, or replications grouped.

        Requests that differ only in ``replication`` and ``state`` form a group
        (at most :attr:`max_choices` each) when the backend takes several
        choices per request: the replications of one prompt, and those of
        states with the same text (a perturbation padded by duplication), whose
        shared prompt is then evaluated once.
        """
        if self.max_choices <= 1:
            return [[i] for i in todo]
        groups: dict[Request, list[int]] = {}
        for i in todo:
            req = requests[i]
            key = req if req.logprobs else replace(req, replication=0, state=None)
            groups.setdefault(key, []).append(i)
        size = self.max_choices
        return [g[j : j + size] for g in groups.values() for j in range(0, len(g), size)]

    def _run_job(
        self,
        requests: list[Request],
        job: list[int],
        identity: str | None,
        on_choice: Callable[[], None] | None = None,
    ) -> list[Completion]:
        """Send one job: a request alone, or a group as one request with ``n`` choices.

        ``on_choice()`` is called for each choice a backend that streams them
        (:class:`~invent_core.llm.local.LocalLLM`) received before the request ended.
        """
        if len(job) == 1:
            return [self._one(requests[job[0]], identity)]
        out = self._send_choices(requests[job[0]], len(job), on_choice)
        for k, i in enumerate(job):
            if not out[k].text.strip():  # empty before the stop string: asked on its own
                out[k] = self._send(requests[i])
            if self.cache is not None and identity is not None:
                self.cache.put(identity, requests[i], out[k])
        return out

    def _cache_hits(
        self, requests: list[Request], identity: str | None, out: list[Completion | None]
    ) -> list[int]:
        """Fill ``out`` with cached completions; return the indices still to ask."""
        todo: list[int] = []
        for i, req in enumerate(requests):
            hit = self.cache.get(identity, req) if identity is not None else None
            if hit is None:
                todo.append(i)
            else:
                out[i] = hit
        return todo

    def close(self) -> None:
        """Close the HTTP client (a later call opens a new one)."""
        with self._client_lock:
            if self._client is not None:
                try:
                    self._client.close()
                finally:
                    self._client = None


class _Count:
    """Answers finished so far, told to ``progress(done, total)`` one thread at a time."""

    def __init__(self, done: int, total: int, progress: ProgressFn | None) -> None:
        self.done, self.total, self._progress = done, total, progress
        self._lock = threading.Lock()

    def add(self, k: int) -> None:
        """Count ``k`` more (0: report the count as it is)."""
        with self._lock:
            self.done += k
            if self._progress is not None:
                self._progress(self.done, self.total)


def _each_job(run: Callable, jobs: list[list[int]], workers: int) -> Any:
    """Yield ``(job, run(job))`` as jobs finish, ``workers`` at a time; the first failure ends all."""
    if workers == 1:  # one job at a time (or a single one): no thread pool
        for job in jobs:
            yield job, run(job)
        return
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="invent-llm") as pool:
        futures = {pool.submit(run, job): job for job in jobs}
        pending = set(futures)
        while pending:
            finished, pending = wait(pending, return_when=FIRST_EXCEPTION)
            for fut in finished:
                err = fut.exception()
                if err is not None:
                    for p in pending:
                        p.cancel()
                    raise err
                yield futures[fut], fut.result()


def _stop_if_cancelled(token: CancelToken | None) -> None:
    """Raise ``Cancelled`` when the run this request belongs to was cancelled."""
    if token is not None and token.cancelled:
        raise Cancelled("cancelled: the request in flight was stopped; finished answers are kept")


def _empty_before_stop(resp: Any) -> bool:
    """Whether a reply ended on a stop string before any text (``content`` empty)."""
    choices = getattr(resp, "choices", None)
    if not choices or getattr(choices[0], "message", None) is None:
        return False
    content = choices[0].message.content
    return content is not None and not content.strip()


def _brief(err: BaseException | None) -> str:
    if err is None:
        return ""
    body = getattr(err, "body", None)
    if isinstance(body, dict):
        inner = body.get("error")
        msg = body.get("message") or (inner.get("message") if isinstance(inner, dict) else None)
        if msg:
            return str(msg)[:300]
    return str(err)[:300]


def _is_timeout(err: BaseException | None) -> bool:
    """Whether ``err`` is a timeout (the client's, or the deadline's inside a stream)."""
    import openai

    return isinstance(err, openai.APITimeoutError | http_library().TimeoutException)
