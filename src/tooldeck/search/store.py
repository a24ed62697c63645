"""Embeddings kept on disk, one file per catalog, so a catalog is embedded once, not per process.

The file holds the vectors of the catalog's tool texts and words, keyed by a hash of each text;
a catalog that changed a little reuses the vectors of every text it still has. Files are
written whole to a temporary name and renamed, so a reader never sees half a file; a file that
cannot be read is ignored (and rewritten), never an error.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]
FORMAT = "minilm-l6-v2-1"


def text_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


class EmbeddingStore:
    """Vectors by text, read from and written to `<folder>/<format>-<catalog hash>.npz`."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)

    def _path(self, catalog_hash: str) -> Path:
        return self.folder / f"{FORMAT}-{catalog_hash}.npz"

    def load(self, catalog_hash: str) -> dict[str, Vectors]:
        """Vectors by text key for this catalog, or an empty dict."""
        path = self._path(catalog_hash)
        try:
            with np.load(path, allow_pickle=False) as data:
                keys = [str(k) for k in data["keys"]]
                vectors = np.asarray(data["vectors"], dtype=np.float32)
        except (OSError, KeyError, ValueError, EOFError):
            return {}
        if vectors.ndim != 2 or len(keys) != len(vectors):
            return {}
        return dict(zip(keys, vectors, strict=True))

    def save(self, catalog_hash: str, items: Mapping[str, Vectors] | Iterable[tuple[str, Vectors]]) -> None:
        pairs = list(items.items() if isinstance(items, Mapping) else items)
        if not pairs:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".npz.tmp")
        except OSError:
            return  # a cache that cannot be written only costs time
        try:
            with os.fdopen(fd, "wb") as f:
                np.savez(f, keys=np.asarray([k for k, _ in pairs]), vectors=np.vstack([v for _, v in pairs]))
            os.replace(tmp, self._path(catalog_hash))
        except OSError:
            Path(tmp).unlink(missing_ok=True)
