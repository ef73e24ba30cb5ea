"""The dashboard's model choice: one :class:`~invent_core.config.LLMChoice`, saved flat.

Pure: no Streamlit. :data:`FIELDS` are the choice's options as the command
line has them (:func:`invent_core.config.iter_options`), less those its
metadata keeps out of a dashboard (``ui=False``, with the reason beside the
field). The sidebar draws one widget per field from them, and the settings
keep the choice as the flat values those widgets show, so a saved settings
dict from before the choice was one object still reads the same:

- a model (``kind="spec"``) is the sidebar's pick, ``"qwen0.5b"``,
  ``"openai"`` or :data:`OWN_MODEL` ("your model"), with the path of your
  model under ``llm_path`` / ``paraphrase_path`` (``gguf:FILE`` or ``hf:PATH``
  in the choice; :func:`~.own_model.model_spec` tells which);
- a text not given is blank, a number not given (``unset``) is 0;
- a field is saved under its ``ui_name`` where it has one (``llm_threads``,
  ``llm_thinking``: their names before).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from invent_core.config import LLMChoice, OptionSpec, iter_options
from invent_core.config.llm import SERVED
from invent_core.llm.concurrency import MAX_CONCURRENCY, parse_concurrency

from .own_model import model_spec

__all__ = [
    "FIELDS",
    "OWN_MODEL",
    "applies",
    "choice_from_flat",
    "flat_choice",
    "settings_key",
    "path_name",
    "spec_pick",
]

#: The sidebar's pick of a model file or folder the user names (its path beside it).
OWN_MODEL = "own"
#: The model choice's options that a dashboard offers, in declaration order.
FIELDS: tuple[OptionSpec, ...] = tuple(opt for opt in iter_options(LLMChoice) if opt.ui)
_BY_NAME = {opt.name: opt for opt in FIELDS}
#: Spec prefixes of a model named by its path (the sidebar's "your model").
_PATH_SPECS = ("gguf", "hf")


def settings_key(opt: OptionSpec) -> str:
    """The field's name in the saved settings (and its widget's key)."""
    return opt.ui_name or opt.name


def path_name(opt: OptionSpec) -> str:
    """Where the path of "your model" is saved for a model field: ``llm_path``, ``paraphrase_path``."""
    return opt.name.removesuffix("_llm") + "_path" if opt.name != "llm" else "llm_path"


def spec_pick(spec: str | None) -> tuple[str, str]:
    """``(pick, path)``: how the sidebar shows a model spec (``"gguf:/m.gguf"`` → ``("own", "/m.gguf")``)."""
    if spec is None:
        return "", ""
    head, sep, rest = spec.partition(":")
    if sep and head.strip().lower() in _PATH_SPECS:
        return OWN_MODEL, rest
    return spec, ""


def applies(opt: OptionSpec, flat: Mapping[str, Any]) -> bool:
    """Whether ``opt`` means something for the models picked in ``flat`` (else no widget).

    ``("served", "llm")``: only while the answering model is a server's;
    ``("local", "llm")``: only while it is not.
    """
    if opt.applies is None:
        return True
    when, of = opt.applies
    served = str(flat.get(settings_key(_BY_NAME[of])) or "").strip().lower() == SERVED
    return served if when == "served" else not served


def flat_choice(choice: LLMChoice) -> dict[str, Any]:
    """The saved settings' values of ``choice``: what each of its widgets shows."""
    out: dict[str, Any] = {}
    for opt in FIELDS:
        value = getattr(choice, opt.name)
        if opt.kind == "spec":
            out[settings_key(opt)], out[path_name(opt)] = spec_pick(value)
        elif value is None:
            out[settings_key(opt)] = _blank(opt)
        else:
            out[settings_key(opt)] = str(value) if opt.kind == "concurrency" else value
    return out


def choice_from_flat(data: Mapping[str, Any]) -> LLMChoice:
    """The :class:`LLMChoice` of saved settings (fields absent: the choice's defaults).

    Raises
    ------
    ValueError
        Naming the widget (``"llama.cpp threads" must be …``) of a value the choice refuses.
    """
    values: dict[str, Any] = {}
    for opt in FIELDS:
        name = settings_key(opt)
        if name not in data:
            continue
        if opt.kind == "spec":
            values[opt.name] = _spec(data[name], data.get(path_name(opt)) or "")
        elif opt.kind == "concurrency":
            values[opt.name] = _concurrency(data[name])
        elif opt.unset is not None and data[name] in (0, None):
            values[opt.name] = None  # 0 in its widget: the default
        else:
            values[opt.name] = data[name]
    try:
        return LLMChoice(**values)
    except ValueError as err:  # "LLMChoice.threads must …" → '"llama.cpp threads" must …'
        field, _, rest = str(err).removeprefix("LLMChoice.").partition(" ")
        if field not in _BY_NAME:
            raise
        raise ValueError(f'"{_BY_NAME[field].label or field}" {rest}') from None


def _blank(opt: OptionSpec) -> Any:
    """What a widget shows for a field not given: a blank text, 0 for a number with ``unset``."""
    if opt.type in (int, float) and opt.unset is not None:
        return opt.type(0)
    return "" if opt.type is str or opt.kind == "concurrency" else None


def _spec(pick: Any, path: str) -> str | None:
    """A sidebar pick as a spec: blank is "not given"; "your model" is ``gguf:FILE`` / ``hf:FOLDER``."""
    if pick is None or (isinstance(pick, str) and not pick.strip()):
        return None
    return model_spec(path) if pick == OWN_MODEL else pick


def _concurrency(value: Any) -> int | str | None:
    """Requests in flight as the command line reads them: N (1 … 256), ``auto:N``, blank: default."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    text = str(value).strip().lower()
    if text.startswith("auto"):
        return str(parse_concurrency(text))  # "auto" is "auto:64", as --concurrency auto
    number = int(text) if text.isdigit() else None
    if number is None or not 1 <= number <= MAX_CONCURRENCY:
        raise ValueError(
            f'"{_BY_NAME["concurrency"].label}" must be a number in 1 … {MAX_CONCURRENCY}, '
            f"auto or auto:N, got {value!r}"
        )
    return number
