"""`@tool` against the cases of openai-agents' function-schema and function-tool suites, in our
API: each test names the peer case it stands for. Where the peer's behaviour is not ours, the
test pins what we do instead (a refusal that says why, or the documented difference)."""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from tooldeck import ToolContext, ToolDefinitionError, tool
from tooldeck._core.dialects import get_dialect

from .parity_helpers import props, refused, run


def test_no_args_function() -> None:
    @tool
    def no_args_function() -> str:
        """This function has no args."""
        return "ok"

    assert no_args_function.description == "This function has no args."
    assert props(no_args_function) == {} and no_args_function.context_param is None
    assert run(no_args_function, "") == "ok"


def test_no_args_function_with_context() -> None:
    @tool
    def with_context(ctx: ToolContext) -> str:
        return f"ok {ctx.tool_name}"

    assert props(with_context) == {} and with_context.context_param == "ctx"
    assert run(with_context, {}) == "ok with_context"


def test_simple_function() -> None:
    @tool
    def simple_function(a: int, b: int = 5) -> int:
        """
        Args:
            a: The first argument
            b: The second argument

        Returns:
            The sum of a and b
        """
        return a + b

    assert props(simple_function)["a"]["description"] == "The first argument"
    assert props(simple_function)["b"]["description"] == "The second argument"
    assert run(simple_function, {"a": 3}) == "8" and run(simple_function, {"a": 3, "b": 10}) == "13"
    assert "field 'a'" in refused(simple_function, {"a": "not an integer"})


def test_varargs_function_extra_keywords_are_top_level() -> None:
    """Differs on purpose: **kwargs are further top-level properties (pydantic-ai's form), not a
    nested 'kwargs' object; the two peers disagree and cannot both be matched."""

    @tool
    def varargs_function(x: int, *numbers: float, flag: bool = False, **kwargs: Any) -> str:
        return repr((x, numbers, flag, kwargs))

    assert props(varargs_function)["numbers"] == {"items": {"type": "number"}, "type": "array"}
    assert varargs_function.parameters["additionalProperties"] is True
    sent = {"x": 10, "numbers": [1.1, 2.2, 3.3], "flag": True, "extra1": "hello", "extra2": 42}
    assert run(varargs_function, sent) == repr((10, (1.1, 2.2, 3.3), True, {"extra1": "hello", "extra2": 42}))
    assert run(varargs_function, {"x": 7, "numbers": [9.9], "some_key": "v"}) == repr(
        (7, (9.9,), False, {"some_key": "v"})
    )
    assert "missing required field 'x'" in refused(varargs_function, {"numbers": [1.1]})


def test_the_docstring_of_extra_keywords_is_kept() -> None:
    """openai-agents keeps what the docstring says of **kwargs; here it describes each further
    property (`additionalProperties`), whatever the docstring style and the values' type."""

    @tool
    def tag(name: str, **labels: int) -> str:
        """Tag a resource.

        Args:
            name: The resource.
            **labels: Label weights, one per label name.
        """
        return repr(sorted(labels.items()))

    @tool
    def note(**fields: Any) -> str:
        """Write a note.

        :param fields: Any further field of the note.
        """
        return repr(fields)

    assert tag.parameters["additionalProperties"] == {
        "description": "Label weights, one per label name.",
        "type": "integer",
    }
    assert note.parameters["additionalProperties"] == {"description": "Any further field of the note."}
    assert run(tag, {"name": "db", "hot": "2"}) == "[('hot', 2)]"
    assert run(note, {"title": "x", "n": 1}) == repr({"title": "x", "n": 1})
    assert "field 'hot'" in refused(tag, {"name": "db", "hot": "warm"})


class Foo(TypedDict):
    a: int
    b: str


class InnerModel(BaseModel):
    a: int
    b: str


class OuterModel(BaseModel):
    inner: InnerModel
    foo: Foo


def test_nested_data_function() -> None:
    @tool
    def complex_args_function(model: OuterModel) -> str:
        return f"{model.inner.a}, {model.inner.b}, {model.foo['a']}, {model.foo['b']}"

    sent = {"model": {"inner": {"a": 1, "b": "hello"}, "foo": {"a": 2, "b": "world"}}}
    assert run(complex_args_function, sent) == "1, hello, 2, world"


def test_complex_args_and_docs_function() -> None:
    @tool
    def complex_args_and_docs(model: OuterModel, some_flag: int = 0) -> str:
        """
        This function takes a model and a flag, and returns a string.

        Args:
            model: A model with an inner and foo field
            some_flag: An optional flag with a default of 0

        Returns:
            A string with the values of the model and flag
        """
        return f"{model.inner.a}, {model.foo['b']}, {some_flag}"

    assert props(complex_args_and_docs)["model"]["description"] == "A model with an inner and foo field"
    assert props(complex_args_and_docs)["some_flag"]["description"] == "An optional flag with a default of 0"
    model = {"inner": {"a": 1, "b": "hello"}, "foo": {"a": 2, "b": "world"}}
    assert run(complex_args_and_docs, {"model": model}) == "1, world, 0"
    assert "some_flag" in refused(complex_args_and_docs, {"model": model, "some_flag": "not an int"})


def test_function_with_context() -> None:
    @tool
    def function_with_context(ctx: ToolContext, a: int, b: int = 5) -> int:
        assert isinstance(ctx, ToolContext)
        return a + b

    assert set(props(function_with_context)) == {"a", "b"}
    assert run(function_with_context, {"a": 1, "b": 2}) == "3"


class MyClass:
    def foo(self, a: int, b: int = 5) -> int:
        return a + b

    def foo_ctx(self, ctx: ToolContext, a: int, b: int = 5) -> int:
        return a + b

    @classmethod
    def bar(cls, a: int, b: int = 5) -> int:
        return a + b

    @classmethod
    def bar_ctx(cls, ctx: ToolContext, a: int, b: int = 5) -> int:
        return a + b

    @staticmethod
    def baz(a: int, b: int = 5) -> int:
        return a + b

    @staticmethod
    def baz_ctx(ctx: ToolContext, a: int, b: int = 5) -> int:
        return a + b


@pytest.mark.parametrize(
    "method",
    [MyClass().foo, MyClass().foo_ctx, MyClass.bar, MyClass.bar_ctx, MyClass.baz, MyClass.baz_ctx],
    ids=["instance", "instance_ctx", "classmethod", "classmethod_ctx", "staticmethod", "staticmethod_ctx"],
)
def test_class_based_functions(method: Any) -> None:
    t = tool(method)
    assert t.name == method.__name__ and set(props(t)) == {"a", "b"}
    assert (t.context_param == "ctx") == method.__name__.endswith("_ctx")
    assert run(t, {"a": 1, "b": 2}) == "3"


class MyEnum(str, Enum):  # noqa: UP042 - the peer's case is a str-mixin Enum
    FOO = "foo"
    BAR = "bar"
    BAZ = "baz"


def test_enum_and_literal_function() -> None:
    @tool
    def enum_and_literal(a: MyEnum, b: Literal["a", "b", "c"]) -> str:
        return f"{a.value} {b}"

    assert enum_and_literal.parameters["$defs"]["MyEnum"]["enum"] == ["foo", "bar", "baz"]
    assert props(enum_and_literal)["a"] == {"$ref": "#/$defs/MyEnum"}
    assert props(enum_and_literal)["b"]["enum"] == ["a", "b", "c"]
    assert run(enum_and_literal, {"a": "foo", "b": "a"}) == "foo a"
    refused(enum_and_literal, {"a": "not an enum value", "b": "a"})
    refused(enum_and_literal, {"a": "foo", "b": "not a literal value"})


def test_context_in_any_position() -> None:
    """Differs on purpose (a superset): the peer refuses a context parameter after the first;
    tooldeck passes the context by keyword, so any position works and it stays hidden."""

    @tool
    def func(a: int, context: ToolContext) -> str:
        return f"{a} {context.tool_name}"

    assert set(props(func)) == {"a"} and run(func, {"a": 1}) == "1 func"


def test_var_positional_tuple_annotation_is_refused() -> None:
    """Refused on purpose: `*args: tuple[int, ...]` means each argument is a tuple (PEP 484);
    the peer reads it as the whole tuple, which contradicts the function it annotates."""
    with pytest.raises(ToolDefinitionError, match=r"annotate \*args with the type of one argument"):

        @tool
        def func(*args: tuple[int, ...]) -> int:
            return sum(sum(a) for a in args)


def test_var_keyword_dict_annotation_is_refused() -> None:
    """Refused on purpose, for the same reason: `**kwargs: dict[str, int]` means each value is a
    dict."""
    with pytest.raises(ToolDefinitionError, match=r"annotate \*\*kwargs with the type of one value"):

        @tool
        def func(**kwargs: dict[str, int]) -> Any:
            return kwargs


def test_mapping_parameter_and_strict_mode() -> None:
    """Differs on purpose: strict mode is chosen per render, not per definition; a mapping has no
    strict form, so the tool is rendered non-strict and the report says why."""

    @tool
    def func_with_mapping(test_one: Mapping[str, int]) -> str:
        return str(sorted(test_one.items()))

    assert props(func_with_mapping)["test_one"] == {
        "additionalProperties": {"type": "integer"},
        "type": "object",
    }
    rendered = get_dialect("openai", strict=True).render(
        func_with_mapping.name, "d", func_with_mapping.parameters
    )
    assert not rendered.strict and "additionalProperties" in (rendered.strict_reason or "")
    assert run(func_with_mapping, {"test_one": {"b": 2, "a": 1}}) == "[('a', 1), ('b', 2)]"


def test_name_override_without_docstring() -> None:
    def foo(x: int) -> int:
        return x

    assert tool(name="custom")(foo).name == "custom"


def test_field_as_default_keeps_constraints() -> None:
    @tool
    def func(my_number: int = Field(..., gt=10, le=100)) -> int:
        return my_number * 2

    schema = props(func)["my_number"]
    assert (schema["type"], schema["exclusiveMinimum"], schema["maximum"]) == ("integer", 10, 100)
    assert func.parameters["required"] == ["my_number"]
    assert run(func, {"my_number": 50}) == "100"
    assert "my_number" in refused(func, {"my_number": 5}) and "my_number" in refused(func, {"my_number": 150})
    assert "missing required field 'my_number'" in refused(func, {})


def test_field_as_default_optional() -> None:
    @tool
    def func(required_param: str, optional_param: float = Field(default=5.0, ge=0.0)) -> str:
        return f"{required_param}: {optional_param}"

    assert props(func)["optional_param"] == {"default": 5.0, "minimum": 0.0, "type": "number"}
    assert run(func, {"required_param": "test"}) == "test: 5.0"
    assert run(func, {"required_param": "test", "optional_param": 10.5}) == "test: 10.5"
    refused(func, {"required_param": "test", "optional_param": -1.0})


def test_annotated_strings_describe_parameters() -> None:
    @tool
    def add(a: Annotated[int, "First number to add"], b: Annotated[int, "Second number to add"]) -> int:
        return a + b

    assert props(add)["a"]["description"] == "First number to add"
    assert props(add)["b"]["description"] == "Second number to add"
    assert run(add, {"a": 1, "b": 2}) == "3"


def test_docstring_wins_over_annotated_strings() -> None:
    @tool
    def add(
        a: Annotated[int, "Annotated description for a"], b: Annotated[int, "Annotated description for b"]
    ) -> int:
        """Adds two integers.

        Args:
            a: Docstring provided description.
        """
        return a + b

    assert props(add)["a"]["description"] == "Docstring provided description."
    assert props(add)["b"]["description"] == "Annotated description for b"


def test_docstring_wins_over_a_field_default_description() -> None:
    @tool
    def func(
        param_with_field_desc: int = Field(..., description="Field description"),
        param_with_both: str = Field(default="hello", description="Field description"),
    ) -> str:
        """
        Function with both field and docstring descriptions.

        Args:
            param_with_field_desc: Docstring description
            param_with_both: Docstring description
        """
        return f"{param_with_field_desc}: {param_with_both}"

    assert props(func)["param_with_field_desc"]["description"] == "Docstring description"
    assert props(func)["param_with_both"]["description"] == "Docstring description"


def test_field_description_only() -> None:
    @tool
    def func(
        param_with_field_desc: int = Field(..., description="Field description only"),
        param_without_desc: str = Field(default="hello"),
    ) -> str:
        return f"{param_with_field_desc}: {param_without_desc}"

    assert props(func)["param_with_field_desc"]["description"] == "Field description only"
    assert "description" not in props(func)["param_without_desc"]
    assert run(func, {"param_with_field_desc": 1}) == "1: hello"


STRING_FIELD = Field(..., min_length=3, max_length=20, pattern=r"^[A-Za-z]+$")


@pytest.mark.parametrize("style", ["default", "annotated"])
def test_field_string_constraints(style: str) -> None:
    if style == "default":

        def greet(name: str = STRING_FIELD) -> str:
            return f"Hello, {name}!"

    else:

        def greet(name: Annotated[str, STRING_FIELD]) -> str:  # type: ignore[misc]
            return f"Hello, {name}!"

    t = tool(greet)
    schema = props(t)["name"]
    assert (schema["minLength"], schema["maxLength"], schema["pattern"]) == (3, 20, r"^[A-Za-z]+$")
    assert run(t, {"name": "Alice"}) == "Hello, Alice!"
    for bad in ("Al", "A" * 25, "Alice123"):
        assert "field 'name'" in refused(t, {"name": bad})


@pytest.mark.parametrize("style", ["default", "annotated"])
def test_field_multiple_constraints(style: str) -> None:
    if style == "default":

        def score(
            score: int = Field(..., ge=0, le=100, description="Score from 0 to 100"),
            name: str = Field(default="Unknown", min_length=1, max_length=50),
            factor: float = Field(default=1.0, gt=0.0, description="Positive multiplier"),
        ) -> str:
            return f"{name} scored {score * factor}"

    else:

        def score(  # type: ignore[misc]
            score: Annotated[int, Field(..., ge=0, le=100, description="Score from 0 to 100")],
            name: Annotated[str, Field(default="Unknown", min_length=1, max_length=50)],
            factor: Annotated[float, Field(default=1.0, gt=0.0, description="Positive multiplier")],
        ) -> str:
            return f"{name} scored {score * factor}"

    t = tool(score)
    p = props(t)
    assert (p["score"]["minimum"], p["score"]["maximum"], p["score"]["description"]) == (
        0,
        100,
        "Score from 0 to 100",
    )
    assert (p["name"]["minLength"], p["name"]["maxLength"], p["name"]["default"]) == (1, 50, "Unknown")
    assert (p["factor"]["exclusiveMinimum"], p["factor"]["default"]) == (0.0, 1.0)
    assert t.parameters["required"] == ["score"]
    assert run(t, {"score": 85}) == "Unknown scored 85.0"
    assert run(t, {"score": 90, "name": "Alice", "factor": 1.5}) == "Alice scored 135.0"
    for bad in ({"score": 150}, {"score": 50, "name": ""}, {"score": 50, "factor": 0.0}):
        refused(t, bad)


def test_annotated_field_required_and_optional() -> None:
    @tool
    def required(my_number: Annotated[int, Field(..., gt=10, le=100)]) -> int:
        return my_number * 2

    @tool
    def optional(required_param: str, optional_param: Annotated[float, Field(default=5.0, ge=0.0)]) -> str:
        return f"{required_param}: {optional_param}"

    assert (
        props(required)["my_number"]["exclusiveMinimum"] == 10 and run(required, {"my_number": 50}) == "100"
    )
    refused(required, {"my_number": 5})
    assert props(optional)["optional_param"]["default"] == 5.0
    assert run(optional, {"required_param": "test"}) == "test: 5.0"
    refused(optional, {"required_param": "test", "optional_param": -1.0})


def test_method_self_param_skipped() -> None:
    class MyTools:
        def greet(self, name: str) -> str:
            return f"Hello, {name}"

    t = tool(MyTools().greet)
    assert set(props(t)) == {"name"} and t.parameters["required"] == ["name"]
    assert run(t, {"name": "Ada"}) == "Hello, Ada"


def test_unbound_cls_first_parameter_is_refused() -> None:
    """Refused on purpose: the peer drops an unannotated first `cls` from the schema, but a call
    would then miss it; the bound method is what can be called."""
    namespace: dict[str, Any] = {}
    exec("def greet(cls, name: str) -> str: ...", namespace)
    with pytest.raises(ToolDefinitionError, match="unbound method"):
        tool(namespace["greet"])


def test_method_self_with_context_second_param() -> None:
    class MyTools:
        def greet(self, ctx: ToolContext, name: str) -> str:
            return f"Hello, {name}"

    t = tool(MyTools().greet)
    assert set(props(t)) == {"name"} and t.context_param == "ctx"


def test_regular_unannotated_first_param_still_included() -> None:
    @tool
    def process(data, flag: bool = False) -> str:  # type: ignore[no-untyped-def]
        return str(data)

    assert props(process)["data"] == {} and run(process, {"data": [1]}) == "[1]"
