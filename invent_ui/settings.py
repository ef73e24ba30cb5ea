"""The dashboard's run settings (what the sidebar edits), as a frozen dataclass.

Pure: no Streamlit. The API key of an OpenAI-compatible server is deliberately
*not* a field: it lives only in the browser session (or the environment) and
never enters a settings dict, a cache key on disk or a saved run.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

#: Sidebar labels of the LLM specs of :func:`invent_core.llm.available_llms`.
LLM_LABELS: dict[str, str] = {
    "qwen0.5b": "Local · Qwen2.5-0.5B (default)",
    "qwen1.5b": "Local · Qwen2.5-1.5B (stronger)",
    "openai": "OpenAI-compatible server",
}
#: Sidebar labels of the packaged embedders.
EMBEDDER_LABELS: dict[str, str] = {
    "minilm": "SBERT-small · all-MiniLM-L6-v2",
    "mpnet": "SBERT-large · all-mpnet-base-v2",
}


@dataclass(frozen=True)
class Settings:
    """Settings shared by every page (sidebar), defaults from the paper and invent_core."""

    llm: str = "qwen0.5b"  # invent_core.llm: "local" is an alias of the packaged qwen0.5b
    base_url: str = ""  # OpenAI-compatible server only; "" = $OPENAI_BASE_URL
    model: str = ""  # OpenAI-compatible server only; "" = $OPENAI_MODEL or the one served
    embedder: str = "minilm"  # invent_core.embedders.DEFAULT_EMBEDDER (paper's SBERT-small)
    n_perturbations: int = 9  # paper §3: nine perturbations per question
    n_replications: int = 5  # paper, Appendix "Replication and Bootstrapping": r = 5
    n_bootstrap: int = 30  # paper, Appendix "Replication and Bootstrapping": S = 30
    temperature: float = 0.7  # paper, Appendix "LLM Configuration"
    seed: int = 0

    def __post_init__(self) -> None:
        if self.n_perturbations < 1:
            raise ValueError(f"n_perturbations must be at least 1, got {self.n_perturbations}")
        if self.n_replications < 1:
            raise ValueError(f"n_replications must be at least 1, got {self.n_replications}")
        if self.n_bootstrap < 1:
            raise ValueError(f"n_bootstrap must be at least 1, got {self.n_bootstrap}")
        if not 0.0 <= self.temperature <= 2.0:
            raise ValueError(f"temperature must be in [0, 2], got {self.temperature}")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Settings:
        """Settings from a dict, ignoring unknown keys (e.g. from an older session)."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def with_(self, **changes: Any) -> Settings:
        return replace(self, **changes)

    @property
    def llm_label(self) -> str:
        if self.llm == "openai":
            return f"{self.model or 'default model'} @ {self.base_url or '$OPENAI_BASE_URL'}"
        return LLM_LABELS.get(self.llm, self.llm)

    def run_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of ``invent_core.pipeline.run_question`` (the LLM passed separately)."""
        return {
            "embedder": self.embedder,
            "n_perturbations": self.n_perturbations,
            "n_replications": self.n_replications,
            "temperature": self.temperature,
            "n_bootstrap": self.n_bootstrap,
            "seed": self.seed,
        }

    def key(self, *extra: Any) -> str:
        """A short stable key of these settings (plus ``extra``) for caching runs."""
        blob = json.dumps([self.to_dict(), list(map(str, extra))], sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


def secret_fingerprint(secret: str | None) -> str:
    """A short one-way fingerprint of an API key: distinguishes keys in a cache, reveals nothing."""
    if not secret:
        return ""
    return hashlib.sha256(("invent-ui:" + secret).encode()).hexdigest()[:12]


def run_fingerprint(run: Any) -> str:
    """A stable id of a run's texts and settings (cache key of results derived from it)."""
    blob = json.dumps(
        [
            list(run.questions),
            [list(r) for r in run.responses],
            _jsonable(getattr(run, "settings", {})),
        ],
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _jsonable(obj: Any) -> Any:
    return obj if isinstance(obj, dict) else {}
