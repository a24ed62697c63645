"""The leaf keywords of a schema: checks on one value that look at no subschema.

Each builder returns a `Check` (`check(value, path, errors) -> value`). Keywords that apply to
one kind of value (`minLength` to strings, `minimum` to numbers, ...) ignore other kinds, as
JSON Schema says; the `type` keyword is what refuses a wrong kind.

With `coerce=True` the `type` and `enum` checks also accept what models commonly send for a
value of the declared type (`"5"` for 5, `"true"` for true, a JSON array encoded as a string)
and return the converted value.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sized
from decimal import Decimal, InvalidOperation, localcontext
from fractions import Fraction
from typing import Any

from tooldeck._core.schemas.values import describe, is_kind, json_key

Check = Callable[[Any, str, list[str]], Any]

MISSING: Any = object()
_INT = re.compile(r"\s*[+-]?\d+\s*")
_MAX_DIGITS = 3000  # Python refuses to convert longer digit strings (int_max_str_digits)


def field(path: str) -> str:
    return f"field '{path}'" if path else "arguments"


def identity(value: Any, path: str, errors: list[str]) -> Any:
    return value


def never(value: Any, path: str, errors: list[str]) -> Any:
    errors.append(f"{field(path)}: no value is allowed here (got {describe(value)})")
    return value


# -- type, with the coercions models need -----------------------------------------------------


def coerce_to(kind: str, value: Any) -> Any:
    """`value` converted to `kind`, or MISSING when no lenient conversion applies."""
    if isinstance(value, str):
        text = value.strip()
        if kind in ("integer", "number"):
            if _INT.fullmatch(value) and len(text) <= _MAX_DIGITS:
                return int(value)
            num = _finite_float(text)
            if num is not None and (kind == "number" or num.is_integer()):
                return num if kind == "number" else int(num)
        elif kind == "boolean" and text.lower() in ("true", "false"):
            return text.lower() == "true"
        elif kind == "null" and text == "null":
            return None
        elif kind in ("array", "object") and text[:1] in ("[", "{"):
            try:
                parsed = json.loads(text)
            except (ValueError, RecursionError):
                return MISSING
            return parsed if is_kind(kind, parsed) else MISSING
    elif kind == "string" and isinstance(value, int | float) and not isinstance(value, bool):
        return str(value) if math.isfinite(value) else MISSING
    elif kind == "integer" and isinstance(value, float) and value.is_integer():
        return int(value)
    return MISSING


def _finite_float(text: str) -> float | None:
    try:
        num = float(text)
    except ValueError:
        return None
    return num if math.isfinite(num) else None


# The Python types that are, by themselves, always of a JSON kind: the hot path of `typed`.
_EXACT: dict[str, type] = {"string": str, "integer": int, "number": int, "boolean": bool, "object": dict,
                           "array": list}  # fmt: skip


def typed(kinds: list[str], coerce: bool) -> Check:
    label = " or ".join(kinds)
    # An integral float is a JSON integer; the handler still gets a Python int.
    to_int = coerce and "integer" in kinds and "number" not in kinds
    exact = frozenset(_EXACT[k] for k in kinds if k in _EXACT)

    def check(value: Any, path: str, errors: list[str]) -> Any:
        if type(value) in exact:
            return value
        for kind in kinds:
            if is_kind(kind, value):
                return int(value) if to_int and type(value) is float else value
        if coerce:
            for kind in kinds:
                new = coerce_to(kind, value)
                if new is not MISSING:
                    return new
        errors.append(f"{field(path)}: expected {label}, got {describe(value)}")
        return value

    return check


# -- enum and const ----------------------------------------------------------------------------


def enum(allowed: list[Any], coerce: bool, keyword: str = "enum") -> Check:
    keys = {json_key(v): v for v in allowed}
    shown = ", ".join(json.dumps(v) for v in allowed[:20]) + (", ..." if len(allowed) > 20 else "")
    wanted = f"expected {shown}" if keyword == "const" else f"expected one of {shown}"
    # "5" for an enum of numbers (and 5 for an enum of strings) still names one option.
    by_text = {str(v): v for v in allowed if isinstance(v, str | int | float) and not isinstance(v, bool)}

    def check(value: Any, path: str, errors: list[str]) -> Any:
        key = json_key(value)
        if key in keys:
            return value
        if coerce and isinstance(value, str | int | float) and not isinstance(value, bool):
            hit = by_text.get(str(value).strip() if isinstance(value, str) else str(value), MISSING)
            if hit is not MISSING:
                return hit
        errors.append(f"{field(path)}: {wanted}, got {describe(value)}")
        return value

    return check


# -- numbers -------------------------------------------------------------------------------------

_NUMERIC: dict[str, tuple[Callable[[float, float], bool], str]] = {
    "minimum": (lambda v, n: v >= n, "must be >= {}"),
    "maximum": (lambda v, n: v <= n, "must be <= {}"),
    "exclusiveMinimum": (lambda v, n: v > n, "must be > {}"),
    "exclusiveMaximum": (lambda v, n: v < n, "must be < {}"),
}


def numeric(bounds: list[tuple[str, float]]) -> Check:
    tests = [(_NUMERIC[k][0], limit, _NUMERIC[k][1].format(limit)) for k, limit in bounds]

    def check(value: Any, path: str, errors: list[str]) -> Any:
        if isinstance(value, int | float) and not isinstance(value, bool):
            for ok, limit, message in tests:
                if not ok(value, limit):
                    errors.append(f"{field(path)}: {message}, got {describe(value)}")
        return value

    return check


def multiple_of(divisor: float) -> Check:
    def check(value: Any, path: str, errors: list[str]) -> Any:
        if isinstance(value, int | float) and not isinstance(value, bool) and not is_multiple(value, divisor):
            errors.append(f"{field(path)}: must be a multiple of {divisor}, got {describe(value)}")
        return value

    return check


def is_multiple(value: float, divisor: float) -> bool:
    """Exact for the binary values; a fractional divisor such as 0.1 is also read as the decimal
    it was written as, so 0.3 is a multiple of 0.1 (float division alone says it is not)."""
    if isinstance(value, int) and isinstance(divisor, int):
        return value % divisor == 0
    if not math.isfinite(value):
        return False
    if (Fraction(value) / Fraction(divisor)).denominator == 1:
        return True
    if float(divisor).is_integer():
        return False
    with localcontext() as ctx:
        ctx.prec = 800  # enough digits for any quotient of two doubles
        try:
            return Decimal(repr(value)) % Decimal(repr(divisor)) == 0
        except InvalidOperation:
            return False


# -- strings, arrays, objects: sizes -------------------------------------------------------------

_SIZES: dict[str, tuple[type[Sized], Callable[[int, int], bool], str]] = {
    "minLength": (str, lambda n, k: n >= k, "must be at least {} characters long"),
    "maxLength": (str, lambda n, k: n <= k, "must be at most {} characters long"),
    "minItems": (list, lambda n, k: n >= k, "must have at least {} items"),
    "maxItems": (list, lambda n, k: n <= k, "must have at most {} items"),
    "minProperties": (dict, lambda n, k: n >= k, "must have at least {} properties"),
    "maxProperties": (dict, lambda n, k: n <= k, "must have at most {} properties"),
}


def sized(keyword: str, limit: int) -> Check:
    kind, ok, message = _SIZES[keyword]
    text = message.format(limit)

    def check(value: Any, path: str, errors: list[str]) -> Any:
        if isinstance(value, kind) and not ok(len(value), limit):
            errors.append(f"{field(path)}: {text} (has {len(value)})")
        return value

    return check


def pattern(regex: re.Pattern[str]) -> Check:
    def check(value: Any, path: str, errors: list[str]) -> Any:
        if isinstance(value, str) and not regex.search(value):
            errors.append(f"{field(path)}: must match the pattern {regex.pattern!r}, got {describe(value)}")
        return value

    return check


def unique(value: Any, path: str, errors: list[str]) -> Any:
    if isinstance(value, list) and len({json_key(v) for v in value}) != len(value):
        errors.append(f"{field(path)}: items must be unique")
    return value


def required(names: tuple[str, ...], labels: Mapping[str, str | None]) -> Check:
    def check(value: Any, path: str, errors: list[str]) -> Any:
        if isinstance(value, dict):
            for name in names:
                if name not in value:
                    where = f"{path}.{name}" if path else name
                    label = labels.get(name)
                    errors.append(f"missing required field '{where}'" + (f" ({label})" if label else ""))
        return value

    return check


def dependent_required(table: Mapping[str, list[str]]) -> Check:
    def check(value: Any, path: str, errors: list[str]) -> Any:
        if isinstance(value, dict):
            for key, needs in table.items():
                if key in value:
                    missing = [n for n in needs if n not in value]
                    if missing:
                        errors.append(
                            f"{field(path)}: '{key}' is given, so {', '.join(repr(m) for m in missing)} "
                            "must be given too"
                        )
        return value

    return check


def type_label(schema: Any) -> str | None:
    """A short name for what a property expects ("integer", "one of "a", "b"")."""
    if not isinstance(schema, Mapping):
        return None
    t = schema.get("type")
    if isinstance(t, list):
        return " or ".join(str(x) for x in t)
    if t is not None:
        return str(t)
    if "enum" in schema and isinstance(schema["enum"], list):
        return "one of " + ", ".join(json.dumps(v) for v in schema["enum"][:10])
    return None
