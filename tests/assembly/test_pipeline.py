"""The pipeline end to end: order of gates, memo keyed on availability, S1/S2, strict mode."""

from __future__ import annotations

import pytest

from tooldeck import Config
from tooldeck._core.registry import Registry
from tooldeck._core.tool import DescriptionContext, Tool
from tooldeck.errors import ToolsetError

from .helpers import assembler, make


def test_every_candidate_gets_a_fate_from_the_first_gate_that_hides_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TD_KEY", raising=False)
    tools = [
        make("ok", "base"),
        make("off", "other"),
        make("needs_key", "base", requires_env=["TD_KEY"]),
        make("shell", "base", shell=True, requires_env=["TD_KEY"]),  # host_shell comes before availability
    ]
    lo = assembler(tools, platform_toolsets={"cli": ["base"]}).assemble()
    fates = {f.name: (f.status, f.gate) for f in lo.fates()}
    assert fates == {
        "ok": ("exposed", None),
        "off": ("hidden", "toolset"),
        "needs_key": ("hidden", "availability"),
        "shell": ("hidden", "host_shell"),
    }


def test_loadout_changes_when_availability_changes_in_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TD_SEARCH_KEY", raising=False)
    state = {"up": False}
    probe = lambda: state["up"]  # noqa: E731 - one function object, flipped through state
    asm = assembler([make("search", requires_env=["TD_SEARCH_KEY"]), make("svc", check=probe), make("x")])
    first = asm.assemble()
    assert first.exposed_names == ("x",)
    assert asm.assemble() is first  # nothing changed: served from the memo
    monkeypatch.setenv("TD_SEARCH_KEY", "k")
    assert asm.assemble().exposed_names == ("search", "x")  # env vars are read every time
    state["up"] = True
    assert "svc" not in asm.assemble().exposed_names  # cached check answer within its TTL...
    asm.invalidate()
    assert asm.assemble().exposed_names == ("search", "svc", "x")  # ...until invalidated


def test_registry_mutation_changes_the_loadout() -> None:
    reg = Registry([make("a")])
    from tooldeck._core.assembly.pipeline import Assembler

    asm = Assembler(reg, Config())
    assert asm.assemble().exposed_names == ("a",)
    reg.register(make("b"))
    assert asm.assemble().exposed_names == ("a", "b")


def test_cross_reference_pruning_s1() -> None:
    browse = Tool(
        name="browse",
        description="Open a page.{{if web_search,web_extract}} Prefer web_search or web_extract for lookups.{{end}}",
        parameters={},
        references=("web_search", "web_extract"),
    )
    both = assembler([browse, make("web_search"), make("web_extract")]).assemble()
    assert both.description("browse") == "Open a page. Prefer web_search or web_extract for lookups."
    one_missing = assembler(
        [browse, make("web_search"), make("web_extract", requires_env=["TD_NEVER_SET"])]
    ).assemble()
    assert one_missing.description("browse") == "Open a page."


def test_live_descriptions_s2_see_only_exposed_tools() -> None:
    def describe(ctx: DescriptionContext) -> str:
        return (
            f"Run code that may call: {', '.join(sorted(ctx.exposed - {'execute_code'}))}; "
            f"up to {ctx.config.agent.delegation_max_concurrency if ctx.config else 0} helpers."
        )

    code = Tool(name="execute_code", description=describe, parameters={}, toolset="core")
    lo = assembler(
        [code, make("read"), make("gone", "other")],
        platform_toolsets={"cli": ["core"]},
        agent={"delegation_max_concurrency": 5},
    ).assemble()
    assert lo.description("execute_code") == "Run code that may call: read; up to 5 helpers."


def test_typos_are_warnings_by_default_and_errors_in_strict_mode() -> None:
    tools = [make("a", "alpha")]
    lo = assembler(tools, disabled_toolsets=["alpah"]).assemble()
    assert lo.exposed_names == ("a",)
    assert [(d.path, d.level) for d in lo.diagnostics] == [("disabled_toolsets[0]", "warning")]
    with pytest.raises(ToolsetError, match=r"disabled_toolsets\[0\].*alpah.*strict: true"):
        assembler(tools, disabled_toolsets=["alpah"], strict=True).assemble()
    with pytest.raises(ToolsetError, match="cycle"):
        assembler(
            tools, strict=True, toolsets={"x": {"includes": ["x"]}}, platform_toolsets={"cli": ["x"]}
        ).assemble()


def test_the_api_refuses_an_unknown_platform_with_a_suggestion() -> None:
    from tooldeck import Deck, UnknownPlatformError, parse_config

    config = parse_config({"platform_toolsets": {"cli": ["core"], "gateway": ["core"]}}, env={})
    deck = Deck(config, tools=[make("a"), make("b", "other")], builtins=False)
    for attempt in (
        lambda: deck.tools(platform="gatway"),
        lambda: deck.loadout("gatway"),
        lambda: deck.explain(platform="gatway"),
    ):
        with pytest.raises(UnknownPlatformError, match=r"unknown platform 'gatway'.*did you mean 'gateway'"):
            attempt()
    assert [t["function"]["name"] for t in deck.tools(platform="gateway")] == ["a"]  # not everything
