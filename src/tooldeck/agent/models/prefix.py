"""The cacheable prefix of a conversation's requests, watched: a request that does not begin
with the previous one (tools, then the system prompt, then the history, as the providers cache
them) is a `CacheBreak` naming what changed.

Re-assembly that changes nothing yields the same bytes, so a break means something real
changed: a check flipped and a tool appeared or vanished, an MCP server's list changed, the
config or a tool's description changed, the history was rewritten. Cache markers
(`cache_control`) are left out of the comparison: moving them does not change what is cached.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from tooldeck.agent.events import CacheBreak

# Where each wire format keeps its tools, system prompt and history.
_SYSTEM_KEYS = ("system", "instructions")
_HISTORY_KEYS = ("messages", "input")


@dataclass(frozen=True, slots=True)
class Prefix:
    """A request as the parts its cache is keyed on, each as canonical JSON."""

    tools: tuple[tuple[str, str], ...]  # (name, definition)
    system: str
    history: tuple[str, ...]

    @property
    def size(self) -> int:
        return sum(len(d) for _, d in self.tools) + len(self.system) + sum(map(len, self.history))


def _canonical(value: Any) -> str:
    return json.dumps(unmarked(value), sort_keys=True, ensure_ascii=False, default=str)


def unmarked(value: Any) -> Any:
    """`value` (a request body or part of one) without its `cache_control` markers."""
    if isinstance(value, dict):
        return {k: unmarked(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [unmarked(v) for v in value]
    return value


def _tool_name(tool: dict[str, Any]) -> str:
    function = tool.get("function")
    name = function.get("name") if isinstance(function, dict) else tool.get("name")
    return str(name or tool.get("type") or "?")


def prefix_of(body: dict[str, Any]) -> Prefix:
    """The parts of a request body (any of the three wire formats) its cache is keyed on."""
    tools = tuple((_tool_name(t), _canonical(t)) for t in body.get("tools") or [])
    history: list[Any] = next((body[k] for k in _HISTORY_KEYS if k in body), [])
    system = next((body[k] for k in _SYSTEM_KEYS if k in body), None)
    if isinstance(history, list) and history and not system and history[0].get("role") == "system":
        system, history = history[0].get("content"), history[1:]  # Chat Completions
    return Prefix(tools, _canonical(system) if system else "", tuple(map(_canonical, history or [])))


def changes(before: Prefix, after: Prefix) -> tuple[tuple[str, ...], int]:
    """What changed from `before` to `after`, and how many of `before`'s characters `after`
    still starts with."""
    if before.tools != after.tools:
        old, new = dict(before.tools), dict(after.tools)
        added = [n for n in new if n not in old]
        removed = [n for n in old if n not in new]
        edited = [n for n in new if n in old and old[n] != new[n]]
        said = [
            f"tools: {verb} {', '.join(names)}"
            for verb, names in (("added", added), ("removed", removed), ("changed", edited))
            if names
        ]
        kept = 0
        for (n1, d1), (n2, d2) in zip(before.tools, after.tools, strict=False):
            if (n1, d1) != (n2, d2):
                break
            kept += len(d1)
        return tuple(said or ["tools: reordered"]), kept
    kept = sum(len(d) for _, d in before.tools)
    if before.system != after.system:
        return ("system prompt",), kept
    kept += len(before.system)
    for i, item in enumerate(before.history):
        if i >= len(after.history) or after.history[i] != item:
            return ("history rewritten",), kept
        kept += len(item)
    return (), kept


@dataclass
class PrefixWatch:
    """The last request of each conversation a client sent, to compare the next one with."""

    last: dict[str, Prefix] = field(default_factory=dict)

    def observe(self, session: str | None, body: dict[str, Any]) -> CacheBreak | None:
        if session is None:
            return None
        current = prefix_of(body)
        before = self.last.get(session)
        self.last[session] = current
        if before is None:
            return None
        changed, kept = changes(before, current)
        if not changed:
            return None
        return CacheBreak(changed, round(kept / before.size, 4) if before.size else 0.0)
