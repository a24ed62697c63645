"""Deferred MCP tools behind tool_search, with a real server whose tool list changes mid-run:
after `notifications/tools/list_changed` the catalog, its hash and the run's promotions agree
(a promoted tool that vanished is dropped, the others stay promoted)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from tooldeck._core.disclosure import catalog_hash, deferred_catalog
from tooldeck.agent import ScriptedModel, call, reply

from .mcpkit import deck_over, tiny, wait_for

LOADED = ["mcp__srv__add_tool", "mcp__srv__echo", "mcp__srv__remove_tool", "mcp__srv__where"]


def test_promotions_follow_the_servers_tool_list(tmp_path: Path) -> None:
    script = [
        # Turn 1: load four tools, then make the server add one.
        reply(calls=[call("tool_search", {"query": "select:" + ",".join(LOADED)})]),
        reply(calls=[call("mcp__srv__add_tool", {"name": "fresh"})]),
        reply("added"),
        # Turn 2 (the new tool is listed): the old promotions still hold; load the new tool.
        reply(calls=[call("mcp__srv__echo", {"text": "still here"})]),
        reply(calls=[call("tool_search", {"query": "added at run time", "limit": 1})]),
        reply(calls=[call("mcp__srv__fresh", {}), call("mcp__srv__remove_tool", {"name": "where"})]),
        reply("removed"),
        # Turn 3 (where is gone): it is no longer promoted, nor callable; the rest still is.
        reply(calls=[call("mcp__srv__where", {}), call("mcp__srv__echo", {"text": "after"})]),
        reply("done"),
    ]
    model = ScriptedModel(script)
    with deck_over(tmp_path, {"srv": tiny()}, tool_search={"enabled": True, "defer": ["mcp"]}) as deck:
        assert deck.loadout().exposed_names == ("tool_search",)
        agent = deck.agent(model, store=False)

        def names() -> set[str]:
            return set(deck.registry.snapshot().names())

        async def main() -> Any:
            convo = agent.new_conversation()
            await agent.run(convo, "add a tool")
            wait_for(lambda: "mcp__srv__fresh" in names(), what="the new tool listed")
            await agent.run(convo, "use it, then remove where")
            wait_for(lambda: "mcp__srv__where" not in names(), what="where gone")
            await agent.run(convo, "try where")
            return convo

        convo = asyncio.run(main())
        loadout = deck.loadout()
        assert "mcp__srv__fresh" in deferred_catalog(loadout) and "mcp__srv__where" not in deferred_catalog(
            loadout
        )
        # The record is scoped to the catalog as it is now, without the vanished tool.
        expected = sorted({*LOADED, "mcp__srv__fresh"} - {"mcp__srv__where"})
        assert convo.state.to_json()["promoted"] == {"catalog": catalog_hash(loadout), "names": expected}

    sent = [set(r.tool_names) for r in model.requests]
    assert sent[1] == {"tool_search", *LOADED}
    assert sent[3] == {"tool_search", *LOADED}  # turn 2: the catalog changed, the promotions held
    assert sent[5] == {"tool_search", "mcp__srv__fresh", *LOADED}
    assert sent[7] == {"tool_search", "mcp__srv__fresh", *LOADED} - {"mcp__srv__where"}
    assert "mcp__srv__fresh" not in (model.requests[0].system or "")
    assert "fresh" in (model.requests[3].system or "").split("mcp__srv__* (12 tools): ", 1)[1]
    results = {m.tool_call_id: m for m in convo.messages if m.role == "tool"}
    contents = [m.content for m in results.values()]
    assert "still here" in contents[2]
    assert json.loads(contents[3])["loaded"] == ["mcp__srv__fresh"]
    assert "fresh ran" in contents[4]
    where, echo = contents[-2], contents[-1]
    assert json.loads(where)["error"]["type"] == "unknown_tool" and "after" in echo
