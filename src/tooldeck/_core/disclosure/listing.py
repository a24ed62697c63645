"""How the deferred tools are named to the model: a section the agent loop adds to the system prompt.

`tool_search.listing` picks the form: each tool's name with a one-line summary (the default),
names only, or no list at all (a sentence saying how many tools can be found). The section lists
the whole deferred catalog, promoted tools included, so it changes only when the catalog does
and a provider's prompt cache survives promotions.
"""

from __future__ import annotations

import re

from tooldeck._core.assembly.loadout import Loadout
from tooldeck._core.disclosure.catalog import loader_name

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
    if settings.listing == "names":
        return f"{head} {', '.join(t.name for t in tools)}"
    lines = []
    for t in tools:
        text = summary(loadout.descriptions.get(t.name, ""), settings.summary_chars)
        lines.append(f"- {t.name}: {text}" if text else f"- {t.name}")
    return "\n".join([head, *lines])
