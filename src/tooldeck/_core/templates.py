"""Description templates: mentions of other tools that can be dropped when those are not there.

A description mentions another tool only inside a conditional segment::

    "Open a page in the browser.{{if web_search}} For simple lookups prefer web_search.{{end}}"

The names in segments must be declared in the tool's `references` (and vice versa), which is
checked when the Tool is built (`check_template`); the assembly keeps a segment only when every
tool it names is reachable by the model (`prune`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from tooldeck.errors import ToolDefinitionError

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


def prune(text: str, reachable: Collection[str]) -> str:
    """`text` with the segments kept whose tools are all reachable, and the others dropped."""
    if "{{if" not in text:
        return text

    def keep(match: re.Match[str]) -> str:
        return match.group(2) if all(n in reachable for n in _names(match.group(1))) else ""

    return re.sub(r"[ \t]{2,}", " ", _SEGMENT.sub(keep, text)).strip()
