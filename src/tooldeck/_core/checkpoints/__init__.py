"""Checkpoints: every change a call makes to the workspace, recorded before it lands, undoable.

`store.py` keeps them (under the tooldeck home), `recording.py` takes them (a link of the call
chain and the file layer's observer), `undo.py` puts the workspace back.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from tooldeck._core.checkpoints.state import PathState
from tooldeck._core.checkpoints.store import Change, Checkpoint, CheckpointStore
from tooldeck._core.config_sections import CheckpointsConfig
from tooldeck._utils.home import tooldeck_home

if TYPE_CHECKING:
    from tooldeck._core.checkpoints.undo import UndoReport
    from tooldeck._core.config import CoreConfig

_STORES: dict[tuple[Path, Path], CheckpointStore] = {}
_LOCK = threading.Lock()


def store_for(home: Path, workspace: Path, settings: CheckpointsConfig) -> CheckpointStore:
    """The store of `workspace`'s checkpoints under `home` (one per process, its settings the
    latest asked for)."""
    key = (Path(home), Path(workspace))
    with _LOCK:
        store = _STORES.get(key)
        if store is None:
            store = _STORES[key] = CheckpointStore(key[0], key[1], settings)
        store.settings = settings
        return store


def store_of(config: CoreConfig) -> CheckpointStore:
    """The checkpoint store of `config`'s workspace, under its tooldeck home."""
    home = tooldeck_home(config.home, base_dir=config.base_dir)
    return store_for(home, Path(os.path.realpath(config.workspace)), config.checkpoints)


def undo_in(config: CoreConfig, checkpoint: int | None = None, *, force: bool = False) -> UndoReport:
    """`Deck.undo` for a config (what `tooldeck undo` runs): see `undo.py`."""
    from tooldeck._core.checkpoints.undo import undo
    from tooldeck._core.workspace import Workspace

    return undo(store_of(config), Workspace(config.workspace), checkpoint, force=force)


__all__ = ["Change", "Checkpoint", "CheckpointStore", "PathState", "store_for", "store_of", "undo_in"]
