"""The Tool: one callable capability the model may be shown.

`Tool(...)` is the explicit form: a JSON-schema `parameters` object and a handler that takes
the arguments as one dict. `@tool` (see `decorator.py`) builds the same Tool from a typed
function. Everything here is checked at construction: a bad name, a schema that is not a
JSON-schema object or an unknown option is a `ToolDefinitionError` saying what is wrong.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from tooldeck._core.availability_types import Availability
from tooldeck._core.tool_names import NAME_PATTERN as NAME_PATTERN
from tooldeck._core.tool_names import SOURCE_PRIORITY as SOURCE_PRIORITY
from tooldeck.errors import ToolDefinitionError

if TYPE_CHECKING:
    from tooldeck._core.config import CoreConfig
    from tooldeck._core.context import ToolContext


MCP_EXAMPLES_KEY = "input_examples"
"""The key of an MCP tool's `_meta` that carries its example arguments (a list of argument
objects, `Tool.input_examples`): read from the servers tooldeck connects to, written by
`tooldeck serve`."""

Check = Callable[[], "bool | Availability"]
Description = "str | Callable[[DescriptionContext], str]"
SourceKind = Literal["config", "user", "builtin", "mcp", "plugin", "acp"]
ResourceMode = Literal["read", "write"]


@dataclass(frozen=True, slots=True)
class DescriptionContext:
    """What a live description may look at: the loadout being assembled and the config."""

    exposed: frozenset[str]
    deferred: frozenset[str]
    config: CoreConfig | None = None
    # The exposed and deferred tools by name, for descriptions that depend on their options.
    tools: Mapping[str, Tool] = field(default_factory=dict, hash=False, compare=False)


@dataclass(frozen=True, slots=True)
class Resource:
    """What a call touches, so calls of one batch that touch the same thing do not overlap.

    `arg` names the argument holding a workspace path (`Resource(arg="path", mode="read")`);
    `key` is a fixed key (`Resource(key="mcp:git")`: one server's calls in turn). Readers of one
    resource may overlap; a writer runs alone.
    """

    arg: str | None = None
    key: str | None = None
    mode: ResourceMode = "write"

    def __post_init__(self) -> None:
        if (self.arg is None) == (self.key is None):
            raise ToolDefinitionError("a Resource takes exactly one of arg= or key=")


@dataclass(frozen=True, slots=True, eq=False)
class Tool:
    """A tool definition. Immutable; use `tool.with_options(...)` for a changed copy."""

    name: str
    description: str | Callable[[DescriptionContext], str]
    parameters: Mapping[str, Any]
    handler: Callable[..., Any] | None = None
    toolset: str = "default"
    group: str | None = None
    requires_env: tuple[str, ...] = ()
    requires_bins: tuple[str, ...] = ()
    requires_modules: tuple[str, ...] = ()
    check: Callable[[], bool | Availability] | None = None
    interactive: bool = False
    sequential: bool = False
    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None
    requires_approval: bool = False
    timeout: float | None = None
    max_result_chars: int | None = None
    references: tuple[str, ...] = ()
    shell: bool = False
    needs_vision: bool = False
    # Works on files under `sandbox.workspace`: unavailable (with the reason) while that folder
    # cannot be opened.
    needs_workspace: bool = False
    # Works only inside an agent run, whose loop acts on what it returns (a question for the
    # user, files to show, sub-agents to run): hidden, with that reason, from calls made
    # anywhere else (`deck.call`, `tooldeck call`, `serve`), where nobody would act on it.
    needs_agent: bool = False
    defer: bool | None = None
    # What its calls touch, for the batch scheduler (see `Resource`).
    resource: Resource | None = None
    # Never hidden by active skills' allowed_tools (the model needs it to find tools or talk).
    essential: bool = False
    # Loads deferred tools (`tool_search`): exposed exactly when some tool is deferred, never
    # deferred itself.
    loads_deferred: bool = False
    # Calls other tools of its loadout (execute_code's programs, delegate_task's sub-agents): a
    # direct call of it waits for every source, MCP servers still connecting included.
    calls_tools: bool = False
    # "process": each call runs in a child process killed at the deadline with all it started
    # (a fork per call); default: a worker thread (sync) or the event loop (async).
    isolation: Literal["process"] | None = None
    # How calls that need consent are handled unless `approvals.tools` says otherwise: "allow"
    # (e.g. the workspace file edits), "ask" or "deny"; None follows `approvals.mode`.
    approval: Literal["ask", "allow", "deny"] | None = None
    # Refuse the definition when a parameter the model sees has no description.
    require_parameter_descriptions: bool = False
    # Who defined it, for conflict errors and `explain`: "module.path:attr", "config tools[2]", ...
    owner: str = ""
    source: SourceKind = "user"
    # How the handler takes its arguments: one dict ("dict") or keyword arguments ("kwargs").
    call_style: Literal["dict", "kwargs"] = "dict"
    # Name of the handler parameter that receives the ToolContext, if any.
    context_param: str | None = None
    # For decorated tools: the pydantic model that turns JSON arguments into Python values
    # (a `LazyModel` that builds it on first use, so defining a tool stays cheap).
    arg_model: Any = None
    # Extra data for integrations (MCP server name, original tool name, ...).
    meta: Mapping[str, Any] = field(default_factory=dict)
    # The JSON Schema (an object schema) of the tool's structured result (MCP's outputSchema):
    # a call's value is then given as structured content too, checked against it. `@tool`
    # infers it from a return annotation that is a pydantic model, a TypedDict or a dataclass.
    output_schema: Mapping[str, Any] | None = None
    # Through `tooldeck serve`, to an MCP client of the tasks extension (SEP-2663): "optional" (a
    # call may become a task: when it runs past `serve.task_after_s` or calls
    # `ctx.run_as_task()`), "required" (always answered as a task; a client without the
    # extension gets -32021) or "forbidden" (always answered at once). Elsewhere calls just run.
    task_support: Literal["forbidden", "optional", "required"] = "optional"
    # Example arguments that show the model how to call the tool (Anthropic takes them as the
    # tool's `input_examples`; the other dialects read them in the description). Each is a JSON
    # object its parameters accept, checked here.
    input_examples: Sequence[Mapping[str, Any]] = ()

    def __post_init__(self) -> None:
        _check_name(self.name)
        if self.task_support not in ("forbidden", "optional", "required"):
            raise ToolDefinitionError(
                f"tool {self.name!r}: task_support must be 'forbidden', 'optional' or 'required', "
                f"got {self.task_support!r}"
            )
        if self.output_schema is not None and (
            not isinstance(self.output_schema, Mapping) or self.output_schema.get("type") != "object"
        ):
            raise ToolDefinitionError(
                f"tool {self.name!r}: output_schema must be a JSON Schema of type object (MCP's "
                "structured content is an object); wrap other values in a field"
            )
        if not (isinstance(self.description, str) or callable(self.description)):
            raise ToolDefinitionError(
                f"tool {self.name!r}: description must be a string or a function of the loadout, "
                f"got {type(self.description).__name__}"
            )
        object.__setattr__(self, "parameters", _check_parameters(self.name, self.parameters))
        if self.input_examples:
            object.__setattr__(
                self, "input_examples", check_examples(self.name, self.parameters, self.input_examples)
            )
        if self.require_parameter_descriptions:
            _check_described(self.name, self.parameters)
        for opt in ("requires_env", "requires_bins", "requires_modules", "references"):
            object.__setattr__(self, opt, _as_str_tuple(self.name, opt, getattr(self, opt)))
        if self.handler is not None and not callable(self.handler):
            raise ToolDefinitionError(f"tool {self.name!r}: handler must be callable")
        if self.handler is not None:
            _refuse_generator(self.name, self.handler)
        if self.call_style == "kwargs" and self.arg_model is None and self.handler is not None:
            _check_handler_takes(self.name, self.handler, self.parameters, self.context_param)
        if self.check is not None and not callable(self.check):
            raise ToolDefinitionError(f"tool {self.name!r}: check must be a callable returning bool")
        if self.timeout is not None and not self.timeout > 0:
            raise ToolDefinitionError(f"tool {self.name!r}: timeout must be > 0 seconds, got {self.timeout}")
        if self.max_result_chars is not None and self.max_result_chars < 1:
            raise ToolDefinitionError(f"tool {self.name!r}: max_result_chars must be >= 1")
        if not self.toolset or not isinstance(self.toolset, str):
            raise ToolDefinitionError(f"tool {self.name!r}: toolset must be a non-empty string")
        if self.source not in SOURCE_PRIORITY:
            raise ToolDefinitionError(f"tool {self.name!r}: unknown source {self.source!r}")
        if self.name in self.references:
            raise ToolDefinitionError(f"tool {self.name!r}: references must name other tools")
        if self.isolation not in (None, "process"):
            raise ToolDefinitionError(
                f"tool {self.name!r}: isolation must be 'process' or None, got {self.isolation!r}"
            )
        if self.resource is not None and not isinstance(self.resource, Resource):
            raise ToolDefinitionError(f"tool {self.name!r}: resource must be a Resource(arg=... or key=...)")
        if isinstance(self.description, str):
            from tooldeck._core.templates import check_template

            check_template(self.name, self.description, self.references)

    # -- behaviour -------------------------------------------------------------------------

    @property
    def is_async(self) -> bool:
        return self.handler is not None and inspect.iscoroutinefunction(self.handler)

    @property
    def runs_shell(self) -> bool:
        """Shell-executing tools pass the host-shell gate (DeerFlow's `group: bash` counts)."""
        return self.shell or self.group == "bash" or (self.group or "").startswith("bash:")

    def call(self, arguments: Mapping[str, Any], context: ToolContext | None = None) -> Any:
        """Call the handler with validated arguments; may return an awaitable."""
        if self.handler is None:
            raise ToolDefinitionError(f"tool {self.name!r} has no handler")
        if self.call_style == "dict":
            if self.context_param is not None:
                return self.handler(dict(arguments), **{self.context_param: context})
            return self.handler(dict(arguments))
        kwargs = dict(arguments)
        if self.arg_model is not None:
            model = self.arg_model.model_validate(kwargs)
            kwargs = {name: getattr(model, name) for name in type(model).model_fields}
        if self.context_param is not None:
            kwargs[self.context_param] = context
        return self.handler(**kwargs)

    def with_options(self, **changes: Any) -> Tool:
        """A copy with some options changed; unknown option names are an error."""
        unknown = sorted(set(changes) - TOOL_OPTIONS - {"name", "description", "parameters", "handler"})
        if unknown:
            raise ToolDefinitionError(
                f"tool {self.name!r}: unknown option(s) {', '.join(unknown)}; "
                f"known: {', '.join(sorted(TOOL_OPTIONS))}"
            )
        return replace(self, **changes)

    def relabeled(self, *, source: SourceKind | None = None, owner: str | None = None) -> Tool:
        """A copy that says where it came from; nothing checked at construction changes, so the
        copy is not validated again (sources stamp every tool they list with this)."""
        if source is not None and source not in SOURCE_PRIORITY:
            raise ToolDefinitionError(f"tool {self.name!r}: unknown source {source!r}")
        clone = object.__new__(type(self))  # copy.copy goes through pickling's state: ~10x slower
        for name in _slots(type(self)):
            value = getattr(self, name, _UNSET)
            if value is not _UNSET:
                object.__setattr__(clone, name, value)
        if hasattr(self, "__dict__"):  # a subclass without slots
            object.__setattr__(clone, "__dict__", dict(self.__dict__))
        if source is not None:
            object.__setattr__(clone, "source", source)
        if owner is not None:
            object.__setattr__(clone, "owner", owner)
        return clone

    def __repr__(self) -> str:
        return f"Tool(name={self.name!r}, toolset={self.toolset!r}, source={self.source!r})"


class LazyModel:
    """Stands for a pydantic model class that is built the first time it is used."""

    __slots__ = ("_build", "_model")

    def __init__(self, build: Callable[[], Any]) -> None:
        self._build = build
        self._model: Any = None

    @property
    def built(self) -> bool:
        return self._model is not None

    def model(self) -> Any:
        if self._model is None:
            self._model = self._build()
        return self._model

    def __getattr__(self, name: str) -> Any:
        return getattr(self.model(), name)


# Options a user may set with `@tool(...)`, `Tool(...)` or a config `tools:` entry.
TOOL_OPTIONS: frozenset[str] = frozenset(
    f.name
    for f in fields(Tool)
    if f.name
    not in {"name", "description", "parameters", "handler", "call_style", "context_param", "arg_model"}
)


class ToolOptions(TypedDict, total=False):
    """The options of `@tool(...)` (the fields of `Tool` above, `TOOL_OPTIONS` at run time): a
    misspelt one is a type error, and at definition a `ToolDefinitionError` naming the closest."""

    toolset: str
    group: str | None
    requires_env: Sequence[str]
    requires_bins: Sequence[str]
    requires_modules: Sequence[str]
    check: Callable[[], bool | Availability] | None
    interactive: bool
    sequential: bool
    read_only: bool | None
    destructive: bool | None
    idempotent: bool | None
    open_world: bool | None
    requires_approval: bool
    timeout: float | None
    max_result_chars: int | None
    references: Sequence[str]
    shell: bool
    needs_vision: bool
    needs_workspace: bool
    needs_agent: bool
    defer: bool | None
    resource: Resource | None
    essential: bool
    loads_deferred: bool
    calls_tools: bool
    isolation: Literal["process"] | None
    approval: Literal["ask", "allow", "deny"] | None
    require_parameter_descriptions: bool
    owner: str
    source: SourceKind
    meta: Mapping[str, Any]
    output_schema: Mapping[str, Any] | None
    task_support: Literal["forbidden", "optional", "required"]
    input_examples: Sequence[Mapping[str, Any]]


def check_options(where: str, options: Mapping[str, Any]) -> None:
    """A `ToolDefinitionError` naming each unknown option and the closest known one."""
    unknown = sorted(set(options) - TOOL_OPTIONS)
    if not unknown:
        return
    import difflib

    problems = []
    for option in unknown:
        close = difflib.get_close_matches(option, TOOL_OPTIONS, n=1, cutoff=0.6)
        problems.append(f"{option!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    raise ToolDefinitionError(
        f"{where}: unknown option {', '.join(problems)}; known: {', '.join(sorted(TOOL_OPTIONS))}"
    )


_UNSET = object()


_SLOTS: dict[type, tuple[str, ...]] = {}


def _slots(cls: type) -> tuple[str, ...]:
    """The instance slots of `cls` and its bases (what a copy must carry over)."""
    found = _SLOTS.get(cls)
    if found is None:
        names: list[str] = []
        for klass in reversed(cls.__mro__):
            for name in getattr(klass, "__slots__", ()):
                if name not in ("__dict__", "__weakref__") and name not in names:
                    names.append(name)
        found = _SLOTS[cls] = tuple(names)
    return found


def make_tool(
    *,
    name: str,
    description: str | Callable[[DescriptionContext], str],
    parameters: Mapping[str, Any] | None,
    handler: Callable[..., Any] | None,
    options: Mapping[str, Any],
    **internal: Any,
) -> Tool:
    """Build a Tool, turning unknown options into a clear error (used by every front end)."""
    check_options(f"tool {name!r}", options)
    return Tool(
        name=name,
        description=description,
        parameters=parameters if parameters is not None else {"type": "object", "properties": {}},
        handler=handler,
        **options,
        **internal,
    )


def _check_name(name: object) -> None:
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise ToolDefinitionError(
            f"invalid tool name {name!r}: must match {NAME_PATTERN.pattern} "
            "(letters, digits, '_' and '-', starting with a letter or '_', at most 64 characters)"
        )


def _check_parameters(name: str, schema: object) -> dict[str, Any]:
    """Accept a JSON-schema object; return its normalised copy with `type: object` made explicit."""
    if not isinstance(schema, Mapping):
        raise ToolDefinitionError(
            f"tool {name!r}: parameters must be a JSON-schema object (a dict), got {type(schema).__name__}"
        )
    from tooldeck._core.schemas.normalize import normalize_parameters, normalize_type

    kind = schema.get("type", "object")
    if kind != "object" and normalize_type(kind)[0] != "object":  # "dict" and friends are objects
        raise ToolDefinitionError(
            f"tool {name!r}: parameters must be a JSON schema of type 'object', got type {kind!r}"
        )
    props = schema.get("properties", {})
    if not isinstance(props, Mapping):
        raise ToolDefinitionError(f"tool {name!r}: parameters.properties must be an object")
    for key, sub in props.items():
        if not isinstance(sub, Mapping | bool):
            raise ToolDefinitionError(
                f"tool {name!r}: parameters.properties.{key} must be a schema object, got {type(sub).__name__}"
            )
    required = schema.get("required", [])
    if (
        not isinstance(required, Sequence)
        or isinstance(required, str)
        or not all(isinstance(r, str) for r in required)
    ):
        raise ToolDefinitionError(f"tool {name!r}: parameters.required must be a list of property names")
    # Real-world forms (BFCL "dict"/"float" types, draft-04 exclusiveMinimum, ...) -> standard JSON
    # Schema; what no validator could enforce (a bad keyword value, a dangling $ref, a reference
    # loop) is refused here, with its key path, rather than found out on the first call.
    out = normalize_parameters(schema, tool=name)
    out["type"] = "object"
    return out


def check_examples(name: str, parameters: Mapping[str, Any], examples: object) -> tuple[dict[str, Any], ...]:
    """`examples` as a tuple of JSON objects, each one `parameters` accepts as it is (no
    conversion); else a `ToolDefinitionError` naming the tool, the example and what is wrong."""
    if isinstance(examples, str | bytes | Mapping) or not isinstance(examples, Sequence):
        raise ToolDefinitionError(
            f"tool {name!r}: input_examples must be a list of argument objects, got {type(examples).__name__}"
        )
    import json

    from tooldeck._core.schemas.validate import check_arguments, compile_schema

    check = compile_schema(parameters, coerce=False)
    out = []
    for i, example in enumerate(examples):
        where = f"tool {name!r}: input_examples[{i}]"
        if not isinstance(example, Mapping):
            raise ToolDefinitionError(f"{where} must be an object of arguments, got {type(example).__name__}")
        try:
            value = json.loads(json.dumps(example, allow_nan=False))
        except (TypeError, ValueError) as exc:
            raise ToolDefinitionError(f"{where} is not JSON: {exc}") from None
        _, errors = check_arguments(check, value)
        if errors:
            shown = "; ".join(errors[:5]) + (f"; and {len(errors) - 5} more" if len(errors) > 5 else "")
            raise ToolDefinitionError(f"{where} does not fit the tool's parameters: {shown}")
        out.append(value)
    return tuple(out)


def _check_handler_takes(
    name: str, handler: Callable[..., Any], parameters: Mapping[str, Any], context_param: str | None
) -> None:
    """A handler called with keyword arguments must accept every property of the schema, and
    need nothing the schema does not offer (else every call would fail with a TypeError)."""
    try:
        sig = inspect.signature(handler)
    except (TypeError, ValueError):
        return  # no readable signature: nothing to check against
    params = sig.parameters
    takes_any = any(p.kind is p.VAR_KEYWORD for p in params.values())
    named = {n for n, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    props = set(parameters.get("properties", {}))
    unknown = sorted(props - named) if not takes_any else []
    needed = sorted(
        n
        for n, p in params.items()
        if p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        and n not in props and n != context_param
    )  # fmt: skip
    if unknown or needed:
        problems = [f"it takes no argument {', '.join(unknown)}" if unknown else "",
                    f"it needs {', '.join(needed)}, which the schema does not offer" if needed else ""]  # fmt: skip
        raise ToolDefinitionError(
            f"tool {name!r}: the handler does not fit the parameters schema: "
            + "; ".join(p for p in problems if p)
        )


def _check_described(name: str, parameters: Mapping[str, Any]) -> None:
    props = parameters.get("properties", {})
    missing = [p for p, sub in props.items() if not (isinstance(sub, Mapping) and sub.get("description"))]
    if missing:
        raise ToolDefinitionError(
            f"tool {name!r}: missing parameter descriptions for {', '.join(missing)} "
            "(require_parameter_descriptions is set); describe them in the docstring's Args section, "
            "with Field(description=...) or Annotated[T, '...'], or in the schema"
        )


def _as_str_tuple(name: str, option: str, value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, Sequence) or not all(isinstance(v, str) for v in value):
        raise ToolDefinitionError(f"tool {name!r}: {option} must be a list of strings")
    return tuple(value)


def _refuse_generator(name: str, handler: Callable[..., Any]) -> None:
    """A tool call has one result, so a handler that yields is refused: its calls would otherwise
    "succeed" with the generator object's repr. (pydantic-ai and the OpenAI Agents SDK do not
    collect yielded values either.)"""
    target = handler if inspect.isroutine(handler) else getattr(handler, "__call__", handler)  # noqa: B004
    if inspect.isasyncgenfunction(target):
        kind = "an async generator function"
    elif inspect.isgeneratorfunction(target):
        kind = "a generator function"
    else:
        return
    raise ToolDefinitionError(
        f"tool {name!r}: the handler is {kind}, but a tool call has one result; return the "
        "values instead (e.g. collect them in a list and return it)"
    )
