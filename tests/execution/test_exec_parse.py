"""X1: parsing arguments and finding the tool; nothing malformed is ever executed."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooldeck import Tool, tool
from tooldeck._core.execution.calls import parse_arguments
from tooldeck._core.execution.events import CollectingSink
from tooldeck._core.execution.executor import Executor
from tooldeck._core.execution.lookup import ToolIndex, normalise_name
from tooldeck.errors import CallRejected

from .helpers import call, loadout, one, run

# What a JSON object may hold: finite numbers and valid Unicode (hostile values are tested apart).
texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)
json_scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | texts
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=12,
)
json_objects = st.dictionaries(texts, json_values, max_size=6)


def rejected(raw: Any) -> str:
    with pytest.raises(CallRejected) as info:
        parse_arguments(raw, "t")
    assert info.value.error.type == "invalid_arguments"
    return info.value.error.message


@settings(deadline=None)
@given(json_objects)
def test_any_json_object_round_trips(obj: dict[str, Any]) -> None:
    assert parse_arguments(json.dumps(obj)) == obj
    assert parse_arguments(obj) == obj


@settings(deadline=None)
@given(json_objects.filter(lambda o: len(json.dumps(o)) > 2), st.data())
def test_every_truncation_of_an_object_is_rejected_as_truncated(
    obj: dict[str, Any], data: st.DataObject
) -> None:
    text = json.dumps(obj)
    cut = data.draw(st.integers(min_value=1, max_value=len(text) - 1))
    message = rejected(text[:cut])
    assert "truncated" in message
    assert "not run" in message


@settings(deadline=None)
@given(st.text(max_size=30))
def test_arbitrary_text_is_an_object_or_a_clear_rejection(text: str) -> None:
    try:
        value = parse_arguments(text)
    except CallRejected as exc:
        assert exc.error.type == "invalid_arguments"
        assert exc.error.message
    else:
        assert isinstance(value, dict)


@pytest.mark.parametrize("raw", [None, "", "   ", "null", {}])
def test_empty_arguments_mean_no_arguments(raw: Any) -> None:
    assert parse_arguments(raw) == {}


def test_invalid_json_names_the_position() -> None:
    message = rejected('{"a": 1,, "b": 2}')
    assert "not valid JSON" in message
    assert "char 8" in message and "line 1, column 9" in message


def test_non_objects_are_rejected_with_their_kind() -> None:
    assert "got an array" in rejected("[1, 2]")
    assert "got a number" in rejected("5")
    assert "got a string" in rejected('"hello"')


def test_double_encoded_arguments_are_decoded_once() -> None:
    assert parse_arguments(json.dumps(json.dumps({"a": 1}))) == {"a": 1}


@tool
def read_file(path: str) -> str:
    """Read."""
    return f"read {path}"


@tool
def write_file(path: str, content: str) -> str:
    """Write."""
    return "wrote"


def test_unknown_tool_lists_close_names_and_runs_nothing() -> None:
    sink = CollectingSink()
    ex = Executor(loadout(read_file, write_file), events=sink)
    result = one(ex, "read_fil", {"path": "x"})
    assert result.error is not None and result.error.type == "unknown_tool"
    assert "read_file" in result.error.message
    assert result.error.tool == "read_fil"
    assert json.loads(result.content)["error"]["type"] == "unknown_tool"
    assert sink.kinds("id-read_fil") == ["started", "finished"]


def test_unknown_tool_without_close_names_lists_the_callable_tools() -> None:
    result = one(Executor(loadout(read_file, write_file)), "launch_rockets")
    assert result.error is not None
    assert "read_file" in result.error.message and "write_file" in result.error.message


def test_malformed_json_is_never_executed() -> None:
    ran: list[Any] = []
    t = Tool(name="t", description="d", parameters={"type": "object"}, handler=lambda a: ran.append(a))
    result = one(Executor(loadout(t)), "t", '{"a": ')
    assert result.error is not None and result.error.type == "invalid_arguments"
    assert ran == []


@pytest.mark.parametrize("name", ["Read_File", "read-file", "readFile", "functions.read_file", "READ_FILE"])
def test_normalised_name_maps_to_the_one_tool_and_says_so(name: str) -> None:
    result = one(Executor(loadout(read_file, write_file)), name, {"path": "a"})
    assert result.ok
    assert result.name == "read_file"
    assert "read a" in result.content
    assert f"no tool is named {name!r}" in result.content


def test_ambiguous_normalisation_is_refused() -> None:
    a = Tool(name="get_item", description="d", parameters={"type": "object"}, handler=lambda a: "a")
    b = Tool(name="get-item", description="d", parameters={"type": "object"}, handler=lambda a: "b")
    result = one(Executor(loadout(a, b)), "Get_Item")
    assert result.error is not None and result.error.type == "unknown_tool"
    assert "get_item" in result.error.message and "get-item" in result.error.message


def test_normalisation_can_be_switched_off() -> None:

    ex = Executor(loadout(read_file, execution={"normalize_names": False}))
    assert one(ex, "Read_File", {"path": "a"}).error is not None


def test_hidden_tool_says_why_it_is_not_available() -> None:
    ex = Executor(loadout(read_file, hidden=[(write_file, "availability", "env TOKEN not set")]))
    result = one(ex, "write_file", {"path": "a", "content": ""})
    assert result.error is not None and result.error.type == "unavailable"
    assert "env TOKEN not set" in result.error.message


def test_normalise_name() -> None:
    assert normalise_name("mcp__Srv__getThing") == "mcp__srv__get_thing"
    assert normalise_name(" web.search ") == "web_search"


def test_index_resolves_exact_names_first() -> None:
    index = ToolIndex({"read_file": read_file})
    assert index.resolve("read_file") == (read_file, None)


def test_each_of_several_bad_calls_gets_its_own_error() -> None:
    results = run(
        Executor(loadout(read_file)),
        [call("read_file", "{", "a"), call("nope", "{}", "b"), call("read_file", {"path": "x"}, "c")],
    )
    assert [r.call_id for r in results] == ["a", "b", "c"]
    assert [r.error.type if r.error else "ok" for r in results] == ["invalid_arguments", "unknown_tool", "ok"]
