"""`@tool` against the cases of pydantic-ai's tool-schema suites (its function-schema and tools
tests), in our API: each test names the peer case it stands for. pydantic-ai's `takes_ctx`
checks become checks of which parameter gets the `ToolContext`."""

from __future__ import annotations

import functools
import logging
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field, WithJsonSchema
from typing_extensions import TypedDict

from tooldeck import Tool, ToolContext, ToolDefinitionError, tool

from .parity_helpers import props, run

# -- which parameter is the context (pydantic-ai's takes_ctx cases) ---------------------------


def _context_of(fn: Any) -> str | None:
    return tool(name="t")(fn).context_param


def test_context_of_plain_functions() -> None:
    def with_ctx(ctx: ToolContext, x: int) -> str: ...
    def without_ctx(x: int, y: str) -> str: ...
    def no_params() -> str: ...
    def no_annotations(ctx, x): ...  # type: ignore[no-untyped-def]
    def wrong_annotation(ctx: str, x: int) -> str: ...

    assert [_context_of(f) for f in (with_ctx, without_ctx, no_params, no_annotations, wrong_annotation)] == [
        "ctx",
        None,
        None,
        None,
        None,
    ]
    assert tool(name="lam")(lambda ctx, x: f"{ctx} {x}").context_param is None


def test_context_not_first_is_still_the_context() -> None:
    """Differs on purpose: pydantic-ai only looks at the first parameter; tooldeck passes the
    context by keyword, so it is recognised (and hidden from the model) anywhere."""

    def ctx_not_first(x: int, ctx: ToolContext) -> str: ...

    class CallableCtxNotFirst:
        def __call__(self, x: int, ctx: ToolContext) -> str: ...

    assert _context_of(ctx_not_first) == "ctx" and _context_of(CallableCtxNotFirst()) == "ctx"


def test_context_of_partials() -> None:
    def original(ctx: ToolContext, x: int, y: str) -> str:
        return f"{x} {y} {ctx.tool_name}"

    def plain(x: int, y: str, z: float) -> str:
        return f"{x} {y} {z}"

    bound_y = tool(name="p1")(functools.partial(original, y="bound"))
    assert bound_y.context_param == "ctx" and set(props(bound_y)) == {"x"}
    assert run(bound_y, {"x": 1}) == "1 bound p1"
    assert _context_of(functools.partial(plain, z=3.14)) is None
    assert _context_of(functools.partial(original, ctx=ToolContext())) == "ctx"  # still the call's context


def test_context_of_callable_objects_and_methods() -> None:
    class CallableWithCtx:
        def __call__(self, ctx: ToolContext, x: int) -> str: ...

    class CallableWithoutCtx:
        def __call__(self, x: int, y: str) -> str: ...

    class Methods:
        def method_with_ctx(self, ctx: ToolContext, x: int) -> str: ...
        def method_without_ctx(self, x: int, y: str) -> str: ...
        @staticmethod
        def static_with_ctx(ctx: ToolContext, x: int) -> str: ...
        @staticmethod
        def static_without_ctx(x: int, y: str) -> str: ...
        @classmethod
        def class_with_ctx(cls, ctx: ToolContext, x: int) -> str: ...
        @classmethod
        def class_without_ctx(cls, x: int, y: str) -> str: ...

    obj = Methods()
    cases = [CallableWithCtx(), CallableWithoutCtx(), obj.method_with_ctx, obj.method_without_ctx,
             Methods.static_with_ctx, Methods.static_without_ctx, Methods.class_with_ctx, Methods.class_without_ctx]  # fmt: skip
    assert [_context_of(c) for c in cases] == ["ctx", None] * 4


def test_builtins_are_refused() -> None:
    for builtin in (min, max):
        with pytest.raises(
            ToolDefinitionError, match=rf"cannot read the signature of <built-in function {builtin.__name__}>"
        ):
            tool(builtin)
    for builtin_type in (str, int):
        with pytest.raises(ToolDefinitionError, match="cannot read the signature"):
            tool(builtin_type)


# -- docstrings ---------------------------------------------------------------------------------


async def google_style_docstring(foo: int, bar: str) -> str:
    """Do foobar stuff, a lot.

    Args:
        foo: The foo thing.
        bar: The bar thing.
    """
    return f"{foo} {bar}"


def sphinx_style_docstring(foo: int, /) -> str:
    """Sphinx style docstring.

    :param foo: The foo thing.
    """
    return str(foo)


def numpy_style_docstring(*, foo: int, bar: str) -> str:
    """Numpy style docstring.

    Parameters
    ----------
    foo : int
        The foo thing.
    bar : str
        The bar thing.
    """
    return f"{foo} {bar}"


FOO_BAR = {
    "additionalProperties": False,
    "properties": {
        "foo": {"description": "The foo thing.", "type": "integer"},
        "bar": {"description": "The bar thing.", "type": "string"},
    },
    "required": ["foo", "bar"],
    "type": "object",
}


def test_docstring_styles() -> None:
    google, numpy = tool(google_style_docstring), tool(numpy_style_docstring)
    assert (google.description, google.parameters) == ("Do foobar stuff, a lot.", FOO_BAR)
    assert (numpy.description, numpy.parameters) == ("Numpy style docstring.", FOO_BAR)
    sphinx = tool(sphinx_style_docstring)
    assert sphinx.description == "Sphinx style docstring."
    assert sphinx.parameters == {
        "additionalProperties": False,
        "properties": {"foo": {"description": "The foo thing.", "type": "integer"}},
        "required": ["foo"],
        "type": "object",
    }
    assert run(sphinx, {"foo": 4}) == "4"  # positional-only: passed by position
    assert run(numpy, {"foo": 1, "bar": "b"}) == "1 b" and run(google, {"foo": 1, "bar": "b"}) == "1 b"


RETURNS_XML = "<returns>\n<type>str</type>\n<description>The result as a string{}.</description>\n</returns>"


def test_returns_sections_in_each_style() -> None:
    def google(x: int) -> str:
        """A function that does something.

        Args:
            x: The input value.

        Returns:
            str: The result as a string.
        """
        return str(x)

    def sphinx(x: int) -> str:
        """A sphinx function with returns.

        :param x: The input value.
        :rtype: str
        :return: The result as a string with type.
        """
        return str(x)

    def numpy(x: int) -> str:
        """A numpy function with returns.

        Parameters
        ----------
        x : int
            The input value.

        Returns
        -------
        str
            The result as a string with type.
        """
        return str(x)

    for fn, summary, suffix in (
        (google, "A function that does something.", ""),
        (sphinx, "A sphinx function with returns.", " with type"),
        (numpy, "A numpy function with returns.", " with type"),
    ):
        t = tool(fn)
        assert t.description == f"<summary>{summary}</summary>\n" + RETURNS_XML.format(suffix)
        assert props(t) == {"x": {"description": "The input value.", "type": "integer"}}


def test_only_returns_type() -> None:
    @tool
    def only_returns_type() -> str:
        """

        Returns:
            str: The result as a string.
        """
        return "foo"

    assert only_returns_type.description == RETURNS_XML.format("")
    assert only_returns_type.parameters == {"additionalProperties": False, "properties": {}, "type": "object"}


def test_docstring_unknown_and_typed_extra_keywords() -> None:
    @tool
    def unknown_docstring(**kwargs: int) -> str:
        """Unknown style docstring."""
        return str(sorted(kwargs.items()))

    assert unknown_docstring.description == "Unknown style docstring."
    assert unknown_docstring.parameters == {
        "additionalProperties": {"type": "integer"},
        "properties": {},
        "type": "object",
    }
    assert run(unknown_docstring, {"b": 2, "a": "1"}) == "[('a', 1), ('b', 2)]"


def test_docstring_without_body_and_field_description_in_annotated() -> None:
    async def no_body(foo: int, bar: Annotated[str, Field(description="from fields")]) -> str:
        """
        Args:
            foo: The foo thing.
            bar: The bar thing.
        """
        return f"{foo} {bar}"

    t = tool(no_body)
    assert t.description == ""
    assert t.parameters == {
        "additionalProperties": False,
        "properties": {
            "foo": {"description": "The foo thing.", "type": "integer"},
            "bar": {"description": "from fields", "type": "string"},
        },
        "required": ["foo", "bar"],
        "type": "object",
    }


def test_no_return_description_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    @tool
    async def documented() -> str:
        """A tool that documents what it returns but doesn't have a return annotation in the docstring."""
        return ""

    with caplog.at_level(logging.DEBUG):
        assert documented.description.startswith("A tool that documents")
    assert caplog.messages == []


# -- models, requirements, schemas --------------------------------------------------------------


class Foo(BaseModel):
    x: int
    y: str


def test_takes_just_a_model_keeps_it_a_named_field() -> None:
    """Differs on purpose: pydantic-ai makes a lone model parameter the whole schema; tooldeck
    keeps every parameter a named property (openai-agents' form), so a schema does not change
    shape when a second parameter is added."""

    @tool
    def takes_just_model(model: Foo) -> str:
        return f"{model.x} {model.y}"

    assert props(takes_just_model) == {"model": {"$ref": "#/$defs/Foo"}}
    assert run(takes_just_model, {"model": {"x": 0, "y": "a"}}) == "0 a"


def test_takes_model_and_int() -> None:
    @tool
    def takes_model(model: Foo, z: int) -> str:
        return f"{model.x} {model.y} {z}"

    assert takes_model.parameters == {
        "$defs": {
            "Foo": {
                "properties": {"x": {"type": "integer"}, "y": {"type": "string"}},
                "required": ["x", "y"],
                "title": "Foo",
                "type": "object",
            }
        },
        "properties": {"model": {"$ref": "#/$defs/Foo"}, "z": {"type": "integer"}},
        "required": ["model", "z"],
        "type": "object",
        "additionalProperties": False,
    }
    assert run(takes_model, {"model": {"x": 0, "y": "a"}, "z": 0}) == "0 a 0"


def test_require_parameter_descriptions() -> None:
    async def missing(foo: int, bar: str) -> str:
        """Describes function ops, but missing parameter descriptions."""
        return f"{foo} {bar}"

    with pytest.raises(ToolDefinitionError, match="missing parameter descriptions for foo, bar"):
        tool(require_parameter_descriptions=True)(missing)

    async def complete(ctx: ToolContext, foo: int) -> str:
        """Describes function ops, but missing ctx description and contains non-existent parameter description.

        :param foo: The foo thing.
        :param bar: The bar thing.
        """
        return f"{foo}"

    assert tool(require_parameter_descriptions=True)(complete).require_parameter_descriptions
    with pytest.raises(ToolDefinitionError, match="missing parameter descriptions for q"):
        Tool(name="e", description="d", parameters={"properties": {"q": {"type": "string"}}},
             require_parameter_descriptions=True)  # fmt: skip


def test_required_parameters_and_calls_without_optional_ones() -> None:
    @tool
    def my_tool(ctx: ToolContext, a: int, b: int = 2) -> int:
        return a + b

    @tool
    def my_tool_plain(*, a: int = 3, b: int) -> int:
        return a * b

    @tool
    def no_args_tool() -> None:
        return None

    assert props(my_tool) == {"a": {"type": "integer"}, "b": {"default": 2, "type": "integer"}}
    assert my_tool.parameters["required"] == ["a"] and my_tool_plain.parameters["required"] == ["b"]
    assert [run(my_tool, {"a": 13}), run(my_tool, {"a": 13, "b": 4})] == ["15", "17"]
    assert [run(my_tool_plain, {"b": 17}), run(my_tool_plain, {"a": 4, "b": 17})] == ["51", "68"]
    assert run(no_args_tool, "") == "null"


def test_with_json_schema_and_open_keywords() -> None:
    def my_tool(x: Annotated[str | None, WithJsonSchema({"type": "string"})] = None, **kwargs: Any) -> Any:
        return x

    assert tool(my_tool).parameters == {
        "additionalProperties": True,
        "properties": {"x": {"default": None, "type": "string"}},
        "type": "object",
    }


class Data(TypedDict):
    a: int
    """The first parameter"""
    b: int
    """The second parameter"""


def test_typed_dict_attribute_docstrings() -> None:
    """The attribute docstrings are read; the TypedDict stays a named field (see
    test_takes_just_a_model_keeps_it_a_named_field)."""

    @tool
    def get_score(data: Data) -> int:
        return data["a"] + data["b"]

    assert props(get_score)["data"] == {
        "properties": {
            "a": {"description": "The first parameter", "type": "integer"},
            "b": {"description": "The second parameter", "type": "integer"},
        },
        "required": ["a", "b"],
        "type": "object",
    }
    assert run(get_score, {"data": {"a": 1, "b": 2}}) == "3"


SCHEMA_ONE_TWO = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "one": {"description": "first argument", "type": "string"},
        "two": {"description": "second argument", "type": "object"},
    },
    "required": ["one", "two"],
}


def test_explicit_schema_with_a_matching_handler() -> None:
    def function(*args: Any, **kwargs: Any) -> str:
        assert not args and set(kwargs) == {"one", "two"}
        return "I like being called like this"

    async def async_function(ctx: ToolContext, **kwargs: Any) -> str:
        assert set(kwargs) == {"one", "two"}
        return f"{ctx.tool_name}: called"

    sync = Tool(
        name="foobar", description="d", parameters=SCHEMA_ONE_TWO, handler=function, call_style="kwargs"
    )
    assert run(sync, {"one": "a", "two": {}}) == "I like being called like this"
    with_ctx = Tool(
        name="foobaz", description="d", parameters=SCHEMA_ONE_TWO, handler=async_function,
        call_style="kwargs", context_param="ctx",
    )  # fmt: skip
    assert run(with_ctx, {"one": "a", "two": {}}) == "foobaz: called"


def test_explicit_schema_with_a_handler_that_does_not_fit_is_refused() -> None:
    """Refused on purpose at definition (the peer raises TypeError on the first call)."""

    def function(three: str, four: int) -> str:
        return "never called"

    with pytest.raises(ToolDefinitionError, match="takes no argument one, two; it needs four, three"):
        Tool(name="foobar", description="d", parameters=SCHEMA_ONE_TWO, handler=function, call_style="kwargs")
