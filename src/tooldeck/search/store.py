"""Embeddings kept on disk, one file per catalog, so a catalog is embedded once, not per process.

The file holds the vectors of the catalog's tool texts and words, keyed by a hash of each text
(a vector depends on its text alone, so the store is content-addressed). A catalog seen for the
first time reads the vectors of the most recent other catalogs' files: one that changed a little
(a server added a tool, a description was edited) embeds only what is new, in any process.
Files are written whole to a temporary name and renamed, so a reader never sees half a file; a
file that cannot be read is ignored (and rewritten), never an error. The newest `KEEP_FILES`
files are kept.
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
REUSE_FILES = 4  # other catalogs' files read when a catalog has none of its own
KEEP_FILES = 16


def text_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


class EmbeddingStore:
    """Vectors by text, read from and written to `<folder>/<format>-<catalog hash>.npz`."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)

    def _path(self, catalog_hash: str) -> Path:
        return self.folder / f"{FORMAT}-{catalog_hash}.npz"

    def exists(self, catalog_hash: str) -> bool:
        return self._path(catalog_hash).is_file()

    def load(self, catalog_hash: str) -> dict[str, Vectors]:
        """Vectors by text key: this catalog's file, or when it has none, those of the most
        recently written other catalogs (an empty dict when there are none)."""
        path = self._path(catalog_hash)
        if path.is_file():
            return _read(path)
        found: dict[str, Vectors] = {}
        for other in self._files()[:REUSE_FILES]:
            found.update(_read(other))
        return found

    def _files(self) -> list[Path]:
        """This format's files, newest first."""
        files: list[tuple[float, Path]] = []
        try:
            for path in self.folder.glob(f"{FORMAT}-*.npz"):
                files.append((path.stat().st_mtime, path))
        except OSError:  # a missing folder, or a file removed by another process meanwhile
            pass
        return [p for _, p in sorted(files, key=lambda item: item[0], reverse=True)]

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
            return
        for old in self._files()[KEEP_FILES:]:
            old.unlink(missing_ok=True)


def _read(path: Path) -> dict[str, Vectors]:
    try:
        with np.load(path, allow_pickle=False) as data:
            keys = [str(k) for k in data["keys"]]
            vectors = np.asarray(data["vectors"], dtype=np.float32)
    except (OSError, KeyError, ValueError, EOFError):
        return {}
    if vectors.ndim != 2 or len(keys) != len(vectors):
        return {}
    return dict(zip(keys, vectors, strict=True))
