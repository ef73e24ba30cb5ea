"""A report anyone can open: one self-contained HTML file of an evaluation or of one run.

- :mod:`.page` — the page: escaped text, tables, folded sections, inline charts
  (plotly's JavaScript embedded once: no network, no server).
- :mod:`.figures` — ROC, AUROC with intervals, a measure by correctness, bootstrap values.
- :mod:`.evaluation` — :func:`evaluation_report`, :func:`read_folder` (relabels applied).
- :mod:`.run` — :func:`run_report` of one run artefact.

:func:`write_report` is what ``invent report`` and the dashboard's download call.
"""

from __future__ import annotations

from pathlib import Path

from ..batch.output import check_output_file, output_file
from .evaluation import evaluation_report, read_folder
from .run import load_run, run_report

__all__ = ["evaluation_report", "read_folder", "report_html", "run_report", "write_report"]


def report_html(source: str | Path) -> str:
    """The page of ``source``: an ``evaluate`` folder, or one run's JSON artefact."""
    source = Path(source)
    if source.is_dir():
        return evaluation_report(read_folder(source))
    if source.is_file():
        return run_report(load_run(source))
    raise FileNotFoundError(f"{source}: no such evaluation folder or run file")


def write_report(source: str | Path, output: str | Path) -> Path:
    """Write :func:`report_html` of ``source`` to ``output``, as every writer does.

    Built before the file is touched (a bad source writes nothing); an output that is a
    file the report reads is refused; one writer at a time; written atomically
    (:func:`~invent_core.batch.output.output_file`).
    """
    check_output_file(output, [source])  # refused before the page is built
    text = report_html(source)
    output = Path(output)
    with output_file(output, [source]) as f:
        f.write(text)
    return output
