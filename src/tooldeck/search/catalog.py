"""The searchable catalog: `{name, description, parameters}` entries, names kept verbatim.

A catalog is what `tool_search` looks through (the deferred tools of a loadout) or any JSON
list of tool descriptions (`tooldeck search --catalog FILE`), in the shapes the providers and
MCP publish (see `tooldeck.search.shapes`). Names are never normalised or
checked against tooldeck's own naming rule: a search returns them exactly as the catalog spells
them. Parameter schemas are taken as given, including the non-standard ones some datasets and
servers publish (`"type": "dict"`, `"optional"`, ...); search only reads the words in them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from tooldeck.search.errors import CatalogError
from tooldeck.search.shapes import tool_fields, tool_items


class Tool(Protocol):
    """What search reads of a tool (a tooldeck `Tool` is one): search knows nothing else of it."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> object: ...
    @property
    def parameters(self) -> Mapping[str, Any]: ...


MAX_HASH_DEPTH = 64


def _bounded(value: Any, depth: int) -> Any:
    """A copy of `value` cut at `MAX_HASH_DEPTH`, for schemas too deep (or cyclic) for `json`."""
    if depth > MAX_HASH_DEPTH:
        return "<deeper>"
    if isinstance(value, Mapping):
        return {str(k): _bounded(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_bounded(v, depth + 1) for v in value]
    return value


def _canonical(value: Any) -> str:
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str, separators=(",", ":"))
    except (RecursionError, ValueError):
        return json.dumps(_bounded(value, 0), sort_keys=True, ensure_ascii=False, default=str)


def _clean_text(value: str) -> str:
    # Lone surrogates (from JSON like "\ud800") cannot be encoded; they carry no searchable meaning.
    return value.encode("utf-8", "replace").decode("utf-8") if value else ""


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """One searchable tool: its verbatim name, description and parameter schema (if any)."""

    name: str
    description: str = ""
    parameters: Mapping[str, Any] | None = None
    fingerprint: str = field(default="", compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise CatalogError(f"a catalog entry needs a non-empty string name, got {self.name!r}")
        if not isinstance(self.description, str):
            raise CatalogError(f"{self.name!r}: description must be a string")
        if self.parameters is not None and not isinstance(self.parameters, Mapping):
            raise CatalogError(f"{self.name!r}: parameters must be an object")
        blob = _canonical([self.name, self.description, self.parameters])
        digest = hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()
        object.__setattr__(self, "fingerprint", digest)

    @classmethod
    def from_mapping(cls, item: Any, *, where: str = "entry") -> CatalogEntry:
        """From one tool object in any published shape (`tooldeck.search.shapes`): tooldeck's
        `{"name", "description"?, "parameters"?}`, OpenAI Chat's `{"type": "function",
        "function": {...}}`, Anthropic's `input_schema`, MCP's `inputSchema`, ..."""
        name, description, params = tool_fields(item, where)
        return cls(name, _clean_text(description) if description else "", params)

    @classmethod
    def from_tool(cls, tool: Tool, description: str | None = None) -> CatalogEntry:
        """A tooldeck `Tool` as the model would see it; pass `description` for a live one."""
        text = description if description is not None else tool.description
        return cls(tool.name, text if isinstance(text, str) else "", tool.parameters)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "description": self.description}
        if self.parameters is not None:
            out["parameters"] = self.parameters
        return out


class Catalog:
    """An ordered, immutable list of uniquely named entries with a content hash."""

    def __init__(self, entries: Iterable[CatalogEntry] = ()) -> None:
        self._entries = tuple(entries)
        self._by_name: dict[str, CatalogEntry] = {}
        for entry in self._entries:
            if entry.name in self._by_name:
                raise CatalogError(f"duplicate tool name {entry.name!r} in the catalog")
            self._by_name[entry.name] = entry
        joined = "\n".join(e.fingerprint for e in self._entries)
        self.content_hash = hashlib.sha256(joined.encode()).hexdigest()[:16]

    @classmethod
    def from_json(cls, data: Any) -> Catalog:
        """From a decoded JSON list of tool objects, in any shape `tooldeck.search.shapes` reads."""
        return cls(CatalogEntry.from_mapping(item, where=where) for where, item in tool_items(data))

    @classmethod
    def load(cls, path: str | Path) -> Catalog:
        """Reads a JSON file holding a list of tools (`from_json`); a UTF-8 BOM is allowed."""
        try:
            text = Path(path).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise CatalogError(f"cannot read catalog {path}: {exc}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CatalogError(f"{path}: not valid JSON ({exc})") from None
        return cls.from_json(data)

    @classmethod
    def from_tools(cls, tools: Iterable[Tool], descriptions: Mapping[str, str] | None = None) -> Catalog:
        """From tooldeck `Tool`s; `descriptions` gives rendered texts (e.g. a loadout's)."""
        given = descriptions or {}
        return cls(CatalogEntry.from_tool(t, given.get(t.name)) for t in tools)

    @property
    def entries(self) -> tuple[CatalogEntry, ...]:
        return self._entries

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(e.name for e in self._entries)

    def get(self, name: str) -> CatalogEntry | None:
        return self._by_name.get(name)

    def __getitem__(self, name: str) -> CatalogEntry:
        return self._by_name[name]

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __iter__(self) -> Iterator[CatalogEntry]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Catalog({len(self)} tools, hash={self.content_hash})"
