"""Which tool schemas the model sees on each iteration (spec D2, the loop side).

Deferred tools are sent by name only until `tool_search` promotes them. Promotions live in the
run state under `promoted` as `{"catalog": <hash>, "names": [...]}`; they count only while the
deferred catalog still has that hash (same catalog: union; changed catalog: reset), so a stale
promotion can never unlock a different tool that happens to share a name. A bare list of names
is accepted too (unscoped); either way only tools deferred in the current loadout count.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
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
    """The loadout the model sees, given the run state (promoted deferred tools become exposed)."""

    def __init__(self, loadout: Loadout | None) -> None:
        self.loadout = loadout
        self._views: dict[frozenset[str], Loadout] = {}

    def for_state(self, state: Mapping[str, Any]) -> Loadout | None:
        if self.loadout is None or not self.loadout.deferred:
            return self.loadout
        names = promoted_names(state, self.loadout)
        if not names:
            return self.loadout
        view = self._views.get(names)
        if view is None:
            view = _with_promoted(self.loadout, names)
            self._views[names] = view
        return view


def _with_promoted(base: Loadout, names: frozenset[str]) -> Loadout:
    promoted = tuple(t for t in base.deferred if t.name in names)
    return Loadout(
        platform=base.platform,
        exposed=base.exposed + promoted,
        deferred=tuple(t for t in base.deferred if t.name not in names),
        hidden=base.hidden,
        descriptions=base.descriptions,
        reasons=base.reasons,
        diagnostics=base.diagnostics,
        settings=base.settings,
    )
