"""Text at the edges: what is printed for a person, stored, or sent must not break anything.

Tool output and model replies may hold control characters, terminal escape sequences and lone
surrogates (from a bad decode). Shown on a terminal they could retitle or recolour it; written
as UTF-8 they raise. These helpers make text safe for each edge without losing what it says.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def for_terminal(text: str) -> str:
    """`text` safe to print for a person: control characters and escape sequences shown as
    `\\x1b`-style escapes, lone surrogates replaced. Machine output (`--json`) keeps the raw text."""
    cleaned = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    return utf8_safe(cleaned)


def utf8_safe(text: str) -> str:
    """`text` with anything that cannot be encoded as UTF-8 (lone surrogates) replaced by U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)  # one U+FFFD for each
    return text


def json_text(value: Any, *, indent: int | None = 2) -> str:
    """`value` as JSON text that can always be written as UTF-8 and reads back the same: text
    holding a lone surrogate (the session store keeps such text exactly) makes the whole
    document use ASCII escapes (`\\ud800`) instead of failing or being altered. Numbers JSON
    cannot spell are written as null (see `json_dumps`)."""
    text = json_dumps(value, indent=indent, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json_dumps(value, indent=indent)  # ASCII escapes for all beyond ASCII
    return text


def json_dumps(value: Any, **options: Any) -> str:
    """`json.dumps(value, default=str, **options)`, always valid JSON: NaN, Infinity and
    -Infinity (which JSON has no spelling for, and `json.dumps` writes bare) become null, as
    pydantic's `model_dump_json` and JavaScript's `JSON.stringify` write them; as keys they
    become the strings "NaN", "Infinity", "-Infinity". Raises ValueError for a circular value."""
    options.setdefault("default", str)
    try:
        return json.dumps(value, allow_nan=False, **options)
    except ValueError:  # a number out of JSON's range somewhere (or a cycle, raised again below)
        return json.dumps(finite(value), allow_nan=False, **options)


def finite(value: Any, _path: frozenset[int] = frozenset()) -> Any:
    """A copy of `value` with every non-finite float in its dicts, lists and tuples made None (and
    non-finite float keys made strings); a cycle is left in place, for `json.dumps` to report."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if not isinstance(value, dict | list | tuple) or id(value) in _path:
        return value
    inner = _path | {id(value)}
    if isinstance(value, dict):
        return {finite_key(k): finite(v, inner) for k, v in value.items()}
    return [finite(v, inner) for v in value]


def finite_key(key: Any) -> Any:
    """A dict key as JSON spells it: a non-finite float as "NaN"/"Infinity"/"-Infinity"."""
    if isinstance(key, float) and not math.isfinite(key):
        return "NaN" if key != key else ("Infinity" if key > 0 else "-Infinity")
    return key


def exception_text(exc: BaseException) -> str:
    """`str(exc)`, or a note naming why it could not be had: user code may define an exception
    whose `__str__` raises, and turning a failure into text must never fail in its turn."""
    try:
        return utf8_safe(str(exc))
    except Exception as failure:  # boundary: user-defined __str__ may raise anything
        try:
            why = utf8_safe(str(failure))
        except Exception:  # boundary: the second failure's __str__ may raise as well
            why = ""
        return f"<str() failed: {type(failure).__name__}{': ' + why if why else ''}>"


def describe_exception(exc: BaseException) -> str:
    """`TypeName: message` (or the type name alone when the message is empty), never raising."""
    text = exception_text(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
