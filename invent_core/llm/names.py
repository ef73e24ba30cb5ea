"""People-facing names of LLM backends, read from their cache identity.

A run records its LLM as the backend's cache identity
(``local:sha256=1d96…|model=qwen0.5b``, ``http://host:8000/v1|model=M``),
which is exact but unreadable. These helpers turn it back into a name
(``Qwen2.5-Coder-0.5B-Instruct``, ``M at host:8000``) and recognise the
packaged models, for messages, estimates and the run history.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from .local import LOCAL_MODELS
from .specs import LOCAL_ALIASES

__all__ = ["local_model", "describe_llm"]


def _split(identity: str) -> tuple[str, str | None]:
    """Split ``"<base>|model=<model>"`` into (base, model); model ``None`` when absent."""
    base, sep, model = identity.rpartition("|model=")
    return (base, model) if sep else (identity, None)


def local_model(identity: str) -> str | None:
    """Return the packaged model an identity or spec names (``"qwen0.5b"``…), else ``None``.

    Parameters
    ----------
    identity : an LLM's ``identity`` (matched on the GGUF's sha256) or a
        ``get_llm`` spec (``"local"``, ``"qwen1.5b"``).

    Examples
    --------
    >>> local_model("local"), local_model("http://h/v1|model=qwen0.5b")
    ('qwen0.5b', None)
    """
    key = (identity or "").strip()
    if key in LOCAL_ALIASES:
        return LOCAL_ALIASES[key]
    base, _ = _split(key)
    for (
        name,
        spec,
    ) in LOCAL_MODELS.items():  # on llama.cpp, or on transformers (inference_engine.py)
        if base == f"local:sha256={spec.sha256}" or base.startswith(
            f"transformers:sha256={spec.sha256};"
        ):
            return name
    return None


def _engine_suffix(base: str) -> str:
    """``" · transformers · cuda · bf16"`` for a transformers engine's identity, else ``""``."""
    if not base.startswith("transformers:"):
        return ""
    fields = dict(f.partition("=")[::2] for f in base.removeprefix("transformers:").split(";"))
    return f" · transformers · {fields.get('device', '?')} · {fields.get('dtype', '?')}"


def describe_llm(identity: str) -> str:
    """Return a short readable name: the packaged model's, or ``model at host``.

    Examples
    --------
    >>> describe_llm("local:sha256=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32|model=qwen0.5b")
    'Qwen2.5-Coder-0.5B-Instruct'
    >>> describe_llm("http://127.0.0.1:8000/v1|model=llama-3-8b")
    'llama-3-8b at 127.0.0.1:8000'
    >>> describe_llm("local:sha256=0123456789abcdef|model=Llama 3.1 8B Instruct")
    'Llama 3.1 8B Instruct (GGUF 0123456789ab)'
    """
    name = local_model(identity)
    base, model = _split((identity or "").strip())
    if name is not None:
        return LOCAL_MODELS[name].description.split(" ")[0] + _engine_suffix(base)
    if base.startswith("transformers:"):
        return f"{model or 'unknown model'}{_engine_suffix(base)}"
    if base.startswith("local:sha256=") and model:  # a user's GGUF file (--llm gguf:FILE)
        return f"{model} (GGUF {base[len('local:sha256=') :][:12]})"
    host = urlsplit(base).netloc or base
    if model and host:
        return f"{model} at {host}"
    return model or host or "unknown LLM"
