"""What each dialect does to the schema forms that break providers, case by case."""

from __future__ import annotations

from typing import Any

import pytest

from tooldeck import Tool
from tooldeck._core.dialects import DIALECTS, DialectError, NormalizedSchema, get_dialect, profile_for_model
from tooldeck._core.dialects.names import SAFE_NAME, safe_name, safe_names
from tooldeck.errors import ToolDefinitionError

from .dialect_validators import VALIDATORS


def notes_of(t: Tool) -> tuple[str, ...]:
    """The rewrites normalisation noted in `t`'s parameters."""
    assert isinstance(t.parameters, NormalizedSchema)
    return t.parameters.notes


def params(dialect: str, schema: dict[str, Any], **kw: Any) -> dict[str, Any]:
    renderer = get_dialect(dialect, **kw)
    rendered = renderer.render("t", "d", schema)
    assert VALIDATORS[dialect](rendered.payload) == []
    out = renderer.parameters_of(rendered.payload)
    return dict(out) if out is not None else {}


TRICKY_LITERALS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "colors": {"type": "array", "items": {"type": "string"}, "default": ["object", "#fff"]},
        "shape": {"type": "object", "properties": {"x": {"type": "number"}}, "default": {"type": "string"}},
        "mode": {"enum": ["string", "object"], "examples": [{"properties": {}}]},
        "fixed": {"const": "items"},
    },
}


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_literal_keywords_are_never_walked_as_schemas(dialect: str) -> None:
    out = params(dialect, TRICKY_LITERALS)["properties"]
    assert out["colors"]["default"] == ["object", "#fff"]
    assert out["shape"]["default"] == {"type": "string"}
    assert out["mode"]["enum"] == ["string", "object"]
    if dialect == "gemini":
        assert out["fixed"]["enum"] == ["items"]  # Gemini has no const: a one-value string enum
    else:
        assert out["mode"]["examples"] == [{"properties": {}}]
        assert out["fixed"]["const"] == "items"


POINTER_REFS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "data": {"type": "object", "properties": {"name": {"type": "string", "description": "N"}}},
        "more": {"type": "array", "items": {"$ref": "#/properties/data/properties/name"}},
    },
}


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_json_pointer_refs_are_inlined_everywhere(dialect: str) -> None:
    out = params(dialect, POINTER_REFS)
    assert out["properties"]["more"]["items"] == {"type": "string", "description": "N"}


DEFS: dict[str, Any] = {
    "type": "object",
    "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}},
    "definitions": {"Unused": {"type": "string"}},
    "properties": {"at": {"$ref": "#/$defs/Point"}, "old": {"$ref": "#/definitions/Unused"}},
    "required": ["at"],
}


def test_defs_refs_stay_refs_in_json_schema_dialects_and_are_inlined_for_gemini() -> None:
    openai = params("openai", DEFS)
    assert openai["properties"]["at"] == {"$ref": "#/$defs/Point"}
    assert openai["properties"]["old"] == {"$ref": "#/$defs/Unused"}  # draft-07 name moved to $defs
    assert set(openai["$defs"]) == {"Point", "Unused"}
    gemini = params("gemini", DEFS)
    assert gemini["properties"]["at"]["properties"] == {"x": {"type": "number"}}
    assert "$defs" not in gemini


TREE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "root": {
            "type": "object",
            "properties": {
                "label": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/properties/root"}},
            },
        }
    },
}


def test_recursive_pointer_is_detected_hoisted_or_cut() -> None:
    openai = params("openai", TREE)
    # The first expansion is inlined; the recursion inside it becomes a $defs entry.
    children = openai["properties"]["root"]["properties"]["children"]
    assert children["items"]["properties"]["children"]["items"] == {"$ref": "#/$defs/root"}
    assert openai["$defs"]["root"]["properties"]["children"]["items"] == {"$ref": "#/$defs/root"}
    renderer = get_dialect("gemini")
    rendered = renderer.render("t", "d", TREE)
    assert any("recursive" in n for n in rendered.notes)
    items = rendered.payload["parameters"]["properties"]["root"]["properties"]["children"]["items"]
    items = items["properties"]["children"]["items"]
    assert items["type"] == "object" and "recursive" in items["description"]


def test_root_recursion_through_hash_ref() -> None:
    schema = {"type": "object", "properties": {"next": {"$ref": "#"}, "v": {"type": "integer"}}}
    out = params("anthropic", schema)
    assert out["properties"]["next"] == {"$ref": "#/$defs/root"}
    assert out["$defs"]["root"]["properties"]["next"] == {"$ref": "#/$defs/root"}


OPTIONAL: dict[str, Any] = {
    "type": "object",
    "properties": {
        "q": {"type": "string"},
        "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None, "title": "Limit"},
        "tags": {"type": ["string", "null"]},
        "n": {"anyOf": [{"type": "number"}, {"not": {}}, {"type": "null"}], "default": None},
    },
    "required": ["q"],
}


def test_gemini_collapses_null_unions_into_nullable() -> None:
    out = params("gemini", OPTIONAL)["properties"]
    assert out["limit"] == {"type": "integer", "nullable": True, "default": None, "title": "Limit"}
    assert out["tags"] == {"type": "string", "nullable": True}
    assert out["n"]["type"] == "number" and out["n"]["nullable"] is True


def test_json_schema_dialects_keep_null_unions() -> None:
    out = params("anthropic", OPTIONAL)["properties"]
    assert out["limit"]["anyOf"] == [{"type": "integer"}, {"type": "null"}]
    # zod's never-matching `{"not": {}}` branch adds nothing to a union and is dropped.
    assert out["n"]["anyOf"] == [{"type": "number"}, {"type": "null"}]


def test_gemini_moves_what_it_cannot_express_into_the_description() -> None:
    schema = {
        "type": "object",
        "properties": {
            "d": {"type": "integer", "enum": [60, 1440], "description": "Minutes."},
            "k": {"const": 3},
            "m": {"type": "object", "additionalProperties": {"type": "string"}},
            "x": {"type": "integer", "exclusiveMinimum": 0, "format": "uint32"},
            "u": {"type": "string", "format": "uri", "pattern": "^h"},
        },
    }
    out = params("gemini", schema)["properties"]
    assert out["d"] == {"type": "integer", "description": "Minutes. Allowed values: 60, 1440."}
    assert out["k"]["description"] == "Must be: 3."
    assert out["m"] == {"type": "object"}
    assert out["x"] == {"type": "integer", "minimum": 1}
    assert out["u"] == {"type": "string", "pattern": "^h"}


def test_gemini_omits_parameters_for_a_tool_without_arguments() -> None:
    rendered = get_dialect("gemini").render("ping", "Ping.", {"type": "object", "properties": {}})
    assert rendered.payload == {"name": "ping", "description": "Ping."}
    assert VALIDATORS["gemini"](rendered.payload) == []


def test_draft04_exclusive_minimum_is_normalised_by_tool() -> None:
    t = Tool(
        name="t",
        description="d",
        parameters={
            "type": "object",
            "properties": {"p": {"type": "integer", "minimum": 0, "exclusiveMinimum": True}},
        },
    )
    assert t.parameters["properties"]["p"] == {"type": "integer", "exclusiveMinimum": 0}
    assert any("exclusiveMinimum" in n for n in notes_of(t))


def test_non_standard_types_are_normalised_with_notes() -> None:
    t = Tool(
        name="t",
        description="d",
        parameters={
            "type": "dict",
            "properties": {
                "a": {"type": "float"},
                "b": {"type": "tuple", "items": {"type": "String"}},
                "c": {"type": "any"},
                "d": {"type": "long", "optional": "True"},
                "e": {"type": "HashMap", "required": True},
            },
            "required": ["a", "d"],
        },
    )
    props = t.parameters["properties"]
    assert props["a"] == {"type": "number"}
    assert props["b"] == {"type": "array", "items": {"type": "string"}}
    assert props["c"] == {}
    assert props["d"] == {"type": "integer"}
    assert t.parameters["required"] == ["a", "e"]
    notes = " ".join(notes_of(t))
    assert "'float'" in notes and "'optional'" in notes and "property-level required" in notes


def test_tool_still_rejects_non_objects_with_a_clear_error() -> None:
    with pytest.raises(ToolDefinitionError, match="of type 'object', got type 'string'"):
        Tool(name="t", description="d", parameters={"type": "string"})
    with pytest.raises(ToolDefinitionError, match=r"parameters.properties.a.anyOf: must be a list"):
        Tool(name="t", description="d", parameters={"type": "object", "properties": {"a": {"anyOf": {}}}})


def test_top_level_unions_are_folded_for_anthropic_only() -> None:
    schema = {
        "type": "object",
        "properties": {"mode": {"type": "string"}},
        "anyOf": [
            {"properties": {"path": {"type": "string"}}, "required": ["path", "mode"]},
            {"properties": {"url": {"type": "string"}}, "required": ["url", "mode"]},
        ],
    }
    anthropic = params("anthropic", schema)
    assert "anyOf" not in anthropic
    assert set(anthropic["properties"]) == {"mode", "path", "url"}
    assert anthropic["required"] == ["mode"]
    assert "anyOf" in params("openai", schema)
    codex = params("openai", schema, profile="gpt-5-codex")
    assert "anyOf" not in codex and set(codex["properties"]) == {"mode", "path", "url"}


def test_profiles_choose_sanitizers_by_model_name() -> None:
    assert profile_for_model("kimi-k2").name == "moonshot"
    assert profile_for_model("openrouter/moonshotai/kimi-k2.6").name == "moonshot"
    assert profile_for_model("x-ai/grok-4").name == "xai"
    assert profile_for_model("grok-code-fast").name == "xai"
    assert profile_for_model("gpt-5-codex").name == "codex"
    assert profile_for_model("gpt-4o").name == "default"
    assert profile_for_model("nakimi-7b").name == "default"  # not a Kimi model
    assert profile_for_model(None).name == "default"


def test_moonshot_sanitizer() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            "b": {"description": "untyped"},
            "c": {"type": "object", "properties": {"x": {"type": "string", "enum": ["on", "", None]}}},
            "d": {"type": "string", "anyOf": [{"type": "string"}, {"type": "integer"}]},
        },
    }
    out = params("openai", schema, profile="kimi-k2")
    props = out["properties"]
    assert props["a"] == {"type": "string", "default": None}
    assert props["b"]["type"] == "string"
    assert props["c"]["required"] == [] and props["c"]["properties"]["x"]["enum"] == ["on"]
    assert "type" not in props["d"] and len(props["d"]["anyOf"]) == 2
    assert out["required"] == []


def test_xai_sanitizer_drops_pattern_format_and_slash_enums() -> None:
    schema = {
        "type": "object",
        "properties": {
            "u": {"type": "string", "format": "uri", "pattern": "^h"},
            "m": {"type": "string", "enum": ["Qwen/Qwen3", "openai/gpt-oss"]},
            "pattern": {"type": "string"},
        },
    }
    props = params("responses", schema, profile="grok-4")["properties"]
    assert props["u"] == {"type": "string"}
    assert "enum" not in props["m"] and "Qwen/Qwen3" in props["m"]["description"]
    assert props["pattern"] == {"type": "string"}  # a property *named* pattern is not a keyword


def test_strict_mode_requires_everything_and_makes_optional_nullable() -> None:
    renderer = get_dialect("openai", strict=True)
    rendered = renderer.render(
        "t",
        "d",
        OPTIONAL
        | {"properties": {**OPTIONAL["properties"], "w": {"type": "integer", "default": 5, "minLength": 1}}},
    )
    assert rendered.strict and rendered.strict_reason is None
    fn = rendered.payload["function"]
    assert fn["strict"] is True
    p = fn["parameters"]
    assert p["additionalProperties"] is False and p["required"] == ["q", "limit", "tags", "n", "w"]
    assert p["properties"]["q"] == {"type": "string"}
    assert p["properties"]["w"] == {"type": ["integer", "null"], "description": "Default: 5."}
    assert VALIDATORS["openai"](rendered.payload) == []


@pytest.mark.parametrize(
    ("prop", "reason"),
    [
        ({"type": "object"}, "free-form object"),
        ({"type": "object", "additionalProperties": {"type": "string"}}, "additionalProperties"),
        ({}, "no type"),
        ({"allOf": [{"type": "string"}]}, "'allOf' is not supported"),
        ({"type": "array"}, "needs one `items` schema"),
    ],
)
def test_strict_mode_refuses_with_a_reason(prop: dict[str, Any], reason: str) -> None:
    rendered = get_dialect("responses", strict=True).render(
        "t", "d", {"type": "object", "properties": {"p": prop}}
    )
    assert not rendered.strict
    assert rendered.strict_reason is not None and reason in rendered.strict_reason
    assert "parameters.p" in rendered.strict_reason
    assert rendered.payload["strict"] is False
    assert VALIDATORS["responses"](rendered.payload) == []


def test_strict_is_opt_in_and_defaults_are_kept_by_default() -> None:
    fn = (
        get_dialect("openai")
        .render("t", "d", {"type": "object", "properties": {"w": {"type": "integer", "default": 5}}})
        .payload["function"]
    )
    assert "strict" not in fn
    assert fn["parameters"]["properties"]["w"] == {"type": "integer", "default": 5}


def test_unknown_dialect_and_invalid_names_are_clear_errors() -> None:
    with pytest.raises(DialectError, match="unknown dialect 'cohere'"):
        get_dialect("cohere")
    with pytest.raises(ToolDefinitionError, match="not valid for anthropic"):
        get_dialect("anthropic").render("a.b", "d", {"type": "object"})


def test_safe_names_are_valid_short_and_collision_free() -> None:
    raws = ["acl_api.AclApi.add", "acl_api_AclApi_add", "模型/run", "9lives", "x" * 80, "x" * 80 + "y", "ok"]
    mapped = safe_names(raws)
    assert len(set(mapped.values())) == len(raws)
    assert all(SAFE_NAME.match(n) for n in mapped.values())
    assert mapped["ok"] == "ok"
    assert mapped["acl_api.AclApi.add"] == "acl_api_AclApi_add"
    assert mapped["acl_api_AclApi_add"] != "acl_api_AclApi_add"
    assert safe_name("x" * 80) == safe_names(["x" * 80])["x" * 80]  # deterministic


def test_a_request_never_carries_two_tools_of_one_name() -> None:
    from tooldeck._core.assembly.loadout import Loadout
    from tooldeck._core.dialects import render_loadout

    a = Tool(name="dup", description="A.", parameters={"type": "object"})
    b = Tool(name="dup", description="B.", parameters={"type": "object"})
    loadout = Loadout(
        platform="t", exposed=(a, b), deferred=(), hidden=(), descriptions={"dup": "A."}, reasons={}
    )
    with pytest.raises(DialectError, match="repeated: dup"):
        render_loadout(loadout, "anthropic")


def test_with_options_keeps_the_normalised_schema_and_its_notes() -> None:
    t = Tool(name="t", description="d", parameters={"type": "dict", "properties": {"x": {"type": "float"}}})
    changed = t.with_options(toolset="other")
    assert changed.parameters is t.parameters
    assert notes_of(changed) == notes_of(t) != ()


def test_gemini_request_tools_wrap_the_declarations() -> None:
    from tooldeck._core.dialects.gemini import request_tools

    decl = get_dialect("gemini").render("ping", "Ping.", {"type": "object"}).payload
    assert request_tools([decl]) == [{"function_declarations": [{"name": "ping", "description": "Ping."}]}]
    assert request_tools([]) == []
