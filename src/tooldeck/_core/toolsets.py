"""Toolsets: named groups of tools, composable with `includes`.

A toolset exists implicitly when a tool names it (`toolset="web"`), and explicitly when the
config defines it (`toolsets: {research: {tools: [...], includes: [web, file]}}`); both add
up. Resolution is recursive. A cycle or an unknown name becomes a `Diagnostic` carrying the
config key path, never a silent drop; in strict mode the caller turns them into errors.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from tooldeck._core.diagnostics import Diagnostic, did_you_mean
from tooldeck._core.tool import Tool


@dataclass(frozen=True, slots=True)
class Toolset:
    name: str
    tools: tuple[str, ...] = ()
    includes: tuple[str, ...] = ()
    description: str = ""


@dataclass(slots=True)
class Resolution:
    """Tool names reached from some toolsets, each with the include path that reached it."""

    tools: dict[str, str] = field(default_factory=dict)
    toolsets: set[str] = field(default_factory=set)
    diagnostics: list[Diagnostic] = field(default_factory=list)


class ToolsetIndex:
    """All toolsets known for one registry generation and one config."""

    def __init__(self, tools: Iterable[Tool], defined: Mapping[str, Toolset] | None = None) -> None:
        members: dict[str, list[str]] = {}
        for t in tools:
            members.setdefault(t.toolset, []).append(t.name)
        self._tools = {name: tuple(dict.fromkeys(names)) for name, names in members.items()}
        self._defined = dict(defined or {})
        self.names = frozenset(self._tools) | frozenset(self._defined)

    def __contains__(self, name: object) -> bool:
        return name in self.names

    def resolve(self, requested: Iterable[str], *, where: str) -> Resolution:
        """Expand `requested` (found at config key `where`) into tool names."""
        out = Resolution()
        for i, name in enumerate(requested):
            self._walk(name, (), f"{where}[{i}]", out)
        return out

    def cycles(self) -> list[Diagnostic]:
        """An include cycle among the defined toolsets, selected or not, for each knot of them.

        Worded as `resolve` words it, so a cycle met both ways is reported once."""
        found: list[Diagnostic] = []
        done: set[str] = set()

        def visit(name: str, stack: tuple[str, ...]) -> None:
            if name in stack:
                found.append(self._cycle(stack[stack.index(name) :]))
                return
            if name in done or name not in self._defined:
                return
            for inc in self._defined[name].includes:
                visit(inc, (*stack, name))
            done.add(name)

        for name in self._defined:
            visit(name, ())
        return list(dict.fromkeys(found))

    def _cycle(self, loop: tuple[str, ...]) -> Diagnostic:
        """The cycle through `loop` (each includes the next, the last the first), told from the
        toolset defined first, at the include that closes it."""
        order = {name: i for i, name in enumerate(self._defined)}
        start = min(range(len(loop)), key=lambda i: order.get(loop[i], len(order)))
        nodes = loop[start:] + loop[:start]
        last, first = nodes[-1], nodes[0]
        j = self._defined[last].includes.index(first)
        cycle = " -> ".join((*nodes, first))
        return Diagnostic("warning", f"toolset include cycle: {cycle}", f"toolsets.{last}.includes[{j}]")

    def _walk(self, name: str, stack: tuple[str, ...], where: str, out: Resolution) -> None:
        if name in stack:
            out.diagnostics.append(self._cycle(stack[stack.index(name) :]))
            return
        if name not in self.names:
            hint = did_you_mean(name, self.names)
            via = f" (included by {stack[-1]})" if stack else ""
            out.diagnostics.append(Diagnostic("warning", f"unknown toolset {name!r}{via}{hint}", where))
            return
        if name in out.toolsets:
            return
        out.toolsets.add(name)
        path = " → ".join((*stack, name))
        for tool_name in self._tools.get(name, ()):
            out.tools.setdefault(tool_name, path)
        defined = self._defined.get(name)
        if defined is None:
            return
        for tool_name in defined.tools:
            out.tools.setdefault(tool_name, path)
        for j, inc in enumerate(defined.includes):
            self._walk(inc, (*stack, name), f"toolsets.{name}.includes[{j}]", out)
