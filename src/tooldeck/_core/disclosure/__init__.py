"""Progressive disclosure: deferred tools, `tool_search`, and what the run has promoted.

A loadout's deferred tools reach the model by name (`listing.deferred_listing`, a section of the
system prompt) until the model calls `tool_search`, which searches them (`tooldeck.search`),
returns the full schemas of the matches in the model's dialect and promotes them: from then on
the run sends their schemas and may call them. Promotions live in the run state, scoped by the
hash of the deferred catalog (`promotion`); the agent loop, `tooldeck serve` and the search tool
all read and write them through this package.
"""

from __future__ import annotations

from tooldeck._core.disclosure.catalog import catalog_hash, deferred_catalog, loader_name
from tooldeck._core.disclosure.listing import deferred_listing, summary, toolset_lines
from tooldeck._core.disclosure.promotion import PromotedView, carry_over, promote, promoted_names
from tooldeck._core.disclosure.rendering import ToolRendering
from tooldeck._core.run_state import Promotions

__all__ = [
    "PromotedView",
    "Promotions",
    "ToolRendering",
    "carry_over",
    "catalog_hash",
    "deferred_catalog",
    "deferred_listing",
    "loader_name",
    "promote",
    "promoted_names",
    "summary",
    "toolset_lines",
]
