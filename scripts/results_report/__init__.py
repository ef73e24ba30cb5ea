"""The pieces of ``scripts/make_results.py``, which writes ``docs/RESULTS.md`` from saved runs.

Bottom to top:

- :mod:`.paper` — the paper's published tables, read from ``paper_tables.json``;
- :mod:`.loading` — a saved ``evaluate`` / ``tsu`` output folder as a :class:`~.loading.Folder`;
- :mod:`.text` — cells, Markdown tables, the settings line and the verdict every section uses;
- :mod:`.plots` — the PNG figures, drawn with Pillow;
- :mod:`.sections` — one section per saved folder: overview, per dataset, TSU, testbed;
- :mod:`.studies` — the sections made from other saved studies: accuracy per model,
  methods that coincide, the breakdown, the cleaning and the meaning check, the kernels;
- :mod:`.report` — :func:`~.report.build_report`, the whole of RESULTS.md in order.

Nothing here calls an LLM or scores anything: every number is read from files.
The package is imported with ``scripts/`` on ``sys.path`` (as ``make_results.py``
runs) and the repository root too (for ``invent_core``).
"""
