"""Re-ask: only changed or added perturbations reach the LLM; the rest keep their answers."""

from __future__ import annotations

import pytest

from invent_core.engine.artifact import RunArtifact
from invent_core.engine.reask import edited_flags, match_states, reask
from invent_core.errors import Cancelled
from invent_core.llm import Completion
from invent_core.progress import CancelToken
from invent_ui import assets


class RecordingLLM:
    """Answers every request with a numbered text and records it."""

    def __init__(self, identity: str) -> None:
        self.identity = identity
        self.requests = []

    def complete(self, messages, **kw):  # pragma: no cover - unused
        raise AssertionError("re-ask sends its requests through complete_many")

    def complete_many(self, requests, progress=None, *, cancel=None):
        out = []
        for req in requests:
            self.requests.append(req)
            out.append(Completion(text=f"Answer {len(self.requests)}"))
            if progress is not None:
                progress(len(out), len(requests))
        return out

    def close(self):
        pass


@pytest.fixture(scope="module")
def run():
    return RunArtifact.load(assets.DEMO_RUN).rescore(n_bootstrap=5)


@pytest.fixture
def llm(run):
    return RecordingLLM(run.identities["llm"])


def test_match_states_keeps_moved_rows_and_asks_copies():
    assert match_states(["q", "a", "b", "c"], ["q", "a", "c", "d"]) == [0, 1, 3, None]
    assert match_states(["q", "a", "b"], ["q", "b", "a", "a"]) == [0, 2, 1, None]
    assert match_states(["q", "a"], ["q", "  a "]) == [0, 1]
    assert edited_flags([0, 2, None], [False, False, True]) == [False, True, True]


@pytest.mark.slow  # scores with the real packaged MiniLM
def test_editing_one_perturbation_asks_exactly_r(run, llm, minilm):
    perts = list(run.perturbations)
    perts[2] = "Which famous playwright wrote Hamlet, in your opinion?"
    new = reask(run, perts, llm=llm, embedder=minilm)
    r = run.config.n_replications
    assert len(llm.requests) == r
    assert {req.replication for req in llm.requests} == set(range(r))
    assert {req.state for req in llm.requests} == {3}  # the edited state's own seeds
    assert new.extras["edited"] == [i == 3 for i in range(len(run.questions))]
    assert new.questions[3] == perts[2] and new.perturbations == perts
    for i in (0, 1, 2, 4, 9):  # every other state keeps its answers, raw and cleaned
        assert new.responses[i] == run.responses[i]
        assert new.raw_responses[i] == run.raw_responses[i]
    assert new.responses[3] == [f"Answer {k}" for k in range(1, r + 1)]
    assert new.usage["requests"] == r
    assert new.score.measures != run.score.measures
    assert new.config.n_perturbations == run.config.n_perturbations
    assert new.config.score == run.config.score
    # the edited run round-trips through JSON with its flags
    again = RunArtifact.from_json(new.to_json())
    assert again.extras["edited"] == new.extras["edited"]


@pytest.mark.slow
def test_delete_and_add_rows(run, llm, minilm):
    perts = [p for k, p in enumerate(run.perturbations) if k != 0]  # delete the first
    new = reask(run, perts, llm=llm, embedder=minilm)
    assert llm.requests == []  # a deletion asks nothing
    assert new.config.n_perturbations == len(run.perturbations) - 1
    assert new.responses[1] == run.responses[2]
    assert not any(new.extras["edited"])
    added = reask(new, [*perts, "My own rewording of the question?"], llm=llm, embedder=minilm)
    assert len(llm.requests) == run.config.n_replications
    assert added.extras["edited"][-1] and not any(added.extras["edited"][:-1])
    assert added.extras["reask"]["asked"] == [len(perts) + 1]
    # a later edit elsewhere keeps the earlier flag
    perts2 = [*perts, "My own rewording of the question?"]
    perts2[0] = "An edited first row?"
    twice = reask(added, perts2, llm=llm, embedder=minilm)
    assert twice.extras["edited"][1] and twice.extras["edited"][-1]


def test_refusals(run, llm):
    with pytest.raises(ValueError, match="perturbation 2 is empty"):
        reask(run, ["a?", "  "], llm=llm)
    with pytest.raises(ValueError, match="at least one perturbation"):
        reask(run, [], llm=llm)
    other = RecordingLLM("http://127.0.0.1:8000/v1|model=llama")
    with pytest.raises(ValueError, match="choose that LLM"):
        reask(run, ["A new question?"], llm=other)
    assert other.requests == []
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        reask(run, ["A new question?"], llm=llm, cancel=token)
    assert llm.requests == []
