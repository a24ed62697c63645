"""Example arguments on tools (`input_examples`): given by `@tool(examples=...)`, `Tool(...)`,
a config `tools:` entry or an MCP server's `_meta`; checked against the tool's parameters when
it is defined; sent as Anthropic's own field and folded, bounded, into the description of the
other dialects."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mcp_types
import pytest

from tooldeck import Deck, Tool, parse_config, tool
from tooldeck._core.dialects import get_dialect
from tooldeck._core.dialects.examples import EXAMPLES_MAX_CHARS, HEADER
from tooldeck._core.sources.mcp.convert import deck_tools
from tooldeck._core.sources.mcp.settings import ServerSpec
from tooldeck.errors import ConfigError, ToolDefinitionError

SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "minLength": 2},
        "days": {"type": "integer", "minimum": 1},
        "units": {"enum": ["metric", "imperial"]},
    },
    "required": ["city"],
    "additionalProperties": False,
}


def forecast_tool(examples: Any) -> Tool:
    return Tool(name="forecast", description="Weather.", parameters=SCHEMA, input_examples=examples)


def test_the_decorator_checks_examples_against_the_schema_built_from_the_function() -> None:
    @tool(examples=[{"city": "Paris"}, {"city": "Oslo", "days": 3}])
    def forecast(city: str, days: int = 1) -> str:
        """Weather."""
        return city

    assert forecast.input_examples == ({"city": "Paris"}, {"city": "Oslo", "days": 3})
    with pytest.raises(ToolDefinitionError, match=r"tool 'forecast2': input_examples\[1\] .*'days'"):

        @tool(examples=[{"city": "Paris"}, {"city": "Oslo", "days": "three"}])
        def forecast2(city: str, days: int = 1) -> str:
            """Weather."""
            return city


@pytest.mark.parametrize(
    ("examples", "fault"),
    [
        ([{"city": "P"}], r"input_examples\[0\] does not fit .*city"),  # too short
        ([{"city": "Rome"}, {"days": 2}], r"input_examples\[1\] does not fit .*city"),  # required
        ([{"city": "Rome", "units": "kelvin"}], r"input_examples\[0\] does not fit .*units"),
        ([{"city": "Rome", "wind": True}], r"input_examples\[0\] does not fit .*wind"),
        ([{"city": "Rome", "days": "2"}], r"input_examples\[0\] does not fit .*days"),  # never converted
        (["city=Rome"], r"input_examples\[0\] must be an object of arguments, got str"),
        ({"city": "Rome"}, r"input_examples must be a list of argument objects, got dict"),
        ([{"city": "Rome", "days": float("nan")}], r"input_examples\[0\] is not JSON"),
    ],
)
def test_an_example_the_schema_refuses_is_an_error_naming_the_tool_and_the_index(
    examples: Any, fault: str
) -> None:
    with pytest.raises(ToolDefinitionError, match=r"tool 'forecast': " + fault):
        forecast_tool(examples)


def test_examples_are_checked_again_when_the_schema_changes_and_given_one_way() -> None:
    good = forecast_tool([{"city": "Rome", "days": 2}])
    with pytest.raises(ToolDefinitionError, match=r"input_examples\[0\]"):
        good.with_options(
            parameters={
                "type": "object",
                "properties": {"town": {"type": "string"}},
                "additionalProperties": False,
            }
        )
    with pytest.raises(ToolDefinitionError, match="examples= or input_examples="):
        tool(examples=[{}], input_examples=[{}])


def test_a_config_entry_sets_examples_and_a_bad_one_names_its_entry(tmp_path: Path) -> None:
    (tmp_path / "extools.py").write_text(
        "from tooldeck import tool\n\n@tool(toolset='t')\ndef shout(text: str) -> str:\n"
        "    '''Upper-case.'''\n    return text.upper()\n"
    )
    config = {
        "tools": [{"use": "extools:shout", "input_examples": [{"text": "hi"}]}],
        "plugins": {"enabled": False},
    }
    deck = Deck(parse_config(config, base_dir=str(tmp_path)), builtins=False)
    assert '{"text": "hi"}' in _rendered(deck, "openai", "shout")["function"]["description"]
    assert _rendered(deck, "anthropic", "shout")["input_examples"] == [{"text": "hi"}]
    config["tools"][0]["input_examples"] = [{"text": 5}]
    with pytest.raises(ConfigError, match=r"tools\[0\].*input_examples\[0\]"):
        Deck(parse_config(config, base_dir=str(tmp_path)), builtins=False).loadout()


def _rendered(deck: Deck, dialect: str, name: str) -> dict[str, Any]:
    from tooldeck.core import render_loadout

    [found] = [t for t in render_loadout(deck.loadout(), dialect) if t.get("function", t)["name"] == name]
    out: dict[str, Any] = json.loads(json.dumps(found))
    return out


def test_anthropic_gets_the_field_and_the_other_dialects_a_bounded_description() -> None:
    examples = [{"city": f"City number {i} " + "x" * 150, "days": i + 1} for i in range(12)]
    t = forecast_tool(examples)
    anthropic = get_dialect("anthropic").render(t.name, "Weather.", t.parameters, t.input_examples)
    assert anthropic.payload["input_examples"] == examples
    assert anthropic.payload["description"] == "Weather."
    for dialect in ("openai", "responses", "gemini"):
        rendered = get_dialect(dialect).render(t.name, "Weather.", t.parameters, t.input_examples)
        payload = rendered.payload.get("function", rendered.payload)
        assert "input_examples" not in payload
        text = payload["description"]
        head, folded = text.split("\n\n" + HEADER + "\n")
        assert head == "Weather." and len(HEADER) + 1 + len(folded) <= EXAMPLES_MAX_CHARS
        lines = [json.loads(line) for line in folded.splitlines()]
        assert lines == examples[: len(lines)] and 0 < len(lines) < len(examples)
        assert any(f"{len(examples) - len(lines)} of 12 input examples left out" in n for n in rendered.notes)


def test_without_examples_nothing_changes() -> None:
    t = forecast_tool(())
    for dialect in ("anthropic", "openai"):
        rendered = get_dialect(dialect).render(t.name, "Weather.", t.parameters, t.input_examples)
        assert "input_examples" not in rendered.payload and "Examples" not in json.dumps(rendered.payload)


def _server_tool(meta: dict[str, Any] | None) -> mcp_types.Tool:
    return mcp_types.Tool(name="forecast", description="Weather.", input_schema=SCHEMA, _meta=meta)


def test_an_mcp_servers_examples_come_from_meta_and_bad_ones_are_dropped_with_a_warning() -> None:
    spec = ServerSpec(name="wx", transport="stdio", command="x")
    good = {"input_examples": [{"city": "Lima"}]}
    [tool_], notes = deck_tools(
        spec, [_server_tool(good)], check=lambda: True, handler=lambda n: lambda **k: n
    )
    assert tool_.input_examples == ({"city": "Lima"},) and not notes
    bad = {"input_examples": [{"city": "Lima"}, {"town": "Quito"}]}
    [tool_], notes = deck_tools(
        spec, [_server_tool(bad)], check=lambda: True, handler=lambda n: lambda **k: n
    )
    assert tool_.input_examples == ()
    assert any(
        "_meta.input_examples left out" in n.message and "input_examples[1]" in n.message for n in notes
    )
