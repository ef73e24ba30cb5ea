"""The settings sidebar every page calls first: one definition, shared session state.

The run options' widgets are generated from
:func:`invent_core.config.iter_options`, and so are the model choice's
(:class:`~invent_core.config.LLMChoice`, through :mod:`.llm_fields`): the common ones on top, every other
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

import os
from typing import Any

import streamlit as st

from invent_core.config import (
    DEFAULT_PROFILE,
    MAX_TEMPERATURE,
    PROFILES,
    OptionSpec,
    RunConfig,
    iter_options,
    profile_options,
)
from invent_core.config.llm import SERVED
from invent_core.embedders import available_embedders
from invent_core.llm import available_llms
from invent_core.llm.specs import LOCAL_ALIASES
from invent_ui.jobs.feedback import SECTIONS, option_label
from invent_ui.text import untrusted

from . import state
from .history_view import quiet_page_link, recent_in_sidebar
from .llm_fields import FIELDS, OWN_MODEL, applies, path_name, settings_key
from .navigation import HOME, PAGES
from .own_model import check_model_path
from .own_reference import reference_picker
from .settings import EMBEDDER_LABELS, LLM_LABELS, Settings

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
        _llm_advanced_widgets(canon)
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


def _llm_widgets(sb: Any, canon: dict[str, Any]) -> None:
    """The model choice's widgets, one per :data:`~.llm_fields.FIELDS` that applies, and the key.

    Generated from :class:`~invent_core.config.LLMChoice` (label, help, choices,
    bounds), as the command line's options are: the answering model, its server,
    the paraphrasing model, how a local one runs. The advanced ones are drawn
    in the Advanced expander (:func:`_llm_advanced_widgets`).
    """
    for opt in FIELDS:
        if not opt.advanced and applies(opt, canon):
            _llm_widget(sb, opt, canon)
    if SERVED in (canon.get(settings_key(opt)) for opt in FIELDS if opt.kind == "spec"):
        _api_key_field(sb)


def _llm_advanced_widgets(canon: dict[str, Any]) -> None:
    """The model choice's advanced widgets (dtype, requests in flight, stall timeout)."""
    shown = [opt for opt in FIELDS if opt.advanced and applies(opt, canon)]
    if shown:
        st.markdown("**Model**")
    for opt in shown:
        _llm_widget(st, opt, canon)


def _llm_widget(where: Any, opt: OptionSpec, canon: dict[str, Any]) -> None:
    """Draw one field of the model choice in ``where``; its value goes to ``canon``."""
    name = settings_key(opt)
    value = canon.get(name)
    if opt.kind == "spec":
        _spec_widget(where, opt, canon)
    elif opt.choices is not None:
        picked = value if value in opt.choices else opt.default
        canon[name] = where.selectbox(
            opt.label, list(opt.choices), key=_seed(name, picked), help=opt.help
        )
    elif opt.type is bool:
        canon[name] = bool(where.checkbox(opt.label, key=_seed(name, bool(value)), help=opt.help))
    elif opt.type in (int, float) and opt.kind != "concurrency":
        canon[name] = _number_widget(where, opt, value)
    else:  # a text: blank is "not given" (the choice's default)
        canon[name] = where.text_input(
            opt.label, key=_seed(name, str(value or "")), help=opt.help,
            placeholder="blank: the default" if opt.kind != "urls" else "…/v1 (blank: the default)",
        )  # fmt: skip


def _number_widget(where: Any, opt: OptionSpec, value: Any) -> Any:
    """A number in the field's bounds; 0 stands for "not given" where the field says what that is."""
    kind = opt.type
    low = kind(0) if opt.unset is not None else opt.low
    label = f"{opt.label} (0 = {opt.unset})" if opt.unset is not None else opt.label
    got = where.number_input(
        label,
        low,
        None if opt.high is None else kind(opt.high),
        step=kind(1),
        key=_seed(settings_key(opt), kind(value or 0)),
        help=opt.help,
    )
    return kind(got or 0)


def _spec_widget(where: Any, opt: OptionSpec, canon: dict[str, Any]) -> None:
    """A model: the installed ones, a server (``openai``) or your model, whose path is checked."""
    name = settings_key(opt)
    picks = [*available_llms(), OWN_MODEL]
    if opt.optional:  # the paraphrasing model: blank is the answering model
        picks = ["", *picks]
    value = str(canon.get(name) or "")
    value = LOCAL_ALIASES.get(value, value)  # "local" is shown as the model it names
    canon[name] = where.selectbox(
        opt.label,
        picks,
        format_func=lambda s: LLM_LABELS.get(s, s) if s else "The answering model (default)",
        key=_seed(name, value if value in picks else picks[0]),
        help=f"{opt.help}. {_OWN_HELP}",
    )
    if canon[name] == OWN_MODEL:
        _path_widget(where, path_name(opt), canon)


#: What "your model" is, after a model field's help.
_OWN_HELP = (
    "Your model: a GGUF file on this machine (the embedded llama.cpp) or a Hugging Face "
    "model folder (transformers)."
)


def _path_widget(where: Any, name: str, canon: dict[str, Any]) -> None:
    """The path of your model, checked as it is typed."""
    typed = where.text_input(
        "Model file (GGUF) or folder",
        key=_seed(name, canon.get(name) or ""),
        placeholder="/models/Llama-3.1-8B-Instruct-Q4_K_M.gguf",
        help="Checked as you type: it must exist and be a GGUF file (or a model folder "
        "with config.json).",
    ).strip()
    canon[name] = typed
    check = _checked(typed)
    {"ok": where.success, "warning": where.warning}.get(check.level, where.error)(check.message)


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
    for opt in FIELDS:
        if opt.kind == "spec" and canon.get(settings_key(opt)) == OWN_MODEL:
            check = _checked(canon.get(path_name(opt)) or "")
            if not check.ok:
                role = "answering" if opt.name == "llm" else "paraphrasing"
                return f"{check.message.rstrip('.')} ({role} model)"
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
