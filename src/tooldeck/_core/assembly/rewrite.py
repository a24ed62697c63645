"""Description fixes applied after the gates: pruned cross-references and live descriptions.

A description drops its `{{if other_tool}}...{{end}}` segments when `other_tool` is not
reachable by the model (exposed, or deferred behind tool_search), so the model is never told
about a tool it cannot call (see `tooldeck._core.templates`). A description may also be a function of
the loadout (`DescriptionContext`), e.g. to state the current concurrency limit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tooldeck._core.templates import prune

if TYPE_CHECKING:
    from tooldeck._core.tool import DescriptionContext, Tool


def render_description(tool: Tool, ctx: DescriptionContext) -> str:
    """The description the model sees for `tool` in this loadout."""
    raw = tool.description
    text = raw(ctx) if callable(raw) else raw
    return prune(text, ctx.exposed | ctx.deferred)
