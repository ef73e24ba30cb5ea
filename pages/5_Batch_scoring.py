"""Batch scoring: upload a CSV / JSON Lines file of questions and score every row, resumably."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from invent_core.batch import LLM_LAYOUTS, inspect_input, iter_records
from invent_core.methods.registry import list_methods
from invent_core.workbench.estimate import ThroughputLog, estimate_run
from invent_ui.data import batch_rows, uploads
from invent_ui.jobs.background import CancellableLLM, start_job
from invent_ui.jobs.feedback import job_panel, show_error
from invent_ui.render import batch_view, views
from invent_ui.session import resources, state
from invent_ui.session.sidebar import page_setup
from invent_ui.text import untrusted

settings = page_setup("Batch scoring", icon="📦")
st.title("Batch scoring")
st.caption(
    "One row per question: `question` (required), optional `id`, `answer` (turns on correctness, "
    "AUROC and PRR), `choices`/`task`, or pre-generated `perturbations` + `responses` (then no LLM "
    "call at all). Uploads and results are kept under invent's cache folder, keyed by the file's "
    "sha256: after a browser refresh, upload the same file (or reopen it below) and scoring resumes."
)
ROOT = resources.work_dir("batch")

# --- the upload, stored once per content ---------------------------------------------------
up = st.file_uploader(
    "Questions file (CSV, TSV or JSON Lines)",
    type=["csv", "tsv", "jsonl", "ndjson"],
    key="batch_upload",
)
folder = None
if up is not None:
    folder = uploads.store_upload(ROOT, up.name, up.getvalue())
else:
    names = uploads.earlier_uploads(ROOT)
    if names:
        pick = st.selectbox(
            "…or reopen an earlier upload",
            ["—", *names],
            format_func=lambda p: p if p == "—" else f"{names[p]} ({p.rsplit('/', 1)[-1]})",
            key="batch_reopen",
        )
        if pick != "—":
            folder = ROOT / pick.rsplit("/", 1)[-1]
if folder is None:
    st.info("Upload a file to start. Example: a CSV with columns `question,answer`.")
    st.stop()

path = uploads.upload_input(folder)
if path is None:
    st.error("This upload's file is missing from its folder: upload the file again.")
    st.stop()
meta = uploads.upload_meta(folder)
NAMES = {str(path): meta.get("name", "the uploaded file"), str(folder): "the upload"}
try:
    info = inspect_input(path)
except Exception as err:  # noqa: BLE001 - shown with the uploaded file's name, not the stored copy
    show_error(err, "Checking the file", NAMES)
    st.stop()
layout_text = {
    "questions": "questions only: the LLM will generate perturbations and answers",
    "reworded": "questions and their perturbations: the LLM will answer them (no rewording)",
    "wide": "pre-generated responses (wide): no LLM call",
    "long": "pre-generated responses (long, one row per response): no LLM call",
}[info.layout]
c1, c2, c3, c4 = st.columns(4)
c1.metric("file", untrusted(meta.get("name", path.name)))
c2.metric("rows (estimated)", int(info.estimated_rows()))
c3.metric("answers", "yes" if info.has_answers else "no")
c4.metric("encoding", untrusted(info.encoding))
st.success(
    f"Schema OK · columns: {', '.join(map(untrusted, info.columns))} · layout: {layout_text}.",
    icon=":material/check_circle:",
)
with st.expander("Preview (first 20 rows)", expanded=True):
    try:
        if info.format == "csv":
            preview = pd.read_csv(
                path, nrows=20, encoding=info.encoding, sep=info.delimiter, dtype=str
            )
        else:
            preview = pd.read_json(path, lines=True, nrows=20, dtype=False)
        st.dataframe(preview, width="stretch")
    except Exception as err:  # noqa: BLE001 - the preview is a convenience
        show_error(err, "The preview")

# --- scoring ----------------------------------------------------------------------------------
labels = {m.name: m.label for m in list_methods()}
baselines = [m for m in list_methods("baseline")]
chosen = st.multiselect(
    "Baselines to add (the five Inv measures are always computed)",
    [m.name for m in baselines],
    default=[m.name for m in baselines if not m.needs_llm][:3],
    format_func={m.name: m.label for m in baselines}.get,
    key="batch_methods",
)
run_cfg = settings.run_config(perturber=views.perturber_picker("batch_perturber"))
out = folder / f"scores_{settings.key(sorted(chosen), run_cfg.perturber)}.csv"
done_before = sum(1 for _ in iter_records(out)) if out.exists() else 0
if info.layout == "questions":
    estimate = estimate_run(
        run_cfg,
        **resources.llm_identities(settings),
        throughput=ThroughputLog(),
        n_questions=max(0, info.estimated_rows() - done_before),
    )
    st.caption(f"{untrusted(estimate.text)} (rows still to score; sidebar n, r).")
finished = batch_rows.all_scored(info, done_before)
if finished:
    st.success(f"All {int(done_before)} row(s) are scored with these settings.")
elif done_before:
    st.info(
        f"{int(done_before)} row(s) already scored with these settings: scoring resumes after them.",
        icon=":material/replay:",
    )


def _start(label: str, source, output, config) -> None:
    """Score ``source`` into ``output`` in a background job (progress per row, Cancel)."""
    llm = resources.llm_for(settings) if info.layout in LLM_LAYOUTS else None

    def work(progress, cancel):
        model = CancellableLLM(llm, cancel) if llm is not None else None
        return batch_rows.score_file(
            source, output, config, llm=model, methods=chosen or "inv", progress=progress
        )

    context = {"folder": str(folder)}  # a job's outcome is shown with its own file only
    start_job(state.BATCH_JOB, work, label=label, kind="batch", context=context)


shown_job = st.session_state.get(state.BATCH_JOB)
if shown_job is not None and not shown_job.running:
    if shown_job.context.get("folder") != str(folder):  # another file's "done" is not this one's
        del st.session_state[state.BATCH_JOB]
if st.button(
    "All rows scored" if finished else "Resume scoring" if done_before else "Score",
    type="primary",
    key="batch_run",
    disabled=finished or views.job_running(state.BATCH_JOB),
):
    try:
        _start(f"Scoring {meta.get('name', path.name)}", path, out, run_cfg)
    except Exception as err:  # noqa: BLE001 - shown, not raised
        show_error(err, "Batch scoring", NAMES)

job = job_panel(
    state.BATCH_JOB,
    kept="The rows scored so far are saved: press the button again and scoring resumes after them.",
    names=NAMES,
)
if job is not None and job.take() and job.status == "done":
    summary = job.result
    if summary.ok:
        st.success(
            f"Scored {int(summary.n_scored)} row(s), {int(summary.n_resumed)} resumed, "
            f"in {summary.seconds:.1f} s."
        )
    else:
        st.warning(
            f"{int(summary.n_failed)} row(s) failed (scored {int(summary.n_scored)}); first "
            "errors: "
            + "; ".join(untrusted(batch_rows.public_message(e, NAMES)) for e in summary.errors[:3])
            + ". They are listed under *Failed rows* below, where they can be retried."
        )

if not out.exists():
    st.stop()

# --- results ----------------------------------------------------------------------------------
stem = uploads.download_stem(meta.get("name"), path.stem)  # downloads named after the upload
df = batch_view.scored_rows(out, stem)

# --- failed rows: listed, and retried with the other perturber --------------------------------
failed = batch_rows.failed_rows(out)
if failed:
    batch_view.failed_table(failed, NAMES)
    retryable = [e for e in failed if e.get("kind") == "scoring"]
    if info.layout == "questions" and retryable:
        from invent_core.perturb import available_perturbers, get_perturber

        others = [p for p in available_perturbers() if p != run_cfg.perturber]
        c1, c2 = st.columns([2, 1])
        other = c1.selectbox(
            "Retry them with",
            others,
            format_func=lambda name: get_perturber(name).label,
            key="batch_retry_perturber",
        )
        retry_out = folder / f"retry_{settings.key(sorted(chosen), run_cfg.perturber, other)}.csv"
        if c2.button(
            f"Retry {len(retryable)} row(s)",
            key="batch_retry",
            disabled=views.job_running(state.BATCH_JOB),
        ):
            source = batch_rows.retry_input(path, info, retryable, folder / "retry_input.csv")
            if source is None:
                st.error("The failed rows could not be found in the uploaded file again.")
            else:
                try:
                    _start(
                        f"Retrying {len(retryable)} row(s) with {other}",
                        source,
                        retry_out,
                        run_cfg.replace(perturber=other),
                    )
                    st.rerun()
                except Exception as err:  # noqa: BLE001 - shown, not raised
                    show_error(err, "The retry")
        if retry_out.exists():
            batch_view.retried_rows(retry_out, other, df, stem)

if "correct" in df.columns and df["correct"].notna().any():
    batch_view.metrics(out, df, labels)
