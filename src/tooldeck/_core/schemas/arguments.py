"""The arguments of a Python function as a JSON schema and a pydantic model (for `@tool`).

Each parameter becomes a property; `*args: T` becomes an optional array property of T named
after it, and `**kwargs: T` lets the model send further properties of type T (the schema's
`additionalProperties`, which carries the parameter's description), gathered into the `kwargs`
mapping the function receives.

A parameter's description comes, first found wins, from: a `Field(description=...)` inside
`Annotated[...]`, the docstring, a `Field(description=...)` given as the default value, or a
plain string in `Annotated[T, "..."]`. (The first rule is pydantic-ai's, the next two
openai-agents'; they do not contradict each other.)
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from typing import Any, Literal

from tooldeck._core.schemas.pytypes import Bounds, fast_schema
from tooldeck.errors import ToolDefinitionError

ParamKind = Literal["named", "args", "kwargs"]


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter the model fills in. `default` is `...` when the parameter is required."""

    name: str
    annotation: Any
    default: Any
    kind: ParamKind = "named"


def schema_and_model(
    tool_name: str, params: list[Param], docs: dict[str, str], reserved: frozenset[str]
) -> tuple[dict[str, Any], Any]:
    """The parameters schema and a factory for the argument model. Plain signatures get their
    schema written directly and the model built on first use (pydantic is not imported when the
    tool is defined); anything richer goes through pydantic at once."""
    if all(p.kind == "named" for p in params):
        schema = fast_schema([(p.name, p.annotation, p.default) for p in params], docs)
        if schema is not None:
            return schema, lambda: build_model(tool_name, params, docs, reserved)
    model = build_model(tool_name, params, docs, reserved)
    return model_schema(tool_name, model, params), lambda: model


def build_model(tool_name: str, params: list[Param], docs: dict[str, str], reserved: frozenset[str]) -> Any:
    """The pydantic model that turns JSON arguments into the function's Python values."""
    from pydantic import ConfigDict, create_model, model_validator

    fields: dict[str, Any] = {p.name: _field(p, docs) for p in params}
    validators: dict[str, Any] = {}
    varkw = next((p.name for p in params if p.kind == "kwargs"), None)
    if varkw is not None:
        declared = frozenset(p.name for p in params if p.kind != "kwargs")
        validators["gather_extra_arguments"] = model_validator(mode="before")(
            _gatherer(varkw, declared, reserved)
        )
    try:
        return create_model(
            f"{tool_name}_arguments",
            __config__=ConfigDict(extra="forbid"),
            __validators__=validators,
            **fields,
        )
    except Exception as exc:  # boundary: pydantic raises several error types for bad hints
        raise ToolDefinitionError(f"tool {tool_name!r}: cannot build a JSON schema: {exc}") from exc


def model_schema(tool_name: str, model: Any, params: list[Param]) -> dict[str, Any]:
    """The model's JSON schema as the model should see it (no titles, `**kwargs` as
    `additionalProperties`)."""
    try:
        schema: dict[str, Any] = model.model_json_schema()
    except Exception as exc:  # boundary: pydantic raises several error types for bad hints
        raise ToolDefinitionError(f"tool {tool_name!r}: cannot build a JSON schema: {exc}") from exc
    schema.pop("title", None)
    props = schema.setdefault("properties", {})
    # Property titles only repeat the name (pydantic-ai drops them too); model titles stay.
    for node in (schema, *schema.get("$defs", {}).values()):
        for prop in node.get("properties", {}).values():
            if isinstance(prop, dict):
                prop.pop("title", None)
    for p in params:
        if p.kind == "kwargs":
            gathered = props.pop(p.name, {})
            extra = gathered.get("additionalProperties", True)
            if gathered.get("description"):
                # What the docstring says of **kwargs describes each further property: keep it
                # there (openai-agents keeps it too) rather than drop it with the property.
                extra = {**(extra if isinstance(extra, dict) else {}), "description": gathered["description"]}
            schema["additionalProperties"] = extra
            if p.name in schema.get("required", ()):
                schema["required"].remove(p.name)
    return schema


def _field(p: Param, docs: dict[str, str]) -> tuple[Any, Any]:
    from pydantic import Field
    from pydantic.fields import FieldInfo

    annotation = _for_pydantic(p.annotation)
    extras = typing.get_args(p.annotation)[1:] if typing.get_origin(p.annotation) is typing.Annotated else ()
    in_type = next((e.description for e in extras if isinstance(e, FieldInfo) and e.description), None)
    # Annotated[float, Field(default=5.0)] with no Python default: the Field's default stands.
    typed_default = any(isinstance(e, FieldInfo) and not e.is_required() for e in extras)
    as_text = next((e for e in extras if isinstance(e, str)), None)
    given = p.default if isinstance(p.default, FieldInfo) else None
    description = in_type or docs.get(p.name) or (given.description if given else None) or as_text
    # An explicit description=None would erase the one inside Annotated: pass it only when set.
    if p.kind == "args":
        items = types.GenericAlias(list, (annotation,))  # list[annotation], built at run time
        return items, Field(default_factory=list, description=description) if description else Field(
            default_factory=list
        )
    if p.kind == "kwargs":
        mapping = types.GenericAlias(dict, (str, annotation))
        return mapping, Field(default_factory=dict, description=description) if description else Field(
            default_factory=dict
        )
    if given is not None:
        return annotation, FieldInfo.merge_field_infos(
            given, description=description
        ) if description else given
    if p.default is ... and typed_default:
        return annotation, Field(description=description) if description else Field()
    return annotation, Field(p.default, description=description) if description else Field(p.default)


def _for_pydantic(annotation: Any) -> Any:
    """`Annotated[T, Bounds(...)]` with the bounds spelled the way pydantic reads them."""
    if typing.get_origin(annotation) is not typing.Annotated:
        return annotation
    base, *extras = typing.get_args(annotation)
    if not any(isinstance(e, Bounds) for e in extras):
        return annotation
    markers = [m for e in extras for m in (e.markers() if isinstance(e, Bounds) else [e])]
    return typing.Annotated[(base, *markers)]


def _gatherer(varkw: str, declared: frozenset[str], reserved: frozenset[str]) -> Any:
    """A before-validator that moves the undeclared arguments into the `**kwargs` field."""

    def gather(cls: Any, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        extra = {k: v for k, v in data.items() if k not in declared}
        clash = sorted(extra.keys() & reserved)
        if clash:
            raise ValueError(f"argument name(s) {', '.join(clash)} cannot be passed as extra arguments")
        return {**{k: v for k, v in data.items() if k in declared}, varkw: extra}

    return gather
