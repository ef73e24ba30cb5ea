"""What every page shares: the settings, the sidebar, the session-state keys and the run history.

- :mod:`~invent_ui.session.state` — every key the pages read or write in ``st.session_state``.
- :mod:`~invent_ui.session.settings` — the sidebar's :class:`~invent_ui.session.settings.Settings`
  (the LLM choice and one :class:`invent_core.config.RunConfig`); pure.
- :mod:`~invent_ui.session.own_model` — the "your model" path, checked as it is typed; pure.
- :mod:`~invent_ui.session.navigation` — the page list (the sidebar's, where app.py is "Home"); pure.
- :mod:`~invent_ui.session.sidebar` — the settings sidebar every page calls first.
- :mod:`~invent_ui.session.resources` — cached models, demo artefacts and results derived from a run.
- :mod:`~invent_ui.session.archive` — what the run history keeps and where an entry reopens; pure.
- :mod:`~invent_ui.session.history_view` — the sidebar's recent history and the reopen action.
"""
