"""The `tool_search` tool: find deferred tools, return their schemas, promote them.

It searches the deferred catalog of the loadout its call runs against (the executor offers it
as a service) with the ranker of `tool_search.ranker` (the `ToolSearchConfig` the executor
offers; the index is cached in the call's home), renders the matches' full definitions as
the model's provider expects them (`ToolRendering`) and records them as promoted in the run
state, so the next model request carries their schemas and calls to them are accepted. The deck
adds this tool whenever `tool_search.enabled` is true; the assembly exposes it exactly when some
tool is deferred.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

from tooldeck._core.assembly.loadout import Loadout
from tooldeck._core.config import ToolSearchConfig
from tooldeck._core.context import ToolContext, service
from tooldeck._core.decorator import Bounds, tool
from tooldeck._core.disclosure.catalog import deferred_catalog
from tooldeck._core.disclosure.promotion import promote
from tooldeck._core.disclosure.rendering import ToolRendering
from tooldeck._core.output import ToolOutput
from tooldeck._core.run_state import RunState, RunStateUpdate
from tooldeck.errors import ToolError

MAX_LIMIT = 25


@tool(
    toolset="tool_search",
    essential=True,
    defer=False,
    loads_deferred=True,
    read_only=True,
    sequential=True,  # promotions of one batch's searches add up, in order
)
def tool_search(
    query: str, limit: Annotated[int, Bounds(1, MAX_LIMIT)] = 5, context: ToolContext | None = None
) -> ToolOutput:
    """Load deferred tools: find them by what they do, get their full definitions, then call them.

    Deferred tools are listed by name (in your instructions, or below) without their parameters:
    call this first, then call the tools it returns (they stay loaded for the conversation).

    Args:
        query: what the tool should do, in a few words ("create a github issue"); or
            `select:name1,name2` to load tools by exact name; or `/regex/` to match names and
            descriptions; or `+word rest` to require `word` in the tool's name.
        limit: how many tools to return at most (1-25) for word, regex and `+` queries.
    """
    loadout = context.get(Loadout) if context is not None else None
    if context is None or loadout is None:
        raise ToolError(
            "tool_search loads the deferred tools of a running loadout: call it through an executor "
            "(deck.call, the agent, tooldeck call)",
            type="unavailable",
        )
    rendering = service(context, ToolRendering)
    settings = service(context, ToolSearchConfig)
    if context.home is None:
        raise ToolError("tool_search needs the tooldeck home of the call it serves (its search cache)")
    return load_tools(
        loadout,
        query,
        limit=limit,
        state=context.state,
        rendering=rendering,
        settings=settings,
        home=context.home,
    )


def load_tools(
    loadout: Loadout,
    query: str,
    *,
    limit: int,
    state: RunState,
    rendering: ToolRendering,
    settings: ToolSearchConfig,
    home: Path,
) -> ToolOutput:
    """Search the deferred catalog of `loadout` with `settings.ranker` (the index cached under
    `home`), promote the matches in `state`, describe them."""
    from tooldeck.search.engine import search_index
    from tooldeck.search.errors import SemanticUnavailable

    catalog = deferred_catalog(loadout)
    if not len(catalog):
        text = {"loaded": [], "message": "no tools are deferred: every tool you can use is in your tool list"}
        return ToolOutput(json.dumps(text))
    index = search_index(catalog, cache_dir=home / "search")
    limit = max(1, min(int(limit), MAX_LIMIT))  # for callers of load_tools; the tool's schema refuses these
    notes: list[str] = []
    try:
        result = index.search(query, limit=limit, ranker=settings.ranker)
    except SemanticUnavailable as exc:
        result = index.search(query, limit=limit, ranker="bm25")
        notes.append(f"the {settings.ranker} ranker is not installed ({exc}); ranked with bm25")
    if result.note:
        notes.append(result.note)
    names = result.names
    found = [t for t in (loadout.get(n) for n in names) if t is not None]
    out: dict[str, Any] = {"query": query, "loaded": names, "tools": rendering.render(found, loadout)}
    if result.unknown:
        loaded = {t.name for t in loadout.exposed}
        available = [n for n in result.unknown if n in loaded]
        missing = [n for n in result.unknown if n not in loaded]
        if available:
            out["already_available"] = available
        if missing:
            out["not_found"] = missing
    if not names:
        out["message"] = (
            f"no deferred tool matches {query!r}: try other words, `/regex/`, or `select:` with names "
            "from the list of deferred tools in your instructions"
        )
    if notes:
        out["note"] = "; ".join(notes)
    update = RunStateUpdate(promoted=promote(state, loadout, names)) if names else None
    return ToolOutput(json.dumps(out, ensure_ascii=False), update=update)


__all__ = ["MAX_LIMIT", "load_tools", "tool_search"]
