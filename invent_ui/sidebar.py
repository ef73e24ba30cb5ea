"""The settings sidebar every page calls first: one definition, shared session state.

A widget's own state is dropped when another page's script runs, so each
widget's value is re-committed to session state before the widget is created
(see :func:`_seed`), and the settings as a whole live in
``st.session_state[STATE_KEY]`` (a plain dict) for :func:`current_settings`.
Opening any page first (a deep link on a fresh server) initialises the defaults.
"""

from __future__ import annotations

import os
from typing import Any

import streamlit as st

from .settings import EMBEDDER_LABELS, LLM_LABELS, Settings

STATE_KEY = "invent_settings"
#: The typed API key: session memory only, never a settings field, never written to disk.
API_KEY_STATE = "invent_api_key"
_PREFIX = "sb_"


def page_setup(title: str, icon: str = "🎲") -> Settings:
    """``st.set_page_config`` plus the sidebar; returns the current settings."""
    st.set_page_config(page_title=f"{title} · invent", page_icon=icon, layout="wide")
    return sidebar_settings()


def current_settings() -> Settings:
    """The settings in this session (defaults when none were chosen yet)."""
    data = st.session_state.get(STATE_KEY)
    return Settings.from_dict(data) if data else Settings()


def api_key() -> str | None:
    """The key typed in this session, else ``$OPENAI_API_KEY``, else None."""
    return st.session_state.get(API_KEY_STATE) or os.environ.get("OPENAI_API_KEY") or None


def _options(getter: str, fallback: list[str]) -> list[str]:
    try:
        if getter == "llm":
            from invent_core.llm import available_llms

            return list(available_llms()) or fallback
        from invent_core.embedders import available_embedders

        return list(available_embedders()) or fallback
    except Exception:  # noqa: BLE001 - a missing backend module must not break the sidebar
        return fallback


def _seed(name: str, value: Any) -> str:
    """The widget key for ``name``, its state (re)committed before the widget is created.

    Re-assigning the current value makes it survive a page switch (a widget's own
    state is dropped when another page's script runs); ``value`` seeds a fresh session.
    """
    key = _PREFIX + name
    st.session_state[key] = st.session_state.get(key, value)
    return key


def sidebar_settings() -> Settings:
    """Render the shared settings in the sidebar and return them."""
    canon = dict(current_settings().to_dict())
    defaults = Settings()
    llms = _options("llm", [defaults.llm])
    if canon["llm"] not in llms:
        canon["llm"] = llms[0]
    embedders = _options("embedder", [defaults.embedder])
    # an embedder that is not a packaged name is a local NLI folder typed below
    nli_folder = "" if canon["embedder"] in embedders else canon["embedder"]
    picked = canon["embedder"] if canon["embedder"] in embedders else embedders[0]

    sb = st.sidebar
    sb.header("Settings")
    sb.caption("Shared by every page. Changing them never re-runs anything by itself.")
    canon["llm"] = sb.selectbox(
        "LLM backend",
        llms,
        format_func=lambda s: LLM_LABELS.get(s, s),
        key=_seed("llm", canon["llm"]),
        help="The packaged local model needs no key and no network.",
    )
    if canon["llm"] == "openai":
        canon["base_url"] = sb.text_input(
            "Server URL (…/v1)",
            key=_seed("base_url", canon["base_url"] or os.environ.get("OPENAI_BASE_URL", "")),
            placeholder="https://api.openai.com/v1",
        )
        canon["model"] = sb.text_input(
            "Model", key=_seed("model", canon["model"] or os.environ.get("OPENAI_MODEL", ""))
        )
        if os.environ.get("OPENAI_API_KEY"):
            sb.caption("API key: from `$OPENAI_API_KEY`.")
        else:
            typed = sb.text_input(
                "API key",
                type="password",
                key=_seed("api_key_input", st.session_state.get(API_KEY_STATE, "")),
                help="Kept in this browser session only; never saved.",
            )
            st.session_state[API_KEY_STATE] = typed
    canon["embedder"] = sb.selectbox(
        "Embedder ψ",
        embedders,
        format_func=lambda s: EMBEDDER_LABELS.get(s, s),
        key=_seed("embedder", picked),
    )
    c1, c2 = sb.columns(2)
    canon["n_perturbations"] = int(
        c1.number_input(
            "n perturbations", 1, 20, step=1, key=_seed("n_perturbations", canon["n_perturbations"])
        )
    )
    canon["n_replications"] = int(
        c2.number_input(
            "r replications", 1, 10, step=1, key=_seed("n_replications", canon["n_replications"])
        )
    )
    c3, c4 = sb.columns(2)
    canon["n_bootstrap"] = int(
        c3.number_input(
            "B bootstrap", 1, 500, step=5, key=_seed("n_bootstrap", canon["n_bootstrap"])
        )
    )
    canon["seed"] = int(
        c4.number_input("seed", 0, 2**31 - 1, step=1, key=_seed("seed", canon["seed"]))
    )
    canon["temperature"] = float(
        sb.slider(
            "temperature", 0.0, 2.0, step=0.1, key=_seed("temperature", float(canon["temperature"]))
        )
    )
    with sb.expander("Local NLI model folder (optional)"):
        folder = st.text_input(
            "Folder with an NLI model (AutoModelForSequenceClassification)",
            key=_seed("nli_folder", nli_folder),
            help="When set, replaces the embedder above (entailment similarity, paper §3).",
        ).strip()
        if folder:
            if os.path.isdir(folder.removeprefix("nli:")):
                canon["embedder"] = folder
            else:
                st.warning(f"{folder} is not a folder on this machine; using {canon['embedder']}.")
    settings = Settings.from_dict(canon)
    st.session_state[STATE_KEY] = settings.to_dict()
    return settings
