"""Schema fixes applied after the gates: cross-reference pruning (S1) and live descriptions (S2).

A description mentions another tool only inside a conditional segment::

    "Open a page in the browser.{{if web_search}} For simple lookups prefer web_search.{{end}}"

The segment is kept when every tool it names is reachable by the model (exposed, or deferred
behind tool_search) and dropped otherwise, so the model is never told about a tool it cannot
call. The names in segments must be declared in the tool's `references` (and vice versa), which
is checked when the Tool is built. A description may also be a function of the loadout
(`DescriptionContext`), e.g. to state the current concurrency limit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from tooldeck.errors import ToolDefinitionError

if TYPE_CHECKING:
    from tooldeck.tool import DescriptionContext, Tool

_SEGMENT = re.compile(r"\{\{if ([A-Za-z0-9_,\- ]+)\}\}(.*?)\{\{end\}\}", re.DOTALL)
_STRAY = re.compile(r"\{\{(if\b[^}]*|end)\}\}")


def _names(spec: str) -> list[str]:
    return [n.strip() for n in spec.split(",") if n.strip()]


def check_template(tool_name: str, description: str, references: Iterable[str]) -> None:
    """Raise if segments are malformed or disagree with the declared `references`."""
    declared = set(references)
    mentioned: set[str] = set()
    for match in _SEGMENT.finditer(description):
        mentioned.update(_names(match.group(1)))
    leftover = _SEGMENT.sub("", description)
    stray = _STRAY.search(leftover)
    if stray:
        raise ToolDefinitionError(
            f"tool {tool_name!r}: unbalanced description template near {stray.group(0)!r} "
            "(write {{if other_tool}}...{{end}})"
        )
    if mentioned - declared:
        raise ToolDefinitionError(
            f"tool {tool_name!r}: description segments name {sorted(mentioned - declared)} "
            "which are not listed in references"
        )
    if declared - mentioned and "{{if" not in description and declared:
        # References without any segment cannot be pruned; say so instead of pretending.
        raise ToolDefinitionError(
            f"tool {tool_name!r}: references {sorted(declared)} but the description has no "
            "{{if NAME}}...{{end}} segment to prune"
        )


def render_description(tool: Tool, ctx: DescriptionContext) -> str:
    """The description the model sees for `tool` in this loadout."""
    raw = tool.description
    text = raw(ctx) if callable(raw) else raw
    if "{{if" not in text:
        return text
    reachable = ctx.exposed | ctx.deferred

    def keep(match: re.Match[str]) -> str:
        return match.group(2) if all(n in reachable for n in _names(match.group(1))) else ""

    return re.sub(r"[ \t]{2,}", " ", _SEGMENT.sub(keep, text)).strip()
