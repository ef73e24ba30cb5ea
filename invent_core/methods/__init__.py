"""Every uncertainty method, one module each; importing a module registers it.

To add a baseline: write ``invent_core/methods/<name>.py`` calling
``invent_core.methods.registry.register(Method(...))`` and add ``"<name>"`` to
``MODULES`` below. An Inv variant is instead one entry of
``invent_core.paper.measures.INV_MEASURES`` (registered by ``inv_measures``).
Nothing else needs to change: the CLI, the dashboard and the contract test
read the registry.
"""

from __future__ import annotations

import importlib

MODULES: tuple[str, ...] = (
    "inv_measures",
    "semantic_entropy",
    "kernel_entropy",
    "verbalized",
    "p_true",
    "lexsim",
    "degmat",
    "luq",
    "kle",
)

_loaded = False


def load_all() -> None:
    """Import every method module once (registration happens at import)."""
    global _loaded
    if _loaded:
        return
    for name in MODULES:
        importlib.import_module(f"{__name__}.{name}")
    _loaded = True
