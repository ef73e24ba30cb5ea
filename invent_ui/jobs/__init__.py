"""Long actions off the page's thread, and what the user sees of them.

- :mod:`~invent_ui.jobs.background` — a :class:`~invent_ui.jobs.background.Job` runs in a
  thread with a progress tracker and a cancel token; the server keeps one registry of them,
  so a reload reattaches to the running job.
- :mod:`~invent_ui.jobs.feedback` — readable errors (never a traceback or a cache path),
  :func:`~invent_ui.jobs.feedback.guarded` calls and the live job panel.
"""
