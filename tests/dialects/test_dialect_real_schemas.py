"""Every real schema (527 LiveMCP + 1,853 BFCL) is accepted by Tool(...), renders in all four
dialects and passes that dialect's validator; strict mode is applied or refused with a reason."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from tooldeck import Tool
from tooldeck._core.dialects import DIALECTS, get_dialect
from tooldeck._core.dialects.names import SAFE_NAME, safe_name

from .dialect_validators import VALIDATORS


def _tools(entries: list[dict[str, Any]], schema_key: str, taken: set[str]) -> list[Tool]:
    tools = []
    for entry in entries:
        tools.append(
            Tool(
                name=safe_name(entry["name"], taken),
                description=entry.get("description") or "",
                parameters=entry[schema_key],
            )
        )
    return tools


@pytest.fixture(scope="module")
def corpus(livemcp_tools: list[dict[str, Any]], bfcl_tools: list[dict[str, Any]]) -> list[Tool]:
    taken: set[str] = set()
    return _tools(livemcp_tools, "inputSchema", taken) + _tools(bfcl_tools, "parameters", taken)


def test_every_real_schema_is_accepted_by_tool_and_keeps_a_unique_safe_name(
    livemcp_tools: list[dict[str, Any]], bfcl_tools: list[dict[str, Any]]
) -> None:
    originals = copy.deepcopy([t["inputSchema"] for t in livemcp_tools])
    taken: set[str] = set()
    tools = _tools(livemcp_tools, "inputSchema", taken) + _tools(bfcl_tools, "parameters", taken)
    assert len(tools) == 527 + 1853
    assert len({t.name for t in tools}) == len(tools)
    assert all(SAFE_NAME.match(t.name) for t in tools)
    # The inputs are not modified by normalisation.
    assert [t["inputSchema"] for t in livemcp_tools] == originals
    # BFCL's non-standard forms are gone from what Tool stores.
    text = json.dumps([t.parameters for t in tools])
    bad_forms = ('"type": "dict"', '"type": "float"', '"type": "String"', '"type": "tuple"', '"type": "any"')
    for bad in (*bad_forms, '"optional": ', '"exclusiveMinimum": true'):
        assert bad not in text


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_every_real_schema_renders_and_validates(corpus: list[Tool], dialect: str) -> None:
    renderer = get_dialect(dialect)
    problems: list[str] = []
    for tool in corpus:
        assert isinstance(tool.description, str)
        rendered = renderer.render(tool.name, tool.description, tool.parameters)
        problems += VALIDATORS[dialect](rendered.payload)
    assert problems[:20] == [], f"{len(problems)} problems"


@pytest.mark.parametrize("dialect", ["openai", "responses"])
def test_strict_mode_is_valid_strict_or_says_why(corpus: list[Tool], dialect: str) -> None:
    renderer = get_dialect(dialect, strict=True)
    problems: list[str] = []
    strict = refused = 0
    for tool in corpus:
        assert isinstance(tool.description, str)
        rendered = renderer.render(tool.name, tool.description, tool.parameters)
        problems += VALIDATORS[dialect](rendered.payload)
        if rendered.strict:
            strict += 1
            assert rendered.strict_reason is None
        else:
            refused += 1
            assert rendered.strict_reason, tool.name
    assert problems[:20] == [], f"{len(problems)} problems"
    # Most real schemas can be strict; the rest are free-form maps or untyped values.
    assert strict > 0.9 * len(corpus)
    assert refused > 0


def test_defaults_survive_every_dialect_unchanged(livemcp_tools: list[dict[str, Any]]) -> None:
    """Literal values are never walked as schemas (Hermes #55077 turned these into dicts)."""
    defaults = []
    for entry in livemcp_tools:
        for name, prop in (entry["inputSchema"].get("properties") or {}).items():
            if isinstance(prop, dict) and isinstance(prop.get("default"), list | dict) and prop["default"]:
                defaults.append((entry, name, prop["default"]))
    assert defaults, "the corpus has list/object defaults"
    for dialect in ("openai", "responses", "anthropic", "gemini"):
        renderer = get_dialect(dialect)
        for entry, name, default in defaults:
            rendered = renderer.render(safe_name(entry["name"]), "", entry["inputSchema"])
            params = renderer.parameters_of(rendered.payload)
            assert params is not None
            assert params["properties"][name]["default"] == default, (dialect, entry["name"], name)
