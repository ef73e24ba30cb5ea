"""Plotly figure builders for the dashboard: pure functions of arrays and texts, by domain.

No Streamlit here, and no paper math: every quantity drawn was computed by
``invent_core`` (the run's :class:`~invent_core.paper.random_walk.RandomWalk`, its
bootstrap values, the metrics' confidence, rejection and reliability data).
What is computed here is only how to draw it: ROC points (scikit-learn's
``roc_curve`` of :func:`~invent_core.evaluation.metrics.confidence_from_uncertainty`),
the walk graphs' node positions (a seeded networkx spring layout), colour ranges
and wrapped hover texts. Testable by reading the figure's data back.

- :mod:`~invent_ui.plots.style` — the palette, margins and hover texts every figure shares.
- :mod:`~invent_ui.plots.matrices` — heatmaps of P_x, P_y, P(X|Y) and their differences.
- :mod:`~invent_ui.plots.walk_graph` — a random walk as a directed graph.
- :mod:`~invent_ui.plots.measures` — bootstrap histograms, the reference placement, grouped bars.
- :mod:`~invent_ui.plots.gaap` — GAAP evolution's generations.
- :mod:`~invent_ui.plots.tsu` — uncertainty against temperature, TSU bars.
- :mod:`~invent_ui.plots.curves` — ROC, rejection and reliability curves.
- :mod:`~invent_ui.plots.compare` — two evaluations' paired differences with their intervals.

Callers use the face: ``from invent_ui import plots; plots.roc_figure(...)``.
"""

from __future__ import annotations

from .compare import paired_differences_figure
from .curves import rejection_figure, reliability_figure, roc_figure
from .gaap import gaap_fitness_box_figure, gaap_generations_figure
from .matrices import (
    difference_heatmap,
    heatmap_figure,
    same_matrix,
    shared_range,
    walk_heatmaps,
)
from .measures import (
    bootstrap_figure,
    grouped_bar_figure,
    measures_comparison_figure,
    measures_grid_figure,
    reference_figure,
)
from .style import ORIGINAL_COLOUR, OTHER_COLOUR, PALETTE, state_labels, wrap_text
from .tsu import tsu_bar_figure, uq_temperature_figure
from .walk_graph import walk_graph_figure

__all__ = [
    "ORIGINAL_COLOUR",
    "OTHER_COLOUR",
    "PALETTE",
    "bootstrap_figure",
    "difference_heatmap",
    "same_matrix",
    "gaap_fitness_box_figure",
    "gaap_generations_figure",
    "grouped_bar_figure",
    "heatmap_figure",
    "measures_comparison_figure",
    "measures_grid_figure",
    "paired_differences_figure",
    "reference_figure",
    "rejection_figure",
    "reliability_figure",
    "roc_figure",
    "shared_range",
    "state_labels",
    "tsu_bar_figure",
    "uq_temperature_figure",
    "walk_graph_figure",
    "walk_heatmaps",
    "wrap_text",
]
