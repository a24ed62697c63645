"""Tools and decks shared by the progressive-disclosure tests: a few toolsets, names in mixed styles."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tooldeck import Deck, parse_config, tool
from tooldeck._core.execution.types import ToolResult
from tooldeck._core.tool import Tool


@tool(toolset="github")
def createIssue(repo: str, title: str, body: str = "") -> str:
    """Open a new issue in a repository.

    Args:
        repo: the repository, owner/name.
        title: the issue's title.
        body: the issue's text.
    """
    return f"issue {title!r} opened in {repo}"


@tool(toolset="github")
def list_pull_requests(repo: str, state: str = "open") -> str:
    """List the pull requests of a repository.

    Args:
        repo: the repository, owner/name.
        state: open, closed or all.
    """
    return f"no {state} pull requests in {repo}"


@tool(toolset="slack")
def send_slack_message(channel: str, text: str) -> str:
    """Post a message to a channel of the team chat.

    Args:
        channel: where to post, e.g. #general.
        text: the message.
    """
    return f"posted to {channel}"


@tool(toolset="weather")
def get_forecast(city: str, days: int = 3) -> str:
    """Weather forecast for the coming days.

    Args:
        city: the place to forecast, e.g. Paris.
        days: how many days ahead.
    """
    return f"{days} sunny days in {city}"


@tool(toolset="core")
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


TOOLS: list[Tool] = [createIssue, list_pull_requests, send_slack_message, get_forecast, add]
DEFERRED = ("createIssue", "get_forecast", "list_pull_requests", "send_slack_message")


def config_data(tmp_path: Path, **tool_search: Any) -> dict[str, Any]:
    settings = {"enabled": True, "defer": ["github", "slack", "weather"], **tool_search}
    return {
        "tool_search": settings,
        "home": str(tmp_path / "home"),
        "sandbox": {"workspace": str(tmp_path)},
        "plugins": {"enabled": False},
    }


def make_deck(tmp_path: Path, tools: list[Tool] | None = None, **tool_search: Any) -> Deck:
    """A deck over `tools` (default TOOLS) without the built-in library, deferring three toolsets."""
    config = parse_config(config_data(tmp_path, **tool_search), env={})
    return Deck(config, tools=TOOLS if tools is None else tools, builtins=False)


def found(result: ToolResult) -> dict[str, Any]:
    """A tool_search result, decoded (it must have succeeded)."""
    assert result.ok, result.content
    decoded: dict[str, Any] = json.loads(result.content)
    return decoded
