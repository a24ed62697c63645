"""Validate arguments against a tool's JSON schema (JSON Schema 2020-12), with the lenient
coercion models need.

Models often send `"5"` for an integer, `"0.5"` for a number, `"true"` for a boolean, or a JSON
array encoded as a string. In lenient mode these are converted to the declared type; anything
that still does not fit is an error naming the field (`items[2].name`) and what was expected.
A value that needed converting is checked again, strictly, after conversion, so a lenient pass
never lets through a value the schema refuses.

Strict mode is exact: it accepts what a conforming JSON-Schema validator accepts. Every keyword
of the 2020-12 validation and applicator vocabularies is enforced (type, enum, const, numeric
and size bounds, pattern, uniqueItems, required, dependentRequired, properties,
patternProperties, additionalProperties, propertyNames, min/maxProperties, items,
prefixItems, contains/minContains/maxContains, allOf, anyOf, oneOf, not, if/then/else,
dependentSchemas, local $ref). `format` is an annotation, as the standard says, and is not
checked. The keywords no checker here enforces (`unevaluatedProperties`,
`unevaluatedItems`, `$dynamicRef`, references outside the document) are refused when a tool
is defined (`definition.py`), so a schema that reaches this module is enforced whole.

A schema is compiled once into nested closures, so checking the arguments of a small tool costs
a few microseconds.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tooldeck._core.schemas import assertions as a
from tooldeck._core.schemas.applicators import Applicators
from tooldeck._core.schemas.assertions import Check
from tooldeck._core.schemas.refs import RefError, find_anchors, resolve
from tooldeck.errors import ToolDefinitionError

__all__ = ["Check", "SchemaValidator", "check_arguments", "compile_schema"]

_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
_SIZES = ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties")


def compile_schema(schema: Mapping[str, Any] | bool, *, coerce: bool = True) -> Check:
    """Compile a JSON schema into a checker `check(value, path, errors) -> value`."""
    return Compiler(schema, coerce).compile(schema)


def check_arguments(check: Check, arguments: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Run a compiled checker on an arguments object; returns (converted arguments, errors)."""
    errors: list[str] = []
    try:
        out = check(arguments, "", errors)
    except RecursionError:
        return arguments, ["arguments are nested too deeply for this schema"]
    return (out if isinstance(out, dict) else arguments), errors


class SchemaValidator:
    """Lenient and strict checking of values against one schema (the strict checker is
    compiled on first use: only converted values and `is_valid` need it)."""

    __slots__ = ("_strict", "lenient", "schema")

    def __init__(self, schema: Mapping[str, Any] | bool) -> None:
        self.schema = schema
        self.lenient = compile_schema(schema, coerce=True)
        self._strict: Check | None = None

    @property
    def strict(self) -> Check:
        if self._strict is None:
            self._strict = compile_schema(self.schema, coerce=False)
        return self._strict

    def validate(self, arguments: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """The arguments converted as models need, and the errors (empty when valid)."""
        out, errors = check_arguments(self.lenient, arguments)
        if not errors and out is not arguments:
            _, errors = check_arguments(self.strict, out)
        return out, errors

    def is_valid(self, value: Any) -> bool:
        """The exact JSON-Schema verdict, without any conversion."""
        errors: list[str] = []
        try:
            self.strict(value, "", errors)
        except RecursionError:
            return False
        return not errors


class Compiler:
    """Turns schema nodes into checks; references are compiled once and may be recursive."""

    def __init__(self, root: Mapping[str, Any] | bool, coerce: bool) -> None:
        self.root = root
        self.coerce = coerce
        self.refs: dict[str, Check] = {}
        # Compiled nodes by identity: a lenient node's strict twin reuses its children's checks.
        self._done: dict[int, Check] = {}
        self._anchors: dict[str, Any] | None = None
        self._strict: Compiler | None = None
        self.applicators = Applicators(self)

    def strict(self) -> Compiler:
        """The strict twin of a lenient compiler (itself when already strict)."""
        if not self.coerce:
            return self
        if self._strict is None:
            self._strict = Compiler(self.root, False)
        return self._strict

    def compile(self, schema: Any) -> Check:
        if schema is True or (isinstance(schema, Mapping) and not schema):
            return a.identity
        if schema is False:
            return a.never
        if not isinstance(schema, Mapping):
            raise ToolDefinitionError(f"a schema must be an object or a boolean, got {type(schema).__name__}")
        done = self._done.get(id(schema))
        if done is not None:
            return done
        steps = self.steps(schema)
        if not steps:
            check: Check = a.identity
        elif len(steps) == 1:
            check = steps[0]
        else:
            exact = self.strict().steps(schema) if self.coerce else steps
            check = _chain(steps, exact, typed_first="type" in schema)
        self._done[id(schema)] = check
        return check

    def steps(self, schema: Mapping[str, Any]) -> list[Check]:
        """One check per keyword group of the node, in the order they run."""
        return [*self._assertions(schema), *self.applicators.build(schema)]

    def ref(self, ref: str) -> Check:
        """The check for `ref`, compiled once; a reference met again while compiling is recursion
        and is looked up lazily at check time."""
        found = self.refs.get(ref)
        if found is not None:
            return found
        holder: list[Check] = []

        def lazy(value: Any, path: str, errors: list[str]) -> Any:
            return holder[0](value, path, errors)

        self.refs[ref] = lazy
        if self._anchors is None:
            self._anchors = find_anchors(self.root)
        try:
            target = resolve(self.root, ref, self._anchors)
        except RefError as exc:
            raise ToolDefinitionError(str(exc)) from None
        holder.append(self.compile(target))
        return lazy

    def _assertions(self, schema: Mapping[str, Any]) -> list[Check]:
        coerce = self.coerce
        out: list[Check] = []
        kind = schema.get("type")
        if kind is not None:
            out.append(a.typed(kind if isinstance(kind, list) else [kind], coerce))
        if "enum" in schema:
            out.append(a.enum(list(schema["enum"]), coerce))
        if "const" in schema:
            out.append(a.enum([schema["const"]], coerce, "const"))
        bounds = [(k, schema[k]) for k in _BOUNDS if k in schema]
        if bounds:
            out.append(a.numeric(bounds))
        if "multipleOf" in schema:
            out.append(a.multiple_of(schema["multipleOf"]))
        out.extend(a.sized(k, schema[k]) for k in _SIZES if k in schema)
        if "pattern" in schema:
            out.append(a.pattern(_regex(schema["pattern"])))
        if schema.get("uniqueItems") is True:
            out.append(a.unique)
        if "required" in schema:
            props = schema.get("properties", {})
            labels = {n: a.type_label(props.get(n)) for n in schema["required"]}
            out.append(a.required(tuple(schema["required"]), labels))
        if "dependentRequired" in schema:
            out.append(a.dependent_required(schema["dependentRequired"]))
        return out


def _regex(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ToolDefinitionError(f"pattern {pattern!r} is not a regular expression: {exc}") from None


def _chain(steps: list[Check], exact: list[Check], *, typed_first: bool) -> Check:
    """All steps in order, each given the value the previous one returned. A wrong type stops
    the chain (its other keywords would only repeat the complaint); other failures are all
    reported. When a step converted the value, the whole node is checked again on the result,
    exactly (`exact` are the strict twins of `steps`): two conversions that undo each other, or
    a conversion an earlier keyword would not accept, cannot slip through."""

    first, rest = steps[0], steps[1:]

    def check(value: Any, path: str, errors: list[str]) -> Any:
        before = len(errors)
        new = first(value, path, errors)
        if typed_first and len(errors) > before:
            return new
        converted = new is not value
        value = new
        for step in rest:
            new = step(value, path, errors)
            if new is not value:
                converted, value = True, new
        if converted and len(errors) == before:
            for again in exact:
                again(value, path, errors)
        return value

    return check
