"""The one rule for turning a handler's return value into the text the model reads.

- A string is sent as it is; an int as its digits.
- `bytes`/`bytearray` that are valid UTF-8 are sent as that text; other bytes as
  `[binary result: N bytes, not UTF-8 text; base64 follows]` and the base64 of the bytes
  (nothing is silently replaced).
- A pydantic model is sent as its JSON.
- Anything else is sent as JSON: dicts with their keys turned into strings with `str()`
  (a string key stays as it is), lists and tuples as arrays, sets and frozensets as arrays
  (sorted when their items can be compared), bytes inside a structure as the same text or
  base64 string, NaN and infinities as null, and values JSON has no form for (dates, paths,
  decimals, UUIDs, other objects) as their `str()`.
- A value that contains itself, or an iterator/generator/coroutine object (whose items or
  result were never produced), cannot be sent: `ResultNotText` says why, and the executor
  reports that the tool returned a value that cannot be turned into text.
"""

from __future__ import annotations

import base64
import contextlib
import inspect
from collections.abc import Iterator
from typing import Any, cast

from tooldeck._utils.text import finite_key, json_dumps


class ResultNotText(ValueError):
    """A handler's return value has no text form; the message says why."""


def to_text(value: Any) -> str:
    """A handler's plain return value as text, by the rule in this module's docstring."""
    kind = type(value)
    if kind is str:  # the common case first; `type(...) is` does not narrow for mypy, hence cast
        return cast(str, value)
    if kind is int:
        return str(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, bytes | bytearray):
        return _bytes_text(bytes(value), top=True)
    dump = getattr(value, "model_dump_json", None)
    if callable(dump) and not isinstance(value, type):
        return str(dump())
    return json_dumps(jsonable(value), ensure_ascii=False)  # its default: str() for other leaves


def jsonable(value: Any, _inside: frozenset[int] = frozenset()) -> Any:
    """`value` made of what `json.dumps` takes, by this module's rule (leaves it does not know
    stay as they are, for its `default`)."""
    if value is None or isinstance(value, str | int | float):
        return value
    if isinstance(value, bytes | bytearray):
        return _bytes_text(bytes(value), top=False)
    _refuse_unproduced(value)
    if not isinstance(value, dict | list | tuple | set | frozenset):
        dump = getattr(value, "model_dump", None)
        if callable(dump) and not isinstance(value, type):
            return dump(mode="json")
        return value
    if id(value) in _inside:
        raise ResultNotText(
            f"it contains itself (a {type(value).__name__} holding itself); JSON cannot spell that"
        )
    inside = _inside | {id(value)}
    if isinstance(value, dict):
        return {k if isinstance(k, str) else _key(k): jsonable(v, inside) for k, v in value.items()}
    items = [jsonable(v, inside) for v in value]
    if isinstance(value, set | frozenset):
        with contextlib.suppress(TypeError):  # items that do not compare keep the set's own order
            items.sort()
    return items


def _key(key: Any) -> str:
    return str(finite_key(key))  # a non-finite float spelled as json_dumps spells it


def _bytes_text(data: bytes, *, top: bool) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        encoded = base64.b64encode(data).decode("ascii")
    if not top:
        return encoded
    return f"[binary result: {len(data)} bytes, not UTF-8 text; base64 follows]\n{encoded}"


def _refuse_unproduced(value: Any) -> None:
    if inspect.isgenerator(value) or inspect.isasyncgen(value) or isinstance(value, Iterator):
        raise ResultNotText(
            f"it is an iterator ({type(value).__name__}) whose items were never produced; return a list"
        )
    if inspect.isawaitable(value):
        raise ResultNotText(
            f"it is an awaitable ({type(value).__name__}) that was never awaited; make the handler "
            "`async def` and await it, or return its result"
        )
