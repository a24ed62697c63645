"""The deferral gate: which tools reach the model by name only, behind `tool_search`.

It runs last and hides nothing the user selected: it splits the survivors into exposed and
deferred tools. A tool is deferred by `tool_search.defer` (by source, toolset, name or glob
pattern), by its own `defer: true`, or by the token budget (`tool_search.max_exposed_tokens`):
while the exposed schemas cost more than the budget, the tools of the least trusted sources
(ACP, plugins, MCP) and then the largest schemas are deferred. The tool that loads deferred
tools (`Tool.loads_deferred`, i.e. `tool_search`) is exposed exactly when something is deferred;
without it nothing can be deferred, and the assembly says why.

Token counts come from a `TokenCounter` the deck injects (the dialects layer renders the
tools as the model's provider would receive them); an assembler built without one estimates a
token per four characters.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Callable, Mapping, Sequence

from tooldeck._core.assembly.gates import GateInput, Hidden, Kept
from tooldeck._core.assembly.loadout import Fate
from tooldeck._core.assembly.rewrite import render_description
from tooldeck._core.config import CoreConfig
from tooldeck._core.diagnostics import Diagnostic
from tooldeck._core.tool import SOURCE_PRIORITY, DescriptionContext, Tool

# Tokens of each tool as the model would receive it, given the descriptions it would read.
TokenCounter = Callable[[Sequence[Tool], Mapping[str, str], CoreConfig], Mapping[str, int]]

GATE = "deferral"


def estimate_tokens(
    tools: Sequence[Tool], descriptions: Mapping[str, str], config: CoreConfig
) -> dict[str, int]:
    """A rough count: one token per four characters of name, description and schema JSON."""
    out = {}
    for t in tools:
        text = t.name + descriptions.get(t.name, "") + json.dumps(t.parameters, default=str)
        out[t.name] = max(1, len(text) // 4)
    return out


def matches(tool: Tool, entry: str) -> bool:
    """Whether one `tool_search.defer` entry covers `tool` (its own `defer` option aside)."""
    if entry.startswith("source:"):
        return tool.source == entry.removeprefix("source:")
    if entry == "mcp" and tool.source == "mcp":
        return True
    return fnmatch.fnmatchcase(tool.name, entry) or fnmatch.fnmatchcase(tool.toolset, entry)


def deferral_rule(tool: Tool, patterns: Sequence[str]) -> str | None:
    """The `tool_search.defer` entry (or the tool's own option) that defers `tool`, if any."""
    if tool.loads_deferred:
        return None
    if tool.defer is not None:
        return "defer: true on the tool" if tool.defer else None
    return next((p for p in patterns if matches(tool, p)), None)


def deferral_diagnostics(tools: Sequence[Tool], config: CoreConfig) -> list[Diagnostic]:
    """Deferral settings that do nothing: `tool_search.defer` entries that match no candidate
    tool (a typo), and deferral asked for while `tool_search.enabled` is false."""
    ts = config.tool_search
    if not ts.enabled:
        idle = "has no effect while tool_search.enabled is false"
        out = [
            Diagnostic("warning", idle, f"tools[{i}].defer") for i, e in enumerate(config.tools) if e.defer
        ]
        if ts.max_exposed_tokens is not None:
            out.append(Diagnostic("warning", idle, "tool_search.max_exposed_tokens"))
        return out
    out = []
    if ts.native == "off" and ts.execution == "server":
        out.append(
            Diagnostic("warning", "has no effect while tool_search.native is off", "tool_search.execution")
        )
    if ts.execution == "client" and ts.server_search != "bm25":
        idle = "chooses Anthropic's search tool only with tool_search.execution: server"
        out.append(Diagnostic("warning", idle, "tool_search.server_search"))
    for i, entry in enumerate(ts.defer):
        if any(matches(t, entry) for t in tools if not t.loads_deferred):
            continue
        # A source with no tools today (no MCP server configured) is normal; a name is likely a typo.
        by_source = entry == "mcp" or entry.startswith("source:")
        where = f"tool_search.defer[{i}]"
        out.append(Diagnostic("info" if by_source else "warning", f"{entry!r} matches no tool", where))
    return out


class DeferralGate:
    """Splits the survivors into exposed and deferred tools; hides only an idle `tool_search`."""

    name = GATE

    def __init__(self, counter: TokenCounter | None = None) -> None:
        self.counter: TokenCounter = counter or estimate_tokens

    def split(self, tools: Sequence[Tool], gi: GateInput) -> tuple[Kept, Kept, Hidden]:
        ts = gi.config.tool_search
        loaders = [t for t in tools if t.loads_deferred]
        rest = [t for t in tools if not t.loads_deferred]
        if not ts.enabled:
            return list(tools), [], []
        if not loaders:
            gi.diagnostics.append(
                Diagnostic(
                    "warning",
                    "no tool_search tool survived the assembly (see `tooldeck explain tool_search`), so "
                    "nothing is deferred",
                    "tool_search.enabled",
                )
            )
            return rest, [], []
        exposed, deferred = [], []
        for t in rest:
            rule = deferral_rule(t, ts.defer)
            if rule is None:
                exposed.append(t)
            else:
                gi.reasons[t.name] = f"deferred behind tool_search (tool_search.defer: {rule})"
                deferred.append(t)
        if ts.max_exposed_tokens is not None:
            exposed, over = self._fit(exposed, loaders, bool(deferred), gi, ts.max_exposed_tokens)
            deferred += over
        if not deferred:
            why = "nothing is deferred (tool_search loads deferred tools)"
            return exposed, [], [Fate(t, "hidden", self.name, why) for t in loaders]
        count = f"{len(deferred)} tool is" if len(deferred) == 1 else f"{len(deferred)} tools are"
        for t in loaders:
            gi.reasons[t.name] = f"exposed because {count} deferred behind it"
        return exposed + loaders, deferred, []

    def _fit(
        self, exposed: list[Tool], loaders: list[Tool], deferring: bool, gi: GateInput, budget: int
    ) -> tuple[list[Tool], list[Tool]]:
        """Defer tools until the exposed schemas (tool_search included) fit in `budget` tokens."""
        everything = [*exposed, *loaders]
        ctx = DescriptionContext(frozenset(t.name for t in everything), frozenset(), gi.config)
        descriptions = {t.name: render_description(t, ctx) for t in everything}
        costs = self.counter(everything, descriptions, gi.config)
        total = sum(costs.get(t.name, 0) for t in exposed)
        if not deferring and total <= budget:
            return exposed, []
        total += sum(costs.get(t.name, 0) for t in loaders)
        measured = total
        # Least trusted sources first, then the largest schemas; essential tools and tools that
        # say `defer: false` stay.
        order = sorted(
            (t for t in exposed if not t.essential and t.defer is not False),
            key=lambda t: (-SOURCE_PRIORITY[t.source], -costs.get(t.name, 0), t.name),
        )
        moved: list[Tool] = []
        for t in order:
            if total <= budget:
                break
            total -= costs.get(t.name, 0)
            moved.append(t)
            gi.reasons[t.name] = (
                f"deferred behind tool_search: the exposed schemas cost {measured} tokens, over "
                f"tool_search.max_exposed_tokens ({budget})"
            )
        if total > budget:
            gi.diagnostics.append(
                Diagnostic(
                    "warning",
                    f"the tools that cannot be deferred (essential, defer: false, tool_search) alone cost "
                    f"{total} tokens, over the budget of {budget}",
                    "tool_search.max_exposed_tokens",
                )
            )
        gone = {t.name for t in moved}
        return [t for t in exposed if t.name not in gone], moved
