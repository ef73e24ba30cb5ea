"""The measures of the paper's own framework (Table 1, lower block), one method per table entry.

They share one bootstrap pass (:attr:`ScoringContext.score`), so each method
only reads its value; the measures themselves are the entries of
:data:`invent_core.paper.measures.INV_MEASURES`, which the bootstrap iterates too.
"""

from __future__ import annotations

from ..paper.measures import INV_MEASURES, InvMeasure
from .registry import Method, ScoringContext, is_registered, register


def _reader(name: str):
    def compute(ctx: ScoringContext) -> float:
        return ctx.score.measures[name]

    compute.__name__ = f"compute_{name}"
    return compute


def inv_method(name: str, measure: InvMeasure) -> Method:
    """The registry entry of one Inv measure: reads ``ctx.score.measures[name]``."""
    return Method(
        name=name,
        label=measure.label,
        family="inv",
        compute=_reader(name),
        needs=frozenset({"perturbations"}),
        reference=measure.reference,
        summary=measure.summary,
        simplifications=measure.simplifications,
    )


def register_inv_measures() -> list[Method]:
    """Register every entry of :data:`INV_MEASURES` not registered yet (idempotent)."""
    return [
        register(inv_method(name, measure))
        for name, measure in INV_MEASURES.items()
        if not is_registered(name)
    ]


register_inv_measures()
