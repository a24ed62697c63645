"""The deferral gate: what `tool_search.defer`, a tool's own `defer` and the token budget defer,
and `tool_search` exposed exactly when something is deferred."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tooldeck import Deck, Tool, parse_config
from tooldeck._core.dialects import token_costs
from tooldeck._core.sources.base import StaticSource
from tooldeck._core.tool import SourceKind


def make(name: str, toolset: str = "core", words: int = 5, **options: Any) -> Tool:
    """A tool whose schema grows with `words` (one described parameter per word)."""
    props = {f"p{i}": {"type": "string", "description": f"part {i} of {name}"} for i in range(words)}
    return Tool(
        name=name,
        description=f"The {name} tool.",
        parameters={"type": "object", "properties": props},
        handler=lambda args: "ok",
        toolset=toolset,
        **options,
    )


def deck(tmp_path: Path, tools: dict[SourceKind, list[Tool]], **config: Any) -> Deck:
    sources = [StaticSource(ts, name=f"src-{kind}", kind=kind) for kind, ts in tools.items()]
    data = {"home": str(tmp_path), "plugins": {"enabled": False}, **config}
    return Deck(parse_config(data, env={}), sources=sources, builtins=False)


def fates(d: Deck) -> dict[str, tuple[str, str | None]]:
    return {f.name: (f.status, f.reason) for f in d.explain().fates}


def test_defer_by_source_toolset_name_and_the_tools_own_option(tmp_path: Path) -> None:
    tools: dict[SourceKind, list[Tool]] = {
        "user": [make("keep"), make("web_fetch", "web"), make("web_get", "web"), make("big_one", defer=True)],
        "mcp": [make("mcp__gh__issue", "mcp-gh"), make("mcp__gh__pr", "mcp-gh", defer=False)],
        "plugin": [make("plug_a", "plugins")],
    }
    d = deck(
        tmp_path, tools, tool_search={"enabled": True, "defer": ["mcp", "source:plugin", "web", "web_*"]}
    )
    loadout = d.loadout()
    assert loadout.deferred_names == ("big_one", "mcp__gh__issue", "plug_a", "web_fetch", "web_get")
    assert loadout.exposed_names == ("keep", "mcp__gh__pr", "tool_search")
    why = fates(d)
    assert why["mcp__gh__issue"] == ("deferred", "deferred behind tool_search (tool_search.defer: mcp)")
    assert why["plug_a"][1] == "deferred behind tool_search (tool_search.defer: source:plugin)"
    assert (
        why["web_get"][1] == "deferred behind tool_search (tool_search.defer: web)"
    )  # the first entry that matches
    assert why["big_one"][1] == "deferred behind tool_search (tool_search.defer: defer: true on the tool)"
    assert why["tool_search"] == ("exposed", "exposed because 5 tools are deferred behind it")


def test_tool_search_is_hidden_when_nothing_is_deferred_and_absent_when_disabled(tmp_path: Path) -> None:
    tools: dict[SourceKind, list[Tool]] = {"user": [make("a"), make("b")]}
    idle = deck(tmp_path, tools, tool_search={"enabled": True})  # "mcp", and no MCP tool
    assert idle.loadout().exposed_names == ("a", "b") and not idle.loadout().deferred
    assert fates(idle)["tool_search"] == ("hidden", "nothing is deferred (tool_search loads deferred tools)")
    off = deck(tmp_path, {"user": [make("a", defer=True)]})
    assert off.loadout().exposed_names == ("a",) and "tool_search" not in fates(off)


def test_tool_search_is_not_a_toolset_the_platform_must_select(tmp_path: Path) -> None:
    tools: dict[SourceKind, list[Tool]] = {"user": [make("a"), make("fetch", "web")]}
    search = {"enabled": True, "defer": ["web"]}
    d = deck(tmp_path, tools, platform_toolsets={"cli": ["core", "web"]}, tool_search=search)
    assert d.loadout().exposed_names == ("a", "tool_search") and d.loadout().deferred_names == ("fetch",)
    # Skills restrict tools, but tool_search is essential: the deferred tools stay reachable.
    skilled = deck(tmp_path, tools, skills=[{"name": "s", "allowed_tools": ["fetch"]}], tool_search=search)
    assert skilled.loadout().exposed_names == ("tool_search",)
    assert skilled.loadout().deferred_names == ("fetch",)


def test_a_tool_shadowing_tool_search_means_nothing_is_deferred_and_the_assembly_says_so(
    tmp_path: Path,
) -> None:
    tools: dict[SourceKind, list[Tool]] = {"user": [make("tool_search"), make("fetch", "web")]}
    d = deck(tmp_path, tools, tool_search={"enabled": True, "defer": ["web"]})
    loadout = d.loadout()
    assert not loadout.deferred and set(loadout.exposed_names) == {"tool_search", "fetch"}
    shadow = loadout.get("tool_search")
    assert shadow is not None and not shadow.loads_deferred
    [warning] = [x for x in d.diagnostics(loadout) if x.path == "tool_search.enabled"]
    assert warning.level == "warning" and "nothing is deferred" in warning.message


def test_defer_entries_that_match_no_tool_are_reported(tmp_path: Path) -> None:
    tools: dict[SourceKind, list[Tool]] = {"user": [make("a"), make("fetch", "web")]}
    d = deck(tmp_path, tools, tool_search={"enabled": True, "defer": ["web", "wbe", "mcp"]})
    found = {x.path: (x.level, x.message) for x in d.diagnostics(d.loadout())}
    assert found["tool_search.defer[1]"] == ("warning", "'wbe' matches no tool")  # a typo is loud
    assert found["tool_search.defer[2]"] == ("info", "'mcp' matches no tool")  # no MCP server today
    assert "tool_search.defer[0]" not in found


def total_tokens(d: Deck) -> int:
    return sum(token_costs(d.loadout(), "openai").values())


def test_the_token_budget_defers_least_trusted_and_largest_tools_first(tmp_path: Path) -> None:
    tools: dict[SourceKind, list[Tool]] = {
        "config": [make("huge_config", words=40)],
        "user": [make("small", words=1), make("large", words=20), make("pinned", words=30, defer=False)],
        "mcp": [make("mcp__s__tiny", "mcp-s", words=1)],
    }
    costs = token_costs(deck(tmp_path, tools).loadout(), "openai")
    full = sum(costs.values())
    search = token_costs(deck(tmp_path, tools, tool_search={"enabled": True}).loadout(), "openai")[
        "tool_search"
    ]
    # Room for everything but the MCP tool and the largest deferrable user tool, with tool_search.
    budget = full + search - costs["large"] - costs["mcp__s__tiny"]
    d = deck(tmp_path, tools, tool_search={"enabled": True, "defer": [], "max_exposed_tokens": budget})
    loadout = d.loadout()
    # The MCP tool goes first however small, then the largest user tool, then config's.
    assert loadout.deferred_names == ("large", "mcp__s__tiny")
    assert "tool_search" in loadout.exposed_names and total_tokens(d) == budget
    reason = fates(d)["large"][1] or ""
    assert reason == (
        f"deferred behind tool_search: the exposed schemas cost {full + search} tokens, over "
        f"tool_search.max_exposed_tokens ({budget})"
    )
    # Within budget: nothing is deferred, and tool_search is not added.
    roomy = deck(tmp_path, tools, tool_search={"enabled": True, "defer": [], "max_exposed_tokens": full})
    assert not roomy.loadout().deferred and "tool_search" not in roomy.loadout().exposed_names


def test_a_budget_nothing_can_meet_is_reported(tmp_path: Path) -> None:
    tools: dict[SourceKind, list[Tool]] = {
        "user": [
            make("pinned", words=30, defer=False),
            make("core_tool", words=30, essential=True),
            make("x"),
        ]
    }
    d = deck(tmp_path, tools, tool_search={"enabled": True, "defer": [], "max_exposed_tokens": 10})
    loadout = d.loadout()
    assert loadout.deferred_names == ("x",) and {"pinned", "core_tool"} <= set(loadout.exposed_names)
    [warning] = [x for x in d.diagnostics(loadout) if x.path == "tool_search.max_exposed_tokens"]
    assert "over the budget of 10" in warning.message


PING = '''
from tooldeck import tool


@tool()
def ping() -> str:
    """Ping."""
    return "pong"
'''


def test_deferral_asked_for_while_tool_search_is_off_is_reported(tmp_path: Path) -> None:
    (tmp_path / "td_defer_tools.py").write_text(PING, encoding="utf-8")
    data = {
        "home": str(tmp_path),
        "plugins": {"enabled": False},
        "tools": [{"use": "td_defer_tools:ping", "defer": True}],
        "tool_search": {"max_exposed_tokens": 100},
    }
    d = Deck(parse_config(data, base_dir=str(tmp_path), env={}), builtins=False)
    assert d.loadout().exposed_names == ("ping",)
    found = {x.path: x.message for x in d.diagnostics(d.loadout()) if x.level == "warning"}
    assert found["tools[0].defer"] == "has no effect while tool_search.enabled is false"
    assert found["tool_search.max_exposed_tokens"] == "has no effect while tool_search.enabled is false"
