"""A small hand-written catalog shared by the search tests (names deliberately mixed in style)."""

from __future__ import annotations

from typing import Any

import pytest

from tooldeck.search.catalog import Catalog
from tooldeck.search.engine import SearchResult

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


def assert_same_hits(got: SearchResult, want: SearchResult) -> None:
    """The same hits, scores equal up to rounding: summation order and BLAS kernels differ between
    machines (and between an updated and a rebuilt index), so the last bits of a score may too, and
    two tools whose scores tie within that rounding may come in either order."""
    assert (got.form, got.unknown, got.note) == (want.form, want.unknown, want.note)
    assert sorted(got.names) == sorted(want.names)
    for mine, theirs in zip(got.hits, want.hits, strict=True):
        assert mine.score == pytest.approx(theirs.score, rel=1e-6, abs=1e-9)
        if mine.name != theirs.name:  # only a tie may swap places
            assert got.hits[got.names.index(theirs.name)].score == pytest.approx(
                mine.score, rel=1e-6, abs=1e-9
            )
