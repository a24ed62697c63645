"""Resolving a schema's `$ref`s inside the schema itself.

Tool schemas are single documents: a reference is either a JSON pointer into the document
(`#`, `#/$defs/Point`, `#/properties/a/items`) or a plain-name fragment naming an `$anchor`
(`#point`). Anything else (another file, a URL) cannot be followed offline, so the definition
check refuses it; `resolve` raises `RefError` for it, saying why.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import unquote

from tooldeck._core.schemas.keywords import SUBSCHEMA, SUBSCHEMA_LIST, SUBSCHEMA_MAP


class RefError(Exception):
    """A reference that cannot be resolved inside its document; the message says why."""


def resolve(root: Any, ref: str, anchors: Mapping[str, Any] | None = None) -> Any:
    """The subschema `ref` points to inside `root`."""
    if not ref.startswith("#"):
        raise RefError(
            f"reference {ref!r} points outside this schema; only local references ('#/$defs/...') "
            "can be followed, so inline the definition"
        )
    fragment = unquote(ref[1:])
    if fragment and not fragment.startswith("/"):
        table = anchors if anchors is not None else find_anchors(root)
        if fragment not in table:
            raise RefError(f"reference {ref!r} names an $anchor this schema does not define")
        return table[fragment]
    target = root
    for raw in fragment.split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(target, Mapping) and part in target:
            target = target[part]
        elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
            target = target[int(part)]
        else:
            raise RefError(f"reference {ref!r} points to nothing: there is no {part!r} there")
    if not isinstance(target, Mapping | bool):
        raise RefError(f"reference {ref!r} points to a {type(target).__name__}, not a schema")
    return target


def find_anchors(root: Any) -> dict[str, Any]:
    """Every `$anchor` name in the document, mapped to the schema that declares it."""
    return {
        node["$anchor"]: node
        for node in subschemas(root)
        if isinstance(node, Mapping) and isinstance(node.get("$anchor"), str)
    }


def subschemas(root: Any) -> Iterator[Any]:
    """Every schema node of the document, root first (iterative: depth costs no recursion)."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, Mapping):
            continue
        for key, value in node.items():
            if key in SUBSCHEMA:
                stack.extend(value if isinstance(value, list) else [value])
            elif key in SUBSCHEMA_LIST and isinstance(value, list):
                stack.extend(value)
            elif key in SUBSCHEMA_MAP and isinstance(value, Mapping):
                stack.extend(value.values())
