"""The deferred catalog of a loadout: what `tool_search` searches, and the hash promotions are
scoped by.

The catalog holds every deferred tool (promoted ones included) in name order, each with the
description the model would read; its hash is the search engine's `Catalog.content_hash`, so
the index `tool_search` ranks with and the promotion scope always agree on what "the same
catalog" means.
"""

from __future__ import annotations

from tooldeck._core.assembly.loadout import Loadout
from tooldeck.search.catalog import Catalog


def deferred_catalog(loadout: Loadout) -> Catalog:
    """Every deferred tool of `loadout` (promoted ones included), as a search catalog (cached)."""
    found: Catalog = loadout.cached_render(
        ("tooldeck._core.disclosure.catalog",),
        lambda: Catalog.from_tools(loadout.all_deferred, descriptions=loadout.descriptions),
    )
    return found


def catalog_hash(loadout: Loadout) -> str:
    """The content hash of the deferred catalog: names, descriptions and parameter schemas."""
    return deferred_catalog(loadout).content_hash


def loader_name(loadout: Loadout) -> str | None:
    """The name of the exposed tool that loads deferred tools (`tool_search`), if one is exposed."""
    return next((t.name for t in loadout.exposed if t.loads_deferred), None)
