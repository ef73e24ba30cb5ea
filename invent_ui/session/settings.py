"""The dashboard's settings (what the sidebar edits): the LLM backend and one RunConfig.

Pure: no Streamlit. Every run option, its default and its validation come
from :class:`invent_core.config.RunConfig`; this adds only the LLM choice.
The API key of an OpenAI-compatible server is deliberately *not* a field: it
lives only in the browser session (or the environment) and never enters a
settings dict, a cache key on disk or a saved run.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from invent_core.config import LLMChoice, RunConfig, config_from_flat, flat_values
from invent_core.llm import redact_url
from invent_core.llm.endpoints import split_base_urls

from .own_model import model_spec

#: Sidebar labels of the LLM specs of :func:`invent_core.llm.available_llms`.
LLM_LABELS: dict[str, str] = {
    "qwen0.5b": "Local · Qwen2.5-0.5B (default)",
    "qwen1.5b": "Local · Qwen2.5-1.5B (stronger)",
    "openai": "OpenAI-compatible server",
    "own": "Your model · a GGUF file (or model folder)",
}
#: The sidebar's choice of a model file or folder the user names (``llm_path``).
OWN_MODEL = "own"
#: Sidebar labels of the packaged embedders.
EMBEDDER_LABELS: dict[str, str] = {
    "minilm": "SBERT-small · all-MiniLM-L6-v2",
    "mpnet": "SBERT-large · all-mpnet-base-v2",
}
#: The fields that are not run options.
_OWN = (
    "llm",
    "base_url",
    "model",
    "llm_engine",
    "llm_threads",
    "llm_thinking",
    "llm_path",
    "paraphrase_llm",
    "paraphrase_path",
    "paraphrase_base_url",
    "paraphrase_model",
)


@dataclass(frozen=True)
class Settings:
    """Settings shared by every page (sidebar): the LLM backend and the run's config."""

    llm: str = "qwen0.5b"  # invent_core.llm: "local" is an alias of the packaged qwen0.5b
    base_url: str = ""  # OpenAI-compatible server(s), comma-separated; "" = $OPENAI_BASE_URL
    model: str = ""  # OpenAI-compatible server only; "" = $OPENAI_MODEL or the one served
    llm_engine: str = LLMChoice.llm_engine  # what runs a packaged model: invent_core.llm.ENGINES
    llm_threads: int = 0  # the embedded llama.cpp's CPU threads; 0 = its choice (all cores)
    llm_thinking: bool = LLMChoice.thinking  # let a reasoning model think (--thinking on)
    llm_path: str = ""  # llm == "own": a GGUF file (gguf:) or a model folder (hf:)
    paraphrase_llm: str = ""  # the rewording model, as llm; "" = the answering model
    paraphrase_path: str = ""
    paraphrase_base_url: str = ""
    paraphrase_model: str = ""
    run: RunConfig = field(default_factory=RunConfig)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Settings:
        """Build settings from the flat dict :meth:`to_dict` writes, ignoring unknown keys.

        Raises
        ------
        ValueError
            From :class:`~invent_core.config.RunConfig` when a value is invalid.
        """
        own = {k: data[k] for k in _OWN if k in data}
        return cls(**own, run=config_from_flat(RunConfig, data))

    def to_dict(self) -> dict[str, Any]:
        """One flat JSON-ready dict: the LLM fields and every run option by its flat name."""
        return {**{k: getattr(self, k) for k in _OWN}, **flat_values(self.run)}

    def public_dict(self) -> dict[str, Any]:
        """:meth:`to_dict` with the servers' URLs shown as saved anywhere: no credentials, no tokens."""
        data = self.to_dict()
        for name in ("base_url", "paraphrase_base_url"):
            urls = split_base_urls(data[name]) if data[name] else []
            data[name] = ",".join(redact_url(u) for u in urls)
        return data

    def run_config(self, **changes: Any) -> RunConfig:
        """Return the run's config, with options changed by flat name (``perturber="gaap"``)."""
        return self.run.replace(**changes) if changes else self.run

    @property
    def llm_spec(self) -> str:
        """The answering model's ``get_llm`` spec (``gguf:FILE`` / ``hf:PATH`` for your model)."""
        return _spec(self.llm, self.llm_path)

    @property
    def paraphrase_spec(self) -> str | None:
        """The rewording model's spec; ``None`` when it is the answering model."""
        return _spec(self.paraphrase_llm, self.paraphrase_path) if self.paraphrase_llm else None

    @property
    def llm_choice(self) -> LLMChoice:
        """The model choice as the command line makes it: one object to build and identify.

        :func:`invent_core.llm.choice.build_llm` and ``choice_identity`` read it, so
        the dashboard and the CLI build (paraphraser, same weights, default URL) and
        identify a model the same way. Blank fields are "not given"; 0 threads: the default.
        """
        return LLMChoice(
            llm=self.llm_spec,
            llm_engine=self.llm_engine,
            paraphrase_llm=self.paraphrase_spec,
            paraphrase_base_url=self.paraphrase_base_url,
            paraphrase_model=self.paraphrase_model,
            base_url=self.base_url,
            model=self.model,
            thinking=self.llm_thinking,
            threads=self.llm_threads or None,
        )

    @property
    def llm_label(self) -> str:
        """How the sidebar names the chosen backend."""
        if self.llm == "openai":
            where = self.public_dict()["base_url"] or "$OPENAI_BASE_URL"
            return f"{self.model or 'default model'} @ {where}"
        if self.llm == OWN_MODEL:
            return f"your model {self.llm_path.rstrip('/').rsplit('/', 1)[-1]}"
        return LLM_LABELS.get(self.llm, self.llm)

    def key(self, *extra: Any) -> str:
        """Return a short stable key of these settings (plus ``extra``) for work folders."""
        blob = json.dumps([self.to_dict(), list(map(str, extra))], sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _spec(choice: str, path: str) -> str:
    """A sidebar choice as a ``get_llm`` spec: "own" becomes ``gguf:FILE`` or ``hf:FOLDER``."""
    if choice != OWN_MODEL:
        return choice

    return model_spec(path)


def secret_fingerprint(secret: str | None) -> str:
    """Return a one-way fingerprint of an API key: distinguishes keys, reveals nothing."""
    if not secret:
        return ""
    return hashlib.sha256(("invent-ui:" + secret).encode()).hexdigest()[:12]


def run_fingerprint(run: Any) -> str:
    """Return a stable id of a run's texts and settings (cache key of results derived from it)."""
    blob = json.dumps(
        [list(run.questions), [list(r) for r in run.responses], run.settings],
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:16]
