"""Every key the dashboard reads or writes in ``st.session_state``, in one place.

Pure: no Streamlit. Keys that only name a widget (``key="explore_colorscale"``)
stay next to the widget; the ones below carry state between reruns or pages.
"""

from __future__ import annotations

#: The sidebar's settings as a flat dict (``Settings.to_dict``), shared by every page.
SETTINGS = "invent_settings"
#: The typed API key: session memory only, never a settings field, never written to disk.
API_KEY = "invent_api_key"
#: Prefix of the sidebar widgets' keys: ``sb_`` + option name (``sb_n_perturbations``).
SIDEBAR_PREFIX = "sb_"

#: Explore a question: the run shown (a RunArtifact), and what the question box holds.
EXPLORE_RUN = "explore_run"
EXPLORE_QUESTION = "explore_question"
EXPLORE_TASK = "explore_task"  # (task, choices) of the picked sample question
EXPLORE_SAMPLE = "explore_sample"
#: Prefix of the LLM baselines' results of one run and backend.
EXPLORE_LLM_METHODS = "explore_llm_methods_"

#: GAAP evolution: the GaapResult shown, the generation slider, the "Play" request.
GAAP_RESULT = "gaap_result"
GAAP_GENERATION = "gaap_generation"
GAAP_PLAYING = "gaap_playing"

#: The TSU and Evaluation pages' own results (JSON payloads of invent_ui.data.experiments).
TSU_PAYLOAD = "tsu_payload"
EVAL_PAYLOAD = "eval_payload"

#: Background jobs (invent_ui.jobs.background.Job), one per page that runs something.
EXPLORE_JOB = "explore_job"
EXPLORE_METHODS_JOB = "explore_methods_job"  # VU, P(True): the baselines that ask the LLM
GAAP_JOB = "gaap_job"
TSU_JOB = "tsu_job"
EVAL_JOB = "eval_job"
BATCH_JOB = "batch_job"
SIDE_JOB = "side_job"
#: Explore: the perturbation editor's table version (bumped when another run is shown).
EXPLORE_EDITOR = "explore_editor"
#: Side by side: the comparison shown ({"left": run dict, "right": run dict}).
SIDE_BY_SIDE = "side_by_side"
#: Evaluation: the seed of the question sample (shown and settable).
EVAL_SEED = "eval_seed"
#: Session key → the history id of what it holds (the URL's ``?entry=``; invent_ui.session.links).
SHOWN_ENTRIES = "shown_entries"
#: Session key → the (query parameter, name) of the file it was opened from (``?run=`` …).
SHOWN_LINKS = "shown_links"
#: The sidebar's own reference file (a name under invent_ui.session.places), or None: shipped.
OWN_REFERENCE = "own_reference"
#: Explore: (history id, question) of the run the question box was last filled from,
#: and what was typed in the box (a page switch drops a widget's own state).
EXPLORE_BOX_FOR = "explore_box_for"
EXPLORE_TYPED = "explore_typed"
