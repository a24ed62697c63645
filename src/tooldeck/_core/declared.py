"""What a declared prompt (`prompts.py`) and a declared resource (`resources.py`) share: reading
a function's parameters, calling it with the string arguments a client sends, and completion.

A client sends every argument as a string. A parameter annotated `str` (or not at all) gets it
as sent; any other annotation (`int`, `bool`, `list[str]`, ...) is validated with pydantic, in
its lax mode and then as JSON, so `"3"` becomes `3` and `'["a"]'` a list; a value that fits
neither is an `ArgumentsError` naming the parameter and its type. A sync function runs in a
worker thread, so a slow one does not stall the caller's event loop; an async one is awaited.
Whatever the function raises is a `RenderError` naming the declaration, with the exception as
its cause; an `ArgumentsError` it raises (its own refusal of the arguments) is passed on as is.

Completion values come from `complete={"arg": ...}`: a list offers its entries that start with
what was typed (case ignored); a callable, sync or async, is called with what was typed and
returns the values itself. At most `MAX_COMPLETIONS` are returned, with how many there are.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from tooldeck._core.context import ToolContext
from tooldeck._utils.text import describe_exception
from tooldeck.errors import ArgumentsError, RenderError, ToolDefinitionError

MAX_COMPLETIONS = 100

# Completion values for one argument: the values themselves, or a function of what was typed.
Completion: TypeAlias = Sequence[str] | Callable[[str], Iterable[str] | Awaitable[Iterable[str]]]

_PLAIN = (inspect.Parameter.empty, str, Any)


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter of a declared function, as a client fills it in."""

    name: str
    required: bool
    annotation: Any = inspect.Parameter.empty


@dataclass(eq=False)
class Call:
    """A declared function, called with string arguments (see the module docstring)."""

    fn: Callable[..., Any]
    params: tuple[Param, ...]
    what: str  # "prompt 'x'", "resource 'test://y'": what messages name
    _adapters: dict[str, Any] = field(default_factory=dict, repr=False)
    # The parameter annotated `ToolContext`, filled with the request's context (not an argument).
    context_param: str | None = None

    async def __call__(self, values: Mapping[str, str], context: ToolContext | None = None) -> Any:
        arguments = {p.name: self._convert(p, values[p.name]) for p in self.params if p.name in values}
        if self.context_param is not None:
            arguments[self.context_param] = context if context is not None else ToolContext()
        try:
            if inspect.iscoroutinefunction(self.fn):
                return await self.fn(**arguments)
            import asyncio  # only once something runs: loading a loadout needs no event loop

            result = await asyncio.to_thread(self.fn, **arguments)
            if inspect.isawaitable(result):  # a sync wrapper of an async function
                result = await result
            return result
        except ArgumentsError:
            raise  # the function's own refusal of its arguments: the caller's mistake, as is
        except Exception as exc:  # boundary: a declared function is user code and may raise anything
            raise RenderError(f"{self.what} failed: {describe_exception(exc)}") from exc

    def _convert(self, param: Param, value: str) -> Any:
        if param.annotation in _PLAIN:
            return value
        adapter = self._adapters.get(param.name)
        if adapter is None:
            from pydantic import TypeAdapter

            adapter = self._adapters[param.name] = TypeAdapter(param.annotation)
        from pydantic import ValidationError

        try:
            return adapter.validate_python(value)
        except ValidationError:
            pass
        try:
            return adapter.validate_json(value)
        except (ValidationError, json.JSONDecodeError):
            raise ArgumentsError(
                f"{self.what}: argument {param.name!r} must be of type {_type_name(param.annotation)}, "
                f"got {value!r}"
            ) from None


def context_param(fn: Callable[..., Any]) -> str | None:
    """The parameter of `fn` annotated `ToolContext` (how it asks the client, see channel.py)."""
    try:
        signature = inspect.signature(fn, eval_str=True)
    except Exception:  # boundary: read_params reports what is wrong with the signature
        return None
    return next((p.name for p in signature.parameters.values() if p.annotation is ToolContext), None)


def read_params(fn: Callable[..., Any], what: str) -> tuple[Param, ...]:
    """The parameters of `fn` a client fills in by name (all but a `ToolContext` one); a
    ToolDefinitionError for what cannot be."""
    if not callable(fn):
        raise ToolDefinitionError(f"{what}: needs a function, got {type(fn).__name__}")
    try:
        signature = inspect.signature(fn, eval_str=True)
    except ValueError as exc:  # builtins implemented in C have none
        raise ToolDefinitionError(f"{what}: cannot read the signature of {fn!r} ({exc})") from None
    except Exception as exc:  # boundary: user annotations may fail to evaluate in any way
        raise ToolDefinitionError(f"{what}: cannot read type hints: {describe_exception(exc)}") from exc
    out: list[Param] = []
    for p in signature.parameters.values():
        if p.annotation is ToolContext:
            continue
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY):
            raise ToolDefinitionError(
                f"{what}: parameter {p.name!r} cannot be filled in by name; a client sends each argument "
                "by its name, so use plain parameters (no *args, **kwargs or positional-only ones)"
            )
        out.append(Param(p.name, p.default is p.empty, p.annotation))
    return tuple(out)


def checked_completions(
    complete: Mapping[str, Completion] | None, names: Iterable[str], what: str
) -> dict[str, Completion]:
    """`complete` when each key names an argument and each value is a list of strings or a callable."""
    known = list(names)
    out: dict[str, Completion] = {}
    for name, source in (complete or {}).items():
        if name not in known:
            listed = ", ".join(repr(n) for n in known) or "none"
            raise ToolDefinitionError(
                f"{what}: complete= names {name!r}, which is not one of its arguments ({listed})"
            )
        if isinstance(source, str) or not (
            callable(source) or (isinstance(source, Sequence) and all(isinstance(v, str) for v in source))
        ):
            raise ToolDefinitionError(
                f"{what}: complete[{name!r}] must be a list of strings or a function of the typed "
                f"value, got {type(source).__name__}"
            )
        out[name] = tuple(source) if not callable(source) else source
    return out


async def completions(source: Completion | None, typed: str, what: str) -> tuple[list[str], int]:
    """At most `MAX_COMPLETIONS` values for what was typed, and how many there are."""
    if source is None:
        return [], 0
    if not callable(source):
        start = typed.casefold()
        found = [v for v in source if v.casefold().startswith(start)]
    else:
        try:
            if inspect.iscoroutinefunction(source):
                result = await source(typed)
            else:
                import asyncio

                result = await asyncio.to_thread(source, typed)
                if inspect.isawaitable(result):
                    result = await result
            found = list(result)
        except Exception as exc:  # boundary: a completion function is user code
            raise RenderError(f"completing {what} failed: {describe_exception(exc)}") from exc
        wrong = next((v for v in found if not isinstance(v, str)), None)
        if wrong is not None:
            raise RenderError(f"completing {what}: the function returned a {type(wrong).__name__}, not a str")
    return found[:MAX_COMPLETIONS], len(found)


def summary(fn: Callable[..., Any]) -> tuple[str | None, dict[str, str]]:
    """The summary of `fn`'s docstring (None without one) and its parameter descriptions."""
    from tooldeck._core.schemas.docstrings import read_docstring

    doc = read_docstring(inspect.getdoc(fn) or "")
    return doc.summary or None, dict(doc.params)


def name_of(fn: Callable[..., Any]) -> str | None:
    name = getattr(fn, "__name__", None)
    return name if isinstance(name, str) and name != "<lambda>" else None


def owner_of(fn: Callable[..., Any]) -> str:
    module = getattr(fn, "__module__", None) or "?"
    qualname = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    return f"{module}:{qualname}"


def _type_name(annotation: Any) -> str:
    name = getattr(annotation, "__name__", None)
    return name if isinstance(name, str) and not getattr(annotation, "__args__", None) else str(annotation)


__all__ = [
    "MAX_COMPLETIONS",
    "Call",
    "Completion",
    "Param",
    "checked_completions",
    "completions",
    "context_param",
    "name_of",
    "owner_of",
    "read_params",
    "summary",
]
