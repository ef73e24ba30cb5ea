"""The pages' Streamlit blocks: they render what ``invent_core`` computed, never compute it.

- :mod:`~invent_ui.render.views` — blocks several pages share (measure tiles, heatmap rows,
  run captions, the reference panel, the history-or-demo fallback).
- :mod:`~invent_ui.render.results_view` — charts with downloads, leaderboards, class curves.
- :mod:`~invent_ui.render.explore_view` — the Explore page's tabs.
- :mod:`~invent_ui.render.method_jobs` — Explore's baselines that ask the LLM, as a job.
- :mod:`~invent_ui.render.evaluation_view` — the Evaluation page's blocks.
- :mod:`~invent_ui.render.batch_view` — the Batch page's result blocks.
- :mod:`~invent_ui.render.spread_view` — the wording split and the methods' rank agreement.
- :mod:`~invent_ui.render.tables` — pandas tables and Stylers (pure).
- :mod:`~invent_ui.render.downloads` — CSV / JSON / LaTeX / HTML / PNG bytes and their buttons.
"""
