"""What the pages keep besides a run, as plain data (pure: no Streamlit).

- :mod:`~invent_ui.data.experiments` — evaluation and TSU results as JSON payloads.
- :mod:`~invent_ui.data.uploads` — the Batch page's stored uploads, one folder per content.
- :mod:`~invent_ui.data.batch_rows` — batch scoring's failed rows, and their retry.
- :mod:`~invent_ui.data.answers` — the answer a run gives: the most common of its r.
"""
