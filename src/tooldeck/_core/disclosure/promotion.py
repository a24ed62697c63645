"""Promotion state: which deferred tools a run has loaded with `tool_search`.

The record lives in the run state (so a stored session keeps it) as `RunState.promoted`: the
hash of the deferred catalog and the promoted names (stored as
`{"catalog": "<hash>", "names": ["mcp__gh__create_issue", ...]}`).

It counts only while the deferred catalog still has that hash. Promoting under the same hash
adds to the record; under another hash (the catalog changed, or the record came from another
configuration) the record is replaced, so a stale promotion can never unlock a different tool
that happens to share a name. A stored record without a hash, or malformed in any way, loads as
no record (`RunState.from_json`) and is replaced by the next promotion.

A live run that watches its catalog change (an MCP server announced a new tool list) carries
its promotions over instead (`carry_over`): the tools still deferred stay promoted, the ones
that vanished are dropped, and the record is re-scoped to the new hash.
"""

from __future__ import annotations

from collections.abc import Iterable

from tooldeck._core.assembly.loadout import Loadout
from tooldeck._core.disclosure.catalog import catalog_hash
from tooldeck._core.run_state import Promotions, RunState


def _deferred(loadout: Loadout) -> frozenset[str]:
    return frozenset(t.name for t in loadout.all_deferred)


def promoted_names(state: RunState, loadout: Loadout) -> frozenset[str]:
    """The tools promoted in `state` for this loadout's deferred catalog (empty on any mismatch)."""
    record = state.promoted
    if record is None or record.catalog != catalog_hash(loadout):
        return frozenset()
    return record.names & _deferred(loadout)


def promote(state: RunState, loadout: Loadout, names: Iterable[str]) -> Promotions:
    """Record promotions in `state` and return the new record: the union with the current ones
    when the record has this catalog's hash, a new record otherwise. Names that are not deferred
    in this loadout are left out."""
    current = promoted_names(state, loadout)
    added = frozenset(names) & _deferred(loadout)
    record = Promotions(catalog_hash(loadout), current | added)
    state.promoted = record
    return record


def carry_over(state: RunState, previous: str, loadout: Loadout) -> bool:
    """The deferred catalog changed from `previous` to this loadout's during a live run: re-scope
    a record of `previous` to the new hash, keeping the tools still deferred (vanished ones are
    dropped). A record of any other hash is left alone (it does not count, and the next
    promotion replaces it). True when the record was carried over."""
    record = state.promoted
    current = catalog_hash(loadout)
    if record is None or record.catalog != previous or previous == current:
        return False
    state.promoted = Promotions(current, record.names & _deferred(loadout))
    return True


class PromotedView:
    """What one run (an agent conversation, a served client session) sees of the current
    assembly: its deferred tools promoted in the run state exposed. It remembers the catalog it
    saw last, to carry the promotions over when the catalog changes under the live run."""

    def __init__(self) -> None:
        self.catalog: str | None = None

    def view(self, base: Loadout, state: RunState) -> Loadout:
        """`base` with the run's promoted tools exposed (the same object while nothing changed)."""
        if not base.deferred and self.catalog is None:
            return base
        current = catalog_hash(base)
        if self.catalog is not None and self.catalog != current:
            carry_over(state, self.catalog, base)
        self.catalog = current
        names = promoted_names(state, base)
        if not names:
            return base
        view: Loadout = base.cached_render(("tooldeck.promoted", names), lambda: base.with_exposed(names))
        return view
