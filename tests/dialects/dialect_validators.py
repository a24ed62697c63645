"""Validators for rendered tools, one per dialect, written from the providers' documented rules.

They are independent of the code under test: the tool objects are checked against the official
`openai` / `anthropic` SDK request types (pydantic validation of their TypedDicts, plus no
unknown keys), parameters against the JSON-Schema meta-schema, OpenAI strict mode against its
documented subset, and Gemini against its `Schema` object (an OpenAPI 3.0 subset).
Each returns a list of problems (empty = valid), each naming the key path.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from anthropic.types import ToolParam
from jsonschema import Draft202012Validator
from openai.types.chat import ChatCompletionToolParam
from openai.types.responses import FunctionToolParam
from openai.types.shared_params import FunctionDefinition
from pydantic import TypeAdapter, ValidationError

OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
ANTHROPIC_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
# "Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain underscores,
# dots, colons and dashes, with a maximum length of 64."
GEMINI_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$")

_CHAT = TypeAdapter(ChatCompletionToolParam)
_RESPONSES = TypeAdapter(FunctionToolParam)
_ANTHROPIC = TypeAdapter(ToolParam)
_FUNCTION = TypeAdapter(FunctionDefinition)

SUB = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames")
SUB_LIST = ("anyOf", "oneOf", "allOf", "prefixItems")
SUB_MAP = ("properties", "$defs", "definitions", "patternProperties")


def subschemas(node: dict[str, Any], path: str) -> Iterator[tuple[dict[str, Any], str]]:
    for key in SUB:
        value = node.get(key)
        if isinstance(value, dict):
            yield value, f"{path}.{key}"
        elif isinstance(value, list):
            yield from ((v, f"{path}.{key}[{i}]") for i, v in enumerate(value) if isinstance(v, dict))
    for key in SUB_LIST:
        for i, value in enumerate(node.get(key) or ()):
            if isinstance(value, dict):
                yield value, f"{path}.{key}[{i}]"
    for key in SUB_MAP:
        for name, value in (node.get(key) or {}).items():
            if isinstance(value, dict):
                yield value, f"{path}.{key}.{name}"


def every_node(schema: dict[str, Any], path: str = "parameters") -> Iterator[tuple[dict[str, Any], str]]:
    yield schema, path
    for sub, sub_path in subschemas(schema, path):
        yield from every_node(sub, sub_path)


def _sdk(adapter: TypeAdapter[Any], typed: Any, obj: dict[str, Any], label: str) -> list[str]:
    try:
        adapter.validate_python(obj)
    except ValidationError as exc:
        return [f"{label}: {exc}"]
    known = typed.__optional_keys__ | typed.__required_keys__
    return [f"{label}: unknown key {k!r}" for k in obj if k not in known]


# The meta-schema's validator, made once (`check_schema` makes one a call), and each schema's
# verdict kept by its repr (which tells a tuple from a list, 1 from 1.0 and True): the corpus
# tests check the same parameters in several dialects, and this check is most of their time.
_META = Draft202012Validator(
    Draft202012Validator.META_SCHEMA, format_checker=Draft202012Validator.FORMAT_CHECKER
)


_VERDICTS: dict[str, str | None] = {}


def _meta_schema_problem(schema: dict[str, Any]) -> str | None:
    """What `Draft202012Validator.check_schema(schema)` raises (its first error), or None."""
    key = repr(schema)
    if key not in _VERDICTS:
        first = next(iter(_META.iter_errors(schema)), None)
        _VERDICTS[key] = (
            None if first is None else f"not valid JSON Schema: {first.message} at {list(first.path)}"
        )
    return _VERDICTS[key]


def _json_schema(schema: Any, label: str) -> list[str]:
    problems = []
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return [f"{label}: parameters must be a schema of type 'object'"]
    said = _meta_schema_problem(schema)
    if said is not None:
        problems.append(f"{label}: {said}")
    defs = schema.get("$defs") or {}
    for node, path in every_node(schema):
        ref = node.get("$ref")
        if ref is not None and not (isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in defs):
            problems.append(f"{label}: {path}.$ref {ref!r} does not name an entry of $defs")
        if "exclusiveMinimum" in node and isinstance(node["exclusiveMinimum"], bool):
            problems.append(f"{label}: {path}: boolean exclusiveMinimum")
    return problems


STRICT_KEYS = {
    "$defs", "$ref", "additionalProperties", "anyOf", "const", "description", "enum", "exclusiveMaximum",
    "exclusiveMinimum", "format", "items", "maxItems", "maximum", "minItems", "minimum", "multipleOf",
    "pattern", "properties", "required", "title", "type",
}  # fmt: skip


def _strict_schema(schema: dict[str, Any], label: str) -> list[str]:
    """OpenAI's strict subset: objects closed and fully required, supported keywords only."""
    problems = []
    if any(k in schema for k in ("anyOf", "oneOf", "allOf", "enum", "not")):
        problems.append(f"{label}: strict: combinator at the top level")
    for node, path in every_node(schema):
        extra = set(node) - STRICT_KEYS
        if extra:
            problems.append(f"{label}: strict: {path} has unsupported keywords {sorted(extra)}")
        kind = node.get("type")
        if kind == "object" or (isinstance(kind, list) and "object" in kind):
            if node.get("additionalProperties") is not False:
                problems.append(f"{label}: strict: {path} lacks additionalProperties: false")
            if sorted(node.get("required", [])) != sorted(node.get("properties", {})):
                problems.append(f"{label}: strict: {path} does not require every property")
        if "$ref" in node and len(node) > 1:
            problems.append(f"{label}: strict: {path} has keywords beside $ref")
        if (
            "$ref" not in node
            and not ({"type", "anyOf", "enum", "const"} & node.keys())
            and path != "parameters"
        ):
            problems.append(f"{label}: strict: {path} has no type")
    return problems


def validate_openai(tool: dict[str, Any]) -> list[str]:
    fn = tool.get("function", {})
    label = f"openai {fn.get('name')!r}"
    problems = _sdk(_CHAT, ChatCompletionToolParam, tool, label)
    problems += _sdk(_FUNCTION, FunctionDefinition, fn, label + ".function")
    if not OPENAI_NAME.match(str(fn.get("name"))):
        problems.append(f"{label}: bad name")
    problems += _json_schema(fn.get("parameters"), label)
    if fn.get("strict"):
        problems += _strict_schema(fn["parameters"], label)
    return problems


def validate_responses(tool: dict[str, Any]) -> list[str]:
    label = f"responses {tool.get('name')!r}"
    problems = _sdk(_RESPONSES, FunctionToolParam, tool, label)
    if not isinstance(tool.get("strict"), bool):
        problems.append(f"{label}: strict must be sent (the API defaults it to true)")
    if not OPENAI_NAME.match(str(tool.get("name"))):
        problems.append(f"{label}: bad name")
    problems += _json_schema(tool.get("parameters"), label)
    if tool.get("strict"):
        problems += _strict_schema(tool["parameters"], label)
    return problems


def validate_anthropic(tool: dict[str, Any]) -> list[str]:
    label = f"anthropic {tool.get('name')!r}"
    problems = _sdk(_ANTHROPIC, ToolParam, tool, label)
    if not ANTHROPIC_NAME.match(str(tool.get("name"))):
        problems.append(f"{label}: bad name")
    schema = tool.get("input_schema")
    problems += _json_schema(schema, label)
    if isinstance(schema, dict) and any(k in schema for k in ("anyOf", "oneOf", "allOf")):
        problems.append(f"{label}: input_schema has a union at the top level")
    return problems


GEMINI_KEYS = {
    "anyOf", "default", "description", "enum", "example", "format", "items", "maxItems", "maxLength",
    "maxProperties", "maximum", "minItems", "minLength", "minProperties", "minimum", "nullable",
    "pattern", "properties", "propertyOrdering", "required", "title", "type",
}  # fmt: skip
GEMINI_TYPES = {"string", "number", "integer", "boolean", "array", "object", "null"}
GEMINI_FORMATS = {
    "string": {"enum", "date-time"},
    "number": {"float", "double"},
    "integer": {"int32", "int64"},
}


def _gemini_schema(node: Any, path: str, label: str) -> list[str]:
    if not isinstance(node, dict):
        return [f"{label}: {path} is not a Schema object"]
    problems = [f"{label}: {path}.{k} is not a Gemini Schema field" for k in node if k not in GEMINI_KEYS]
    kind = node.get("type")
    if kind is not None and kind not in GEMINI_TYPES:
        problems.append(f"{label}: {path}.type {kind!r} is not a Gemini Type")
    if "enum" in node and (not all(isinstance(v, str) for v in node["enum"]) or kind != "string"):
        problems.append(f"{label}: {path}.enum must be strings on a string type")
    if "format" in node and node["format"] not in GEMINI_FORMATS.get(kind, set()):
        problems.append(f"{label}: {path}.format {node['format']!r} not supported for {kind!r}")
    props = node.get("properties")
    if props is not None:
        if not isinstance(props, dict) or not props:
            problems.append(f"{label}: {path}.properties must be a non-empty map")
        else:
            for name, sub in props.items():
                problems += _gemini_schema(sub, f"{path}.properties.{name}", label)
    for name in node.get("required", ()):
        if not isinstance(props, dict) or name not in props:
            problems.append(f"{label}: {path}.required names {name!r}, which is not a property")
    if "items" in node:
        problems += _gemini_schema(node["items"], f"{path}.items", label)
    for i, branch in enumerate(node.get("anyOf", ())):
        problems += _gemini_schema(branch, f"{path}.anyOf[{i}]", label)
    for key in ("nullable",):
        if key in node and not isinstance(node[key], bool):
            problems.append(f"{label}: {path}.{key} must be a boolean")
    return problems


def validate_gemini(decl: dict[str, Any]) -> list[str]:
    label = f"gemini {decl.get('name')!r}"
    problems = [f"{label}: unknown key {k!r}" for k in decl if k not in {"name", "description", "parameters"}]
    if not GEMINI_NAME.match(str(decl.get("name"))):
        problems.append(f"{label}: bad name")
    if "description" in decl and not isinstance(decl["description"], str):
        problems.append(f"{label}: description must be a string")
    params = decl.get("parameters")
    if params is not None:
        if params.get("type") != "object":
            problems.append(f"{label}: parameters must be of type object")
        problems += _gemini_schema(params, "parameters", label)
    return problems


VALIDATORS: dict[str, Callable[[dict[str, Any]], list[str]]] = {
    "openai": validate_openai,
    "responses": validate_responses,
    "anthropic": validate_anthropic,
    "gemini": validate_gemini,
}
