"""Run configuration: one frozen dataclass per concern, each default written once.

Every entry point (``run_question``, ``score_responses``, ``batch_score``,
``evaluate``/``tsu``, the dashboard) takes one of these objects instead of a
mirror of its fields, and the CLI's options and the sidebar's widgets are
generated from the fields (:func:`iter_options`), so a new knob reaches every
entry point at once. A config travels inside the run artefact and
round-trips through JSON (:func:`config_to_dict`, ``RunConfig.from_dict``).

- :class:`ScoreConfig` (:mod:`.score`): how responses become the Inv measures
  (ψ, B, seed, affinity, the WD ground metric, the MAX variant).
- :class:`GaapConfig` (:mod:`.gaap`): the genetic-algorithm perturber (paper §2.5).
- :class:`ParaphraseConfig` (:mod:`.paraphrase`): the LLM paraphraser (paper §4), with
  its :class:`GateConfig` (the validity gate of every paraphrase).
- :class:`RunConfig` (:mod:`.run`): one question end to end: perturber, n, r,
  temperature, the answer budget, the adaptive budget (:class:`AdaptiveConfig`)
  and the three above.
- :class:`LLMChoice` (:mod:`.llm`): which model answers and which rewords, how they run
  and how a served one is reached (not part of a run's settings: its identity is).
- :class:`Profile` (:mod:`.profiles`): ``ours``, ``paper``, ``released-code`` — the
  options that reproduce a reference in one word.

Underneath: :mod:`.checks` (the field helper, the validation and the bounds),
:mod:`.flat` (flat option names, replacing, the JSON round trip) and
:mod:`.options` (the generated options). Callers import from this package.

Pure: numpy-free, no heavy import. Validation lives here, once, with
messages that name the option the user typed.
"""

from __future__ import annotations

from .checks import MAX_BOOTSTRAP, MAX_SAMPLES, MAX_TEMPERATURE
from .flat import PREFIX, config_from_flat, config_to_dict, flat_values, json_ready
from .gaap import GaapConfig
from .llm import LLMChoice
from .options import OptionSpec, iter_options
from .paraphrase import GateConfig, ParaphraseConfig
from .profiles import (
    DEFAULT_PROFILE,
    PROFILES,
    Profile,
    ProfileName,
    get_profile,
    profile_options,
)
from .run import (
    ANSWER_MAX_TOKENS,
    TSU_TEMPERATURES,
    AdaptiveConfig,
    Perturber,
    RunConfig,
    check_temperatures,
)
from .score import AffinityKind, AnswerSimilarity, MaxVariant, Padding, ScoreConfig, WDGround

__all__ = [
    "ANSWER_MAX_TOKENS",
    "DEFAULT_PROFILE",
    "PROFILES",
    "Profile",
    "ProfileName",
    "get_profile",
    "profile_options",
    "MAX_BOOTSTRAP",
    "MAX_SAMPLES",
    "MAX_TEMPERATURE",
    "PREFIX",
    "TSU_TEMPERATURES",
    "AdaptiveConfig",
    "AffinityKind",
    "AnswerSimilarity",
    "GaapConfig",
    "GateConfig",
    "LLMChoice",
    "MaxVariant",
    "OptionSpec",
    "Padding",
    "ParaphraseConfig",
    "Perturber",
    "RunConfig",
    "ScoreConfig",
    "WDGround",
    "check_temperatures",
    "config_from_flat",
    "config_to_dict",
    "flat_values",
    "iter_options",
    "json_ready",
]
