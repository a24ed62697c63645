"""`@tool`: build a Tool from a typed Python callable.

The schema comes from the type hints (directly for plain types, through pydantic otherwise),
the descriptions from the docstring (Google, Sphinx or NumPy style; see
`schemas/docstrings.py`) and from `Field(description=...)` / `Annotated[T, "..."]` (see
`schemas/arguments.py` for which wins). A parameter annotated with `ToolContext`, anywhere in
the signature, is filled in at call time and never shown to the model.

Any callable with a readable signature works: functions (sync or async), bound methods,
static and class methods, `functools.partial` objects (the arguments they bind are hidden from
the model), and instances of classes with `__call__` (named after the class, described by the
class docstring or else by `__call__`'s). Positional-only parameters, `*args` and `**kwargs`
are supported. What cannot work is refused here with a `ToolDefinitionError` that says why:
a builtin without a signature, an unbound method's `self`, a lambda without `name=`.
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, overload

from tooldeck._core.context import ToolContext
from tooldeck._core.schemas.arguments import Param, schema_and_model
from tooldeck._core.schemas.docstrings import Docstring, parse_docstring, read_docstring
from tooldeck._core.schemas.pytypes import Bounds, fast_schema
from tooldeck._core.tool import LazyModel, Tool, ToolOptions, check_options, make_tool
from tooldeck.errors import ToolDefinitionError

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["Bounds", "fast_schema", "function_tool", "parse_docstring", "tool"]


@overload
def tool(func: Callable[..., Any], /) -> Tool: ...
@overload
def tool(
    func: None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    examples: Sequence[Mapping[str, Any]] | None = None,
    **options: Unpack[ToolOptions],
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    func: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    examples: Sequence[Mapping[str, Any]] | None = None,
    **options: Unpack[ToolOptions],
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Turn a callable into a Tool. Use bare (`@tool`) or with options (`@tool(toolset="web")`).

    Options are those of `Tool`, typed by `ToolOptions` (toolset, group, requires_env,
    requires_bins, requires_modules, check, interactive, read_only, destructive, timeout,
    max_result_chars, references, shell, needs_vision, require_parameter_descriptions, ...): a
    misspelt one is a type error, and a `ToolDefinitionError` naming the closest known option
    as soon as `@tool(...)` is evaluated, before any function is decorated.

    `examples` are example arguments (the tool's `input_examples`), each checked against the
    schema built from the function when it is decorated.
    """
    where = f"@tool(name={name!r})" if name else "@tool"
    check_options(where, options)
    opts: dict[str, Any] = dict(options)
    if examples is not None:
        if "input_examples" in opts:
            raise ToolDefinitionError(f"{where}: give examples= or input_examples=, not both")
        opts["input_examples"] = examples

    def build(fn: Callable[..., Any]) -> Tool:
        return function_tool(fn, name=name, description=description, options=opts)

    return build(func) if func is not None else build


def function_tool(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> Tool:
    """The non-decorator spelling of `@tool`."""
    if not callable(fn):
        raise ToolDefinitionError(f"@tool needs a function, got {type(fn).__name__}")
    target = _resolve(fn)
    tool_name = name or target.name
    if not tool_name or tool_name == "<lambda>":
        raise ToolDefinitionError(f"@tool: {fn!r} has no usable name; pass name=...")
    signature = _signature(tool_name, target)
    params, context_param, positional = _parameters(tool_name, signature, target)
    docs = target.docstring()
    reserved = frozenset([context_param] if context_param else [])
    schema, factory = schema_and_model(tool_name, params, docs.params, reserved)
    handler = target.handler
    if positional or any(p.kind != "named" for p in params):
        handler = _adapter(handler, positional, params)
    opts = dict(options or {})
    opts.setdefault("owner", target.owner)
    if "output_schema" not in opts:
        inferred = _output_schema(tool_name, signature.return_annotation)
        if inferred is not None:
            opts["output_schema"] = inferred
    return make_tool(
        name=tool_name,
        description=description if description is not None else docs.description(),
        parameters=schema,
        handler=handler,
        options=opts,
        call_style="kwargs",
        context_param=context_param,
        arg_model=LazyModel(factory),
    )


# -- what is being called -----------------------------------------------------------------------


@dataclass(frozen=True)
class _Target:
    """A callable, with where its name, docs and annotations come from."""

    handler: Callable[..., Any]
    name: str | None
    owner: str
    docs: tuple[str, ...] = ()  # docstrings: the first gives the summary, all give parameters
    namespace: Mapping[str, Any] | None = None  # class scope for annotations of methods
    bound: frozenset[str] = field(default_factory=frozenset)  # names a partial already binds

    def docstring(self) -> Docstring:
        """The first docstring that describes the tool, with the parameter descriptions of all
        of them (a later one, such as `__call__`'s after the class's, wins)."""
        parts = [read_docstring(d) for d in self.docs]
        params = {k: v for part in parts for k, v in part.params.items()}
        main = next((part for part in parts if part.description()), Docstring())
        return replace(main, params=params)


def _resolve(fn: Any) -> _Target:
    if isinstance(fn, functools.partial):
        inner = _resolve(fn.func)
        return replace(inner, handler=fn, bound=inner.bound | frozenset(fn.keywords))
    if inspect.isfunction(fn) or inspect.ismethod(fn) or inspect.isbuiltin(fn) or inspect.isclass(fn):
        owner_cls = _defining_class(fn)
        return _Target(
            handler=fn,
            name=getattr(fn, "__name__", None),
            owner=_owner(fn),
            docs=(inspect.getdoc(fn) or "",),
            namespace=_class_namespace(owner_cls) if owner_cls else None,
        )
    cls = type(fn)
    call = inspect.getattr_static(cls, "__call__", None)  # the class attribute: what `fn(...)` runs
    if not inspect.isfunction(call):
        raise ToolDefinitionError(
            f"@tool: cannot read the signature of {fn!r} ({cls.__name__}.__call__ is not a plain "
            "method); wrap it in a function with typed parameters"
        )
    return _Target(
        handler=fn.__call__,  # resolved now: the method the class had when the tool was defined
        name=cls.__name__,
        owner=_owner(cls),
        docs=((cls.__doc__ and inspect.cleandoc(cls.__doc__)) or "", inspect.getdoc(call) or ""),
        namespace=_class_namespace(cls),
    )


def _defining_class(fn: Any) -> type | None:
    holder = getattr(fn, "__self__", None)
    if holder is None:
        return None
    return holder if inspect.isclass(holder) else type(holder)


def _class_namespace(cls: type) -> dict[str, Any]:
    """Names visible in a class body, base classes first, for annotations that use them."""
    out: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        out.update(vars(klass))
    return out


def _owner(obj: Any) -> str:
    module = getattr(obj, "__module__", None) or "?"
    qualname = getattr(obj, "__qualname__", None) or type(obj).__qualname__
    return f"{module}:{qualname}"


def _signature(tool_name: str, target: _Target) -> inspect.Signature:
    namespace = dict(target.namespace) if target.namespace is not None else None
    try:
        return inspect.signature(target.handler, eval_str=True, locals=namespace)
    except ValueError as exc:  # builtins implemented in C have none
        raise ToolDefinitionError(
            f"tool {tool_name!r}: cannot read the signature of {target.handler!r} ({exc}); "
            "wrap it in a function with typed parameters"
        ) from None
    except Exception as exc:  # boundary: user annotations may fail to evaluate in any way
        raise ToolDefinitionError(f"tool {tool_name!r}: cannot read type hints: {exc}") from exc


def _output_schema(tool_name: str, annotation: Any) -> dict[str, Any] | None:
    """The structured result's schema when the return annotation is an object type (a pydantic
    model, a TypedDict, a dataclass), as MCP servers infer it; else None (text results)."""
    import dataclasses
    import typing

    from tooldeck._core.content import BLOCK_TYPES
    from tooldeck._core.output import ToolOutput

    if not isinstance(annotation, type) or issubclass(annotation, (ToolOutput, *BLOCK_TYPES)):
        return None  # results that say what they carry themselves
    is_model = hasattr(annotation, "model_json_schema")
    if not (is_model or dataclasses.is_dataclass(annotation) or typing.is_typeddict(annotation)):
        return None
    from pydantic import TypeAdapter

    if typing.is_typeddict(annotation):
        annotation = _portable_typeddict(annotation)
    try:
        schema = TypeAdapter(annotation).json_schema(mode="serialization")
    except Exception as exc:  # boundary: a user type pydantic cannot describe
        raise ToolDefinitionError(
            f"tool {tool_name!r}: cannot describe its return type as JSON Schema: {exc}"
        ) from None
    return schema if schema.get("type") == "object" else None


def _portable_typeddict(annotation: Any) -> Any:
    """The same TypedDict as a `typing_extensions` one: pydantic reads `typing.TypedDict` only
    from Python 3.12 on, and the keys that are not required stay so."""
    import typing

    import typing_extensions

    make: Any = typing_extensions.TypedDict
    if sys.version_info >= (3, 12) or type(annotation) is type(make("_", {})):
        return annotation
    hints = typing.get_type_hints(annotation)
    required = getattr(annotation, "__required_keys__", frozenset(hints))
    fields = {
        key: (kind if key in required else typing_extensions.NotRequired[kind]) for key, kind in hints.items()
    }
    return make(annotation.__name__, fields)


# -- parameters ---------------------------------------------------------------------------------


def _parameters(
    tool_name: str, signature: inspect.Signature, target: _Target
) -> tuple[list[Param], str | None, list[str]]:
    """The parameters the model fills in, the ToolContext parameter, and the names that must
    be passed by position (positional-only ones, in order)."""
    params: list[Param] = []
    context: str | None = None
    positional: list[str] = []
    # With *args, the parameters before it must be passed by position too, or the spread
    # arguments would fill them.
    spread = any(p.kind is p.VAR_POSITIONAL for p in signature.parameters.values())
    by_position = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    for index, (pname, p) in enumerate(signature.parameters.items()):
        annotation = Any if p.annotation is p.empty else p.annotation
        if pname in target.bound and not _is_context(annotation):
            continue  # bound by a partial: not the model's to fill
        if p.kind is p.POSITIONAL_ONLY or (spread and p.kind in by_position):
            positional.append(pname)
        if _is_context(annotation):
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or context is not None:
                raise ToolDefinitionError(
                    f"tool {tool_name!r}: only one plain parameter can take the ToolContext"
                )
            context = pname
            continue
        if (
            index == 0
            and pname in ("self", "cls")
            and p.annotation is p.empty
            and inspect.isfunction(target.handler)
        ):
            raise ToolDefinitionError(
                f"tool {tool_name!r}: the first parameter {pname!r} belongs to an unbound method; "
                "pass the bound method (instance.method or Class.method) instead"
            )
        params.append(_param(tool_name, pname, p, annotation))
    return params, context, positional


def _is_context(annotation: Any) -> bool:
    return annotation is ToolContext or annotation == ToolContext | None


def _param(tool_name: str, pname: str, p: inspect.Parameter, annotation: Any) -> Param:
    import typing

    if p.kind is p.VAR_POSITIONAL:
        if typing.get_origin(annotation) in (tuple, list):
            raise ToolDefinitionError(
                f"tool {tool_name!r}: *{pname}: {annotation} would mean each argument is itself a "
                f"sequence; annotate *{pname} with the type of one argument (e.g. *{pname}: int)"
            )
        return Param(pname, annotation, ..., "args")
    if p.kind is p.VAR_KEYWORD:
        if typing.get_origin(annotation) in (dict, Mapping) or annotation is dict:
            raise ToolDefinitionError(
                f"tool {tool_name!r}: **{pname}: {annotation} would mean each argument is itself a "
                f"mapping; annotate **{pname} with the type of one value (e.g. **{pname}: int)"
            )
        return Param(pname, annotation, ..., "kwargs")
    return Param(pname, annotation, ... if p.default is p.empty else p.default)


def _adapter(fn: Callable[..., Any], positional: list[str], params: list[Param]) -> Callable[..., Any]:
    """A keyword-only front for `fn`: positional-only parameters are passed by position, the
    `*args` list spread, the `**kwargs` mapping merged (the executor calls with keywords)."""
    varargs = next((p.name for p in params if p.kind == "args"), None)
    varkw = next((p.name for p in params if p.kind == "kwargs"), None)

    def split(kwargs: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        args = []
        for name in positional:
            if name not in kwargs:
                break
            args.append(kwargs.pop(name))
        if varargs is not None:
            args.extend(kwargs.pop(varargs, None) or ())
        if varkw is not None:
            kwargs.update(kwargs.pop(varkw, None) or {})
        return args, kwargs

    if inspect.iscoroutinefunction(fn):

        async def call_async(**kwargs: Any) -> Any:
            args, rest = split(kwargs)
            return await fn(*args, **rest)

        return call_async

    def call(**kwargs: Any) -> Any:
        args, rest = split(kwargs)
        return fn(*args, **rest)

    return call
