"""R1/R2: tools from the decorator and the explicit form, and the errors for bad definitions."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest
from annotated_types import Ge, Gt, Le, MaxLen, MinLen
from pydantic import Field
from typing_extensions import TypedDict

from tooldeck import Availability, Tool, ToolContext, ToolDefinitionError, tool
from tooldeck._core.decorator import Bounds


def test_decorator_builds_schema_from_hints_and_docstring() -> None:
    @tool(toolset="math", read_only=True, timeout=5)
    def scale(value: float, factor: int = 2, mode: Literal["up", "down"] = "up") -> float:
        """Scale a number.

        Args:
            value: The number to scale.
            factor: How much to multiply by.
                Must be positive.
            mode: Direction.
        """
        return value * factor if mode == "up" else value / factor

    assert isinstance(scale, Tool)
    assert scale.name == "scale" and scale.toolset == "math" and scale.read_only and scale.timeout == 5
    assert scale.description == "Scale a number."
    props = scale.parameters["properties"]
    assert props["value"] == {"type": "number", "description": "The number to scale."}
    assert props["factor"]["type"] == "integer" and props["factor"]["default"] == 2
    assert props["factor"]["description"] == "How much to multiply by. Must be positive."
    assert props["mode"]["enum"] == ["up", "down"]
    assert scale.parameters["required"] == ["value"]
    assert scale.call({"value": 3.0}) == 6.0
    assert scale.call({"value": 3.0, "factor": 3, "mode": "down"}) == 1.0


def test_decorator_sphinx_docstrings_annotated_fields_and_context() -> None:
    seen: list[ToolContext] = []

    @tool(name="greet_user")
    def greet(name: Annotated[str, Field(min_length=1)], ctx: ToolContext, shout: bool = False) -> str:
        """Greet someone.

        :param name: Who to greet.
        :param shout: Use capitals.
        """
        seen.append(ctx)
        return f"hello {name}".upper() if shout else f"hello {name}"

    assert greet.name == "greet_user"
    assert set(greet.parameters["properties"]) == {"name", "shout"}  # ctx is not shown to the model
    assert greet.parameters["properties"]["name"]["minLength"] == 1
    assert greet.parameters["properties"]["shout"]["description"] == "Use capitals."
    ctx = ToolContext(call_id="c1")
    assert greet.call({"name": "ada", "shout": True}, ctx) == "HELLO ADA"
    assert seen == [ctx]


def test_explicit_form_matches_decorator_form() -> None:
    def handler(args: dict[str, object]) -> str:
        return f"{args['a']}"

    explicit = Tool(
        name="echo_a",
        description="Echo a.",
        parameters={"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
        handler=handler,
        toolset="misc",
        requires_env=["X_TOKEN"],
    )
    assert explicit.call({"a": "hi"}) == "hi"
    assert explicit.requires_env == ("X_TOKEN",)
    no_type = Tool(name="t", description="d", parameters={"properties": {}})
    assert no_type.parameters["type"] == "object"


@pytest.mark.parametrize("name", ["", "1abc", "has space", "x" * 65, "dots.not.allowed", "ünïcode"])
def test_invalid_names_are_rejected_with_the_rule(name: str) -> None:
    with pytest.raises(ToolDefinitionError, match="invalid tool name"):
        Tool(name=name, description="d", parameters={"type": "object"})


@pytest.mark.parametrize(
    ("parameters", "message"),
    [
        ([], "must be a JSON-schema object"),
        ({"type": "string"}, "of type 'object', got type 'string'"),
        ({"type": "object", "properties": []}, "properties must be an object"),
        ({"type": "object", "properties": {"a": 3}}, r"properties.a must be a schema object"),
        ({"type": "object", "required": "a"}, "required must be a list"),
    ],
)
def test_bad_schemas_say_what_is_wrong(parameters: object, message: str) -> None:
    with pytest.raises(ToolDefinitionError, match=message):
        Tool(name="t", description="d", parameters=parameters)  # type: ignore[arg-type]


def test_unknown_options_are_errors_naming_them() -> None:
    with pytest.raises(ToolDefinitionError, match=r"unknown option.*colour"):

        @tool(colour="red")
        def f() -> None:
            """F."""

    t = Tool(name="t", description="d", parameters={})
    with pytest.raises(ToolDefinitionError, match=r"unknown option.*flavour"):
        t.with_options(flavour=1)
    assert t.with_options(timeout=3).timeout == 3


def test_option_values_are_checked() -> None:
    with pytest.raises(ToolDefinitionError, match="timeout must be > 0"):
        Tool(name="t", description="d", parameters={}, timeout=0)
    with pytest.raises(ToolDefinitionError, match="requires_env must be a list of strings"):
        Tool(name="t", description="d", parameters={}, requires_env=[1])  # type: ignore[list-item]
    with pytest.raises(ToolDefinitionError, match="handler must be callable"):
        Tool(name="t", description="d", parameters={}, handler="nope")  # type: ignore[arg-type]


def test_description_templates_must_agree_with_references() -> None:
    ok = Tool(
        name="browse",
        description="Open a page.{{if web_search}} Prefer web_search for lookups.{{end}}",
        parameters={},
        references=("web_search",),
    )
    assert ok.references == ("web_search",)
    with pytest.raises(ToolDefinitionError, match="not listed in references"):
        Tool(name="b", description="x{{if web_search}}y{{end}}", parameters={})
    with pytest.raises(ToolDefinitionError, match="no \\{\\{if NAME\\}\\}"):
        Tool(name="b", description="mentions web_search", parameters={}, references=("web_search",))
    with pytest.raises(ToolDefinitionError, match="unbalanced"):
        Tool(name="b", description="x{{if web_search}}y", parameters={}, references=("web_search",))


def test_shell_and_vision_flags() -> None:
    assert Tool(name="a", description="d", parameters={}, shell=True).runs_shell
    assert Tool(name="b", description="d", parameters={}, group="bash").runs_shell  # DeerFlow's group
    assert not Tool(name="c", description="d", parameters={}, group="file:read").runs_shell
    assert Tool(name="v", description="d", parameters={}, needs_vision=True).needs_vision


def test_availability_is_truthy() -> None:
    assert Availability.yes() and not Availability.no("binary x not found")
    assert Availability.no("why").reason == "why"


def _plain(
    a: str,
    b: int = 3,
    c: float = 0.5,
    d: bool = False,
    e: list[str] | None = None,
    f: Literal["x", "y"] = "x",
    g: list[int] | None = None,
    h: str | None = None,
) -> None:
    """Plain.

    Args:
        a: A.
        e: E.
    """


def test_fast_schema_equals_pydantics_and_the_model_is_built_lazily() -> None:
    import inspect

    from tooldeck._core.decorator import parse_docstring
    from tooldeck._core.schemas.arguments import Param, build_model, model_schema

    t = tool(_plain)
    assert not t.arg_model.built  # not built at definition time
    _, docs = parse_docstring(inspect.getdoc(_plain) or "")
    params = [
        Param(n, p.annotation, ... if p.default is p.empty else p.default)
        for n, p in inspect.signature(_plain, eval_str=True).parameters.items()
    ]
    reference = model_schema("plain", build_model("plain", params, docs, frozenset()), params)
    assert t.parameters == reference
    assert t.arg_model.model() is t.arg_model.model()  # built once, on first use
    assert t.arg_model.model_validate({"a": "x", "b": "7"}).b == 7


def _constrained(
    n: Annotated[int, Ge(1), Le(10)] = 1,
    x: Annotated[float, Gt(0)] = 0.5,
    tags: Annotated[list[str], MinLen(1)] | None = None,
    word: Annotated[str, MaxLen(5)] = "a",
) -> None:
    """Constrained."""


def test_fast_schema_handles_annotated_types_constraints_like_pydantic() -> None:
    import inspect

    from tooldeck._core.schemas.arguments import Param, build_model, model_schema

    t = tool(_constrained)
    assert not t.arg_model.built
    params = [
        Param(n, p.annotation, p.default)
        for n, p in inspect.signature(_constrained, eval_str=True).parameters.items()
    ]
    assert t.parameters == model_schema("c", build_model("c", params, {}, frozenset()), params)
    with pytest.raises(Exception, match="less than or equal to 10"):
        t.arg_model.model_validate({"n": 11})


class _TaskBase(TypedDict):
    goal: str


class _Task(_TaskBase, total=False):
    """A task.

    Args:
        goal: What to do.
        notes: Extra notes.
    """

    notes: list[str]


def test_typeddict_parameters_are_inlined_with_required_keys_and_docs() -> None:
    @tool
    def plan(tasks: list[_Task]) -> int:
        """Plan."""
        return len(tasks)

    items = plan.parameters["properties"]["tasks"]["items"]
    assert items["required"] == ["goal"] and items["properties"]["goal"]["description"] == "What to do."
    assert items["properties"]["notes"] == {
        "items": {"type": "string"},
        "type": "array",
        "description": "Extra notes.",
    }
    assert plan.call({"tasks": [{"goal": "a"}, {"goal": "b", "notes": ["x"]}]}) == 2
    with pytest.raises(Exception, match="goal"):
        plan.call({"tasks": [{"notes": []}]})


def _bounded(limit: Annotated[int, Bounds(1, 500)] = 50, offset: Annotated[int, Bounds(0)] = 0) -> int:
    """Bounded."""
    return limit + offset


def test_bounds_marker_gives_the_same_schema_and_checks_as_annotated_types() -> None:
    t = tool(_bounded)
    props = t.parameters["properties"]
    assert props["limit"] == {"type": "integer", "minimum": 1, "maximum": 500, "default": 50}
    assert props["offset"] == {"type": "integer", "minimum": 0, "default": 0}
    assert t.call({"limit": 3, "offset": 2}) == 5
    with pytest.raises(Exception, match="less than or equal to 500"):
        t.call({"limit": 501})
    with pytest.raises(Exception, match="greater than or equal to 0"):
        t.call({"offset": -1})
