"""The dashboard's settings (what the sidebar edits): one LLMChoice and one RunConfig.

Pure: no Streamlit. Every run option, its default and its validation come
from :class:`invent_core.config.RunConfig`; the model choice is an
:class:`invent_core.config.LLMChoice`, the object the command line makes, so
both build and identify a model the same way (:mod:`invent_core.llm.choice`).
The saved form is one flat dict (:mod:`.llm_fields` says how the choice is
flattened; a dict saved before still reads). The API key of an
OpenAI-compatible server is deliberately *not* a field: it lives only in the
browser session (or the environment) and never enters a settings dict, a
cache key on disk or a saved run.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from invent_core.config import LLMChoice, RunConfig, config_from_flat, flat_values
from invent_core.config.llm import SERVED
from invent_core.llm import redact_url
from invent_core.llm.endpoints import split_base_urls
from invent_core.llm.specs import LOCAL_ALIASES

from .llm_fields import OWN_MODEL, choice_from_flat, flat_choice, spec_pick

#: Sidebar labels of the LLM specs of :func:`invent_core.llm.available_llms`.
LLM_LABELS: dict[str, str] = {
    "qwen0.5b": "Local · Qwen2.5-0.5B (default)",
    "qwen1.5b": "Local · Qwen2.5-1.5B (stronger)",
    "openai": "OpenAI-compatible server",
    OWN_MODEL: "Your model · a GGUF file (or model folder)",
}
#: Sidebar labels of the packaged embedders.
EMBEDDER_LABELS: dict[str, str] = {
    "minilm": "SBERT-small · all-MiniLM-L6-v2",
    "mpnet": "SBERT-large · all-mpnet-base-v2",
}
__all__ = ["EMBEDDER_LABELS", "LLM_LABELS", "OWN_MODEL", "Settings", "run_fingerprint",
           "secret_fingerprint"]  # fmt: skip


@dataclass(frozen=True)
class Settings:
    """Settings shared by every page (sidebar): the model choice and the run's config."""

    llm_choice: LLMChoice = field(default_factory=LLMChoice)
    run: RunConfig = field(default_factory=RunConfig)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Settings:
        """Build settings from the flat dict :meth:`to_dict` writes, ignoring unknown keys.

        Raises
        ------
        ValueError
            From :class:`~invent_core.config.RunConfig` or the model choice when a value is invalid.
        """
        return cls(llm_choice=choice_from_flat(data), run=config_from_flat(RunConfig, data))

    def to_dict(self) -> dict[str, Any]:
        """One flat JSON-ready dict: the model choice as its widgets show it, every run option."""
        return {**flat_choice(self.llm_choice), **flat_values(self.run)}

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
    def llm_label(self) -> str:
        """How the sidebar names the chosen backend."""
        choice = self.llm_choice
        if choice.llm.strip().lower() == SERVED:
            where = self.public_dict()["base_url"] or "$OPENAI_BASE_URL"
            return f"{choice.model or 'default model'} @ {where}"
        pick, path = spec_pick(choice.llm)
        if pick == OWN_MODEL:
            return f"your model {path.rstrip('/').rsplit('/', 1)[-1]}"
        return LLM_LABELS.get(LOCAL_ALIASES.get(pick, pick), pick)

    def key(self, *extra: Any) -> str:
        """Return a short stable key of these settings (plus ``extra``) for work folders."""
        blob = json.dumps([self.to_dict(), list(map(str, extra))], sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


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
