"""G: each gate is a named unit, tested on its own through the pipeline's input."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooldeck import parse_config
from tooldeck._core.assembly.gates import (
    AvailabilityGate,
    DedupGate,
    DisabledToolsetsGate,
    GateInput,
    HostShellGate,
    ModelCapabilityGate,
    SkillsGate,
    ToolGroupsGate,
    ToolsetGate,
)
from tooldeck._core.availability_types import Availability
from tooldeck._core.tool import Tool
from tooldeck._core.toolsets import Toolset, ToolsetIndex

from .helpers import make


def gi(tools: Sequence[Tool], *, bwrap: bool = False, **config: Any) -> GateInput:
    cfg = parse_config(config, env={})
    defined = {n: Toolset(n, tuple(t.tools), tuple(t.includes)) for n, t in cfg.toolsets.items()}
    return GateInput(cfg, cfg.platform, ToolsetIndex(tools, defined), bwrap_installed=bwrap)


def names(tools: Sequence[Tool]) -> list[str]:
    return [t.name for t in tools]


def test_dedup_priority_config_user_builtin_mcp_plugin() -> None:
    tools = [
        make("read_file", source="plugin", owner="plugin p"),
        make("read_file", source="mcp", owner="mcp fs"),
        make("read_file", source="builtin", owner="tooldeck.tools.files"),
        make("search", source="mcp"),
        make("search", source="config", owner="config tools[0]"),
    ]
    kept, hidden = DedupGate().apply(tools, gi(tools))
    assert [(t.name, t.source) for t in kept] == [("read_file", "builtin"), ("search", "config")]
    assert {(f.name, f.tool.source) for f in hidden} == {
        ("read_file", "plugin"),
        ("read_file", "mcp"),
        ("search", "mcp"),
    }
    assert all(f.gate == "dedup" for f in hidden)
    reason = next(f.reason for f in hidden if f.tool.source == "mcp" and f.name == "read_file")
    assert reason is not None and "shadowed by the builtin tool" in reason


def test_toolset_gate_selects_platform_toolsets() -> None:
    tools = [make("a", "alpha"), make("b", "beta")]
    g = gi(tools, platform_toolsets={"cli": ["alpha"]})
    kept, hidden = ToolsetGate().apply(tools, g)
    assert names(kept) == ["a"] and hidden[0].gate == "toolset"
    assert "not selected by platform_toolsets.cli" in (hidden[0].reason or "")
    # No entry at all: everything is selected.
    kept, hidden = ToolsetGate().apply(tools, gi(tools))
    assert names(kept) == ["a", "b"] and not hidden


def test_disabled_toolsets_gate_and_typo_diagnostic() -> None:
    tools = [make("a", "alpha"), make("b", "beta")]
    g = gi(tools, disabled_toolsets=["beta", "alpah"])
    kept, hidden = DisabledToolsetsGate().apply(tools, g)
    assert names(kept) == ["a"] and hidden[0].name == "b" and hidden[0].gate == "disabled_toolsets"
    assert any(d.path == "disabled_toolsets[1]" and "alpah" in d.message for d in g.diagnostics)


def test_tool_groups_gate_matches_group_prefixes() -> None:
    tools = [
        make("r", group="file:read"),
        make("w", group="file:write"),
        make("s", group="web"),
        make("n", "notes"),
    ]
    kept, hidden = ToolGroupsGate().apply(tools, gi(tools, tool_groups=["file", "notes"]))
    assert names(kept) == ["r", "w", "n"]  # `n` has no group: its toolset counts
    assert names([f.tool for f in hidden]) == ["s"] and hidden[0].gate == "tool_groups"


def test_host_shell_gate_needs_a_configured_installed_sandbox_or_explicit_permission() -> None:
    tools = [make("bash", group="bash"), make("term", shell=True), make("read")]
    kept, hidden = HostShellGate().apply(tools, gi(tools, bwrap=True))  # installed, not configured
    assert names(kept) == ["read"] and {f.gate for f in hidden} == {"host_shell"}
    assert "no sandbox is configured" in (hidden[0].reason or "")
    kept, hidden = HostShellGate().apply(tools, gi(tools, bwrap=False, sandbox={"kind": "bwrap"}))
    assert names(kept) == ["read"] and "bwrap is not installed" in (hidden[0].reason or "")
    kept, _ = HostShellGate().apply(tools, gi(tools, bwrap=True, sandbox={"kind": "bwrap"}))
    assert len(kept) == 3
    kept, _ = HostShellGate().apply(tools, gi(tools, sandbox={"allow_host_shell": True}))
    assert len(kept) == 3


def test_model_capability_gate() -> None:
    tools = [make("view_image", needs_vision=True), make("read")]
    kept, hidden = ModelCapabilityGate().apply(tools, gi(tools, model={"name": "tiny-text"}))
    assert names(kept) == ["read"] and "tiny-text does not support it" in (hidden[0].reason or "")
    kept, _ = ModelCapabilityGate().apply(tools, gi(tools, model={"supports_vision": True}))
    assert len(kept) == 2


def test_availability_gate_uses_the_reasons_it_is_given() -> None:
    tools = [make("web_search"), make("read")]
    g = gi(tools)
    g.availability = {"web_search": Availability.no("env TAVILY_API_KEY not set"), "read": Availability.yes()}
    kept, hidden = AvailabilityGate().apply(tools, g)
    assert names(kept) == ["read"] and hidden[0].reason == "env TAVILY_API_KEY not set"


def test_skills_gate_least_privilege() -> None:
    tools = [make("read"), make("write"), make("clarify", essential=True), make("bash")]
    kept, _ = SkillsGate().apply(tools, gi(tools, skills=[{"name": "free"}]))  # no list: all allowed
    assert len(kept) == 4
    cfg = {
        "skills": [
            {"name": "a", "allowed_tools": ["read"]},
            {"name": "b", "allowed_tools": ["write"]},
            {"name": "off", "allowed_tools": ["bash"], "active": False},
        ]
    }
    kept, hidden = SkillsGate().apply(tools, gi(tools, **cfg))
    assert names(kept) == ["read", "write", "clarify"]  # union + the essential tools
    assert names([f.tool for f in hidden]) == ["bash"] and "(a, b)" in (hidden[0].reason or "")
