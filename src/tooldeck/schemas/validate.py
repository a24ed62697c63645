"""Validate arguments against a tool's JSON schema, with the lenient coercion models need (X2).

Models often send `"5"` for an integer, `"0.5"` for a number, `"true"` for a boolean, or a JSON
array encoded as a string. These are coerced to the declared type; anything that still does
not fit is an error naming the field (`items[2].name`) and the expected type.

A schema is compiled once into nested closures (cached per schema object), so checking the
arguments of a small tool costs a few microseconds. Supported keywords: type (one or a list),
properties, required, additionalProperties, items, prefixItems, enum, const, anyOf/oneOf/allOf,
$ref into $defs/definitions, min/max(Length|Items|imum), exclusive bounds, multipleOf, pattern,
uniqueItems. Other keywords (format, ...) are accepted without checking.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

Check = Callable[[Any, str, list[str]], Any]

_MISSING = object()
_INT = re.compile(r"\s*[+-]?\d+\s*")


def compile_schema(schema: Mapping[str, Any] | bool) -> Check:
    """Compile a JSON schema into a checker `check(value, path, errors) -> coerced value`."""
    return _Compiler(schema).compile(schema)


def check_arguments(check: Check, arguments: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Run a compiled checker on an arguments object; returns (coerced arguments, errors)."""
    errors: list[str] = []
    out = check(arguments, "", errors)
    return (out if isinstance(out, dict) else arguments), errors


def describe(value: Any) -> str:
    """A short 'got ...' description of a JSON value for error messages."""
    kind = _json_type(value)
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"string {shown!r}"
    if kind in ("array", "object"):
        return kind
    return f"{kind} {json.dumps(value)}"


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def _field(path: str) -> str:
    return f"field '{path}'" if path else "arguments"


class _Compiler:
    def __init__(self, root: Mapping[str, Any] | bool) -> None:
        self.root = root
        self.refs: dict[str, Check] = {}

    def compile(self, schema: Mapping[str, Any] | bool) -> Check:
        if schema is True or schema == {}:
            return _identity
        if schema is False:
            return _never
        assert isinstance(schema, Mapping)
        steps: list[Check] = []
        if "$ref" in schema:
            steps.append(self._ref(str(schema["$ref"])))
        for key in ("allOf",):
            for sub in schema.get(key, ()):
                steps.append(self.compile(sub))
        if "anyOf" in schema or "oneOf" in schema:
            steps.append(
                self._any_of([self.compile(s) for s in schema.get("anyOf", schema.get("oneOf", ()))])
            )
        types = schema.get("type")
        if types is not None:
            steps.append(_typed(types if isinstance(types, list) else [types]))
        steps.extend(_constraints(schema))
        if "properties" in schema or "required" in schema or "additionalProperties" in schema:
            steps.append(self._object(schema))
        if "items" in schema or "prefixItems" in schema:
            steps.append(self._array(schema))
        if not steps:
            return _identity
        if len(steps) == 1:
            return steps[0]
        return _chain(steps)

    def _ref(self, ref: str) -> Check:
        if ref in self.refs:
            return self.refs[ref]
        holder: list[Check] = []

        def lazy(value: Any, path: str, errors: list[str]) -> Any:
            return holder[0](value, path, errors)

        self.refs[ref] = lazy
        target: Any = self.root
        if not ref.startswith("#"):
            holder.append(_identity)  # remote refs are not followed
            return lazy
        for part in ref.lstrip("#").strip("/").split("/"):
            if not part:
                continue
            target = (
                target.get(part.replace("~1", "/").replace("~0", "~"))
                if isinstance(target, Mapping)
                else None
            )
        holder.append(self.compile(target) if isinstance(target, Mapping | bool) else _identity)
        return lazy

    def _any_of(self, options: list[Check]) -> Check:
        def check(value: Any, path: str, errors: list[str]) -> Any:
            first: list[str] = []
            for option in options:
                trial: list[str] = []
                out = option(value, path, trial)
                if not trial:
                    return out
                if not first:
                    first = trial
            errors.append(
                first[0]
                if len(first) == 1
                else f"{_field(path)}: matches none of the allowed forms ({describe(value)})"
            )
            return value

        return check

    def _object(self, schema: Mapping[str, Any]) -> Check:
        props = {k: self.compile(v) for k, v in schema.get("properties", {}).items()}
        prop_types = {k: _type_label(v) for k, v in schema.get("properties", {}).items()}
        required = tuple(schema.get("required", ()))
        required_set = frozenset(required)
        extra = schema.get("additionalProperties", True)
        extra_check = None if isinstance(extra, bool) else self.compile(extra)

        def check(value: Any, path: str, errors: list[str]) -> Any:
            if not isinstance(value, dict):
                return value  # the type step reported it
            out: dict[str, Any] | None = None
            for name in required:
                if name not in value:
                    label = prop_types.get(name)
                    errors.append(
                        f"missing required field '{_join(path, name)}'" + (f" ({label})" if label else "")
                    )
            for key, item in value.items():
                sub = props.get(key)
                if sub is None:
                    if extra is False:
                        known = ", ".join(sorted(props)) or "none"
                        errors.append(f"unknown field '{_join(path, key)}' (known fields: {known})")
                        continue
                    if extra_check is None:
                        continue
                    sub = extra_check
                if item is None and key not in required_set:
                    # OpenAI strict mode shows optional fields as nullable, so models send null
                    # for "not given": when the field itself does not allow null, drop it.
                    trial: list[str] = []
                    sub(item, key, trial)
                    if trial:
                        if out is None:
                            out = dict(value)
                        del out[key]
                        continue
                new = sub(item, _join(path, key), errors)
                if new is not item:
                    if out is None:
                        out = dict(value)
                    out[key] = new
            return value if out is None else out

        return check

    def _array(self, schema: Mapping[str, Any]) -> Check:
        prefix = [self.compile(s) for s in schema.get("prefixItems", ())]
        items = schema.get("items")
        item_check = self.compile(items) if isinstance(items, Mapping | bool) else None

        def check(value: Any, path: str, errors: list[str]) -> Any:
            if not isinstance(value, list):
                return value
            out = value
            for i, item in enumerate(value):
                sub = prefix[i] if i < len(prefix) else item_check
                if sub is None:
                    continue
                new = sub(item, f"{path}[{i}]", errors)
                if new is not item:
                    if out is value:
                        out = list(value)
                    out[i] = new
            return out

        return check


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _type_label(schema: Any) -> str | None:
    if not isinstance(schema, Mapping):
        return None
    t = schema.get("type")
    if isinstance(t, list):
        return " or ".join(str(x) for x in t)
    if t is not None:
        return str(t)
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(v) for v in schema["enum"])
    return None


def _identity(value: Any, path: str, errors: list[str]) -> Any:
    return value


def _never(value: Any, path: str, errors: list[str]) -> Any:
    errors.append(f"{_field(path)}: no value is allowed here")
    return value


def _chain(steps: list[Check]) -> Check:
    def check(value: Any, path: str, errors: list[str]) -> Any:
        before = len(errors)
        for step in steps:
            value = step(value, path, errors)
            if len(errors) > before:
                break
        return value

    return check


# -- types and coercion ----------------------------------------------------------------------


def _is(kind: str, value: Any) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "null":
        return value is None
    return True  # unknown type names are not ours to police


def _coerce(kind: str, value: Any) -> Any:
    """The value converted to `kind`, or _MISSING when no lenient conversion applies."""
    if kind == "integer":
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str):
            if _INT.fullmatch(value):
                return int(value)
            num = _float(value)
            if num is not None and num.is_integer():
                return int(num)
    elif kind == "number":
        if isinstance(value, str):
            if _INT.fullmatch(value):
                return int(value)
            num = _float(value)
            if num is not None:
                return num
    elif kind == "boolean":
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
    elif kind == "string":
        if isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)
    elif kind in ("array", "object") and isinstance(value, str) and value.strip()[:1] in ("[", "{"):
        try:
            parsed = json.loads(value)
        except ValueError:
            return _MISSING
        if _is(kind, parsed):
            return parsed
    elif kind == "null" and isinstance(value, str) and value.strip() == "null":
        return None
    return _MISSING


def _float(text: str) -> float | None:
    try:
        num = float(text)
    except ValueError:
        return None
    return num if math.isfinite(num) else None


def _typed(kinds: list[str]) -> Check:
    label = " or ".join(kinds)
    if len(kinds) == 1:
        kind = kinds[0]

        def check_one(value: Any, path: str, errors: list[str]) -> Any:
            if _is(kind, value):
                return value
            new = _coerce(kind, value)
            if new is _MISSING:
                errors.append(f"{_field(path)}: expected {label}, got {describe(value)}")
                return value
            return new

        return check_one

    def check_many(value: Any, path: str, errors: list[str]) -> Any:
        for kind in kinds:
            if _is(kind, value):
                return value
        for kind in kinds:
            new = _coerce(kind, value)
            if new is not _MISSING:
                return new
        errors.append(f"{_field(path)}: expected {label}, got {describe(value)}")
        return value

    return check_many


def _constraints(schema: Mapping[str, Any]) -> list[Check]:
    out: list[Check] = []
    if "enum" in schema:
        out.append(_enum(list(schema["enum"])))
    if "const" in schema:
        out.append(_enum([schema["const"]]))
    bounds = [(k, schema[k]) for k in _BOUNDS if k in schema and isinstance(schema[k], int | float)]
    if bounds:
        out.append(_bounded(bounds))
    if "pattern" in schema and isinstance(schema["pattern"], str):
        out.append(_pattern(schema["pattern"]))
    if schema.get("uniqueItems") is True:
        out.append(_unique)
    return out


def _enum(allowed: list[Any]) -> Check:
    shown = ", ".join(json.dumps(v) for v in allowed[:20]) + (", ..." if len(allowed) > 20 else "")

    def check(value: Any, path: str, errors: list[str]) -> Any:
        for option in allowed:
            if value == option and (
                type(value) is type(option) or (_is("number", value) and _is("number", option))
            ):
                return option
        # "5" for an enum of numbers (and 5 for an enum of strings) still names one option.
        for option in allowed:
            if (
                isinstance(value, str | int | float)
                and str(value) == str(option)
                and not isinstance(value, bool)
            ):
                return option
        errors.append(f"{_field(path)}: expected one of {shown}, got {describe(value)}")
        return value

    return check


_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
           "minItems", "maxItems", "multipleOf")  # fmt: skip


def _bounded(bounds: list[tuple[str, float]]) -> Check:
    def check(value: Any, path: str, errors: list[str]) -> Any:
        for key, limit in bounds:
            problem = _bound_problem(key, limit, value)
            if problem:
                errors.append(f"{_field(path)}: {problem}")
        return value

    return check


def _bound_problem(key: str, limit: float, value: Any) -> str | None:
    if key in ("minLength", "maxLength") and isinstance(value, str):
        n = len(value)
        bad = n < limit if key == "minLength" else n > limit
        return (
            f"must be {'at least' if key == 'minLength' else 'at most'} {limit} characters long"
            if bad
            else None
        )
    if key in ("minItems", "maxItems") and isinstance(value, list):
        n = len(value)
        bad = n < limit if key == "minItems" else n > limit
        return f"must have {'at least' if key == 'minItems' else 'at most'} {limit} items" if bad else None
    if not _is("number", value):
        return None
    checks = {
        "minimum": (value < limit, f"must be >= {limit}"),
        "maximum": (value > limit, f"must be <= {limit}"),
        "exclusiveMinimum": (value <= limit, f"must be > {limit}"),
        "exclusiveMaximum": (value >= limit, f"must be < {limit}"),
        "multipleOf": (
            limit != 0 and not math.isclose(value / limit, round(value / limit)),
            f"must be a multiple of {limit}",
        ),
    }
    bad, message = checks.get(key, (False, ""))
    return message if bad else None


def _pattern(pattern: str) -> Check:
    try:
        regex = re.compile(pattern)
    except re.error:
        return _identity  # a schema with a broken pattern is the tool author's bug; do not block calls

    def check(value: Any, path: str, errors: list[str]) -> Any:
        if isinstance(value, str) and not regex.search(value):
            errors.append(f"{_field(path)}: must match the pattern {pattern!r}, got {describe(value)}")
        return value

    return check


def _unique(value: Any, path: str, errors: list[str]) -> Any:
    if isinstance(value, list):
        seen = [json.dumps(v, sort_keys=True, default=str) for v in value]
        if len(set(seen)) != len(seen):
            errors.append(f"{_field(path)}: items must be unique")
    return value
