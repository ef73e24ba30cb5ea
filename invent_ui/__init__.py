"""invent_ui — the Streamlit dashboard's helpers; ``app.py`` and ``pages/`` are thin shells over them.

Floors, each importing only from ``invent_core`` and from parts below it: ``render`` uses
the other four packages, ``session`` only ``jobs`` (and ``assets``, ``text``), ``jobs`` and
``plots`` only ``text``, ``data`` only ``text`` and ``assets`` (the table is ``UI_ALLOWED``
in ``tests/test_layout.py``)::

    pages/, app.py     one script per page: widgets in, render/ blocks out
    render/            Streamlit blocks per page, and the tables and downloads they show
    session/           what every page shares: settings, sidebar, session keys, cached models, history
    jobs/  data/       background jobs and their panel; payloads, uploads, failed batch rows
    plots/  assets     figure builders by domain; where the shipped demo artefacts live
    text               untrusted(): outside text made safe for Streamlit's Markdown (pure)

- :mod:`invent_ui.assets` — where the shipped demo artefacts live.
- :mod:`invent_ui.text` — :func:`~invent_ui.text.untrusted`, the one way text that did not come
  from this program (a question, an answer, a file, a server, a title) reaches Markdown.
- :mod:`invent_ui.plots` — plotly figure builders, a package by domain (pure).
- :mod:`invent_ui.data` — evaluation / TSU payloads, stored uploads, batch scoring's failed rows (pure).
- :mod:`invent_ui.jobs` — long actions in a background thread (progress, Cancel, result), and
  what the user sees of them: readable errors and the live job panel.
- :mod:`invent_ui.session` — the settings and the sidebar that edits them, every session-state
  key, the page list, cached models and demo artefacts, the run history and its reopen action.
- :mod:`invent_ui.render` — the pages' Streamlit blocks (Explore's tabs, the Evaluation,
  Batch and spread views, shared blocks), the pandas tables and the download buttons.

Modules that say "Pure: no Streamlit" run without a Streamlit runtime and are tested that way.
"""

from __future__ import annotations

__all__: list[str] = []
