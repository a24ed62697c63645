"""JSON schemas for plain Python annotations, written directly so defining a tool stays cheap.

`fast_schema` covers what most tools use (str, int, float, bool, Any, lists, Literal strings,
Optional, TypedDicts, numeric and length bounds, `Annotated[T, "description"]`) and produces
exactly what pydantic would; anything richer returns None and the caller asks pydantic. The
equality with pydantic's output is pinned by the tests.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import sys
import types
import typing
from typing import Any

from tooldeck._core.schemas.docstrings import parse_docstring


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
    """Add one `Annotated` extra to `schema`; False when it is not one we know."""
    if isinstance(marker, str):
        schema.setdefault("description", marker)
        return True
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
    """The schema pydantic would produce for plain signatures, or None when it is not plain.
    `params` are (name, annotation, default) with `...` for no default."""
    props: dict[str, Any] = {}
    required: list[str] = []
    for name, annotation, default in params:
        prop = type_schema(annotation)
        if prop is None:
            return None
        if default is ...:
            required.append(name)
        elif isinstance(default, _JSON_DEFAULTS):
            prop["default"] = default
        else:
            return None
        if docs.get(name):
            prop["description"] = docs[name]  # the docstring wins over Annotated[T, "..."]
        props[name] = prop
    schema: dict[str, Any] = {"additionalProperties": False, "properties": props}
    if required:
        schema["required"] = required
    schema["type"] = "object"
    return schema


def type_schema(annotation: Any) -> dict[str, Any] | None:
    """The schema of one plain annotation, or None when pydantic must be asked."""
    if annotation in _SCALARS:
        return {"type": _SCALARS[annotation]}
    if typing.get_origin(annotation) is typing.Annotated:
        base, *extras = typing.get_args(annotation)
        out = type_schema(base)
        for extra in extras:
            if out is None or not _apply_constraint(out, extra):
                return None
        return out
    if annotation is Any:
        return {}
    if _is_typeddict(annotation):
        return _typeddict_schema(annotation)
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is list and len(args) == 1:
        items = type_schema(args[0])
        return None if items is None else {"items": items, "type": "array"}
    if origin is typing.Literal and args and all(isinstance(a, str) for a in args):
        return {"enum": list(args), "type": "string"}
    if origin in (typing.Union, types.UnionType) and len(args) == 2 and type(None) in args:
        inner = type_schema(next(a for a in args if a is not type(None)))
        return None if inner is None else {"anyOf": [inner, {"type": "null"}]}
    return None


def _typeddict_schema(cls: Any) -> dict[str, Any] | None:
    """An inline object schema for a TypedDict. Its keys are described by attribute docstrings
    (a string right under the key) or, failing that, by its docstring's `Args:` section."""
    _, docs = parse_docstring(cls.__doc__ or "")
    docs = {**docs, **attribute_docstrings(cls)}
    props: dict[str, Any] = {}
    for key, annotation in typing.get_type_hints(cls, include_extras=True).items():
        while getattr(typing.get_origin(annotation), "_name", None) in ("Required", "NotRequired"):
            annotation = typing.get_args(annotation)[0]
        prop = type_schema(annotation)
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


def attribute_docstrings(cls: type) -> dict[str, str]:
    """`{name: docstring}` for class attributes followed by a string literal, read from the
    source of the class and of the TypedDicts it extends (empty when there is no source)."""
    out: dict[str, str] = {}
    for base in (*getattr(cls, "__orig_bases__", ()), cls):
        if base is cls or _is_typeddict(base):
            out.update(_own_attribute_docstrings(base))
    return out


def _is_typeddict(cls: Any) -> bool:
    """typing's TypedDict, or typing_extensions' one; a class can only be the latter when
    typing_extensions has been imported, so it is not imported here (~5 ms at start-up)."""
    if typing.is_typeddict(cls):
        return True
    if "typing_extensions" not in sys.modules:
        return False
    # Imported, or being imported by another thread (the MCP loop's SDK): the import statement
    # waits until it is complete.
    import typing_extensions

    return bool(typing_extensions.is_typeddict(cls))


def _own_attribute_docstrings(cls: Any) -> dict[str, str]:
    try:
        import textwrap  # only for TypedDicts, when a tool is defined

        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError, SyntaxError):
        return {}
    body = next((n.body for n in tree.body if isinstance(n, ast.ClassDef)), [])
    out: dict[str, str] = {}
    for prev, node in itertools.pairwise(body):
        if (
            isinstance(prev, ast.AnnAssign)
            and isinstance(prev.target, ast.Name)
            and isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            out[prev.target.id] = inspect.cleandoc(node.value.value)
    return out
