"""An SDK MCP server over stdio whose tools ask the client back, on either protocol revision.

    python asking_server.py

The SDK's resolvers ask the way the connection allows: standalone requests mid-call on a
2025-11-25 session, an `input_required` result and a retry on 2026-07-28.

Tools: `ask_profile` (a form with defaults and an enum; returns what the client answered),
`ask_model` (sampling; returns the reply, or the error), `show_roots` (the client's roots),
`chatty` (progress and a log message, then "done"), `grow` (adds tool `grown` and announces
the change), `crash` (the process ends). Its `tools/list` results say they stay fresh for a minute (`ttlMs`, 2026-07-28),
and each listing is counted as a line in the file $ASKING_LISTINGS, when set.
"""

from __future__ import annotations

import json
import os
import warnings
from typing import Annotated, Any, Literal

from mcp.server.caching import CacheHint
from mcp.server.elicitation import ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from mcp_types import CreateMessageResult, ListRootsResult, SamplingMessage, TextContent
from pydantic import BaseModel, Field


class CountedServer(MCPServer):
    async def list_tools(self) -> list[Any]:
        path = os.environ.get("ASKING_LISTINGS")
        if path:
            with open(path, "a") as f:
                f.write("listed\n")
        return await super().list_tools()


server = CountedServer("asking", cache_hints={"tools/list": CacheHint(ttl_ms=60_000)})


class Profile(BaseModel):
    name: str = Field(default="Ada", description="Your name")
    color: Literal["red", "green", "blue"] = Field(default="green", description="A colour")
    age: int = Field(default=36, description="Your age")


def profile_question() -> Elicit[Profile]:
    return Elicit("Tell me about you", Profile)


@server.tool()
def ask_profile(answer: Annotated[ElicitationResult[Profile], Resolve(profile_question)]) -> str:
    """Ask the user for a profile; returns the action and the content as JSON."""
    action = answer.action
    data = getattr(answer, "data", None)
    content = data.model_dump() if isinstance(data, BaseModel) else None
    return json.dumps({"action": action, "content": content})


def model_question() -> Sample:
    text = TextContent(type="text", text="Name a colour.")
    return Sample([SamplingMessage(role="user", content=text)], max_tokens=40, system_prompt="Be brief.")


@server.tool()
def ask_model(reply: Annotated[CreateMessageResult, Resolve(model_question)]) -> str:
    """Ask the client's model a question; returns its answer."""
    content = reply.content
    return json.dumps({"text": getattr(content, "text", None), "model": reply.model})


def roots_question() -> ListRoots:
    return ListRoots()


@server.tool()
def show_roots(roots: Annotated[ListRootsResult, Resolve(roots_question)]) -> str:
    """The client's roots, as JSON."""
    return json.dumps([str(r.uri) for r in roots.roots])


@server.tool()
async def chatty(ctx: Context) -> str:
    """Report progress and log a message, then answer."""
    await ctx.report_progress(1, 2, "half way")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        await ctx.info("a note from the server")
    return "done"


@server.tool()
async def grow(ctx: Context) -> str:
    """Add the tool `grown` and tell the client."""

    def grown() -> str:
        """A tool added while the server runs."""
        return "grown ran"

    server.add_tool(grown)
    await ctx.notify_tools_changed()
    return "grew"


@server.tool()
def crash() -> str:
    """The server process ends during this call."""
    os._exit(3)


if __name__ == "__main__":
    server.run("stdio")
