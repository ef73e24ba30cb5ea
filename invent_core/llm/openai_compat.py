"""OpenAI-compatible chat backend: OpenAI, vLLM, llama.cpp servers, the embedded model.

One code path for every backend: the official ``openai`` client (its own
retries disabled, ``max_retries=0``) plus our retry policy (:mod:`.retry`), a
bounded thread pool for concurrency and the persistent cache
(:class:`~invent_core.llm.cached.CachedLLM`). The API key lives only inside
the client object: it is never logged, stored, cached nor part of ``repr``;
credentials written into the base URL (``https://user:key@host/v1``) are taken
out of it at once and only ever sent.

Only a usable completion is returned or cached. A 2xx reply that is not one —
not JSON, an HTML page, no ``choices``, ``content: null``, an empty text, a
stream that ends without any text — is a failed request (:mod:`.replies`),
retried like a 5xx and, when every attempt fails, an ``LLMError``. That
includes a model that really generated nothing: an empty answer cannot be
scored, and the caller reports the question as failed instead of scoring ""
as an answer.
"""

from __future__ import annotations

import logging
import os
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ..errors import EndpointRetired, LLMError, LLMTimeout, remember_secret, scrubbed
from .base import Completion, Request
from .cache import LLMCache
from .cached import CachedLLM, Pending, thinking_suffix
from .cancel import current_cancel, sending_for
from .concurrency import Concurrency, parse_concurrency
from .endpoints import (
    DOWN,
    FAILED,
    OVERLOAD,
    Endpoint,
    Router,
    agreed_model,
    endpoints_identity,
    split_base_urls,
)
from .http_transport import http_client, split_credentials, url_query
from .pool import each_job
from .replies import (
    check_usable,
    empty_before_stop,
    read_choices,
    read_reply,
    read_stream,
    reply_cap,
    stream_choices,
    stream_reply,
)
from .retry import RetryPolicy, brief, is_timeout, outcome, retry_wait
from .stall import StallTimed, stall_message

__all__ = ["OpenAICompatLLM"]

log = logging.getLogger(__name__)

#: Seconds the model list of each endpoint may take at start-up (the health check).
HEALTH_CHECK_TIMEOUT = 10.0


class OpenAICompatLLM(StallTimed, CachedLLM):
    """Chat completions over the OpenAI protocol, with retries, concurrency and a cache.

    Parameters
    ----------
    base_url
        e.g. ``https://api.openai.com/v1``, ``http://127.0.0.1:8000/v1`` (vLLM).
        Credentials in it (``https://user:key@host/v1``) are sent as HTTP basic
        auth and removed from the URL kept, shown, saved and hashed. Several
        servers of the same model: a list, or one string with the URLs
        separated by commas or spaces (:mod:`.endpoints`: least-loaded routing,
        health, re-sending; checked to serve the same model before the first
        request).
    model
        Model name the server serves. ``None``: asked from ``/v1/models`` on
        first use (works when the server serves exactly one).
    api_key
        Secret; when ``None`` the client reads ``OPENAI_API_KEY``; servers
        without auth get a placeholder. Never stored outside the client.
    cache
        An ``LLMCache`` or None (no persistent cache).
    concurrency
        Requests in flight at once: an integer, or ``"auto"`` / ``"auto:N"``
        (the default, ``auto:64``), which adapts to the server up to N
        (:mod:`.concurrency`).
    timeout
        Total deadline of one attempt, in seconds (default 60; None in stall
        mode: none): connecting, waiting and reading the whole reply. A server
        that trickles bytes is cut off at the deadline; the attempt then counts
        as a timeout.
    stall_timeout
        Seconds a reply may go without a byte (:mod:`.stall`). Given (or by
        default on the embedded llama.cpp), every reply is streamed and a
        request fails only when no token has come for that long: a slow reply
        on a busy machine completes, a stalled one fails naming the option.
    retry
        The retry policy (the client's own retries are off).
    thinking
        Whether a reasoning model may think (default False). Sent as
        ``chat_template_kwargs={"enable_thinking": …}`` (vLLM, SGLang, llama.cpp);
        a server that refuses the field (400/422) is asked again without it, once,
        and then never sent it. On, it is part of the identity (``|thinking=on``).
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
        base_url: str | Sequence[str],
        model: str | None = None,
        api_key: str | None = None,
        cache: LLMCache | None = None,
        concurrency: int | str | Concurrency | None = None,
        timeout: float | None = None,
        retry: RetryPolicy | None = None,
        name: str = "openai",
        thinking: bool = False,
        stall_timeout: float | None = None,
    ) -> None:
        setting = parse_concurrency(concurrency)
        self._set_timing(stall_timeout, timeout)
        self.name = name
        raw = split_base_urls(base_url)
        pairs = [split_credentials(url) for url in raw]
        if not pairs:
            raise ValueError("base_url names no server")
        # the query string (?api-version=…&key=…) is sent with every request; its tokens are
        # never kept in the URL (and the client's URL has none: it appends the path to it)
        self._url_query = {clean: url_query(url) for url, (clean, _) in zip(raw, pairs)}
        remember_secret(api_key)
        # never hold credentials: they are shown and part of the identity
        self.base_urls = tuple(url for url, _ in pairs)
        self.base_url = ",".join(self.base_urls)
        self._url_auth = pairs[0][1]
        self._model = model
        self._api_key = api_key
        self.cache = cache
        self.concurrency_setting = setting
        self.concurrency = setting.limit  # the most in flight (threads); ``auto`` adapts below it
        self._router = Router.build(pairs, adaptive=setting.limit if setting.adaptive else None)
        self._checked = not self._router.several  # several: their models are compared first
        self._router.endpoints[0].verified = self._checked  # one: the server is whatever it is
        # One budget for the whole backend: pipelined batch rows, a page and its
        # baselines all share it, so ``concurrency`` is the requests in flight, full stop.
        self._in_flight = threading.BoundedSemaphore(self.concurrency)
        self.retry = retry or RetryPolicy()
        self._client: Any = None
        self._client_lock = threading.Lock()
        self._check_lock = threading.Lock()
        self._rng = random.Random()
        self._stats_lock = threading.Lock()
        self.requests_sent = 0  # HTTP attempts, including retries
        self.completions_made = 0
        self.thinking = bool(thinking)
        self.sends_thinking_switch = True  # False once the server refused the field

    def __repr__(self) -> str:
        """Show the URL and model, never a key."""
        return f"{type(self).__name__}(base_url={self.base_url!r}, model={self._model!r})"

    # -- identity -------------------------------------------------------------
    @property
    def model(self) -> str:
        """The model name sent with each request (asked from the server when not given).

        With several endpoints, their model lists are read and compared first
        (:meth:`_check_endpoints`).
        """
        if not self._checked:
            self._check_endpoints()
        if self._model is None:
            self._model = self._discover_model()
        return self._model

    @property
    def identity(self) -> str:
        """Cache-key identity: the base URL(s) without credentials, plus the model.

        Several endpoints: their sorted URLs (:func:`.endpoints.endpoints_identity`),
        whichever of them answered; ``|thinking=on`` when a reasoning model may think.
        """
        return f"{endpoints_identity(self.base_urls, self.model)}{thinking_suffix(self.thinking)}"

    @property
    def live_concurrency(self) -> int | None:
        """Requests allowed in flight now under ``auto`` (None: a fixed concurrency)."""
        return self._router.live_limit

    # -- client -----------------------------------------------------------------
    def _base_url_for_client(self) -> str:
        return self.base_url

    def _get_client(self) -> Any:
        with self._client_lock:
            if self._client is None:
                self._client = self._new_client(self._base_url_for_client(), self._url_auth)
            return self._client

    def _new_client(self, base_url: str, auth: tuple[str, str] | None) -> Any:
        import openai

        key = self._api_key or os.environ.get("OPENAI_API_KEY") or "no-key"
        per_read = self.stall_seconds() if self.stall_mode else self.timeout
        return openai.OpenAI(
            base_url=base_url.split("?", 1)[0],
            api_key=key,
            default_query=self._url_query.get(base_url) or None,
            max_retries=0,
            timeout=per_read,
            http_client=http_client(self.timeout, auth),
        )

    def _client_for(self, endpoint: Endpoint) -> Any:
        """The client of ``endpoint`` (one endpoint: :meth:`_get_client`, which subclasses shape)."""
        if not self._router.several:
            return self._get_client()
        with self._client_lock:
            if endpoint.client is None:
                endpoint.client = self._new_client(endpoint.url, endpoint.auth)
            return endpoint.client

    # -- several endpoints ----------------------------------------------------------
    def _models_at(self, endpoint: Endpoint) -> list[str]:
        """The models ``endpoint`` lists (one attempt, a short deadline): its health check."""
        client = self._client_for(endpoint).with_options(
            timeout=min(self.timeout, HEALTH_CHECK_TIMEOUT)
        )
        return [m.id for m in client.models.list().data]

    def _check_endpoints(self) -> None:
        """Before the first request: every endpoint that answers must serve the same model.

        One that does not answer is taken out and checked when it comes back
        (:meth:`_verify`); none answering is an ``LLMError`` naming each.
        """
        with self._check_lock:
            if self._checked:
                return
            served: dict[str, list[str]] = {}
            failed: dict[str, Exception] = {}
            for e in self._router.endpoints:
                try:
                    served[e.url] = self._models_at(e)
                except Exception as err:  # noqa: BLE001 - any failure: not in service now
                    failed[e.url] = err
            if not served:
                raise scrubbed(
                    LLMError(
                        "no endpoint answered its model list: "
                        + "; ".join(
                            f"{u}: {type(x).__name__}: {brief(x)}" for u, x in failed.items()
                        )
                    )
                )
            self._model = agreed_model(served, self._model)
            for e in self._router.endpoints:
                e.verified = e.url in served
                if not e.verified:
                    log.warning("%s is out of service for now: %s", e.url, brief(failed[e.url]))
                    self._router.mark_down(e)
            self._checked = True

    def _verify(self, endpoint: Endpoint) -> None:
        """An endpoint that was down at start-up, tried again: the same model, or out for good."""
        models = self._models_at(endpoint)  # a failure: still down (the caller records it)
        if self.model not in models:
            served = ", ".join(repr(m) for m in models[:10]) or "no model"
            why = f"{endpoint.url} came back serving {served}, not {self.model!r}"
            log.warning("%s: taken out for good", why)
            self._router.retire(endpoint, why)
            raise EndpointRetired(why)
        endpoint.verified = True

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
    def _call_with_retry(self, fn: Callable[[Any], Any], made: int = 0) -> Any:
        """``fn(client)`` under the retry policy, within the backend's in-flight budget.

        ``made``: the completions a success brings (counted in ``completions_made``).
        """
        last: list[Endpoint | None] = [None]  # where the latest attempt went

        def attempt() -> Any:
            with self._in_flight:
                ticket = self._router.acquire()
                last[0], err = ticket.endpoint, None
                try:
                    if not ticket.endpoint.verified:
                        self._verify(ticket.endpoint)
                    client = self._client_for(ticket.endpoint)
                    with self._stats_lock:
                        self.requests_sent += 1
                    return self._with_thinking_fallback(fn, client)
                except BaseException as failure:
                    err = failure
                    raise
                finally:
                    self._router.release(ticket, outcome(err))

        several = self._router.several
        policy = self.retry
        if several:  # each endpoint may fail a request once more before it is taken out
            n = policy.max_attempts + len(self._router.endpoints) - 1
            policy = replace(policy, max_attempts=n)
        try:
            result = policy.run(
                attempt,
                self._rng,
                classify=lambda err: self._retry_wait(err, last[0]),
                give_up=self._give_up,
                retry_timeouts=self.retry_timeouts or several,
            )
        except Exception as err:  # noqa: BLE001 - the one place a server's failure leaves
            # a server may echo the key (its Authorization header, a ?key= URL) in its error
            clean = scrubbed(err)
            raise clean from clean.__cause__  # only a scrubbed connection error stays chained
        with self._stats_lock:
            self.completions_made += made
        return result

    def _retry_wait(self, err: Exception, endpoint: Endpoint | None) -> float | None:
        """As :func:`.retry.retry_wait`; 0 (at once) when another endpoint can take the request."""
        if isinstance(err, EndpointRetired):
            return 0.0
        url = endpoint.url if endpoint is not None else self.base_url
        wait_s = retry_wait(err, url, self._model)
        failing = outcome(err) in (DOWN, FAILED, OVERLOAD)
        if failing and endpoint is not None and self._router.others_in_service(endpoint):
            return 0.0
        return wait_s

    def _with_thinking_fallback(self, fn: Callable[[Any], Any], client: Any) -> Any:
        """``fn(client)``; a 400/422 while the thinking switch is sent: once more without it."""
        switch = self.sends_thinking_switch
        try:
            return fn(client)
        except Exception as err:
            if not (switch and getattr(err, "status_code", None) in (400, 422)):
                raise
        self.sends_thinking_switch = False  # maybe the field it refused: once without
        try:  # fn builds its request again
            return fn(client)
        except Exception:
            self.sends_thinking_switch = True  # the field was not what it refused
            raise

    def _give_up(self, last: Exception | None, attempts: int) -> LLMError:
        """Build the error that ends a request: ``LLMTimeout`` when the last attempt timed out."""
        if is_timeout(last) and self._stalled(last):
            return LLMTimeout(stall_message(self.base_url, self.last_stall_seconds or 0, attempts))
        if is_timeout(last):
            return LLMTimeout(
                f"{self.base_url}: no complete reply within the {self.timeout:g} s deadline "
                f"({attempts} attempt(s)); the server is overloaded or trickling its reply "
                "(a longer deadline: timeout=…)"
            )
        return LLMError(
            f"{self.base_url}: gave up after {attempts} attempts: "
            f"{type(last).__name__}: {brief(last)}"
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
        if self.sends_thinking_switch:
            kwargs["extra_body"] = {"chat_template_kwargs": {"enable_thinking": self.thinking}}
        if self.stall_mode:  # each read may wait this long for the next bytes, no longer
            kwargs["timeout"] = self.stall_seconds()
        return kwargs

    def _send(self, request: Request) -> Completion:
        self.model  # noqa: B018 - the endpoints' model check fails here, outside the retries
        if self.stall_mode and not request.logprobs:
            return self._call_with_retry(lambda client: self._streamed(client, request), made=1)

        def call(client: Any) -> Completion:
            kwargs = self._kwargs(request)  # per attempt: the thinking switch may have been dropped
            t0 = time.perf_counter()
            resp = client.chat.completions.create(**kwargs)
            if request.stop and empty_before_stop(resp):
                # the reply began with a stop string ("\n" before the answer): ask
                # once more without it; the caller keeps the first non-empty line
                resp = client.chat.completions.create(
                    **{k: v for k, v in kwargs.items() if k != "stop"}
                )
            return read_reply(resp, request, time.perf_counter() - t0)

        return self._call_with_retry(call, made=1)

    def _streamed(self, client: Any, request: Request) -> Completion:
        """One reply streamed whole (stall mode); asked again without ``stop`` if it began on it."""
        kwargs = self._kwargs(request)  # per attempt: the thinking switch may have been dropped
        cap = reply_cap(request.max_tokens)
        completion = stream_reply(client, kwargs, cap)
        if request.stop and not completion.text.strip() and not completion.thinking:
            completion = stream_reply(client, {k: v for k, v in kwargs.items() if k != "stop"}, cap)
        return check_usable(completion, request)

    def _send_choices(
        self, request: Request, n: int, on_choice: Callable[[], None] | None = None
    ) -> list[Completion]:
        """One request for ``n`` choices (the replications of ``request``'s prompt).

        llama.cpp reports the usage of the first choice only, so the others
        carry none; a choice with no text is returned as it is (the caller
        asks it again on its own).
        """
        self.model  # noqa: B018 - the endpoints' model check fails here, outside the retries
        cap = reply_cap(request.max_tokens)
        if self.stall_mode or (on_choice is not None and self.streams_choices):
            tick = on_choice or (lambda: None)
            return self._call_with_retry(
                lambda client: stream_choices(client, self._kwargs(request), n, tick, cap), made=n
            )

        def call(client: Any) -> list[Completion]:
            t0 = time.perf_counter()
            resp = client.chat.completions.create(**self._kwargs(request), n=n)
            return read_choices(resp, n, time.perf_counter() - t0, cap)

        return self._call_with_retry(call, made=n)

    def _send_streaming(self, request: Request, stop_when: Callable[[str], bool]) -> Completion:
        self.model  # noqa: B018 - the endpoints' model check fails here, outside the retries

        def call(client: Any) -> Completion:
            kwargs = self._kwargs(request)
            kwargs.pop("logprobs", None)
            kwargs.pop("top_logprobs", None)
            t0 = time.perf_counter()
            stream = client.chat.completions.create(
                **kwargs, stream=True, stream_options={"include_usage": True}
            )
            try:
                completion = read_stream(stream, stop_when, reply_cap(request.max_tokens))
            finally:
                stream.close()
            completion.latency = time.perf_counter() - t0
            return check_usable(completion, request)

        return self._call_with_retry(call, made=1)

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
        identity = self._cache_identity()
        hit = self._cached(identity, keyed)
        if hit is not None:
            return hit
        completion = self._send_streaming(request, stop_when)
        self._store(identity, keyed, completion)
        return completion

    # -- many requests ----------------------------------------------------------------
    def _answer(self, pending: Pending) -> None:
        """Send the requests not cached, ``concurrency`` at a time (default: this backend's).

        Independent requests are all kept in flight, ``concurrency`` (the
        server's slots for the packaged model) at a time. With
        :attr:`max_choices` > 1, the replications of one prompt go as one
        request with ``n`` choices (seeded with the first one's seed; the
        server derives the others), each cached under its own key. The first
        request that fails for good cancels the others.
        """
        jobs = self._jobs(pending.requests, pending.todo)
        token, count = current_cancel(), pending.count

        def run(job: list[int]) -> None:
            ticked = [0]

            def one() -> None:  # a choice finished before its request did (streamed)
                if ticked[0] < len(job):  # a retried request counts its choices once
                    ticked[0] += 1
                    count.add(1)

            with sending_for(token):  # a worker thread sends for the caller's run
                self._check_cancel(count)
                self._run_job(pending, job, one)
            if len(job) > ticked[0]:
                count.add(len(job) - ticked[0])

        slots = pending.concurrency or self.concurrency
        each_job(run, jobs, max(1, min(len(jobs), slots // max(len(j) for j in jobs))))

    def _jobs(self, requests: list[Request], todo: list[int]) -> list[list[int]]:
        """Split the indices to ask into jobs: one request each, or replications grouped.

        Requests that differ only in ``replication`` and ``state`` form a group
        (at most :attr:`max_choices` each) when the backend takes several
        choices per request: the replications of one prompt, and those of
        states with the same text (a perturbation padded by duplication), whose
        shared prompt is then evaluated once. A request for logprobs always goes
        alone, even beside an identical one: the choices of a grouped request
        come back without them (they were lost, and cached lost, before).
        """
        if self.max_choices <= 1:
            return [[i] for i in todo]
        alone: list[list[int]] = []
        groups: dict[Request, list[int]] = {}
        for i in todo:
            req = requests[i]
            if req.logprobs:  # n choices come back streamed, without logprobs: never grouped
                alone.append([i])
                continue
            groups.setdefault(replace(req, replication=0, state=None), []).append(i)
        size = self.max_choices
        return alone + [g[j : j + size] for g in groups.values() for j in range(0, len(g), size)]

    def _run_job(self, pending: Pending, job: list[int], on_choice: Callable[[], None]) -> None:
        """Send one job: a request alone, or a group as one request with ``n`` choices.

        ``on_choice()`` is called for each choice a backend that streams them
        (:class:`~invent_core.llm.local.LocalLLM`) received before the request ended.
        Each answer is recorded (and cached) as soon as its request ends.
        """
        requests = pending.requests
        if len(job) == 1:
            out = [self._send(requests[job[0]])]
        else:
            out = self._send_choices(requests[job[0]], len(job), on_choice)
            for k, i in enumerate(job):
                if not out[k].text.strip():  # empty before the stop string: asked on its own
                    out[k] = self._send(requests[i])
        for i, completion in zip(job, out, strict=True):
            pending.answered(i, completion)

    def close(self) -> None:
        """Close the HTTP clients (a later call opens new ones)."""
        with self._client_lock:
            clients = [self._client, *(e.client for e in self._router.endpoints)]
            self._client = None
            for e in self._router.endpoints:
                e.client = None
        for client in clients:
            if client is not None:
                client.close()
