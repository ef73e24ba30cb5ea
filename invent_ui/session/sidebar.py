"""The settings sidebar every page calls first: one definition, shared session state.

The run options' widgets are generated from
:func:`invent_core.config.iter_options`: the common ones on top, every other
one (affinity, WD ground metric, MAX variant, the paraphrase and GAAP
options …) in an "Advanced" expander, so a new config field appears here with
no edit. The perturber is picked on each page that runs something.

A widget's own state is dropped when another page's script runs, so each
widget's value is re-committed to session state before the widget is created
(see :func:`_seed`), and the settings as a whole live in
``st.session_state[state.SETTINGS]`` (a plain dict) for :func:`current_settings`.
Opening any page first (a deep link on a fresh server) initialises the defaults.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import streamlit as st

from invent_core.config import (
    DEFAULT_PROFILE,
    MAX_TEMPERATURE,
    PROFILES,
    LLMChoice,
    OptionSpec,
    RunConfig,
    iter_options,
    profile_options,
)
from invent_core.embedders import available_embedders
from invent_core.llm import ENGINES, available_llms
from invent_core.llm.local import MAX_THREADS
from invent_ui.jobs.feedback import SECTIONS, option_label
from invent_ui.text import untrusted

from . import state
from .history_view import quiet_page_link, recent_in_sidebar
from .navigation import HOME, PAGES
from .own_model import check_model_path
from .own_reference import reference_picker
from .settings import EMBEDDER_LABELS, LLM_LABELS, OWN_MODEL, Settings

#: Options chosen on each page that runs something, not in the sidebar.
PAGE_OPTIONS: tuple[str, ...] = ("perturber",)
#: Options shown on top of the sidebar (the paper's n, r, B, T, seed and ψ).
MAIN_OPTIONS: tuple[str, ...] = (
    "embedder",
    "n_perturbations",
    "n_replications",
    "n_bootstrap",
    "seed",
    "temperature",
)
#: Section titles of the "Advanced" expander, by the option's config (messages name them too).
_SECTIONS = SECTIONS


def advanced_options() -> list[OptionSpec]:
    """Return every run option that is neither on top of the sidebar nor picked on a page."""
    shown = set(PAGE_OPTIONS) | set(MAIN_OPTIONS)
    return [opt for opt in iter_options(RunConfig) if opt.name not in shown]


def page_setup(title: str, icon: str = "🎲") -> Settings:
    """Call ``st.set_page_config``, draw the navigation, recent history and settings; return them."""
    st.set_page_config(page_title=f"{title} · invent", page_icon=icon, layout="wide")
    navigation()
    recent_in_sidebar(st.sidebar)
    return sidebar_settings()


def navigation() -> None:
    """The page list in the sidebar, the home page named "Home" (:mod:`invent_ui.session.navigation`)."""
    with st.sidebar:
        for page in (HOME, *PAGES):
            quiet_page_link(page.path, page.label, page.icon)


def current_settings() -> Settings:
    """Return the settings in this session (defaults when none were chosen yet)."""
    data = st.session_state.get(state.SETTINGS)
    return Settings.from_dict(data) if data else Settings()


def api_key() -> str | None:
    """Return the key typed in this session, else ``$OPENAI_API_KEY``, else None."""
    return st.session_state.get(state.API_KEY) or os.environ.get("OPENAI_API_KEY") or None


def _seed(name: str, value: Any) -> str:
    """Return the widget key for ``name``, its state (re)committed before the widget is created.

    Re-assigning the current value makes it survive a page switch (a widget's own
    state is dropped when another page's script runs); ``value`` seeds a fresh session.
    """
    key = state.SIDEBAR_PREFIX + name
    st.session_state[key] = st.session_state.get(key, value)
    return key


def sidebar_settings() -> Settings:
    """Render the shared settings in the sidebar and return them.

    An invalid combination (e.g. more GAAP parents than its population cap)
    is reported in the sidebar and the previous settings are kept.
    """
    previous = current_settings()
    canon = previous.to_dict()
    sb = st.sidebar
    sb.header("Settings")
    sb.caption("Shared by every page. Changing them never re-runs anything by itself.")
    _llm_widgets(sb, canon)
    _profile_widget(sb, canon)
    _main_widgets(sb, canon)
    with sb.expander("Advanced"):
        _advanced_widgets(canon)
        _nli_folder(canon)
    reference_picker(sb)
    try:
        problem = _unusable_model(canon)
        if problem is not None:
            raise ValueError(problem)
        settings = Settings.from_dict(canon)
    except ValueError as err:
        sb.error(f"{untrusted(err)}. Keeping the previous settings.", icon=":material/error:")
        settings = previous
    st.session_state[state.SETTINGS] = settings.to_dict()
    return settings


def _llm_choices() -> list[str]:
    """Installed local models, ``"openai"``, then "your model" (a file or folder you name)."""
    return [*available_llms(), OWN_MODEL]


def _llm_widgets(sb: Any, canon: dict[str, Any]) -> None:
    """The answering model, the paraphrasing model, and what each needs (path, server, key)."""
    llms = _llm_choices()
    if canon["llm"] not in llms:
        canon["llm"] = llms[0]
    canon["llm"] = sb.selectbox(
        "LLM backend",
        llms,
        format_func=lambda s: LLM_LABELS.get(s, s),
        key=_seed("llm", canon["llm"]),
        help="The packaged local model needs no key and no network. Your model: a GGUF file "
        "on this machine (the embedded llama.cpp) or a Hugging Face model folder (transformers).",
    )
    _model_fields(sb, canon, "")
    if canon["llm"] != "openai":
        _engine_widget(sb, canon)
        _threads_widget(sb, canon)
    options = ["", *llms]
    if canon["paraphrase_llm"] not in options:
        canon["paraphrase_llm"] = ""
    canon["paraphrase_llm"] = sb.selectbox(
        "Paraphrasing model",
        options,
        format_func=lambda s: LLM_LABELS.get(s, s) if s else "The answering model (default)",
        key=_seed("paraphrase_llm", canon["paraphrase_llm"]),
        help="The model that rewords the question (the paraphrase perturber and the gate's "
        "extra rounds). The paper rewords with ChatGPT for both of its answering models.",
    )
    _model_fields(sb, canon, "paraphrase_")
    if "openai" in (canon["llm"], canon["paraphrase_llm"]):
        _api_key_field(sb)
    _thinking_widget(sb, canon)


def _choice_help(name: str) -> str:
    """The help of an :class:`~invent_core.config.LLMChoice` field: the command line's, once."""
    return next(f.metadata["help"] for f in dataclasses.fields(LLMChoice) if f.name == name)


def _thinking_widget(sb: Any, canon: dict[str, Any]) -> None:
    """Let a reasoning model think (``--thinking on``); off by default, as on the command line."""
    canon["llm_thinking"] = bool(
        sb.checkbox(
            "Let a reasoning model think",
            key=_seed("llm_thinking", bool(canon.get("llm_thinking"))),
            help=_choice_help("thinking"),
        )
    )


def _model_fields(sb: Any, canon: dict[str, Any], prefix: str) -> None:
    """A path field (checked at once) for your model, or the server's URL and model."""
    choice = canon[f"{prefix}llm"]
    if choice == OWN_MODEL:
        name = f"{prefix}path" if prefix else "llm_path"
        typed = sb.text_input(
            "Model file (GGUF) or folder",
            key=_seed(name, canon[name]),
            placeholder="/models/Llama-3.1-8B-Instruct-Q4_K_M.gguf",
            help="Checked as you type: it must exist and be a GGUF file (or a model folder "
            "with config.json).",
        ).strip()
        canon[name] = typed
        check = _checked(typed)
        {"ok": sb.success, "warning": sb.warning}.get(check.level, sb.error)(check.message)
    elif choice == "openai":
        env = ("OPENAI_BASE_URL", "OPENAI_MODEL") if not prefix else ("", "")
        canon[f"{prefix}base_url"] = sb.text_input(
            "Server URL (…/v1)" if not prefix else "Paraphrasing server URL (…/v1)",
            key=_seed(
                f"{prefix}base_url", canon[f"{prefix}base_url"] or os.environ.get(env[0], "")
            ),
            placeholder="https://api.openai.com/v1" if not prefix else "the answering server's",
            help="Several servers of the same model: their URLs separated by commas. Each "
            "request goes to the least busy one; one that fails is taken out and tried again "
            "later. Requests in flight adapt to the servers (429, 503 and timeouts halve them).",
        )
        canon[f"{prefix}model"] = sb.text_input(
            "Model" if not prefix else "Paraphrasing model name",
            key=_seed(f"{prefix}model", canon[f"{prefix}model"] or os.environ.get(env[1], "")),
            help=_choice_help(f"{prefix}model"),
        )


@st.cache_data(show_spinner=False, max_entries=32)
def _check_path(path: str, stamp: tuple[int, int] | None) -> Any:
    return check_model_path(path)


def _checked(path: str) -> Any:
    """:func:`invent_ui.session.own_model.check_model_path`, again only when the path or its file changed."""
    try:
        st_ = os.stat(os.path.expanduser(path)) if path else None
        stamp = (st_.st_mtime_ns, st_.st_size) if st_ else None
    except OSError:
        stamp = None
    return _check_path(path, stamp)


def _unusable_model(canon: dict[str, Any]) -> str | None:
    """Why "your model" (answering or paraphrasing) cannot run now, else ``None``."""
    for choice, path in (("llm", "llm_path"), ("paraphrase_llm", "paraphrase_path")):
        if canon.get(choice) == OWN_MODEL:
            check = _checked(canon.get(path) or "")
            if not check.ok:
                return f"{check.message.rstrip('.')} ({'paraphrasing' if 'para' in choice else 'answering'} model)"
    return None


def _api_key_field(sb: Any) -> None:
    """The API key of an OpenAI-compatible server: the environment's, or typed (session only)."""
    if os.environ.get("OPENAI_API_KEY"):
        sb.caption("API key: from `$OPENAI_API_KEY`.")
        return
    typed = sb.text_input(
        "API key",
        type="password",
        key=_seed("api_key_input", st.session_state.get(state.API_KEY, "")),
        help="Kept in this browser session only; never saved.",
    )
    st.session_state[state.API_KEY] = typed


def _engine_widget(sb: Any, canon: dict[str, Any]) -> None:
    """Pick what runs a local model: auto, llama.cpp or transformers (``--llm-engine``)."""
    labels = {"auto": "auto (the GPU when there is one)", "llamacpp": "llama.cpp (CPU)"}
    engine = canon.get("llm_engine") if canon.get("llm_engine") in ENGINES else "auto"
    canon["llm_engine"] = sb.selectbox(
        "LLM engine",
        ENGINES,
        format_func=lambda e: labels.get(e, e),
        key=_seed("llm_engine", engine),
        help=_choice_help("llm_engine"),
    )


def _threads_widget(sb: Any, canon: dict[str, Any]) -> None:
    """The embedded llama.cpp's CPU threads (``--threads``); 0 leaves llama.cpp's choice."""
    canon["llm_threads"] = int(
        sb.number_input(
            "llama.cpp threads (0 = all cores)",
            0,
            MAX_THREADS,
            step=1,
            key=_seed("llm_threads", int(canon.get("llm_threads") or 0)),
            help=_choice_help("threads"),
        )
    )


def _profile_widget(sb: Any, canon: dict[str, Any]) -> None:
    """The ``--profile`` of the command line: picking one sets its scoring options once.

    The options stay editable afterwards (a profile is a base, as on the command line).
    """
    choice = sb.selectbox(
        "Profile",
        list(PROFILES),
        key=_seed("profile", DEFAULT_PROFILE),
        format_func=lambda name: f"{name} · {PROFILES[name].help.split(':')[0].split(' (')[0]}",
        help="; ".join(f"{p.name}: {p.help}" for p in PROFILES.values()),
    )
    applied = state.SIDEBAR_PREFIX + "profile_applied"
    if st.session_state.get(applied, DEFAULT_PROFILE) == choice:
        return
    for name, value in profile_options(choice).items():
        canon[name] = value
        st.session_state[state.SIDEBAR_PREFIX + name] = value  # the widgets below show it
    st.session_state[applied] = choice


def _main_widgets(sb: Any, canon: dict[str, Any]) -> None:
    """ψ, n, r, B, seed and temperature (the paper's symbols are their labels)."""
    helps = {opt.name: opt.help for opt in iter_options(RunConfig)}
    embedders = available_embedders()
    picked = canon["embedder"] if canon["embedder"] in embedders else embedders[0]
    canon["embedder"] = sb.selectbox(
        "Embedder ψ",
        embedders,
        format_func=lambda s: EMBEDDER_LABELS.get(s, s),
        key=_seed("embedder", picked),
        help=helps["embedder"],
    )
    c1, c2 = sb.columns(2)
    c3, c4 = sb.columns(2)
    for col, name, label, high, step in (
        (c1, "n_perturbations", "n perturbations", 20, 1),
        (c2, "n_replications", "r replications", 10, 1),
        (c3, "n_bootstrap", "B bootstrap", 500, 5),
        (c4, "seed", "seed", 2**31 - 1, 1),
    ):
        low = 0 if name == "seed" else 1
        key = _seed(name, canon[name])
        canon[name] = int(col.number_input(label, low, high, step=step, key=key))
    canon["temperature"] = float(
        sb.slider(
            "temperature",
            0.0,
            MAX_TEMPERATURE,
            step=0.1,
            key=_seed("temperature", float(canon["temperature"])),
            help=helps["temperature"],
        )
    )


def _advanced_widgets(canon: dict[str, Any]) -> None:
    """One widget per remaining option, grouped by the config that declares it."""
    section = None
    for opt in advanced_options():
        owner = opt.path[0] if len(opt.path) > 1 else "run"
        if owner != section:
            section = owner
            st.markdown(f"**{_SECTIONS.get(owner, owner)}**")
        canon[opt.name] = _option_widget(opt, canon[opt.name])


def _option_widget(opt: OptionSpec, value: Any) -> Any:
    """Draw the widget of one option, chosen by its type (a choice, a switch, a text or a number)."""
    label = option_label(opt)
    key = _seed(opt.name, value)
    if opt.choices is not None:
        return st.selectbox(label, list(opt.choices), key=key, help=opt.help)
    if opt.type is bool:
        return st.checkbox(label, key=key, help=opt.help)
    if opt.type is str:  # a spec (answer judge): blank keeps the value before
        return st.text_input(label, key=key, help=opt.help).strip() or value
    if opt.type is int:
        got = st.number_input(label, step=1, key=key, help=opt.help)
        return None if got is None else int(got)
    got = st.number_input(label, step=0.05, format="%.2f", key=key, help=opt.help)
    return None if got is None else float(got)


def _nli_folder(canon: dict[str, Any]) -> None:
    """Offer a local NLI model folder that replaces the embedder (entailment similarity, paper §3)."""
    typed = "" if canon["embedder"] in available_embedders() else canon["embedder"]
    folder = st.text_input(
        "Local NLI model folder (optional)",
        key=_seed("nli_folder", typed),
        help="A folder with an AutoModelForSequenceClassification; replaces the embedder above.",
    ).strip()
    if not folder:
        return
    if os.path.isdir(folder.removeprefix("nli:")):
        canon["embedder"] = folder
    else:
        st.warning(
            f"{untrusted(folder)} is not a folder on this machine; "
            f"using {untrusted(canon['embedder'])}."
        )
