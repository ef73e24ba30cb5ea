"""Batch scoring: upload a CSV / JSON Lines file of questions and score every row, resumably."""

from __future__ import annotations

import hashlib
import json

import pandas as pd
import streamlit as st

from invent_core.batch import (
    batch_score,
    evaluate_output,
    export_results,
    inspect_input,
    iter_records,
)
from invent_core.evaluation.metrics import rejection_curve
from invent_core.progress import Progress
from invent_core.registry import list_methods
from invent_ui import plots, resources, views
from invent_ui.feedback import StageProgress, guarded, show_error
from invent_ui.sidebar import page_setup

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
    data = up.getvalue()
    sha = hashlib.sha256(data).hexdigest()
    folder = ROOT / sha[:16]
    folder.mkdir(parents=True, exist_ok=True)
    suffix = "." + up.name.rsplit(".", 1)[-1].lower() if "." in up.name else ".csv"
    path = folder / f"input{suffix}"
    if not path.exists():
        path.write_bytes(data)
        (folder / "upload.json").write_text(
            json.dumps({"name": up.name, "sha256": sha, "bytes": len(data)})
        )
else:
    earlier = sorted(
        (p for p in ROOT.iterdir() if (p / "upload.json").exists()),
        key=lambda p: -p.stat().st_mtime,
    )
    if earlier:
        names = {str(p): json.loads((p / "upload.json").read_text())["name"] for p in earlier}
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

path = next(p for p in folder.iterdir() if p.name.startswith("input"))
info = guarded("Checking the file", inspect_input, path)
if info is None:
    st.stop()
meta = json.loads((folder / "upload.json").read_text()) if (folder / "upload.json").exists() else {}
layout_text = {
    "questions": "questions only: the LLM will generate perturbations and answers",
    "wide": "pre-generated responses (wide): no LLM call",
    "long": "pre-generated responses (long, one row per response): no LLM call",
}[info.layout]
c1, c2, c3, c4 = st.columns(4)
c1.metric("file", meta.get("name", path.name))
c2.metric("rows (estimated)", info.estimated_rows())
c3.metric("answers", "yes" if info.has_answers else "no")
c4.metric("encoding", info.encoding)
st.success(
    f"Schema OK · columns: {', '.join(info.columns)} · layout: {layout_text}.",
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
baselines = [m for m in list_methods("baseline")]
chosen = st.multiselect(
    "Baselines to add (the five Inv measures are always computed)",
    [m.name for m in baselines],
    default=[m.name for m in baselines if not ({"llm", "logprobs"} & set(m.needs))][:3],
    format_func={m.name: m.label for m in baselines}.get,
    key="batch_methods",
)
run_cfg = settings.run_config(perturber=views.perturber_picker("batch_perturber"))
out = folder / f"scores_{settings.key(sorted(chosen), run_cfg.perturber)}.csv"
done_before = sum(1 for _ in iter_records(out)) if out.exists() else 0
if done_before:
    st.info(
        f"{done_before} row(s) already scored with these settings: scoring resumes after them.",
        icon=":material/replay:",
    )
if st.button("Score" if not done_before else "Resume scoring", type="primary", key="batch_run"):
    try:
        llm = resources.llm_for(settings) if info.layout == "questions" else None
        with StageProgress(f"Scoring {meta.get('name', path.name)}") as prog:
            summary = batch_score(
                path,
                out,
                run_cfg,
                methods=chosen or "inv",
                llm=llm,
                progress=lambda done, total, eta: prog(Progress("rows", done, total, eta)),
            )
        if summary.ok:
            st.success(
                f"Scored {summary.n_scored} row(s), {summary.n_resumed} resumed, in {summary.seconds:.1f} s."
            )
        else:
            st.warning(
                f"{summary.n_failed} row(s) failed (scored {summary.n_scored}); first errors: "
                + "; ".join(e.get("message", e.get("error", "")) for e in summary.errors[:3])
            )
    except Exception as err:  # noqa: BLE001 - shown, not raised
        show_error(err, "Batch scoring")

if not out.exists():
    st.stop()

# --- results ----------------------------------------------------------------------------------
records = list(iter_records(out))
st.subheader(f"Results: {len(records)} row(s)")
df = pd.DataFrame(records)
st.dataframe(
    df.drop(columns=[c for c in ("perturbations", "responses") if c in df]), width="stretch"
)
d1, d2 = st.columns(2)
d1.download_button(
    "Download CSV",
    out.read_bytes(),
    file_name=f"{path.stem}_scores.csv",
    mime="text/csv",
    key="batch_dl_csv",
)
json_path = out.with_suffix(".json")
if not json_path.exists() or json_path.stat().st_mtime < out.stat().st_mtime:
    guarded("Exporting JSON", export_results, out, json_path)
if json_path.exists():
    d2.download_button(
        "Download JSON",
        json_path.read_bytes(),
        file_name=f"{path.stem}_scores.json",
        mime="application/json",
        key="batch_dl_json",
    )

if "correct" in df.columns and df["correct"].notna().any():
    ev = guarded("Evaluating", evaluate_output, out)
    if ev and ev["methods"]:
        st.subheader("Metrics against the answers")
        st.caption(
            f"Accuracy of the answers to the original questions: {ev['accuracy']:.0%} over {ev['n_judged']} judged."
        )
        st.dataframe(pd.DataFrame(ev["methods"]).T, width="stretch")
        judged = df[df["correct"].notna()]
        correct = judged["correct"].astype(int).to_numpy()
        if correct.min() == correct.max():
            st.info(
                "Every judged answer is the same (all correct or all wrong): no ROC or rejection curve."
            )
        else:
            table = {
                m: judged[m].astype(float).to_numpy()
                for m in ev["methods"]
                if judged[m].notna().all()
            }
            c1, c2 = st.columns(2)
            c1.plotly_chart(plots.roc_figure(correct, table), key="batch_roc")
            c2.plotly_chart(
                plots.rejection_figure({m: rejection_curve(correct, u) for m, u in table.items()}),
                key="batch_rej",
            )
