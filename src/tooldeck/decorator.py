"""`@tool`: build a Tool from a typed Python function.

The schema comes from the type hints (through pydantic) and the parameter descriptions from
the docstring (Google `Args:` sections and Sphinx `:param x:` lines). A parameter annotated
with `ToolContext` is filled in at call time and never shown to the model.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any, overload

from tooldeck.context import ToolContext
from tooldeck.errors import ToolDefinitionError
from tooldeck.tool import LazyModel, Tool, make_tool


@overload
def tool(func: Callable[..., Any], /) -> Tool: ...
@overload
def tool(
    func: None = None, /, *, name: str | None = None, description: str | None = None, **options: Any
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    func: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    **options: Any,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Turn a function into a Tool. Use bare (`@tool`) or with options (`@tool(toolset="web")`).

    Options are those of `Tool` (toolset, group, requires_env, requires_bins, requires_modules,
    check, interactive, read_only, destructive, timeout, max_result_chars, references, shell,
    needs_vision, ...); an unknown option is an error naming it.
    """

    def build(fn: Callable[..., Any]) -> Tool:
        return function_tool(fn, name=name, description=description, options=options)

    return build(func) if func is not None else build


def function_tool(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    options: dict[str, Any] | None = None,
) -> Tool:
    """The non-decorator spelling of `@tool`."""
    if not callable(fn):
        raise ToolDefinitionError(f"@tool needs a function, got {type(fn).__name__}")
    tool_name = name or fn.__name__
    summary, param_docs = parse_docstring(inspect.getdoc(fn) or "")
    schema, model_factory, context_param = _schema_from_signature(tool_name, fn, param_docs)
    opts = dict(options or {})
    opts.setdefault("owner", f"{fn.__module__}:{fn.__qualname__}")
    return make_tool(
        name=tool_name,
        description=description if description is not None else summary,
        parameters=schema,
        handler=fn,
        options=opts,
        call_style="kwargs",
        context_param=context_param,
        arg_model=LazyModel(model_factory),
    )


def _schema_from_signature(
    tool_name: str, fn: Callable[..., Any], param_docs: dict[str, str]
) -> tuple[dict[str, Any], Callable[[], Any], str | None]:
    """The JSON schema of `fn`'s parameters, a factory for its pydantic argument model, and the
    name of its ToolContext parameter. Plain signatures (str, int, float, bool, lists, dicts,
    Literal, Optional) get their schema written directly, so defining a tool does not import
    pydantic; anything richer goes through pydantic at once."""
    try:
        hints = inspect.get_annotations(fn, eval_str=True)
    except Exception as exc:  # boundary: user annotations may fail to evaluate in any way
        raise ToolDefinitionError(f"tool {tool_name!r}: cannot read type hints: {exc}") from exc
    params: list[tuple[str, Any, Any]] = []
    context_param: str | None = None
    for pname, param in inspect.signature(fn).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        annotation = hints.get(pname, Any)
        if annotation is ToolContext or annotation == ToolContext | None:
            context_param = pname
            continue
        params.append((pname, annotation, ... if param.default is param.empty else param.default))

    def factory() -> Any:
        return _pydantic_model(tool_name, params, param_docs)

    schema = fast_schema(params, param_docs)
    if schema is None:
        model = factory()
        schema = _pydantic_schema(tool_name, model)
        return schema, lambda: model, context_param
    return schema, factory, context_param


class Bounds:
    """Numeric bounds of a parameter: `limit: Annotated[int, Bounds(1, 500)] = 50`.

    The schema gets `minimum`/`maximum` and the argument model enforces them, like
    annotated_types' `Ge`/`Le` (also accepted) but without importing anything when the tool is
    defined; the built-in tools use it to keep start-up cheap.
    """

    __slots__ = ("maximum", "minimum")

    def __init__(self, minimum: float | None = None, maximum: float | None = None) -> None:
        self.minimum = minimum
        self.maximum = maximum

    def markers(self) -> list[Any]:
        from annotated_types import Ge, Le

        return [
            *([Ge(self.minimum)] if self.minimum is not None else []),
            *([Le(self.maximum)] if self.maximum is not None else []),
        ]


def _for_pydantic(annotation: Any) -> Any:
    """`Annotated[T, Bounds(...)]` with the bounds spelled the way pydantic reads them."""
    import typing

    if typing.get_origin(annotation) is not typing.Annotated:
        return annotation
    base, *extras = typing.get_args(annotation)
    if not any(isinstance(e, Bounds) for e in extras):
        return annotation
    markers = [m for e in extras for m in (e.markers() if isinstance(e, Bounds) else [e])]
    return typing.Annotated[(base, *markers)]


def _pydantic_model(tool_name: str, params: list[tuple[str, Any, Any]], docs: dict[str, str]) -> Any:
    from pydantic import ConfigDict, Field, create_model

    fields: dict[str, Any] = {
        name: (_for_pydantic(ann), Field(default, description=docs.get(name)))
        for name, ann, default in params
    }
    try:
        return create_model(f"{tool_name}_arguments", __config__=ConfigDict(extra="forbid"), **fields)
    except Exception as exc:  # boundary: pydantic raises several error types for bad hints
        raise ToolDefinitionError(f"tool {tool_name!r}: cannot build a JSON schema: {exc}") from exc


def _pydantic_schema(tool_name: str, model: Any) -> dict[str, Any]:
    try:
        schema: dict[str, Any] = model.model_json_schema()
    except Exception as exc:  # boundary: pydantic raises several error types for bad hints
        raise ToolDefinitionError(f"tool {tool_name!r}: cannot build a JSON schema: {exc}") from exc
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
    schema.setdefault("properties", {})
    return schema


# annotated_types constraints (what pydantic's Field(ge=...) stands for) -> JSON-schema keywords.
_CONSTRAINTS = {
    "Ge": ("ge", "minimum"),
    "Le": ("le", "maximum"),
    "Gt": ("gt", "exclusiveMinimum"),
    "Lt": ("lt", "exclusiveMaximum"),
    "MinLen": ("min_length", None),
    "MaxLen": ("max_length", None),
}


def _apply_constraint(schema: dict[str, Any], marker: Any) -> bool:
    """Add one `Annotated` constraint to `schema`; False when it is not one we know."""
    if isinstance(marker, Bounds):
        schema.update(
            {k: v for k, v in (("minimum", marker.minimum), ("maximum", marker.maximum)) if v is not None}
        )
        return True
    kind = type(marker).__name__
    if kind not in _CONSTRAINTS or type(marker).__module__ != "annotated_types":
        return False
    attr, keyword = _CONSTRAINTS[kind]
    if keyword is None:  # lengths: the keyword depends on the type
        prefix = {"string": "Length", "array": "Items"}.get(schema.get("type", ""))
        if prefix is None:
            return False
        keyword = ("min" if kind == "MinLen" else "max") + prefix
    schema[keyword] = getattr(marker, attr)
    return True


_SCALARS: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_JSON_DEFAULTS = (str, int, float, bool, type(None))


def fast_schema(params: list[tuple[str, Any, Any]], docs: dict[str, str]) -> dict[str, Any] | None:
    """The schema pydantic would produce for plain signatures, or None when it is not plain."""
    props: dict[str, Any] = {}
    required: list[str] = []
    for name, annotation, default in params:
        prop = _type_schema(annotation)
        if prop is None:
            return None
        if default is ...:
            required.append(name)
        elif isinstance(default, _JSON_DEFAULTS):
            prop["default"] = default
        else:
            return None
        if docs.get(name):
            prop["description"] = docs[name]
        props[name] = prop
    schema: dict[str, Any] = {"additionalProperties": False, "properties": props}
    if required:
        schema["required"] = required
    schema["type"] = "object"
    return schema


def _typeddict_schema(cls: Any) -> dict[str, Any] | None:
    """An inline object schema for a TypedDict; its docstring's `Args:` describe the keys."""
    import typing

    _, docs = parse_docstring(cls.__doc__ or "")
    props: dict[str, Any] = {}
    for key, annotation in typing.get_type_hints(cls, include_extras=True).items():
        while getattr(typing.get_origin(annotation), "_name", None) in ("Required", "NotRequired"):
            annotation = typing.get_args(annotation)[0]
        prop = _type_schema(annotation)
        if prop is None:
            return None
        if docs.get(key):
            prop["description"] = docs[key]
        props[key] = prop
    schema: dict[str, Any] = {"properties": props, "type": "object"}
    required = [k for k in props if k in cls.__required_keys__]
    if required:
        schema["required"] = required
    return schema


def _type_schema(annotation: Any) -> dict[str, Any] | None:
    import types
    import typing

    if annotation in _SCALARS:
        return {"type": _SCALARS[annotation]}
    if typing.get_origin(annotation) is typing.Annotated:
        base, *extras = typing.get_args(annotation)
        out = _type_schema(base)
        for extra in extras:
            if out is None or not _apply_constraint(out, extra):
                return None
        return out
    if annotation is Any:
        return {}
    import typing_extensions

    if typing_extensions.is_typeddict(annotation):
        return _typeddict_schema(annotation)
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is list and len(args) == 1:
        items = _type_schema(args[0])
        return None if items is None else {"items": items, "type": "array"}
    if origin is typing.Literal and args and all(isinstance(a, str) for a in args):
        return {"enum": list(args), "type": "string"}
    if origin in (typing.Union, types.UnionType) and len(args) == 2 and type(None) in args:
        inner = _type_schema(next(a for a in args if a is not type(None)))
        return None if inner is None else {"anyOf": [inner, {"type": "null"}]}
    return None


_GOOGLE_SECTION = re.compile(r"^(Args|Arguments|Parameters|Params):\s*$")
_GOOGLE_ITEM = re.compile(r"^\s+(\*{0,2}\w+)\s*(\([^)]*\))?\s*:\s*(.*)$")
_SPHINX_ITEM = re.compile(r"^:param\s+(?:[\w\[\], |.]+\s+)?(\w+):\s*(.*)$")
_OTHER_SECTION = re.compile(r"^(Returns?|Raises|Yields|Examples?|Notes?):\s*$")


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Split a docstring into the description and per-parameter descriptions."""
    lines = doc.splitlines()
    summary: list[str] = []
    params: dict[str, str] = {}
    section = "summary"
    current: str | None = None
    for line in lines:
        if _GOOGLE_SECTION.match(line.strip()):
            section, current = "args", None
            continue
        if _OTHER_SECTION.match(line.strip()):
            section, current = "other", None
            continue
        sphinx = _SPHINX_ITEM.match(line.strip())
        if sphinx:
            current = sphinx.group(1)
            params[current] = sphinx.group(2).strip()
            section = "sphinx"
            continue
        if section == "summary":
            summary.append(line)
        elif section == "args":
            item = _GOOGLE_ITEM.match(line)
            if item and (len(line) - len(line.lstrip())) <= 8:
                current = item.group(1).lstrip("*")
                params[current] = item.group(3).strip()
            elif current and line.strip():
                params[current] = f"{params[current]} {line.strip()}".strip()
        elif section == "sphinx" and current and line.strip() and not line.strip().startswith(":"):
            params[current] = f"{params[current]} {line.strip()}".strip()
    return "\n".join(summary).strip(), params
