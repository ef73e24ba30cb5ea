"""The entailment-similarity adapter with a tiny randomly initialised model built here (nothing downloaded)."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from invent_core.paper.random_walk import KERNEL_TAU


@pytest.mark.slow
def test_nli_similarity_is_symmetrised_entailment(tiny_nli):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from invent_core.embedders import get_embedder

    sim = get_embedder(str(tiny_nli), device="cpu")
    texts = ["A cat sits on the mat.", "A dog runs in the park.", "Markets fell today."]
    directed = sim.directed_matrix(texts)
    s = sim.similarity_matrix(texts, kind="shifted_cosine", tau=KERNEL_TAU)
    np.testing.assert_allclose(s, (directed + directed.T) / 2)
    np.testing.assert_allclose(np.diag(s), 1.0)
    assert np.all((s >= 0) & (s <= 1))
    # reference: run the model by hand for one directed pair, entailment index from label2id
    tok = AutoTokenizer.from_pretrained(tiny_nli)
    model = AutoModelForSequenceClassification.from_pretrained(tiny_nli).eval()
    enc = tok(texts[0], texts[1], return_tensors="pt")
    with torch.inference_mode():
        p = torch.softmax(model(**enc).logits, -1)[0, 2].item()
    assert directed[0, 1] == pytest.approx(p, abs=1e-5)
    assert "sha256" in sim.identity


@pytest.mark.slow
def test_nli_folder_without_entailment_label(tmp_path, tiny_nli):
    import json

    from invent_core.embedders.nli import NLISimilarity
    from invent_core.errors import ModelFileError

    bad = tmp_path / "bad"
    shutil.copytree(tiny_nli, bad)
    cfg = json.loads((bad / "config.json").read_text())
    cfg["label2id"] = {"A": 0, "B": 1, "C": 2}
    cfg["id2label"] = {"0": "A", "1": "B", "2": "C"}
    (bad / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(ModelFileError, match="no 'entailment' label"):
        NLISimilarity(bad, device="cpu").similarity_matrix(
            ["a", "b"], kind="shifted_cosine", tau=KERNEL_TAU
        )


def test_nli_needs_a_model_folder(tmp_path):
    from invent_core.embedders.nli import NLISimilarity
    from invent_core.errors import ModelFileError

    with pytest.raises(ModelFileError, match="not a Hugging Face model folder"):
        NLISimilarity(tmp_path)
