"""The searchable fields of a catalog entry, read from its name, description and schema.

A tool is found through five kinds of words, weighted differently by the lexical ranker: its
name, its description, the names of its parameters, the descriptions of its parameters, and the
allowed values of its parameters (`enum`), which often name the very things a user asks for
("Comedy", "Celsius"). Schemas are walked leniently (any nesting of `properties`, `items`,
`anyOf`/`oneOf`/`allOf`), with bounds on depth and size so a hostile schema costs little.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tooldeck.search.catalog import CatalogEntry

MAX_DEPTH = 24
MAX_NODES = 2_000
MAX_FIELD_CHARS = 20_000
FIELD_NAMES = ("name", "description", "param_names", "param_text", "param_values")


@dataclass(frozen=True, slots=True)
class EntryFields:
    """The text of each searchable field of one entry."""

    name: str
    description: str
    param_names: str
    param_text: str
    param_values: str

    def as_tuple(self) -> tuple[str, str, str, str, str]:
        return (self.name, self.description, self.param_names, self.param_text, self.param_values)


class _SchemaWalk:
    def __init__(self) -> None:
        self.names: list[str] = []
        self.texts: list[str] = []
        self.values: list[str] = []
        self.nodes = 0

    def visit(self, node: Any, depth: int) -> None:
        self.nodes += 1
        if depth > MAX_DEPTH or self.nodes > MAX_NODES:
            return
        if not isinstance(node, dict) and not isinstance(node, Mapping):
            return
        text = node.get("description")
        if isinstance(text, str):
            self.texts.append(text)
        enum = node.get("enum")
        if isinstance(enum, list):
            self.values.extend(str(v) for v in enum[:100] if isinstance(v, str | int | float))
        props = node.get("properties")
        if isinstance(props, dict | Mapping):
            for key, sub in props.items():
                self.names.append(str(key))
                self.visit(sub, depth + 1)
        for key in ("items", "additionalProperties"):
            self.visit(node.get(key), depth + 1)
        for key in ("anyOf", "oneOf", "allOf"):
            options = node.get(key)
            if isinstance(options, list):
                for sub in options[:50]:
                    self.visit(sub, depth + 1)


def _join(parts: list[str]) -> str:
    return " ".join(parts)[:MAX_FIELD_CHARS]


def entry_fields(entry: CatalogEntry) -> EntryFields:
    """The five searchable fields of `entry`."""
    walk = _SchemaWalk()
    if entry.parameters is not None:
        walk.visit(entry.parameters, 0)
    return EntryFields(
        name=entry.name[:MAX_FIELD_CHARS],
        description=entry.description[:MAX_FIELD_CHARS],
        param_names=_join(walk.names),
        param_text=_join(walk.texts),
        param_values=_join(walk.values),
    )
