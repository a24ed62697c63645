"""A prefix that stays cached: requests re-assembled from an unchanged state are the same bytes, a
request that does not begin with the previous one is a `CacheBreak` naming what changed, and the
system prompt names the deferred tools a line per toolset."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from disclosure.kit import TOOLS, make_deck
from tooldeck.agent.events import CacheBreak
from tooldeck.agent.messages import Message
from tooldeck.agent.models.base import ModelRequest, ModelSettings, Provider
from tooldeck.agent.models.factory import make_model
from tooldeck.agent.models.prefix import PrefixWatch
from tooldeck.agent.toolview import ToolView
from tooldeck.core import RunState, ToolCall, promote, toolset_lines


def body_of(provider: Provider, tmp_path: Path, native: str) -> dict[str, Any]:
    """A request after `tool_search` found get_forecast, built from a fresh deck and state."""
    deck = make_deck(tmp_path, native=native)
    view = ToolView(deck.loadout)
    state = RunState()
    promote(state, deck.loadout(), ["get_forecast"])
    loadout = view.for_state(state)
    call = ToolCall(id="c1", name="tool_search", arguments='{"query": "select:get_forecast"}')
    found = json.dumps({"query": "select:get_forecast", "loaded": ["get_forecast"], "tools": []})
    messages = (
        Message(role="user", content="weather?"),
        Message(role="assistant", content="", tool_calls=(call,)),
        Message(role="tool", content=found, tool_call_id="c1", name="tool_search"),
    )
    request = ModelRequest(ToolView.system("Be terse.", loadout), messages, loadout, session_id="s1")
    model: Any = make_model(
        ModelSettings(provider=provider, model="m", base_url="http://127.0.0.1:9/v1", api_key="k")
    )
    body: dict[str, Any] = model.request_body(request)
    return body


@pytest.mark.parametrize("provider", ["openai", "responses", "anthropic"])
@pytest.mark.parametrize("native", ["auto", "off"])
def test_reassembly_that_changes_nothing_yields_the_same_bytes(
    tmp_path: Path, provider: Provider, native: str
) -> None:
    first = body_of(provider, tmp_path / "a", native)
    again = body_of(provider, tmp_path / "b", native)
    assert json.dumps(first, default=str) == json.dumps(again, default=str).replace(
        str(tmp_path / "b"), str(tmp_path / "a")
    )


def test_a_changed_system_prompt_is_a_cache_break_naming_it() -> None:
    watch = PrefixWatch()
    tools = [{"name": "add", "input_schema": {}}]
    assert (
        watch.observe("s", {"tools": tools, "system": "one", "messages": [{"role": "user", "content": "hi"}]})
        is None
    )
    brk = watch.observe(
        "s", {"tools": tools, "system": "two", "messages": [{"role": "user", "content": "hi"}]}
    )
    assert isinstance(brk, CacheBreak) and brk.changed == ("system prompt",) and 0 < brk.reused < 1


def test_tools_that_came_and_went_are_named_and_moving_cache_markers_is_no_break() -> None:
    watch = PrefixWatch()
    a, b, c = ({"type": "function", "function": {"name": n}} for n in "abc")
    watch.observe("s", {"tools": [a, b], "messages": [{"role": "user", "content": "hi"}]})
    brk = watch.observe("s", {"tools": [a, c], "messages": [{"role": "user", "content": "hi"}]})
    assert brk is not None and brk.changed == ("tools: added c", "tools: removed b")
    marked = {
        "role": "user",
        "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}],
    }
    plain = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
    watch.observe("t", {"system": "x", "messages": [marked]})
    assert (
        watch.observe("t", {"system": "x", "messages": [plain, {"role": "user", "content": "more"}]}) is None
    )
    rewritten = watch.observe("t", {"system": "x", "messages": [{"role": "user", "content": "edited"}]})
    assert isinstance(rewritten, CacheBreak) and rewritten.changed == ("history rewritten",)
    assert watch.observe(None, {"system": "y"}) is None  # no session: nothing to compare with


def test_the_toolset_listing_gives_one_line_per_toolset_with_the_shared_prefix() -> None:
    mcp = [t.with_options(name=f"mcp__gh__{t.name}", toolset="mcp-gh") for t in TOOLS[:2]]
    lines = toolset_lines([*mcp, *TOOLS[2:4]], limit=40)
    assert lines == [
        "- mcp__gh__* (2 tools): createIssue, list_pull_requests",
        "- slack (1 tool): send_slack_message",
        "- weather (1 tool): get_forecast",
    ]
    many = [TOOLS[0].with_options(name=f"tool_{i:02d}", toolset="big") for i in range(20)]
    [line] = toolset_lines(many, limit=20)
    assert line.startswith("- tool_* (20 tools): 00, 01, 02") and line.endswith("04, … (15 more)")


def test_native_settings_that_do_nothing_are_reported(tmp_path: Path) -> None:
    deck = make_deck(tmp_path, native="off", execution="server")
    found = {x.path: x.message for x in deck.diagnostics(deck.loadout())}
    assert found["tool_search.execution"] == "has no effect while tool_search.native is off"
    deck = make_deck(tmp_path, server_search="regex")
    found = {x.path: x.message for x in deck.diagnostics(deck.loadout())}
    assert "execution: server" in found["tool_search.server_search"]
    quiet = make_deck(tmp_path)
    assert not [x for x in quiet.diagnostics(quiet.loadout()) if x.path.startswith("tool_search.")]
