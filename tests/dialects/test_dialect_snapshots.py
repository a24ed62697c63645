"""Snapshot tests: a handful of representative schemas rendered in every dialect.

The expected outputs live in tests/snapshots/dialects/<case>.json (one object per dialect,
plus OpenAI strict). A missing or different snapshot fails; after a deliberate change, rewrite
them with `TOOLDECK_UPDATE_SNAPSHOTS=1 pytest tests/dialects/test_dialect_snapshots.py` and
review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tooldeck._core.dialects import get_dialect

from .dialect_validators import VALIDATORS

SNAPSHOTS = Path(__file__).resolve().parents[1] / "snapshots" / "dialects"
UPDATE = os.environ.get("TOOLDECK_UPDATE_SNAPSHOTS") == "1"

CASES: dict[str, tuple[str, dict[str, Any]]] = {
    # A FastMCP/pydantic tool: Optional fields as anyOf-null, $defs, titles, defaults.
    "pydantic_optional_defs": (
        "Search issues in a project.",
        {
            "$defs": {
                "State": {"enum": ["open", "closed"], "title": "State", "type": "string"},
                "Range": {
                    "properties": {"start": {"type": "integer"}, "end": {"type": "integer"}},
                    "required": ["start"],
                    "title": "Range",
                    "type": "object",
                },
            },
            "properties": {
                "query": {"title": "Query", "type": "string"},
                "state": {"anyOf": [{"$ref": "#/$defs/State"}, {"type": "null"}], "default": None},
                "limit": {"default": 20, "maximum": 100, "minimum": 1, "title": "Limit", "type": "integer"},
                "range": {"anyOf": [{"$ref": "#/$defs/Range"}, {"type": "null"}], "default": None},
                "labels": {
                    "items": {"type": "string"},
                    "title": "Labels",
                    "type": "array",
                    "default": ["bug"],
                },
            },
            "required": ["query"],
            "title": "search_issuesArguments",
            "type": "object",
        },
    ),
    # A zod-generated MCP tool (mcp-server-chart style): JSON-pointer refs, `not {}`, draft-07.
    "zod_pointer_refs": (
        "Generate a district map.",
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "data": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "description": "Region name."},
                        "colors": {
                            "type": "array",
                            "items": {"type": "string"},
                            "default": ["#1783FF", "#00C9C9"],
                        },
                        "subdistricts": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {"name": {"$ref": "#/properties/data/properties/name"}},
                                "required": ["name"],
                                "additionalProperties": False,
                            },
                        },
                    },
                    "required": ["name"],
                    "additionalProperties": False,
                },
                "bins": {"anyOf": [{"type": "number"}, {"not": {}}, {"type": "null"}], "default": None},
                "theme": {"type": "string", "enum": ["default", "academy"], "default": "default"},
            },
            "required": ["data"],
            "additionalProperties": False,
        },
    ),
    # BFCL: non-standard types and the `optional` flag.
    "bfcl_nonstandard": (
        "Plan a trip.",
        {
            "type": "dict",
            "properties": {
                "coordinates": {"type": "tuple", "items": {"type": "float"}, "description": "x, y."},
                "options": {"type": "HashMap", "description": "Free-form options."},
                "mode": {"type": "String", "enum": ["car", "bike"], "optional": "True", "default": "car"},
                "payload": {"type": "any", "description": "Anything."},
                "count": {"type": "long"},
            },
            "required": ["coordinates", "mode"],
        },
    ),
    # Hand-written: draft-04 bounds, integer enum, const, type list, format, nested map.
    "constraints": (
        "Fetch a URL.",
        {
            "type": "object",
            "properties": {
                "url": {"type": "string", "format": "uri", "minLength": 1},
                "max_length": {"type": "integer", "minimum": 0, "exclusiveMinimum": True, "default": 5000},
                "retries": {"type": "integer", "enum": [0, 1, 3]},
                "kind": {"const": "page"},
                "when": {"type": ["string", "null"], "format": "date-time"},
                "headers": {"type": "object", "additionalProperties": {"type": "string"}},
            },
            "required": ["url"],
        },
    ),
    # Recursion and a top-level union.
    "recursive_union": (
        "Edit a tree.",
        {
            "type": "object",
            "definitions": {
                "Node": {
                    "type": "object",
                    "properties": {
                        "label": {"type": "string"},
                        "kids": {"type": "array", "items": {"$ref": "#/definitions/Node"}},
                    },
                    "required": ["label"],
                }
            },
            "properties": {
                "tree": {"$ref": "#/definitions/Node"},
                "path": {"type": "string"},
                "id": {"type": "integer"},
            },
            "oneOf": [{"required": ["tree", "path"]}, {"required": ["tree", "id"]}],
        },
    ),
    "no_arguments": ("Current time.", {"type": "object", "properties": {}}),
}

RENDERINGS: dict[str, dict[str, Any]] = {
    "openai": {},
    "openai_strict": {"strict": True},
    "responses": {},
    "anthropic": {},
    "gemini": {},
}


def _render(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for label, options in RENDERINGS.items():
        dialect = label.removesuffix("_strict")
        rendered = get_dialect(dialect, **options).render("tool_x", description, schema)
        assert VALIDATORS[dialect](rendered.payload) == []
        out[label] = {
            "payload": rendered.payload,
            "notes": list(rendered.notes),
            "strict_reason": rendered.strict_reason,
        }
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_rendering_matches_snapshot(case: str) -> None:
    description, schema = CASES[case]
    actual = json.loads(json.dumps(_render(description, schema)))
    path = SNAPSHOTS / f"{case}.json"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(actual, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert path.exists(), f"no snapshot {path}; create it with TOOLDECK_UPDATE_SNAPSHOTS=1"
    expected = json.loads(path.read_text(encoding="utf-8"))
    assert actual == expected
