"""How the deferred tools are named to the model: a section the agent loop adds to the system prompt.

`tool_search.listing` picks the form: one line per toolset or MCP server (the default: its name,
its tool count and as many of its tool names as fit in `summary_chars`, as a namespace is
described), each tool's name with a one-line summary, names only, or no list at all (a sentence saying how many tools can be found). The section lists
the whole deferred catalog, promoted tools included, so it changes only when the catalog does
and a provider's prompt cache survives promotions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tooldeck._core.assembly.loadout import Loadout
from tooldeck._core.disclosure.catalog import loader_name
from tooldeck._core.tool import Tool

_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


def summary(text: str, limit: int = 100) -> str:
    """The first sentence of a description on one line, cut to `limit` characters."""
    line = " ".join(text.split())
    match = _SENTENCE_END.search(line)
    if match is not None:
        line = line[: match.start()]
    if len(line) > limit:
        line = line[: limit - 1].rstrip() + "…"
    return line


def deferred_listing(loadout: Loadout) -> str | None:
    """The system prompt section for the deferred tools of `loadout`, or None when there are none.

    `loadout` may be a view with promoted tools: they are listed too (see the module docstring).
    """
    found: str | None = loadout.cached_render(
        ("tooldeck._core.disclosure.listing",), lambda: _listing(loadout)
    )
    return found


def _listing(loadout: Loadout) -> str | None:
    tools = loadout.all_deferred
    loader = loader_name(loadout)
    if not tools or loader is None:
        return None
    settings = loadout.config.tool_search
    how = (
        f"call {loader} first with a few words describing the task (or `select:name1,name2` for exact "
        f"names, `/regex/`, or `+word more words` to require a word in the name); the tools it returns "
        "can be called right after, and stay loaded"
    )
    if settings.listing == "none":
        return f"{len(tools)} more tools are available but not loaded. To find and use one, {how}."
    head = f"More tools are available but not loaded. To use one, {how}. The deferred tools:"
    if settings.listing == "toolsets":
        groups = "\n".join(toolset_lines(tools, settings.summary_chars))
        return (
            f"More tools are available but not loaded, by toolset or MCP server. To use one, {how}.\n{groups}"
        )
    if settings.listing == "names":
        return f"{head} {', '.join(t.name for t in tools)}"
    lines = []
    for t in tools:
        text = summary(loadout.descriptions.get(t.name, ""), settings.summary_chars)
        lines.append(f"- {t.name}: {text}" if text else f"- {t.name}")
    return "\n".join([head, *lines])


def toolset_lines(tools: Sequence[Tool], limit: int) -> list[str]:
    """One line per toolset (an MCP server's tools are one toolset): the name its tools share
    (`mcp__github__*`, else the toolset's name), how many tools it holds and their names (without
    the shared part) while they fit in `limit` characters, in name order, so the lines change
    only when the catalog does."""
    groups: dict[str, list[str]] = {}
    for t in sorted(tools, key=lambda t: (t.toolset, t.name)):
        groups.setdefault(t.toolset, []).append(t.name)
    lines = []
    for toolset, names in sorted(groups.items()):
        prefix = common_prefix(names) if len(names) > 1 else ""
        short = [n[len(prefix) :] or n for n in names]
        shown = ""
        for i, n in enumerate(short):
            more = f"{shown}, {n}" if shown else n
            if len(more) > limit and shown:
                shown += f", … ({len(short) - i} more)"
                break
            shown = more
        count = "1 tool" if len(names) == 1 else f"{len(names)} tools"
        lines.append(f"- {prefix + '*' if prefix else toolset} ({count}): {shown}")
    return lines


def common_prefix(names: Sequence[str]) -> str:
    """The longest prefix of all `names` that ends at a `__` or `_` separator (`mcp__gh__`)."""
    first, last = min(names), max(names)
    n = 0
    while n < min(len(first), len(last)) and first[n] == last[n]:
        n += 1
    head = first[:n]
    cut = max(head.rfind("__") + 2 if "__" in head else 0, head.rfind("_") + 1)
    return head[:cut]
