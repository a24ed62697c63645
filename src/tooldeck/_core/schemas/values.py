"""JSON values as the validator sees them: kinds, equality, short descriptions, and limits.

Python's own comparisons disagree with JSON's in ways that matter to a validator: `True == 1`
and `{"a": True} == {"a": 1}` hold in Python but not in JSON, while `1 == 1.0` holds in both.
`json_key` gives every JSON value a hashable key under which exactly the JSON-equal values
collide, and `enum`, `const` and `uniqueItems` compare through it.

`value_problem` is the guard for arguments that arrive from outside: it bounds nesting depth,
refuses numbers JSON cannot carry (NaN, Infinity, and 1e999, which parses to infinity) and
strings that are not valid Unicode (an unpaired UTF-16 surrogate), without recursing in Python
beyond the depth it allows.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any, Final

# Deeper arguments are refused: no tool needs them, and every layer after parsing recurses.
MAX_DEPTH: Final = 64
# Larger integers are refused: Python will not even print one past about 4300 digits.
MAX_INT_BITS: Final = 8192
# Larger argument texts are refused before parsing.
MAX_ARGUMENT_CHARS: Final = 8 * 1024 * 1024


def json_type(value: Any) -> str:
    """The JSON kind of a Python value ("integer" for ints, "number" for floats)."""
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


def is_kind(kind: str, value: Any) -> bool:
    """Whether `value` is an instance of the JSON-Schema type `kind` (2020-12 rules: 2.0 is an
    integer, booleans are not numbers, NaN and infinities are not JSON numbers at all)."""
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        if isinstance(value, bool):
            return False
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if kind == "number":
        if isinstance(value, bool):
            return False
        return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "null":
        return value is None
    return False


def json_key(value: Any) -> Any:
    """A hashable key equal for exactly the JSON-equal values (1 and 1.0 yes, 1 and true no)."""
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, int | float):
        return ("n", value)  # Python already compares 1 == 1.0 and hashes them alike
    if isinstance(value, str):
        return ("s", value)
    if value is None:
        return ("z",)
    if isinstance(value, list | tuple):
        return ("a", tuple(json_key(v) for v in value))
    if isinstance(value, Mapping):
        return ("o", frozenset((k, json_key(v)) for k, v in value.items()))
    return ("?", id(value))


def describe(value: Any) -> str:
    """A short 'got ...' description of a JSON value for error messages."""
    if value is None:
        return "null"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"string {shown!r}"
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value} (not a JSON number)"
    kind = json_type(value)
    if kind in ("array", "object"):
        return kind
    if kind == "integer" and value.bit_length() > MAX_INT_BITS:
        return f"an integer of {value.bit_length()} bits"
    if kind in ("boolean", "integer", "number"):
        return f"{kind} {json.dumps(value)}"
    return f"a Python {kind}"


def value_problem(value: Any, *, check_strings: bool = True) -> str | None:
    """Why `value` (an arguments object) cannot be passed on, or None when it can.

    Walks iteratively, so a hostile nesting depth costs no Python recursion. `check_strings`
    may be off when the value came from a parser that already rejects unpaired surrogates.
    """
    if type(value) is dict and _flat_and_plain(value, check_strings):
        return None  # the common case, decided without the walk
    stack: list[tuple[Any, int, str]] = [(value, 0, "")]
    while stack:
        node, depth, path = stack.pop()
        if depth > MAX_DEPTH:
            return f"arguments are nested more than {MAX_DEPTH} levels deep (at {path or 'the top'})"
        if isinstance(node, dict):
            for key, item in node.items():
                if not isinstance(key, str):
                    return f"object keys must be strings, got {json_type(key)} at {path or 'the top'}"
                where = f"{path}.{key}" if path else key
                if check_strings and not _valid_text(key):
                    return f"the key {where!r} is not valid Unicode (it holds an unpaired surrogate)"
                problem = _leaf_problem(item, where, check_strings)
                if problem is not None:
                    return problem
                if isinstance(item, dict | list | tuple):
                    stack.append((item, depth + 1, where))
        else:
            for i, item in enumerate(node):
                where = f"{path}[{i}]"
                problem = _leaf_problem(item, where, check_strings)
                if problem is not None:
                    return problem
                if isinstance(item, dict | list | tuple):
                    stack.append((item, depth + 1, where))
    return None


def _flat_and_plain(value: dict[Any, Any], check_strings: bool) -> bool:
    """True for an object of ASCII-keyed scalars with nothing to refuse (most arguments)."""
    for key, item in value.items():
        if type(key) is not str or (check_strings and not key.isascii()):
            return False
        kind = type(item)
        if kind is str:
            if check_strings and not item.isascii():
                return False
        elif kind is int:
            if item.bit_length() > MAX_INT_BITS:
                return False
        elif kind is float:
            if not math.isfinite(item):
                return False
        elif kind is not bool and item is not None:
            return False
    return True


def _leaf_problem(item: Any, where: str, check_strings: bool) -> str | None:
    kind = type(item)
    if kind is str:
        if check_strings and not _valid_text(item):
            return f"field '{where}' is not valid Unicode (it holds an unpaired surrogate)"
        return None
    if kind is float and not math.isfinite(item):
        return f"field '{where}' is {item}, which is not a JSON number (NaN and infinities are refused)"
    if kind is int and item.bit_length() > MAX_INT_BITS:
        return f"field '{where}' is an integer of more than {MAX_INT_BITS} bits; no tool takes such numbers"
    return None


def _valid_text(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
