"""Catalog files in every shape providers and MCP publish, and errors that name the exact field."""

from __future__ import annotations

from typing import Any

import pytest

from tooldeck.search.catalog import Catalog
from tooldeck.search.errors import CatalogError

SCHEMA = {"type": "object", "properties": {"path": {"type": "string", "description": "file to edit"}}}
PLAIN = {"name": "edit_file", "description": "Edit a text file in place.", "parameters": SCHEMA}

SHAPES: dict[str, Any] = {
    "tooldeck / Responses": [{"type": "function", **PLAIN}],
    "OpenAI Chat": [{"type": "function", "function": PLAIN}],
    "Anthropic": [{"name": "edit_file", "description": PLAIN["description"], "input_schema": SCHEMA}],
    "MCP": [{"name": "edit_file", "description": PLAIN["description"], "inputSchema": SCHEMA}],
    "Gemini declarations": [PLAIN],
    "Gemini wrapper": [{"functionDeclarations": [PLAIN]}],
    "Gemini snake_case": [
        {"function_declarations": [{**PLAIN, "parameters": None, "parametersJsonSchema": SCHEMA}]}
    ],
    "MCP tools/list result": {
        "tools": [{"name": "edit_file", "description": PLAIN["description"], "inputSchema": SCHEMA}]
    },
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_every_published_shape_gives_the_same_entry(shape: str) -> None:
    [entry] = Catalog.from_json(SHAPES[shape]).entries
    assert (entry.name, entry.description, entry.parameters) == ("edit_file", PLAIN["description"], SCHEMA)


def test_shapes_mix_and_a_gemini_wrapper_holds_several_tools() -> None:
    catalog = Catalog.from_json(
        [
            {"type": "function", "function": {"name": "a", "description": "first"}},
            {"functionDeclarations": [{"name": "b"}, {"name": "c", "description": None}]},
            {"name": "d", "inputSchema": {"type": "object"}},
        ]
    )
    assert catalog.names == ("a", "b", "c", "d")
    assert catalog["a"].description == "first" and catalog["c"].description == ""


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            [PLAIN, {**PLAIN, "name": "x", "description": 5}],
            r"tools\[1\]\.description \('x'\) must be a string, got a number \(5\)",
        ),
        (
            [{"type": "function", "function": {"description": "no name"}}],
            r"tools\[0\]\.function\.name must be a non-empty string, got nothing",
        ),
        ([{"name": ""}], r"tools\[0\]\.name must be a non-empty string, got an empty string"),
        (
            [{"functionDeclarations": [PLAIN, {"name": 3}]}],
            r"tools\[0\]\.functionDeclarations\[1\]\.name .* got a number",
        ),
        ([{"functionDeclarations": {"name": "a"}}], r"tools\[0\]\.functionDeclarations must be a list"),
        (
            [{"name": "a", "input_schema": [1]}],
            r"tools\[0\]\.input_schema \('a'\) must be an object, got a list",
        ),
        ([7], r"tools\[0\] must be an object, got a number"),
        ({"tools": [{"name": "a"}, {"name": "a"}]}, "duplicate tool name 'a'"),
        ({"name": "a"}, 'a JSON list of tools \\(or an object with a "tools" list\\)'),
    ],
)
def test_bad_entries_name_the_field(data: Any, message: str) -> None:
    with pytest.raises(CatalogError, match=message):
        Catalog.from_json(data)
