"""Entailment similarity from any local Hugging Face sequence-classification folder.

The paper's third ψ is DeBERTa-v2-xlarge-MNLI: a(x, x') = P(entailment | x, x'),
which is directed, so it symmetrises ``(a(x, x') + a(x', x)) / 2`` (paper §3
"Implementation details"). No NLI model exists on PyPI, so this adapter takes
a folder the user supplies (e.g. a downloaded ``microsoft/deberta-large-mnli``);
the entailment label is found through ``config.label2id``.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import get_args

import numpy as np

from .. import env
from ..errors import ModelFileError
from ..paper.random_walk import AffinityKind, affinity_from_cosine, symmetrize


def _entailment_index(label2id: dict[str, int]) -> int:
    for label, idx in label2id.items():
        if label.lower().startswith("entail"):
            return int(idx)
    raise ModelFileError(
        f"the model's config.label2id {label2id} has no 'entailment' label; "
        "is this an NLI (MNLI-style) model?"
    )


def _folder_digest(folder: Path) -> str:
    """sha256 over the weight files' names and bytes (first 16 hex digits)."""
    h = hashlib.sha256()
    for f in sorted(folder.glob("*")):
        if f.suffix in {".safetensors", ".bin"} and f.is_file():
            h.update(f.name.encode())
            with open(f, "rb") as fh:
                while block := fh.read(1 << 22):
                    h.update(block)
    return h.hexdigest()[:16]


class NLISimilarity:
    """Symmetrised P(entailment) between every pair of texts.

    Parameters
    ----------
    folder : a local folder with ``config.json``, tokenizer files and weights.
    device : ``"cuda"``, ``"cpu"`` or None (CUDA when available).
    batch_size : premise/hypothesis pairs per forward pass.
    """

    def __init__(
        self, folder: str | Path, *, device: str | None = None, batch_size: int = 32
    ) -> None:
        self.folder = Path(folder)
        if not (self.folder / "config.json").is_file():
            raise ModelFileError(
                f"{self.folder} is not a Hugging Face model folder (no config.json)"
            )
        self.name = f"nli:{self.folder.name}"
        self._device = device
        self.batch_size = batch_size
        self._model = None
        self._tokenizer = None
        self._entail = None
        self._digest: str | None = None
        self._pairs: dict[tuple[str, str], float] = {}
        self._lock = threading.Lock()

    @property
    def identity(self) -> str:
        """Model folder name plus the sha256 of its weights."""
        if self._digest is None:
            self._digest = _folder_digest(self.folder)
        return f"{self.name}@sha256:{self._digest}"

    def load(self):
        """Load the NLI model (once; later calls return at once)."""
        with self._lock:
            if self._model is None:
                from transformers import AutoModelForSequenceClassification, AutoTokenizer

                device = self._device or env.torch_device()
                try:
                    self._tokenizer = AutoTokenizer.from_pretrained(
                        self.folder, local_files_only=True
                    )
                    model = AutoModelForSequenceClassification.from_pretrained(
                        self.folder, local_files_only=True
                    )
                except Exception as err:  # noqa: BLE001 - safetensors, OSError, ValueError …: one line
                    raise ModelFileError(
                        f"{self.folder}: the model cannot be loaded ({type(err).__name__}: "
                        f"{' '.join(str(err).split())[:200]}); check or replace its files"
                    ) from None
                self._entail = _entailment_index(model.config.label2id)
                self._model = model.to(device).eval()
        return self._model

    def entailment(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """P(entailment | premise_k ⇒ hypothesis_k) for each pair, shape (k,)."""
        import torch

        model = self.load()
        todo = [(p, h) for p, h in zip(premises, hypotheses) if (p, h) not in self._pairs]
        todo = list(dict.fromkeys(todo))
        for start in range(0, len(todo), self.batch_size):
            chunk = todo[start : start + self.batch_size]
            enc = self._tokenizer(
                [p for p, _ in chunk],
                [h for _, h in chunk],
                padding=True,
                truncation=True,
                return_tensors="pt",
            ).to(model.device)
            with torch.inference_mode():
                probs = torch.softmax(model(**enc).logits.float(), dim=-1)[:, self._entail]
            self._pairs.update(zip(chunk, probs.cpu().numpy().tolist()))
        return np.array(
            [self._pairs[(p, h)] for p, h in zip(premises, hypotheses)], dtype=np.float64
        )

    def directed_matrix(self, texts: Sequence[str]) -> np.ndarray:
        """(k, k) with ``[i, j] = P(entailment | texts[i] ⇒ texts[j])``, ones on the diagonal."""
        texts = list(texts)
        k = len(texts)
        out = np.eye(k)
        pairs = [(i, j) for i in range(k) for j in range(k) if i != j and texts[i] != texts[j]]
        if pairs:
            scores = self.entailment([texts[i] for i, _ in pairs], [texts[j] for _, j in pairs])
            for (i, j), s in zip(pairs, scores):
                out[i, j] = s
        for i in range(k):
            for j in range(k):
                if i != j and texts[i] == texts[j]:
                    out[i, j] = 1.0  # identical texts entail each other
        return out

    def similarity_matrix(
        self,
        texts: Sequence[str],
        *,
        kind: AffinityKind,
        tau: float,
    ) -> np.ndarray:
        """Symmetrised entailment affinities s = (P(x ⇒ x') + P(x' ⇒ x)) / 2, under ``kind``.

        An entailment probability is not a cosine. It plays the role of the
        paper's affinity (1 + cos)/2, so the kinds read it through
        ``cos ≡ 2 s − 1``: ``"shifted_cosine"`` is s itself (the paper, §3),
        ``"exp_cosine"`` is ``exp(2 (s − 1) / τ)``, the same sharpening as for
        embeddings. ``"abs_cosine"`` would call contradicting texts (s = 0)
        identical, so it is refused.

        Raises
        ------
        ValueError
            For ``kind="abs_cosine"`` or an unknown kind.
        """
        if kind == "abs_cosine":
            raise ValueError(
                "affinity 'abs_cosine' is not defined for an NLI similarity (|2s - 1| would make "
                "contradicting texts identical); use 'shifted_cosine' or 'exp_cosine'"
            )
        if kind not in get_args(AffinityKind):
            raise ValueError(
                f"unknown affinity kind {kind!r}; use 'shifted_cosine' or 'exp_cosine'"
            )
        s = symmetrize(self.directed_matrix(texts))  # (k, k) in [0, 1]
        if kind == "shifted_cosine":
            return s
        return affinity_from_cosine(2.0 * s - 1.0, kind=kind, tau=tau)
