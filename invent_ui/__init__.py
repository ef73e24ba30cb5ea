"""invent_ui — the Streamlit dashboard's shared helpers (the app is a thin shell).

Pure modules, usable without a Streamlit runtime (and tested that way):

- :mod:`invent_ui.plots` — plotly figure builders (heatmaps, walk graphs,
  bootstrap histograms, GAAP, TSU and evaluation charts).
- :mod:`invent_ui.tables` — pandas tables built from run artefacts.
- :mod:`invent_ui.settings` — the sidebar's :class:`~invent_ui.settings.Settings`
  (the LLM choice and one :class:`invent_core.config.RunConfig`).
- :mod:`invent_ui.state` — every session-state key the pages share.
- :mod:`invent_ui.experiments` — evaluation / TSU results as JSON payloads.
- :mod:`invent_ui.assets` — where the shipped demo artefacts live.
- :mod:`invent_ui.jobs` — long actions in a background thread: progress, Cancel, result.
- :mod:`invent_ui.archive` — what the run history keeps and where an entry reopens.
- :mod:`invent_ui.navigation` — the page list (the sidebar's, where app.py is "Home").
- :mod:`invent_ui.batch_rows` — batch scoring's failed rows, and their retry.
- :mod:`invent_ui.downloads` — CSV / JSON / LaTeX / HTML / PNG bytes and their buttons.

Streamlit-side modules (import ``streamlit``):

- :mod:`invent_ui.sidebar` — the settings sidebar every page calls.
- :mod:`invent_ui.resources` — cached models, demo artefacts and runs.
- :mod:`invent_ui.feedback` — readable errors, the progress bar, the live job panel.
- :mod:`invent_ui.history_view` — the sidebar's recent history and the reopen action.
- :mod:`invent_ui.views` — blocks shared by pages (measure tiles, heatmap rows).
"""

from __future__ import annotations

__all__: list[str] = []
