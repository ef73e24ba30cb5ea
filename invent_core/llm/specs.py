"""From a spec string to an LLM backend: ``get_llm("local")``, ``"openai"``, ``"gguf:FILE"``, ``"hf:PATH"``.

:func:`get_llm` is the one place a spec (what ``--llm`` and the dashboard's
model choice say) becomes a backend object; :func:`spec_problem` says why a
spec names nothing, from the spec and a file's header only, before anything
loads; :func:`available_llms` lists the specs usable on this machine.
"""

from __future__ import annotations

import os
import re
from typing import Any

from ..errors import remember_secret
from .base import LLM
from .cache import LLMCache, resolve_cache
from .concurrency import Concurrency, parse_concurrency
from .gguf_file import gguf_problem, gguf_spec
from .hf import HFLLM, HFConfig, check_source, packaged_source
from .inference_engine import check_engine, choose_engine
from .local import LOCAL_MODELS, LocalLLM, ServerConfig, installed_local_models
from .openai_compat import OpenAICompatLLM
from .retry import RetryPolicy

__all__ = [
    "DEFAULT_KEY_ENV",
    "GGUF_PREFIX",
    "LOCAL_ALIASES",
    "api_key_from",
    "available_llms",
    "get_llm",
    "key_env_problem",
    "spec_problem",
]

#: ``get_llm`` specs; "local" is the packaged default.
LOCAL_ALIASES = {"local": "qwen0.5b", "qwen0.5b": "qwen0.5b", "qwen1.5b": "qwen1.5b"}
#: ``get_llm("gguf:FILE")``: the embedded llama.cpp server on any GGUF file.
GGUF_PREFIX = "gguf:"


def available_llms() -> list[str]:
    """Specs usable now: installed local models, then ``"openai"`` (needs a server).

    ``"local"`` is an alias of ``"qwen0.5b"`` and is not listed separately.
    """
    return [*installed_local_models(), "openai"]


#: The variable a served model's key is read from when none is named.
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KEY_SHAPED = re.compile(r"(sk|pk|rk|hf|ghp|gho|ghs|xox[abp])[-_]", re.I)


def key_env_problem(name: str) -> str | None:
    """Why ``name`` cannot be the name of the variable holding a key (``None``: it can).

    A key typed where its variable's name goes is never repeated: the message
    says it looks like a key, and the value is remembered as a secret.

    >>> key_env_problem("MY_KEY") is None, key_env_problem("sk-abc123def456")
    (True, 'looks like a key, not the name of an environment variable: put the key in a variable (export MY_KEY=...) and name the variable')
    """
    text = str(name).strip()
    if _VARIABLE.fullmatch(text) and not _KEY_SHAPED.match(text):
        return None
    remember_secret(text)
    return (
        "looks like a key, not the name of an environment variable: put the key in a "
        "variable (export MY_KEY=...) and name the variable"
    )


def api_key_from(variable: str | None) -> str | None:
    """The key of a served model: from ``variable`` when one is named, never from another.

    ``None``: ``$OPENAI_API_KEY`` when set, else no key (a local server may need none).
    A named variable that is unset or empty is a ``ValueError`` naming it (sending
    ``$OPENAI_API_KEY`` instead would hand one server another's key).
    """
    if variable is None:
        key = os.environ.get(DEFAULT_KEY_ENV) or None
    else:
        problem = key_env_problem(variable)
        if problem is not None:
            raise ValueError(f"--api-key-env: the value given {problem}")
        key = os.environ.get(variable.strip())
        if not key:
            state = "is empty" if key == "" else "is not set"
            raise ValueError(
                f"--api-key-env {variable.strip()}: ${variable.strip()} {state}; the key is read "
                "from that variable only (set it, or leave --api-key-env out for "
                f"${DEFAULT_KEY_ENV} or no key)"
            )
    remember_secret(key)
    return key


#: The model a run answers with when none is named: the packaged 0.5B.
DEFAULT_LLM = "local"


def resolve_llm(llm: str | LLM | None) -> LLM:
    """The one rule for "a spec, an object or nothing": :func:`get_llm`, the default when None."""
    return get_llm(DEFAULT_LLM if llm is None else llm)


def get_llm(
    spec: str | LLM = DEFAULT_LLM,
    *,
    base_url: str | list[str] | None = None,
    model: str | None = None,
    api_key: str | None = None,
    cache: bool | str | os.PathLike | LLMCache | None = True,
    concurrency: int | str | Concurrency | None = None,
    timeout: float | None = None,
    retry: RetryPolicy | None = None,
    server_config: ServerConfig | None = None,
    engine: str = "auto",
    dtype: str = "auto",
    thinking: bool = False,
    stall_timeout: float | None = None,
) -> LLM:
    """Return an LLM backend by name.

    Parameters
    ----------
    spec
        ``"local"`` (= ``"qwen0.5b"``, the packaged default, no key, no
        network), ``"qwen1.5b"`` (when requirements-strong.txt is installed)
        ``"openai"`` (any OpenAI-compatible server: OpenAI, vLLM, llama.cpp)
        or ``"gguf:FILE"`` (any GGUF file, embedded as the packaged ones). An object that already is an LLM is returned as is.
    base_url
        For ``"openai"``: the server's ``…/v1`` URL; default ``$OPENAI_BASE_URL``
        or ``https://api.openai.com/v1``; several servers: a list (:mod:`.endpoints`). Credentials in it are sent as basic
        auth, never shown, saved or hashed (``redact_url``).
    model
        For ``"openai"``: model name; default ``$OPENAI_MODEL`` or, when the
        server serves exactly one, that one.
    api_key
        For ``"openai"``: default ``$OPENAI_API_KEY``. Never stored or logged.
    cache
        ``True``: the default SQLite file ``<cache_dir>/llm_cache.sqlite``; a
        path: that file; ``None``/``False``: no persistent cache.
    concurrency
        Requests in flight: an integer, ``"auto"`` or ``"auto:N"`` (:mod:`.concurrency`);
        default ``auto:64`` for servers, the slots (``ServerConfig.n_parallel``) locally.
    timeout
        Total deadline of one request attempt in seconds, from connecting to the
        reply's last byte (default: none locally, 60 remote); ``LLMTimeout`` if missed.
    stall_timeout
        Seconds without a token before a request fails (:mod:`.stall`; default: by model
        size and load on the embedded llama.cpp, off remotely).
    retry
        Retry policy (default ``RetryPolicy()``).
    server_config, engine, dtype, thinking
        llama.cpp settings; what runs a packaged model (:func:`choose_engine`); ``HFConfig.dtype``;
        let a reasoning model think (default False: ``enable_thinking`` false).

    Raises
    ------
    ValueError or LLMError
        An unknown spec; a local model whose packages are not installed.
    """
    if not isinstance(spec, str):
        return _as_llm(spec)
    name = spec.strip().lower()
    opts = _backend_opts(concurrency, timeout, retry, served=name == "openai")
    opts["thinking"] = bool(thinking)
    opts.update(_stall_opts(stall_timeout))
    hf = _on_transformers(spec, engine, _hf_config(dtype, opts.get("concurrency"), thinking), cache)
    if hf is not None:
        return hf
    if name in LOCAL_ALIASES:
        if base_url is not None:
            raise ValueError(f"base_url is for spec 'openai', not {spec!r}")
        return LocalLLM(
            LOCAL_MODELS[LOCAL_ALIASES[name]],
            cache=resolve_cache(cache),
            server_config=server_config,
            **opts,
        )
    if name.startswith(GGUF_PREFIX):
        return _gguf_llm(spec.strip()[len(GGUF_PREFIX) :], base_url, cache, server_config, opts)
    if name == "openai":
        return _openai_llm(base_url, model, api_key, cache, opts)
    raise _unknown(spec)


#: Where a served model goes when neither ``base_url`` nor ``$OPENAI_BASE_URL`` says.
DEFAULT_BASE_URL = "https://api.openai.com/v1"


def served_url(base_url: Any) -> Any:
    """A served model's URL(s): ``base_url``, else ``$OPENAI_BASE_URL``, else OpenAI's API."""
    return base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL


def default_model() -> str | None:
    """A served model's name when none is given: ``$OPENAI_MODEL`` (None: asked from the server)."""
    return os.environ.get("OPENAI_MODEL") or None


def _openai_llm(base_url: Any, model: str | None, api_key: str | None, cache: Any, opts) -> LLM:
    """A served model; the URL and model default to ``OPENAI_BASE_URL`` / ``OPENAI_MODEL``."""
    return OpenAICompatLLM(
        base_url=served_url(base_url),
        model=model or default_model(),
        api_key=api_key,
        cache=resolve_cache(cache),
        **opts,
    )


def _backend_opts(
    concurrency: Any, timeout: float | None, retry: Any, *, served: bool
) -> dict[str, Any]:
    """The options given; None leaves the backend's own default. A concurrency below 1 is refused.

    ``auto`` adapts on a served backend; an in-process model runs as many as it
    was made for (llama.cpp's slots), so there it is the backend's default.
    """
    if concurrency is not None:
        setting = parse_concurrency(concurrency)
        concurrency = setting if served else (None if setting.adaptive else setting.limit)
    given = {"concurrency": concurrency, "timeout": timeout, "retry": retry}
    return {k: v for k, v in given.items() if v is not None}


def _stall_opts(stall_timeout: float | None) -> dict[str, float]:
    """``{"stall_timeout": seconds}`` when one is given (checked: > 0), else nothing."""
    if stall_timeout is None:
        return {}
    if not stall_timeout > 0:
        raise ValueError(f"stall_timeout must be > 0 seconds, got {stall_timeout}")
    return {"stall_timeout": float(stall_timeout)}


def _as_llm(spec: object) -> LLM:
    """``spec`` when it already is an LLM; else the ValueError that says what is accepted."""
    if isinstance(spec, LLM):
        return spec
    raise ValueError(f"llm must be a spec string or an LLM object, got {type(spec).__name__}")


def _unknown(spec: str) -> ValueError:
    """The error for a spec no backend takes, listing the ones that work here."""
    return ValueError(
        f"unknown LLM {spec!r}: choose one of 'local', 'qwen0.5b', 'qwen1.5b', 'openai', "
        f"'gguf:FILE', 'hf:PATH' (installed now: {', '.join(available_llms())})"
    )


def _hf_config(dtype: str, concurrency: Any, thinking: bool) -> HFConfig:
    """The transformers engine's settings from ``get_llm``'s options (an adaptive limit: its cap)."""
    batch = None if isinstance(concurrency, Concurrency) else concurrency
    return HFConfig(dtype=dtype, max_batch=batch, thinking=bool(thinking))


def _on_transformers(spec: str, engine: str, config: HFConfig, cache: Any) -> LLM | None:
    """Return the transformers backend ``spec`` asks for, or None when another engine runs it.

    ``hf:PATH`` always; a packaged model when :func:`choose_engine` picks transformers.
    """
    name = spec.strip().lower()
    if name.startswith("hf:"):
        return _hf_llm(spec.strip()[3:], config, cache, engine)
    if name in LOCAL_ALIASES and choose_engine(engine) == "transformers":
        return _packaged_on_transformers(LOCAL_ALIASES[name], config, cache)
    return None


def _hf_llm(path: str, config: HFConfig, cache: Any, engine: str) -> LLM:
    """``hf:PATH``: a local Hugging Face folder or GGUF file on the transformers engine."""
    if check_engine(engine) == "llamacpp":
        raise ValueError(
            f"--llm hf:{path} runs on the transformers engine, not --llm-engine llamacpp"
        )
    source = check_source(path)
    return HFLLM(source, config=config, cache=resolve_cache(cache))


def _packaged_on_transformers(name: str, config: HFConfig, cache: Any) -> LLM:
    """A packaged GGUF on the transformers engine (de-quantised; the way onto a GPU)."""
    config.resolve()  # CUDA asked where there is none fails before the file is assembled
    return HFLLM(
        packaged_source(name),
        config=config,
        cache=resolve_cache(cache),
        prefers_single_paraphrase=True,
    )


def spec_problem(spec: str) -> str | None:
    """Why ``spec`` names no LLM, from the spec and its files' headers (``None``: fine so far).

    For messages naming the option: ``"gguf:/m.gguf: no such file"``. A
    ``gguf:`` file's header, length and architecture; an ``hf:`` folder's
    config, weights and tokenizer (:mod:`.model_files`). Loads nothing and
    starts nothing, so a command can check its options before it reads or
    writes a file.
    """
    name = str(spec).strip().lower()
    if name in LOCAL_ALIASES or name == "openai":
        return None
    if name.startswith("hf:"):
        try:
            check_source(str(spec).strip()[3:], option="hf:")
        except ValueError as err:
            return str(err)
        return None
    if name.startswith(GGUF_PREFIX):
        path = str(spec).strip()[len(GGUF_PREFIX) :]
        if not path.strip():
            return "gguf: needs a file, e.g. gguf:/models/llama-3.1-8b-instruct.Q4_K_M.gguf"
        try:
            gguf_problem(path)  # the header, the file's length, the architecture
        except ValueError as err:
            return f"{GGUF_PREFIX}{path}: {getattr(err, 'reason', err)}"
        return None
    return (
        f"{spec!r} is unknown: choose one of 'local', 'qwen0.5b', 'qwen1.5b', 'openai', "
        "'gguf:FILE', 'hf:PATH'"
    )


def _gguf_llm(path: str, base_url, cache, server_config, opts) -> LLM:
    """A user's GGUF file on the embedded llama.cpp server (as the packaged models).

    Raises ``ValueError`` naming the path when it is missing or not GGUF.
    """
    if base_url is not None:
        raise ValueError(f"base_url is for spec 'openai', not 'gguf:{path}'")
    if not path.strip():
        raise ValueError("gguf: needs a file, e.g. gguf:/models/llama-3.1-8b-instruct.Q4_K_M.gguf")
    spec = gguf_spec(path)
    return LocalLLM(spec, cache=resolve_cache(cache), server_config=server_config, **opts)
