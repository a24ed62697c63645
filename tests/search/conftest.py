"""A small hand-written catalog shared by the search tests (names deliberately mixed in style)."""

from __future__ import annotations

from typing import Any

import pytest

from tooldeck.search.catalog import Catalog

TOOLS: list[dict[str, Any]] = [
    {
        "name": "get_current_weather",
        "description": "Current weather conditions for a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name, e.g. Paris"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
        },
    },
    {
        "name": "sendSlackMessage",
        "description": "Post a message to a Slack channel.",
        "parameters": {
            "type": "object",
            "properties": {"channel": {"type": "string"}, "text": {"type": "string"}},
        },
    },
    {
        "name": "mcp__github__create_issue",
        "description": "Open a new issue in a GitHub repository.",
        "parameters": {
            "type": "object",
            "properties": {"repo": {"type": "string"}, "title": {"type": "string"}},
        },
    },
    {
        "name": "math.factorial",
        "description": "Compute the factorial of a number.",
        "parameters": {"type": "dict"},
    },
    {"name": "HTTPRequest2JSON", "description": "Fetch a URL and return its body."},
    {"name": "translate_text", "description": "Translate text from one language into another."},
    {"name": "stock.price", "description": "Latest share price of a listed company."},
    {
        "name": "Movies_1_FindMovies",
        "description": "Search for films playing at theaters.",
        "parameters": {
            "type": "object",
            "properties": {"genre": {"type": "string", "enum": ["Comedy", "Drama", "Horror"]}},
        },
    },
    {"name": "search files", "description": "Name with a space: not a tooldeck name, kept verbatim."},
]


@pytest.fixture
def small_catalog() -> Catalog:
    return Catalog.from_json(TOOLS)
