"""Tool search on the scripted server, as Anthropic and OpenAI Responses document it.

A scripted call of `tool_search` to a Responses request that declares
`{"type": "tool_search"}` comes out as a `tool_search_call` item (`execution` as declared);
with `execution: "server"` the server searches the request's deferred tools itself and adds the
`tool_search_output` item. A scripted call of `tool_search_tool_bm25` / `tool_search_tool_regex`
to an Anthropic request that declares that tool comes out as a `server_tool_use` block and the
`tool_search_tool_result` block with a `tool_reference` per match. A call of a function declared
inside a `namespace` names its namespace.

Requests are held to the rules the providers state (`search_refusal`): a `tool_reference` must
name a tool declared with `defer_loading: true`, not every tool may be deferred, and a
`tool_search_output` must answer a `tool_search_call` of the same `call_id`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, Protocol


class ScriptedServer(Protocol):
    """What a search reads of the server: fresh ids."""

    def next_id(self, prefix: str) -> str: ...


ANTHROPIC_SEARCH_TOOLS = ("tool_search_tool_bm25", "tool_search_tool_regex")
_WORD = re.compile(r"[a-z0-9]+")


def _declared(body: Mapping[str, Any]) -> Iterator[tuple[str | None, dict[str, Any]]]:
    """Every function the request declares, with the namespace it is in (None: top level)."""
    for t in body.get("tools") or []:
        if t.get("type") == "namespace":
            for inner in t.get("tools") or []:
                yield t.get("name"), inner
        else:
            yield None, t.get("function") or t


def namespace_of(name: str, body: Mapping[str, Any]) -> str | None:
    return next((space for space, t in _declared(body) if space and t.get("name") == name), None)


def search(query: str, body: Mapping[str, Any], *, regex: bool = False, limit: int = 5) -> list[str]:
    """The deferred tools of the request a query finds: a regex over names and descriptions, or
    the tools sharing most words with it."""
    deferred = [(space, t) for space, t in _declared(body) if t.get("defer_loading")]
    if regex:
        try:
            pattern = re.compile(query, re.IGNORECASE)
        except re.error:
            return []
        return [t["name"] for _, t in deferred if pattern.search(f"{t['name']} {t.get('description', '')}")][
            :limit
        ]
    words = set(_WORD.findall(query.lower()))
    scored = []
    for _, t in deferred:
        text = set(_WORD.findall(f"{t['name']} {t.get('description', '')}".lower().replace("_", " ")))
        if hit := len(words & text):
            scored.append((-hit, t["name"]))
    return [name for _, name in sorted(scored)[:limit]]


def _query(args: dict[str, Any] | str) -> str:
    return str(args.get("query", "")) if isinstance(args, dict) else str(args)


def responses_items(
    server: ScriptedServer, name: str, args: dict[str, Any] | str, body: Mapping[str, Any]
) -> list[dict[str, Any]] | None:
    """The output items of a scripted `tool_search` call, or None when the request declares no
    `tool_search` tool (the call is then an ordinary function call)."""
    declared = next((t for t in body.get("tools") or [] if t.get("type") == "tool_search"), None)
    if name != "tool_search" or declared is None:
        return None
    execution = declared.get("execution") or "server"
    call = {
        "type": "tool_search_call",
        "id": server.next_id("tsc"),
        "call_id": server.next_id("call") if execution == "client" else None,
        "arguments": args if isinstance(args, dict) else {"query": args},
        "execution": execution,
        "status": "completed",
    }
    if execution == "client":
        return [call]
    found = set(search(_query(args), body))
    tools: list[dict[str, Any]] = []
    for t in body.get("tools") or []:
        if t.get("type") == "namespace":
            members = [{**m, "defer_loading": False} for m in t.get("tools") or [] if m.get("name") in found]
            if members:
                tools.append({**t, "tools": members})
        elif t.get("name") in found:
            tools.append({**t, "defer_loading": False})
    output = {
        "type": "tool_search_output",
        "id": server.next_id("tso"),
        "call_id": None,
        "execution": "server",
        "status": "completed",
        "tools": tools,
    }
    return [call, output]


def anthropic_blocks(
    server: ScriptedServer, name: str, args: dict[str, Any] | str, body: Mapping[str, Any]
) -> list[dict[str, Any]] | None:
    """The blocks of a scripted call of Anthropic's search tool, or None when it is not one."""
    declared = {
        t.get("name")
        for t in body.get("tools") or []
        if str(t.get("type", "")).startswith("tool_search_tool_")
    }
    if name not in ANTHROPIC_SEARCH_TOOLS or name not in declared:
        return None
    use_id = server.next_id("srvtoolu")
    found = search(_query(args), body, regex=name.endswith("regex"))
    references = [{"type": "tool_reference", "tool_name": n} for n in found]
    return [
        {
            "type": "server_tool_use",
            "id": use_id,
            "name": name,
            "input": args if isinstance(args, dict) else {"query": args},
        },
        {
            "type": "tool_search_tool_result",
            "tool_use_id": use_id,
            "content": {"type": "tool_search_tool_search_result", "tool_references": references},
        },
    ]


def search_refusal(kind: str, body: Mapping[str, Any]) -> str | None:
    """The error (a 400) a provider answers a request breaking its tool search rules with."""
    tools = list(body.get("tools") or [])
    if tools and all(t.get("defer_loading") for t in tools):
        return "all tools have defer_loading set: at least one tool must be loaded"
    if kind == "anthropic":
        deferred = {t.get("name") for t in tools if t.get("defer_loading")}
        for m in body.get("messages") or []:
            for b in m.get("content") if isinstance(m.get("content"), list) else []:
                inner = b.get("content") if b.get("type") == "tool_result" else None
                for r in inner if isinstance(inner, list) else []:
                    if r.get("type") == "tool_reference" and r.get("tool_name") not in deferred:
                        return f"tool_reference names {r.get('tool_name')!r}, which is not a deferred tool"
    if kind == "responses":
        calls: set[str] = set()
        given = body.get("input")
        # `input` is a string (one user message) or a list of items.
        for item in given if isinstance(given, list) else []:
            if not isinstance(item, Mapping):
                continue
            if item.get("type") == "tool_search_call" and item.get("call_id"):
                calls.add(item["call_id"])
            if (
                item.get("type") == "tool_search_output"
                and item.get("execution") == "client"
                and item.get("call_id") not in calls
            ):
                return f"No tool search call found for tool_search_output with call_id {item.get('call_id')}"
    return None
