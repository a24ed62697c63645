"""Which tool schemas the model sees on each iteration.

Deferred tools are sent by name only until `tool_search` promotes them. Promotions live in the
run state under `promoted` as `{"catalog": <hash>, "names": [...]}`; they count only while the
deferred catalog still has that hash (same catalog: union; changed catalog: reset), so a stale
promotion can never unlock a different tool that happens to share a name. A bare list of names
is accepted too (unscoped); either way only tools deferred in the current loadout count.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any

from tooldeck.assembly.loadout import Loadout

PROMOTED_KEY = "promoted"


def catalog_hash(loadout: Loadout) -> str:
    """A stable hash of the deferred catalog: names, descriptions and schemas."""
    items = [
        {"name": t.name, "description": loadout.descriptions.get(t.name, ""), "parameters": t.parameters}
        for t in sorted(loadout.deferred, key=lambda t: t.name)
    ]
    blob = json.dumps(items, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def promoted_names(state: Mapping[str, Any], loadout: Loadout) -> frozenset[str]:
    """The deferred tools promoted in `state` for this loadout's catalog (empty if it changed)."""
    entry = state.get(PROMOTED_KEY)
    if isinstance(entry, list | tuple | set | frozenset):
        names: Any = entry  # a bare list of names: not scoped to a catalog
    elif isinstance(entry, Mapping):
        if entry.get("catalog") not in (None, catalog_hash(loadout)):
            return frozenset()
        names = entry.get("names") or ()
    else:
        return frozenset()
    deferred = set(loadout.deferred_names)
    return frozenset(str(n) for n in names if n in deferred)


def promote(state: dict[str, Any], loadout: Loadout, names: list[str]) -> None:
    """Record promotions in `state`: union with the current ones, reset if the catalog changed."""
    current = promoted_names(state, loadout)
    state[PROMOTED_KEY] = {"catalog": catalog_hash(loadout), "names": sorted(current | set(names))}


class ToolView:
    """The loadout the model sees, given the run state: the current assembly, with the deferred
    tools the run promoted exposed."""

    def __init__(self, loadouts: Callable[[], Loadout]) -> None:
        self.loadouts = loadouts

    def for_state(self, state: Mapping[str, Any]) -> Loadout:
        base = self.loadouts()
        if not base.deferred:
            return base
        names = promoted_names(state, base)
        if not names:
            return base
        view: Loadout = base.cached_render(("tooldeck.promoted", names), lambda: base.with_exposed(names))
        return view
